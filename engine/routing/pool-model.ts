/**
 * What the routing layer needs of one kind of pool — its edges, exact quote, float shadows,
 * spot price, depth and gas — and the table of models a routing graph is built with. The routing
 * layer knows no protocol: each protocol's folder (`engine/protocols/<slug>/pool.ts`) writes the
 * model of its pools, and an engine (`engine/index.ts`) installs them in its own table.
 */
import { PoolKindConflictError, UnknownPoolKindError } from "../core/errors.js";
import {
  type ApproxEdgeQuoter,
  type ApproxQuote,
  type ApproxSpot,
  type EdgeQuote,
  ZERO_OUTPUT,
} from "../core/quote.js";
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
  /**
   * What the pool's own token is backed by (a Balancer weighted pool's BPT, which only joins and
   * exits mint and burn; a Uniswap V2 fork's LP token): the pool's reserves and the token's
   * supply. Prices that token at its share of the reserves, before any edge into it; absent or
   * undefined: the pool's token is priced through its edges, if at all.
   */
  backing?: (pool: P) => PoolBacking | undefined;
};

/** A pool token's backing: `supply` units of `token` hold the pool's `reserves`. */
export type PoolBacking = {
  token: Address;
  supply: bigint;
  reserves: readonly { token: Address; amount: bigint }[];
};

/** The two swap edges of a two-token pool: token0 → token1 and token1 → token0. */
export function swapsBothWays(pool: Pool & { token0: Address; token1: Address }): Edge[] {
  return [
    { pool, tokenIn: pool.token0, tokenOut: pool.token1, action: "swap" },
    { pool, tokenIn: pool.token1, tokenOut: pool.token0, action: "swap" },
  ];
}

/**
 * The pool models a routing graph is built with (`RoutingGraph`'s `models`): each pool kind's
 * model, and which kind each routed protocol's pools are of. Everything the routing layer asks
 * of a pool goes through the table its graph holds; an engine (`engine/index.ts`) fills one
 * with the models of its protocols.
 */
export class PoolModels {
  readonly #models = new Map<string, PoolModel<Pool>>();
  /** The pool kind each routed protocol's pools are of, by protocol slug. */
  readonly #routedKinds = new Map<string, string>();

  /**
   * Installs `model` as the model of its pool kind, for the pools of protocol `slug`. A kind
   * has one model: a second, different one for the same kind is refused.
   * @throws PoolKindConflictError
   */
  install<P extends Pool>(slug: string, model: PoolModel<P>): void {
    const known = this.#models.get(model.kind);
    if (known && known !== (model as unknown)) {
      throw new PoolKindConflictError(model.kind, "model");
    }
    // Each kind's model only ever receives pools of its own kind (dispatch by `kind`).
    this.#models.set(model.kind, model as unknown as PoolModel<Pool>);
    this.#routedKinds.set(slug, model.kind);
  }

  /**
   * The model of `pool`'s kind.
   * @throws UnknownPoolKindError
   */
  of(pool: Pool): PoolModel<Pool> {
    const model = this.#models.get(pool.kind);
    if (!model) throw new UnknownPoolKindError(pool.kind);
    return model;
  }

  /** Whether `pool`'s protocol routes through pools of its kind. */
  routes(pool: Pool): boolean {
    return this.#routedKinds.get(pool.protocol) === pool.kind;
  }

  /** A pool's edges as its kind defines them (none when its protocol does not route it). */
  edges(pool: Pool): Edge[] {
    return this.routes(pool) ? this.of(pool).edges(pool) : [];
  }

  /** A pool's terminal edges as its kind defines them (none for most kinds). */
  terminalEdges(pool: Pool): Edge[] {
    return this.routes(pool) ? (this.of(pool).terminalEdges?.(pool) ?? []) : [];
  }

  /**
   * The exact quote of `amountIn` through `edge`, or why it cannot be had: a V3 pool that runs
   * out of liquidity before the input is spent or whose price already sits at the swap's price
   * limit, a redeem of more shares than exist, or an output that rounds to zero.
   */
  simulate(edge: Edge, amountIn: bigint): EdgeQuote {
    if (amountIn <= 0n) return ZERO_OUTPUT;
    return this.of(edge.pool).quote(edge, amountIn);
  }

  /**
   * The exact output of `amountIn` through `edge`, or `undefined` when the pool cannot fill it
   * (see {@link simulate} for the reason).
   * @example models.quote(graph.edgesFromVia(weth, pair.address)[0], 10n ** 18n)
   */
  quote(edge: Edge, amountIn: bigint): bigint | undefined {
    const quote = this.simulate(edge, amountIn);
    return quote.ok ? quote.amountOut : undefined;
  }

  /** Gas units of the edge's steps, `ticksCrossed` by its quote (bench/results/routing-gas.md). */
  gas(edge: Edge, ticksCrossed: number): number {
    return this.of(edge.pool).gas(edge, ticksCrossed);
  }

  /**
   * Approximately what `amountIn` through `edge` yields, written into `result` (reused by the
   * caller to avoid allocating in the search's inner loop).
   */
  approx(edge: Edge, amountIn: number, result: ApproxQuote): ApproxQuote {
    return this.of(edge.pool).approx(edge, amountIn, result);
  }

  /** `approx` for one edge, with the pool's model looked up once (for repeated quotes). */
  approxQuoter(edge: Edge): ApproxEdgeQuoter {
    return this.of(edge.pool).approxQuoter(edge);
  }

  /** The mid price and depth of `edge` from the float models, written into `result`. */
  approxSpot(edge: Edge, result: ApproxSpot): ApproxSpot {
    return this.of(edge.pool).approxSpot(edge, result);
  }

  /**
   * How much of `side` the edge's pool holds (virtual in-range reserves for V3), as a float; 0
   * for a V3 pool at its price limit in the edge's direction, which takes nothing that way.
   */
  depth(edge: Edge, side: "in" | "out"): number {
    return this.of(edge.pool).depth(edge, side);
  }

  /** The exact price of tokenOut given the exact price of tokenIn (same fixed-point scale). */
  priceAcross(edge: Edge, price: bigint): bigint {
    return this.of(edge.pool).priceAcross(edge, price);
  }

  /** What `pool`'s own token is backed by when no edge reaches it, if its model says. */
  backing(pool: Pool): PoolBacking | undefined {
    return this.of(pool).backing?.(pool);
  }

  /** The pool holds no state a path could exhaust (a wrapper): never excluded from a search. */
  stateless(pool: Pool): boolean {
    return this.of(pool).stateless;
  }

  /** How a route step names `pool` when its address does not (a V4 pool), if so. */
  stepPool(pool: Pool): { primaryAddress: Address; poolId: string } | undefined {
    return this.of(pool).stepPool?.(pool);
  }
}
