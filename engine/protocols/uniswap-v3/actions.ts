/** Uniswap V3's bundle action: `swap` on a named pool. */
import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import { poolHop } from "../../bundle/actions/pool-action.js";
import type { ActionSpec } from "../../bundle/actions/types.js";
import type { ProtocolMethod } from "../types.js";

/** Uniswap V3's actions, by method. */
export const uniswapV3Actions: Record<string, ActionSpec> = { swap: poolHop("v3", "swap") };

/** The `swap` method as `/v1/standards` lists it. */
export const uniswapV3SwapMethod: ProtocolMethod = {
  method: "swap",
  name: "Swap",
  functionNames: ["swap", "uniswapV3SwapCallback"],
  inputs: {
    primaryAddress: "Pool address",
    tokenIn: "Token to sell",
    tokenOut: "Token to buy",
    amountIn: AMOUNT_DESCRIPTION,
  },
  outputs: { amountOut: "Amount of tokenOut received" },
};
