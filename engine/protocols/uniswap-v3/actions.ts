/** Uniswap V3's bundle action: `swap` on a named pool. */
import { poolHop } from "../../bundle/actions/pool-action.js";
import type { ActionSpec } from "../../bundle/actions/types.js";

/** Uniswap V3's actions, by method. */
export const uniswapV3Actions: Record<string, ActionSpec> = { swap: poolHop("v3", "swap") };
