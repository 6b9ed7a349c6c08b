/**
 * The dual bound on the best flow: at least every route's exact output, equal to the optimum
 * where it is known in closed form (parallel constant-product pools at one price act as one pool
 * of their summed reserves, at every hop), and tight enough to certify single-pool answers.
 */
import { describe, expect, it } from "vitest";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import type { Address, Edge, Pool } from "../../engine/core/types.js";
import { createRoutingGraph, quotePathOut } from "../../engine/index.js";
import { V2_SWAP_GAS } from "../../engine/protocols/uniswap-v2/gas.js";
import { uniswapV2AmountOut } from "../../engine/protocols/uniswap-v2/math.js";
import { certifyRoute } from "../../engine/routing/certificate.js";
import { flowBound } from "../../engine/routing/flow-bound.js";
import { ROUTE_BASE_GAS } from "../../engine/routing/gas.js";
import type { RoutingGraph } from "../../engine/routing/graph.js";
import { findRoute } from "../../engine/routing/search.js";
import { E18, token, v2, v3, wrapper } from "./fixtures.js";

function graphOf(...pools: Pool[]): RoutingGraph {
  const graph = createRoutingGraph();
  for (const pool of pools) graph.upsertPool(pool);
  return graph;
}

/** Every edge of the graph's pools (both directions). */
function allEdges(graph: RoutingGraph, tokens: Address[]): Edge[] {
  return tokens.flatMap((t) => [...graph.edgesFrom(t)]);
}

function boundOf(graph: RoutingGraph, tokens: Address[], amountIn: bigint) {
  const [tokenIn, tokenOut] = tokens as [Address, Address];
  return flowBound({
    models: graph.models,
    edges: allEdges(graph, tokens),
    tokenIn,
    tokenOut,
    amountIn: Number(amountIn),
  });
}

/** A constant-product pool's output in floats (the closed form the bound must reach). */
function cpOut(amountIn: number, reserveIn: number, reserveOut: number): number {
  const x = amountIn * 0.997;
  return (reserveOut * x) / (reserveIn + x);
}

const NO_WETH = token(999);

/** The engine's gas-free route (`flows: false`: whole paths only). */
function gasFreeRoute(
  graph: RoutingGraph,
  a: Address,
  b: Address,
  amountIn: bigint,
  options: { flows?: boolean } = {},
) {
  const found = findRoute({
    graph,
    tokenIn: a,
    tokenOut: b,
    amountIn,
    gasPriceWei: 0n,
    weth: NO_WETH,
    ...options,
  });
  if (!found.ok) throw new Error(found.reason);
  return found;
}

/** A small deterministic generator (printed seed: tests rerun the same cases). */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("flowBound", () => {
  it("through one pair: the pair's own output, and no less than its exact quote", () => {
    const [a, b] = [token(1), token(2)];
    const pair = v2(a, b, 1000n * E18, 2000n * E18);
    const graph = graphOf(pair);
    const amountIn = 50n * E18;
    const result = boundOf(graph, [a, b], amountIn);
    const exact = uniswapV2AmountOut({
      amountIn,
      reserveIn: 1000n * E18,
      reserveOut: 2000n * E18,
      feePpm: 3000,
    });
    expect(result.bound).toBeGreaterThanOrEqual(Number(exact));
    // Within a billionth of the closed form.
    const closed = cpOut(50e18, 1000e18, 2000e18);
    expect(Math.abs(result.bound - closed) / closed).toBeLessThan(1e-9);
  });

  it("parallel pairs at one price: the output of one pair of their summed reserves; the engine's split reaches it within 1 bp", () => {
    const [a, b] = [token(1), token(2)];
    const pools = [
      v2(a, b, 1000n * E18, 1000n * E18),
      v2(a, b, 3000n * E18, 3000n * E18),
      v2(a, b, 500n * E18, 500n * E18),
    ];
    const graph = graphOf(...pools);
    const amountIn = 400n * E18;
    const result = boundOf(graph, [a, b], amountIn);
    const closed = cpOut(400e18, 4500e18, 4500e18);
    expect(Math.abs(result.bound - closed) / closed).toBeLessThan(1e-9);
    const found = gasFreeRoute(graph, a, b, amountIn);
    expect(Number(found.quote.amountOut)).toBeLessThanOrEqual(result.bound);
    expect(result.bound - Number(found.quote.amountOut)).toBeLessThan(result.bound * 1e-4);
  });

  it("crossed pairing: splitting and merging at the middle token reaches what no pool-disjoint split does; the engine's flow does, within a basis point", () => {
    // A → M through a deep and a shallow pair, M → B through two pairs of equal depth, all at
    // price 1. The best flow merges at M: each hop acts as one pair of summed reserves, which no
    // pairing of whole paths can do (the deep first pool has only half the second hop behind it).
    const [a, m, b] = [token(1), token(3), token(2)];
    const pools = [
      v2(a, m, 10_000n * E18, 10_000n * E18),
      v2(a, m, 1_000n * E18, 1_000n * E18),
      v2(m, b, 5_500n * E18, 5_500n * E18),
      v2(m, b, 5_500n * E18, 5_500n * E18),
    ];
    const graph = graphOf(...pools);
    const amountIn = 2_000n * E18;
    const result = boundOf(graph, [a, b, m], amountIn);
    const closed = cpOut(cpOut(2000e18, 11_000e18, 11_000e18), 11_000e18, 11_000e18);
    expect(Math.abs(result.bound - closed) / closed).toBeLessThan(1e-9);
    const gap = (out: bigint) => ((result.bound - Number(out)) / result.bound) * 10_000;
    // The best pool-disjoint split is measurably below the per-hop optimum …
    const paths = gasFreeRoute(graph, a, b, amountIn, { flows: false });
    expect(gap(paths.quote.amountOut)).toBeGreaterThan(1);
    // … and the engine's flow, merged at M, is within a basis point of it.
    const found = gasFreeRoute(graph, a, b, amountIn);
    expect(found.quote.flow?.hops.map((h) => h.edge.pool)).toEqual([
      pools[1],
      pools[0],
      pools[2],
      pools[3],
    ]);
    expect(Number(found.quote.amountOut)).toBeLessThanOrEqual(result.bound);
    expect(gap(found.quote.amountOut)).toBeLessThan(1);
  });

  it("is at least the engine's route and every single path's exact output on random graphs (seed 27001)", () => {
    const seed = 27001;
    const random = mulberry32(seed);
    const tokens = [token(1), token(2), token(3), token(4)];
    const [a, b] = tokens as [Address, Address];
    let checked = 0;
    for (let scenario = 0; scenario < 40; scenario++) {
      const pools: Pool[] = [];
      const count = 3 + Math.floor(random() * 5);
      for (let i = 0; i < count; i++) {
        const x = tokens[Math.floor(random() * 4)] as Address;
        let y = tokens[Math.floor(random() * 4)] as Address;
        if (x === y) y = tokens[(tokens.indexOf(x) + 1) % 4] as Address;
        const depth = BigInt(Math.floor(10 + random() * 10_000)) * E18;
        const skew = 0.8 + random() * 0.4;
        if (random() < 0.5) {
          pools.push(v2(x, y, depth, BigInt(Math.floor(Number(depth) * skew))));
        } else {
          const [t0, t1] = x < y ? [x, y] : [y, x];
          pools.push(
            v3({
              token0: t0,
              token1: t1,
              feePpm: 500,
              tickSpacing: 10,
              tick: Math.round(Math.log(skew) / Math.log(1.0001) / 10) * 10,
              positions: [{ lower: -20_000, upper: 20_000, liquidity: depth }],
            }),
          );
        }
      }
      const graph = graphOf(...pools);
      const amountIn = BigInt(Math.floor(1 + random() * 2_000)) * E18;
      const found = findRoute({
        graph,
        tokenIn: a,
        tokenOut: b,
        amountIn,
        gasPriceWei: 0n,
        weth: NO_WETH,
      });
      if (!found.ok) continue;
      const result = boundOf(graph, tokens, amountIn);
      const out = Number(found.quote.amountOut);
      // Float rounding of the route's own output is far below a part per billion.
      expect(result.bound, `scenario ${scenario} of seed ${seed}`).toBeGreaterThanOrEqual(
        out * (1 - 1e-12),
      );
      for (const edge of graph.edgesFrom(a).filter((e) => e.tokenOut === b)) {
        const single = quotePathOut([edge], amountIn);
        if (single !== undefined)
          expect(result.bound).toBeGreaterThanOrEqual(Number(single) * (1 - 1e-12));
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(25);
  });
  it("prices native ether and its wrapped token as one: a route that wraps is bounded, within a basis point", () => {
    const [weth, usdc] = [token(7), token(8)];
    const eth = NATIVE_TOKEN_ADDRESS as Address;
    const graph = graphOf(wrapper(weth), v2(weth, usdc, 100n * E18, 300_000n * 10n ** 6n));
    const amountIn = 2n * E18;
    const found = findRoute({
      graph,
      tokenIn: eth,
      tokenOut: usdc,
      amountIn,
      gasPriceWei: 0n,
      weth,
    });
    if (!found.ok) throw new Error(found.reason);
    expect(found.quote.legs[0]?.hops.map((h) => h.edge.action)).toEqual(["wrap", "swap"]);
    const result = flowBound({
      models: graph.models,
      edges: allEdges(graph, [eth, weth, usdc]),
      tokenIn: eth,
      tokenOut: usdc,
      amountIn: Number(amountIn),
    });
    expect(result.unbounded).toEqual([]);
    expect(result.prices.get(eth)).toBe(result.prices.get(weth));
    const closed = cpOut(2e18, 100e18, 300_000e6);
    expect(Math.abs(result.bound - closed) / closed).toBeLessThan(1e-9);
    const out = Number(found.quote.amountOut);
    expect(result.bound).toBeGreaterThanOrEqual(out);
    expect(((result.bound - out) / result.bound) * 10_000).toBeLessThan(1e-4);
  });
});

describe("certifyRoute", () => {
  it("certifies the engine's split across parallel pairs within a basis point", () => {
    const [a, b] = [token(1), token(2)];
    const graph = graphOf(v2(a, b, 1000n * E18, 1000n * E18), v2(a, b, 3000n * E18, 3000n * E18));
    const params = {
      graph,
      tokenIn: a,
      tokenOut: b,
      amountIn: 400n * E18,
      gasPriceWei: 0n,
      weth: NO_WETH,
    };
    const found = findRoute(params);
    if (!found.ok) throw new Error(found.reason);
    const certificate = certifyRoute(params, found.quote);
    expect(certificate.edges).toBe(4);
    expect(certificate.netBound).toBe(certificate.bound);
    expect(certificate.gapBps).toBeLessThan(1);
  });

  it("says how far a crossed pairing's whole paths are from the best flow (more than a basis point), and certifies the engine's flow (within one)", () => {
    const [a, m, b] = [token(1), token(3), token(2)];
    const graph = graphOf(
      v2(a, m, 10_000n * E18, 10_000n * E18),
      v2(a, m, 1_000n * E18, 1_000n * E18),
      v2(m, b, 5_500n * E18, 5_500n * E18),
      v2(m, b, 5_500n * E18, 5_500n * E18),
    );
    const params = {
      graph,
      tokenIn: a,
      tokenOut: b,
      amountIn: 2_000n * E18,
      gasPriceWei: 0n,
      weth: NO_WETH,
    };
    const closed = cpOut(cpOut(2000e18, 11_000e18, 11_000e18), 11_000e18, 11_000e18);
    const certified = (flows: boolean) => {
      const found = findRoute({ ...params, flows });
      if (!found.ok) throw new Error(found.reason);
      const certificate = certifyRoute(params, found.quote);
      // All four pools, both ways.
      expect(certificate.edges).toBe(8);
      expect(Math.abs(certificate.bound - closed) / closed).toBeLessThan(1e-9);
      const expected = ((closed - Number(found.quote.amountOut)) / closed) * 10_000;
      expect(Math.abs(certificate.gapBps - expected)).toBeLessThan(1e-4);
      return certificate.gapBps;
    };
    expect(certified(false)).toBeGreaterThan(1);
    expect(certified(true)).toBeLessThan(1);
  });

  it("nets the least gas any route pays out of the bound", () => {
    // tokenOut is the wrapped native token: gas is valued one for one in it.
    const [a, b] = [token(1), token(2)];
    const graph = graphOf(v2(a, b, 1000n * E18, 1000n * E18));
    const gasPriceWei = 10n ** 9n;
    const params = { graph, tokenIn: a, tokenOut: b, amountIn: 10n * E18, gasPriceWei, weth: b };
    const found = findRoute(params);
    if (!found.ok) throw new Error(found.reason);
    expect(found.quote.gasCostInTokenOut).toBe(found.quote.gasUnits * gasPriceWei);
    const certificate = certifyRoute(params, found.quote);
    expect(certificate.bound - certificate.netBound).toBeCloseTo(
      (ROUTE_BASE_GAS + V2_SWAP_GAS) * 1e9,
      -3,
    );
    // One pair: the route is the best flow, less nothing but rounding.
    expect(certificate.gapBps).toBeLessThan(1e-4);
  });
});
