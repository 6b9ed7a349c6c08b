/**
 * One edge's exact quote and gas, from its pool kind (`engine/protocols/<slug>/pool.ts`): the pool
 * math of each kind, equal to the chain to the wei.
 */

import { type EdgeQuote, ZERO_OUTPUT } from "../core/quote.js";
import type { Edge } from "../core/types.js";
import { poolModelOf } from "./pool-model.js";

export type { EdgeQuote, EdgeQuoteFailure } from "../core/quote.js";

/**
 * Quotes `amountIn` through `edge` and says why it cannot when it cannot: a V3 pool that runs
 * out of liquidity before the input is spent or whose price already sits at the swap's price
 * limit, a redeem of more shares than exist, or an output that rounds to zero.
 */
export function simulateEdge(edge: Edge, amountIn: bigint): EdgeQuote {
  if (amountIn <= 0n) return ZERO_OUTPUT;
  return poolModelOf(edge.pool).quote(edge, amountIn);
}

/**
 * The exact output of `amountIn` through `edge`, or `undefined` when the pool cannot fill it
 * (see {@link simulateEdge} for the reason).
 * @example quoteEdge({ pool: pair, tokenIn: weth, tokenOut: usdc, action: "swap" }, 10n ** 18n)
 */
export function quoteEdge(edge: Edge, amountIn: bigint): bigint | undefined {
  const quote = simulateEdge(edge, amountIn);
  return quote.ok ? quote.amountOut : undefined;
}

/** Gas units of the edge's steps, `ticksCrossed` by its quote (bench/results/routing-gas.md). */
export function edgeGas(edge: Edge, ticksCrossed: number): number {
  return poolModelOf(edge.pool).gas(edge, ticksCrossed);
}
