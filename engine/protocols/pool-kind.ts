/**
 * What the routing engine needs of one kind of pool: its exact quote, the float shadows the
 * search ranks with, its spot price and depth, its gas, and the program steps of a hop through
 * it. Each protocol that routes through pools implements one in its folder
 * (`engine/protocols/<slug>/pool.ts`); `engine/protocols/registry.ts` maps pool kinds to them.
 */

import type { HopContext, HopOptions } from "../program/hop-context.js";
import type { ProgramPlanner, ProgramValue } from "../program/planner.js";
import type {
  ApproxEdgeQuoter,
  ApproxQuote,
  ApproxSpot,
  EdgeQuote,
} from "../routing/edge-quote.js";
import type { Address, Edge, Pool } from "../routing/types.js";

/** An amount of a token a hop leaves with the account that runs it. */
export type Leftover = { token: Address; amount: bigint };

/** An edge through a pool of kind `P`. */
export type EdgeOf<P extends Pool> = Omit<Edge, "pool"> & { pool: P };

export type PoolKind<P extends Pool> = {
  kind: P["kind"];
  /**
   * The directed edges one pool adds to the routing graph.
   */
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
   * Adds the hop's program steps, paying `recipient`.
   * @returns the hop's output amount (a program value, or the input itself for wrap/unwrap).
   */
  addHop: (
    planner: ProgramPlanner,
    context: HopContext,
    hop: { edge: EdgeOf<P>; amountIn: bigint; amountOut: bigint },
    amountIn: bigint | ProgramValue,
    recipient: Address,
    options: HopOptions,
  ) => ProgramValue | bigint;
  /**
   * What a hop of `amountIn` leaves unused with the account that runs it (a single-sided V2
   * add's rounding dust), exactly; absent or empty for a hop that spends all its input.
   */
  leftovers?: (edge: EdgeOf<P>, amountIn: bigint) => Leftover[];
  /**
   * How a route step names the pool when its address does not (a V4 pool: its manager and its
   * PoolId); absent: `primaryAddress` is the pool's address.
   */
  stepPool?: (pool: P) => { primaryAddress: Address; poolId: string };
  /** The pool holds no state a path could exhaust (a wrapper): never excluded from a search. */
  stateless: boolean;
  /** Under the router, a last hop through it can pay the receiver itself (no sweep needed). */
  paysReceiverUnderRouter: boolean;
};

/** The two swap edges of a two-token pool: token0 → token1 and token1 → token0. */
export function swapsBothWays(pool: Pool & { token0: Address; token1: Address }): Edge[] {
  return [
    { pool, tokenIn: pool.token0, tokenOut: pool.token1, action: "swap" },
    { pool, tokenIn: pool.token1, tokenOut: pool.token0, action: "swap" },
  ];
}
