/**
 * What quoting one edge yields, exactly (`EdgeQuote`) or approximately (`ApproxQuote`,
 * `ApproxSpot`): the vocabulary every pool kind's quotes are written in.
 */

/**
 * Why an edge cannot take an input: more than the pool can fill, a V3 pool whose price sits at
 * the swap's price limit (the pool reverts 'SPL': the edge takes nothing in that direction),
 * or an output that rounds to zero.
 */
export type EdgeQuoteFailure = "exceeds-liquidity" | "price-limit" | "zero-output";

export type EdgeQuote =
  | { ok: true; amountOut: bigint /** V3 only: initialized ticks crossed. */; ticksCrossed: number }
  | { ok: false; reason: EdgeQuoteFailure };

export const ZERO_OUTPUT: EdgeQuote = { ok: false, reason: "zero-output" };
export const EXCEEDS_LIQUIDITY: EdgeQuote = { ok: false, reason: "exceeds-liquidity" };

/** The quote of an output that crossed no tick: zero rounds to a failure. */
export function outputQuote(amountOut: bigint): EdgeQuote {
  return amountOut > 0n ? { ok: true, amountOut, ticksCrossed: 0 } : ZERO_OUTPUT;
}

/** What an approximate quote yields: `out` is NaN when the pool cannot fill the input. */
export type ApproxQuote = { out: number; ticksCrossed: number };

/** `approxEdge` for one edge, with the pool's model looked up once (for repeated quotes). */
export type ApproxEdgeQuoter = (amountIn: number, result: ApproxQuote) => ApproxQuote;

/**
 * An edge's mid price (tokenOut per tokenIn, raw units) and its pool's depth in tokenIn: 0 for
 * a V3 pool at its price limit that way, which takes nothing in (its mid price backs no trade).
 */
export type ApproxSpot = { rate: number; depthIn: number };
