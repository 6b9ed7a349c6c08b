/**
 * Floating-point shadows of the pool math, for ranking many candidates fast. Each pool kind
 * (`engine/protocols/<slug>/pool.ts`) writes its own: they follow the exact math's shape (a V3 swap
 * still walks its initialized ticks) and are off only by float rounding, so the ranking they
 * give is the exact one but for near-ties; every amount the engine returns is re-quoted
 * exactly in `bigint`. These numbers are never amounts.
 */

import type { ApproxEdgeQuoter, ApproxQuote, ApproxSpot } from "../core/quote.js";
import type { Edge } from "../core/types.js";
import { poolModelOf } from "./pool-model.js";

export type { ApproxEdgeQuoter, ApproxQuote, ApproxSpot } from "../core/quote.js";

/**
 * Approximately what `amountIn` through `edge` yields, written into `result` (reused by the
 * caller to avoid allocating in the search's inner loop).
 */
export function approxEdge(edge: Edge, amountIn: number, result: ApproxQuote): ApproxQuote {
  return poolModelOf(edge.pool).approx(edge, amountIn, result);
}

/** `approxEdge` for one edge, with the pool's model looked up once (for repeated quotes). */
export function approxEdgeQuoter(edge: Edge): ApproxEdgeQuoter {
  return poolModelOf(edge.pool).approxQuoter(edge);
}

/** The mid price and depth of `edge` from the float models, written into `result`. */
export function approxSpot(edge: Edge, result: ApproxSpot): ApproxSpot {
  return poolModelOf(edge.pool).approxSpot(edge, result);
}
