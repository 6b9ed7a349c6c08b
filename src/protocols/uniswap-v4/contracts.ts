import { getAbiItem } from "viem";
import { PoolManagerAbi } from "../../../abis/PoolManager.js";
import { type ChainSetup, eventsFrom } from "../../../engine/index.js";
import { perChain } from "../per-chain.js";

/**
 * The pool manager, on the chains with Uniswap V4 configured: its pools' `Initialize` from its
 * deployment (`UniswapV4Pools`: every pool is known), everything else they do from the chain's
 * start (`PoolManager`; before it, their state is read, src/state-start/).
 */
export function uniswapV4Contracts(chains: readonly ChainSetup[]) {
  return {
    UniswapV4Pools: {
      abi: [getAbiItem({ abi: PoolManagerAbi, name: "Initialize" })] as const,
      chain: perChain(chains, (c) => {
        const v4 = c.uniswapV4;
        return v4 && { address: v4.poolManager, startBlock: v4.startBlock };
      }),
    },
    PoolManager: {
      abi: PoolManagerAbi,
      chain: perChain(chains, (c) => {
        const v4 = c.uniswapV4;
        return v4 && { address: v4.poolManager, startBlock: eventsFrom(c, v4.startBlock) };
      }),
    },
  };
}
