/** Hand-built pools for the routing unit tests (lowercase addresses, exact state). */

import type {
  Address,
  Edge,
  Pool,
  RouteQuote,
  V2Pool,
  V3Pool,
  V3Tick,
  VaultPool,
  WrapperPool,
} from "../../engine/core/types.js";
import { createRoutingGraph } from "../../engine/index.js";
import { getSqrtRatioAtTick } from "../../engine/math/tick-math.js";
import { floorSqrt } from "../../engine/protocols/uniswap-v2/math.js";
import type { RoutingGraph } from "../../engine/routing/graph.js";
import type { FlowPlan, FlowQuote } from "../../engine/routing/quote-flow.js";
import type { FindRouteResult } from "../../engine/routing/search.js";

/** A token address from a small number: 0x00…0n. */
export function token(n: number): Address {
  return `0x${n.toString(16).padStart(40, "0")}` as Address;
}

let poolCounter = 0;
function nextPoolAddress(prefix: string): Address {
  poolCounter++;
  return `0x${prefix}${poolCounter.toString(16).padStart(40 - prefix.length, "0")}` as Address;
}

/** A V2 pair holding `reserveA` of `a` and `reserveB` of `b`. */
export function v2(
  a: Address,
  b: Address,
  reserveA: bigint,
  reserveB: bigint,
  feePpm = 3000,
): V2Pool {
  const aFirst = a < b;
  return {
    kind: "v2",
    protocol: "uniswap-v2",
    address: nextPoolAddress("a2"),
    token0: aFirst ? a : b,
    token1: aFirst ? b : a,
    reserve0: aFirst ? reserveA : reserveB,
    reserve1: aFirst ? reserveB : reserveA,
    feePpm,
    // What the pair mints for a first deposit of these reserves.
    totalSupply: floorSqrt(reserveA * reserveB),
  };
}

export type Position = { lower: number; upper: number; liquidity: bigint };

/**
 * A V3 pool of sorted tokens `t0` < `t1` at `tick` (price exactly at the tick unless
 * `sqrtPriceX96` is given) with the given positions.
 */
export function v3(params: {
  token0: Address;
  token1: Address;
  feePpm: number;
  tickSpacing: number;
  tick: number;
  sqrtPriceX96?: bigint;
  positions: Position[];
}): V3Pool {
  if (params.token0 >= params.token1) throw new Error("token0 must sort before token1");
  const net = new Map<number, bigint>();
  let liquidity = 0n;
  for (const p of params.positions) {
    net.set(p.lower, (net.get(p.lower) ?? 0n) + p.liquidity);
    net.set(p.upper, (net.get(p.upper) ?? 0n) - p.liquidity);
    if (p.lower <= params.tick && params.tick < p.upper) liquidity += p.liquidity;
  }
  const ticks: V3Tick[] = [...net]
    .filter(([, n]) => n !== 0n)
    .map(([tick, liquidityNet]) => ({ tick, liquidityNet }))
    .sort((a, b) => a.tick - b.tick);
  return {
    kind: "v3",
    protocol: "uniswap-v3",
    address: nextPoolAddress("a3"),
    token0: params.token0,
    token1: params.token1,
    feePpm: params.feePpm,
    tickSpacing: params.tickSpacing,
    sqrtPriceX96: params.sqrtPriceX96 ?? getSqrtRatioAtTick(params.tick),
    tick: params.tick,
    liquidity,
    ticks,
  };
}

export function vault(params: {
  address: Address;
  asset: Address;
  totalAssets: bigint;
  totalSupply: bigint;
  decimalsOffset?: number;
  protocol?: string;
}): VaultPool {
  return {
    kind: "erc4626",
    protocol: params.protocol ?? "savings-vaults",
    address: params.address,
    asset: params.asset,
    totalAssets: params.totalAssets,
    totalSupply: params.totalSupply,
    decimalsOffset: params.decimalsOffset ?? 0,
  };
}

export function wrapper(weth: Address): WrapperPool {
  return { kind: "wrap", protocol: "wrapped-native", address: weth };
}

export const E18 = 10n ** 18n;
export const E6 = 10n ** 6n;

/** A routing graph of the built-in protocols holding `pools`. */
export function graphOf(...pools: Pool[]): RoutingGraph {
  const graph = createRoutingGraph();
  for (const pool of pools) graph.upsertPool(pool);
  return graph;
}

/** The edge of `graph` through `pool` from `tokenIn`. */
export function edgeOf(graph: RoutingGraph, pool: Pool, tokenIn: Address): Edge {
  const found = graph.edgesFrom(tokenIn).find((e) => e.pool === pool);
  if (!found) throw new Error("no such edge");
  return found;
}

/** The route a search found (a failure throws, naming its reason). */
export function routeOf(result: FindRouteResult): RouteQuote {
  if (!result.ok) throw new Error(`no route: ${result.reason}`);
  return result.quote;
}

/** A flow's exact quote as a route (no gas counted), for the program planner. */
export function flowRouteQuote(plan: FlowPlan, quote: FlowQuote): RouteQuote {
  if (!quote.ok) throw new Error(`the flow cannot be quoted: ${quote.reason}`);
  return {
    tokenIn: plan.tokenIn,
    tokenOut: plan.tokenOut,
    amountIn: plan.amountIn,
    amountOut: quote.amountOut,
    legs: [],
    flow: quote.flow,
    gasUnits: 0n,
    gasCostInTokenOut: 0n,
  };
}
