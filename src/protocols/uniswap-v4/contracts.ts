import { PoolManagerAbi } from "../../../abis/PoolManager.js";
import type { ChainSetup } from "../../../engine/index.js";
import { perChain } from "../per-chain.js";

/** The pool manager, on the chains with Uniswap V4 configured: every V4 pool's events. */
export function uniswapV4Contracts(chains: readonly ChainSetup[]) {
  return {
    PoolManager: {
      abi: PoolManagerAbi,
      chain: perChain(chains, (c) => {
        const v4 = c.uniswapV4;
        return v4 && { address: v4.poolManager, startBlock: v4.startBlock };
      }),
    },
  };
}
