/** Exact quotes of a whole path, hop by hop. */

import type { Edge, QuotedLeg } from "../core/types.js";
import { type EdgeQuoteFailure, edgeGas, simulateEdge } from "./quote-edge.js";

export type PathQuote =
  | {
      ok: true;
      leg: QuotedLeg;
      /** Gas of the path's steps (the route's fixed part excluded). */
      gas: number;
    }
  | { ok: false; reason: EdgeQuoteFailure };

/** Quotes `amountIn` along `edges`, each hop taking the previous hop's output. */
export function quotePath(edges: readonly Edge[], amountIn: bigint): PathQuote {
  const hops: QuotedLeg["hops"] = [];
  let amount = amountIn;
  let gas = 0;
  for (const edge of edges) {
    const quote = simulateEdge(edge, amount);
    if (!quote.ok) return quote;
    hops.push({ edge, amountIn: amount, amountOut: quote.amountOut });
    gas += edgeGas(edge, quote.ticksCrossed);
    amount = quote.amountOut;
  }
  return { ok: true, leg: { amountIn, amountOut: amount, hops }, gas };
}

/**
 * Only the output of `amountIn` along `edges`: 0 when a hop's output rounds to zero, undefined
 * when a pool cannot take its input.
 */
export function quotePathOut(edges: readonly Edge[], amountIn: bigint): bigint | undefined {
  let amount = amountIn;
  for (const edge of edges) {
    const quote = simulateEdge(edge, amount);
    if (!quote.ok) return quote.reason === "zero-output" ? 0n : undefined;
    amount = quote.amountOut;
  }
  return amount;
}
