import { PoolManagerAbi } from "../../../abis/PoolManager.js";
import { type ChainSetup, eventsFrom } from "../../../engine/index.js";
import { perChain } from "../per-chain.js";

/**
 * The pool manager, on the chains with Uniswap V4 configured: its pools' events, `Initialize`
 * included, from the chain's start; the pools initialized before it are found from the
 * manager's logs and their state read (src/state-start/).
 */
export function uniswapV4Contracts(chains: readonly ChainSetup[]) {
  return {
    PoolManager: {
      abi: PoolManagerAbi,
      chain: perChain(chains, (c) => {
        const v4 = c.uniswapV4;
        return v4 && { address: v4.poolManager, startBlock: eventsFrom(c, v4.startBlock) };
      }),
    },
  };
}
