/**
 * What the routing layer needs of one kind of pool — its edges, exact quote, float shadows,
 * spot price, depth and gas — and the table of the kinds installed. The routing layer knows no
 * protocol: each protocol's folder (`engine/protocols/<slug>/pool.ts`) writes the model of its
 * pools, and the engine's composition root (`engine/index.ts`) installs it here.
 */
import { PoolKindConflictError, UnknownPoolKindError } from "../core/errors.js";
import type { ApproxEdgeQuoter, ApproxQuote, ApproxSpot, EdgeQuote } from "../core/quote.js";
import type { Address, Edge, Pool } from "../core/types.js";

/** An edge through a pool of kind `P`. */
export type EdgeOf<P extends Pool> = Omit<Edge, "pool"> & { pool: P };

/** The routing model of one kind of pool. */
export type PoolModel<P extends Pool> = {
  kind: P["kind"];
  /** The directed edges one pool adds to the routing graph. */
  edges: (pool: P) => Edge[];
  /**
   * Edges that only begin or end a route, into or out of the pool's own token (a V2 pair's
   * LP token): not indexed under the other token, so a search never passes through them; the
   * graph adds them to that token's own edges (`edgesFrom`, `edgesInto`, `edgesBetween`).
   */
  terminalEdges?: (pool: P) => Edge[];
  /** The exact output of `amountIn` (> 0) through `edge`, equal to the chain's, or why not. */
  quote: (edge: EdgeOf<P>, amountIn: bigint) => EdgeQuote;
  /** Approximately what `amountIn` yields, written into `result` (no allocation). */
  approx: (edge: EdgeOf<P>, amountIn: number, result: ApproxQuote) => ApproxQuote;
  /** `approx` with the pool's model looked up once, for repeated quotes of one edge. */
  approxQuoter: (edge: EdgeOf<P>) => ApproxEdgeQuoter;
  /** The edge's mid price and depth in tokenIn, from the float model, into `result`. */
  approxSpot: (edge: EdgeOf<P>, result: ApproxSpot) => ApproxSpot;
  /** How much of `side`'s token the pool holds (virtual in-range reserves for V3), as a float. */
  depth: (edge: EdgeOf<P>, side: "in" | "out") => number;
  /** The exact price of tokenOut given the exact price of tokenIn (same fixed-point scale). */
  priceAcross: (edge: EdgeOf<P>, price: bigint) => bigint;
  /** Gas units of the hop's steps (bench/results/routing-gas.md). */
  gas: (edge: EdgeOf<P>, ticksCrossed: number) => number;
  /**
   * How a route step names the pool when its address does not (a V4 pool: its manager and its
   * PoolId); absent: `primaryAddress` is the pool's address.
   */
  stepPool?: (pool: P) => { primaryAddress: Address; poolId: string };
  /** The pool holds no state a path could exhaust (a wrapper): never excluded from a search. */
  stateless: boolean;
};

/** The two swap edges of a two-token pool: token0 → token1 and token1 → token0. */
export function swapsBothWays(pool: Pool & { token0: Address; token1: Address }): Edge[] {
  return [
    { pool, tokenIn: pool.token0, tokenOut: pool.token1, action: "swap" },
    { pool, tokenIn: pool.token1, tokenOut: pool.token0, action: "swap" },
  ];
}

/** Each installed pool kind's model. */
const models = new Map<string, PoolModel<Pool>>();
/** The pool kind each routed protocol's pools are of, by protocol slug. */
const routedKinds = new Map<string, string>();

/**
 * Installs `model` as the model of its pool kind, for the pools of protocol `slug`. A kind has
 * one model: a second, different one for the same kind is refused.
 */
export function installPoolModel<P extends Pool>(slug: string, model: PoolModel<P>): void {
  const known = models.get(model.kind);
  if (known && known !== (model as unknown)) {
    throw new PoolKindConflictError(model.kind, "model");
  }
  // Each kind's model only ever receives pools of its own kind (dispatch by `kind`).
  models.set(model.kind, model as unknown as PoolModel<Pool>);
  routedKinds.set(slug, model.kind);
}

/** The model of `pool`'s kind. */
export function poolModelOf(pool: Pool): PoolModel<Pool> {
  const model = models.get(pool.kind);
  if (!model) throw new UnknownPoolKindError(pool.kind);
  return model;
}

/** The pool kind protocol `slug` routes through, if it is routed. */
export function routedKindOf(slug: string): string | undefined {
  return routedKinds.get(slug);
}
