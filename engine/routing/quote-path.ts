/** Exact quotes of a whole path, hop by hop. */

import type { EdgeQuoteFailure } from "../core/quote.js";
import type { Edge, QuotedLeg } from "../core/types.js";
import type { PoolModels } from "./pool-model.js";

export type PathQuote =
  | {
      ok: true;
      leg: QuotedLeg;
      /** Gas of the path's steps (the route's fixed part excluded). */
      gas: number;
    }
  | { ok: false; reason: EdgeQuoteFailure };

/** Quotes `amountIn` along `edges` (pools of `models`), each hop taking the previous hop's output. */
export function quotePath(models: PoolModels, edges: readonly Edge[], amountIn: bigint): PathQuote {
  const hops: QuotedLeg["hops"] = [];
  let amount = amountIn;
  let gas = 0;
  for (const edge of edges) {
    const quote = models.simulate(edge, amount);
    if (!quote.ok) return quote;
    hops.push({ edge, amountIn: amount, amountOut: quote.amountOut });
    gas += models.gas(edge, quote.ticksCrossed);
    amount = quote.amountOut;
  }
  return { ok: true, leg: { amountIn, amountOut: amount, hops }, gas };
}

/**
 * Only the output of `amountIn` along `edges`: 0 when a hop's output rounds to zero, undefined
 * when a pool cannot take its input.
 */
export function quotePathOut(
  models: PoolModels,
  edges: readonly Edge[],
  amountIn: bigint,
): bigint | undefined {
  let amount = amountIn;
  for (const edge of edges) {
    const quote = models.simulate(edge, amount);
    if (!quote.ok) return quote.reason === "zero-output" ? 0n : undefined;
    amount = quote.amountOut;
  }
  return amount;
}
