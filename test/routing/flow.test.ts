/**
 * Flows: routes whose amounts split and merge at intermediate tokens. Their exact quote (each
 * token's amount divided by shares in parts per billion as `ProgramValues.splitProportionally`
 * divides it), the
 * rules a flow keeps, their SPEC steps and program, and the search choosing one where whole
 * pool-disjoint paths cannot express the best route: a middle hop split between two pools, and
 * crossed pairings of deep and shallow pools. Each is checked against the route's certificate
 * (the dual bound on the best flow over the same pools). On-chain execution:
 * flow-execution.test.ts.
 */
import { describe, expect, it } from "vitest";
import { rawAmount, type SyntheticToken, syntheticGraph } from "../../bench/synthetic-graph.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import type { Address, Edge, Pool } from "../../engine/core/types.js";
import {
  buildBundle,
  certifyRoute,
  planRouteProgram,
  quoteEdge,
  quoteFlow,
  routeSteps,
  splitByShares,
} from "../../engine/index.js";
import { flowBound } from "../../engine/routing/flow-bound.js";
import { FLOW_STOP_MARGIN, solveFlowRoute } from "../../engine/routing/flow-route.js";
import { FLOW_MERGE_GAS, FLOW_SPLIT_GAS, FLOW_SPLIT_HOP_GAS } from "../../engine/routing/gas.js";
import {
  ALL_PPB,
  checkFlowPlan,
  type FlowPlan,
  flowProgramGas,
  legsOfFlow,
} from "../../engine/routing/quote-flow.js";
import { findRoute } from "../../engine/routing/search.js";
import { chain, contracts } from "../engine/fixtures.js";
import {
  E18,
  edgeOf,
  flowRouteQuote,
  graphOf,
  routeOf,
  token,
  v2,
  v3,
  wrapper,
} from "./fixtures.js";

const NO_WETH = "0x0000000000000000000000000000000000000000" as Address;
const [A, B, C, D] = [token(1), token(2), token(3), token(4)];

const edge = edgeOf;
const route = routeOf;

/**
 * A → B through one deep pair, B → C through two shallow pairs, C → D through one deep pair:
 * pool-disjoint paths cannot divide the middle hop (both would need the first and last pair).
 */
function diamond() {
  const ab = v2(A, B, 10_000_000n * E18, 10_000_000n * E18);
  const bc1 = v2(B, C, 100_000n * E18, 100_000n * E18);
  const bc2 = v2(B, C, 60_000n * E18, 60_000n * E18);
  const cd = v2(C, D, 10_000_000n * E18, 10_000_000n * E18);
  const graph = graphOf(ab, bc1, bc2, cd);
  return { graph, ab, bc1, bc2, cd };
}

/** Sixty percent, in parts per billion. */
const SIXTY = 600_000_000;

/** A → B, B divided 60/40 between the diamond's two B/C pairs, C merged into C → D. */
function splitPlan(d: ReturnType<typeof diamond>, amountIn: bigint): FlowPlan {
  const { graph, ab, bc1, bc2, cd } = d;
  return {
    tokenIn: A,
    tokenOut: D,
    amountIn,
    hops: [
      { edge: edge(graph, ab, A), sharePpb: ALL_PPB },
      { edge: edge(graph, bc1, B), sharePpb: SIXTY },
      { edge: edge(graph, bc2, B), sharePpb: ALL_PPB - SIXTY },
      { edge: edge(graph, cd, C), sharePpb: ALL_PPB },
    ],
  };
}

describe("splitByShares", () => {
  it("rounds each share down and gives the last the remainder, as splitProportionally does", () => {
    expect(splitByShares(1_000_001n, [333_333_333, 333_333_333, 333_333_334])).toEqual([
      333_333n,
      333_333n,
      333_335n,
    ]);
    expect(splitByShares(7n, [500_000_000, 500_000_000])).toEqual([3n, 4n]);
    expect(splitByShares(5n, [ALL_PPB])).toEqual([5n]);
    // A part of a millionth of a basis point (1 ppb of 10^27) is kept.
    expect(splitByShares(10n ** 27n, [1, ALL_PPB - 1])).toEqual([
      10n ** 18n,
      10n ** 27n - 10n ** 18n,
    ]);
  });
});

describe("checkFlowPlan", () => {
  const { graph, ab, bc1, bc2, cd } = diamond();
  const e = {
    ab: edge(graph, ab, A),
    ba: edge(graph, ab, B),
    bc1: edge(graph, bc1, B),
    bc2: edge(graph, bc2, B),
    cd: edge(graph, cd, C),
    dc: edge(graph, cd, D),
  };
  const plan = (hops: FlowPlan["hops"]): FlowPlan => ({
    tokenIn: A,
    tokenOut: D,
    amountIn: E18,
    hops,
  });
  const all = ALL_PPB;
  /** Hops by edge name, each with its share (all of its token's amount unless given). */
  const hops = (...spec: [keyof typeof e, number?][]): FlowPlan["hops"] =>
    spec.map(([name, share]) => ({ edge: e[name], sharePpb: share ?? all }));

  it("accepts a flow split at B and merged at C", () => {
    expect(() =>
      checkFlowPlan(plan(hops(["ab"], ["bc1", SIXTY], ["bc2", all - SIXTY], ["cd"]))),
    ).not.toThrow();
  });

  it.each([
    ["no hop", hops(), "a flow has at least one hop"],
    ["a share of 0", hops(["ab", 0]), "hop 0: share 0 ppb is not an integer in 1–1000000000"],
    [
      "shares not summing to a billion",
      hops(["ab"], ["bc1", SIXTY], ["bc2", 300_000_000], ["cd"]),
      `the shares of ${B} sum to 900000000 ppb, not 1000000000`,
    ],
    ["a pool twice", hops(["ab"], ["ba"]), "hop 1: its pool is used twice"],
    [
      "a token spent before it is made",
      hops(["bc1"], ["ab"]),
      `hop 0 spends ${B} before any hop makes it`,
    ],
    [
      "a token made after it is spent",
      hops(["ab"], ["bc1"], ["cd"], ["bc2"]),
      `hop 3 makes ${C} after a hop spent it`,
    ],
    ["the output spent", hops(["ab"], ["bc1"], ["cd"], ["dc"]), "hop 3: its pool is used twice"],
    ["a token made and never spent", hops(["ab"], ["bc1"]), "no hop makes the route's output"],
  ] as const)("refuses %s", (_, list, message) => {
    expect(() => checkFlowPlan(plan(list))).toThrowError(message);
  });

  it("refuses a token made and left with the account, and a hop spending the output", () => {
    const E = token(5);
    /** A → D through `pools` (each from the token given), with a pair of E beside them. */
    const through = (extra: Pool, steps: [Pool, Address, number][]) => {
      const g = graphOf(ab, bc1, bc2, cd, extra);
      return plan(steps.map(([pool, from, sharePpb]) => ({ edge: edge(g, pool, from), sharePpb })));
    };
    const ce = v2(C, E, E18, E18);
    expect(() =>
      checkFlowPlan(
        through(ce, [
          [ab, A, all],
          [bc1, B, all],
          [cd, C, all / 2],
          [ce, C, all / 2],
        ]),
      ),
    ).toThrowError(`${E} is made and never spent`);
    const de = v2(D, E, E18, E18);
    expect(() =>
      checkFlowPlan(
        through(de, [
          [ab, A, all],
          [bc1, B, all],
          [cd, C, all],
          [de, D, all],
        ]),
      ),
    ).toThrowError("hop 3 spends the route's output");
  });
});

describe("quoteFlow", () => {
  it("divides B by its shares, merges C and quotes each hop exactly; its steps show each part", () => {
    const plan = splitPlan(diamond(), 50_000n * E18);
    const { amountIn, hops } = plan;
    const quote = quoteFlow(plan);
    if (!quote.ok) throw new Error(quote.reason);
    // Each hop by its own pool's exact quote.
    const b = quoteEdge(hops[0]?.edge as Edge, amountIn) as bigint;
    const b1 = (b * BigInt(SIXTY)) / BigInt(ALL_PPB);
    const c1 = quoteEdge(hops[1]?.edge as Edge, b1) as bigint;
    const c2 = quoteEdge(hops[2]?.edge as Edge, b - b1) as bigint;
    const d = quoteEdge(hops[3]?.edge as Edge, c1 + c2) as bigint;
    expect(quote.flow.hops.map((h) => [h.amountIn, h.amountOut, h.sharePpb])).toEqual([
      [amountIn, b, ALL_PPB],
      [b1, c1, SIXTY],
      [b - b1, c2, ALL_PPB - SIXTY],
      [c1 + c2, d, ALL_PPB],
    ]);
    expect(quote.amountOut).toBe(d);
    // Dividing B adds the split and its two pools, merging C the merge (measured, gas.ts).
    expect(flowProgramGas({ tokenIn: A, tokenOut: D, hops })).toBe(
      FLOW_SPLIT_GAS + 2 * FLOW_SPLIT_HOP_GAS + FLOW_MERGE_GAS,
    );
    expect(legsOfFlow(quote.flow, A, D)).toBeUndefined();
    const steps = routeSteps(1, flowRouteQuote(plan, quote));
    expect(
      steps.map((s) => [s.tokenIn[0], s.tokenOut[0], s.primaryAddress, s.amountIn, s.amountOut]),
    ).toEqual(
      quote.flow.hops.map((h) => [
        h.edge.tokenIn,
        h.edge.tokenOut,
        expect.stringMatching(new RegExp(`^${h.edge.pool.address}$`, "i")),
        h.amountIn.toString(),
        h.amountOut.toString(),
      ]),
    );
  });

  it("a flow divided only at its input is whole paths, and reads as legs", () => {
    const { graph, ab } = diamond();
    const ab2 = v2(A, B, 1_000n * E18, 1_000n * E18);
    graph.upsertPool(ab2);
    const quote = quoteFlow({
      tokenIn: A,
      tokenOut: B,
      amountIn: 100n * E18,
      hops: [
        { edge: edge(graph, ab, A), sharePpb: 700_000_000 },
        { edge: edge(graph, ab2, A), sharePpb: 300_000_000 },
      ],
    });
    if (!quote.ok) throw new Error(quote.reason);
    expect(legsOfFlow(quote.flow, A, B)).toEqual(
      quote.flow.hops.map(({ edge: e, amountIn, amountOut }) => ({
        amountIn,
        amountOut,
        hops: [{ edge: e, amountIn, amountOut }],
      })),
    );
  });
});

describe("a flow's program", () => {
  it("splits what arrived of B at run time, sums what arrived of C, and sends D to the receiver", () => {
    const plan = splitPlan(diamond(), 50_000n * E18);
    const quote = flowRouteQuote(plan, quoteFlow(plan));
    const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
    const program = planRouteProgram({
      strategy: "delegate",
      execution: contracts,
      swapRouter: undefined,
      weth: undefined,
      account: address(0x7777),
      receiver: address(0x8888),
      quote,
      bounds: { deadline: 1n, slippageBps: 0 },
      minAmountOut: quote.amountOut,
    });
    expect(program.calls.map((c) => c.label)).toEqual([
      "check deadline",
      "read balance",
      // A → B: the input, as quoted.
      "transfer",
      "quote uniswap v2",
      "swap on uniswap v2",
      // B: divided 60/40 by what the swap returned.
      "split amount",
      "read array element",
      "read array element",
      "transfer",
      "quote uniswap v2",
      "swap on uniswap v2",
      "transfer",
      "quote uniswap v2",
      "swap on uniswap v2",
      // C: the two swaps' outputs summed, all of it into the last pair.
      "merge amounts",
      "transfer",
      "quote uniswap v2",
      "swap on uniswap v2",
      "check minimum output",
    ]);
  });
});

describe("the search's flows", () => {
  /** The search's parameters for `usd` of `tokenIn` into `tokenOut` on synthetic graph `seed`. */
  const synthetic = (seed: number, tokenIn: string, tokenOut: string, usd: number) => {
    const world = syntheticGraph({ pools: 80, seed, v4Share: 0.3, priceNoise: 0 });
    const symbol = (s: string) => world.tokens.find((t) => t.symbol === s) as SyntheticToken;
    return {
      graph: world.graph,
      tokenIn: symbol(tokenIn).address,
      tokenOut: symbol(tokenOut).address,
      amountIn: rawAmount(symbol(tokenIn), usd),
      gasPriceWei: 0n,
      weth: world.weth,
    };
  };
  /** The most hops any one token of `quote`'s flow is divided between, and its least share. */
  const widths = (quote: ReturnType<typeof route>) => {
    const hops = quote.flow?.hops ?? [];
    const counts = new Map<Address, number>();
    for (const h of hops) counts.set(h.edge.tokenIn, (counts.get(h.edge.tokenIn) ?? 0) + 1);
    return {
      widest: Math.max(0, ...counts.values()),
      least: Math.min(...hops.map((h) => h.sharePpb)),
    };
  };

  it("splits a middle hop that whole paths cannot divide, within a basis point of the bound", () => {
    const { graph, ab, bc1, bc2, cd } = diamond();
    const amountIn = 40_000n * E18;
    const params = { graph, tokenIn: A, tokenOut: D, amountIn, gasPriceWei: 0n, weth: NO_WETH };
    const quote = route(findRoute(params));
    expect(quote.legs).toEqual([]);
    const hops = quote.flow?.hops ?? [];
    expect(hops.map((h) => h.edge.pool)).toEqual([ab, bc2, bc1, cd]);
    // The exact quote of the same plan is the answer.
    const again = quoteFlow({ tokenIn: A, tokenOut: D, amountIn, hops });
    expect(again.ok && again.amountOut).toBe(quote.amountOut);
    // Better than either single path (the only pool-disjoint routes there are).
    const single = (pool: Pool) =>
      quoteFlow({
        tokenIn: A,
        tokenOut: D,
        amountIn,
        hops: [edge(graph, ab, A), edge(graph, pool, B), edge(graph, cd, C)].map((e) => ({
          edge: e,
          sharePpb: ALL_PPB,
        })),
      });
    const viaBc1 = single(bc1);
    const viaBc2 = single(bc2);
    if (!viaBc1.ok || !viaBc2.ok) throw new Error("a single path does not quote");
    expect(quote.amountOut).toBeGreaterThan(viaBc1.amountOut);
    expect(quote.amountOut).toBeGreaterThan(viaBc2.amountOut);
    // maxSplits 1 divides nothing: one whole path, the better one.
    const one = route(findRoute({ ...params, maxSplits: 1 }));
    expect(one.flow).toBeUndefined();
    expect(one.amountOut).toBe(viaBc1.amountOut);
    const certificate = certifyRoute(params, quote);
    expect(certificate.gapBps).toBeLessThan(1);
  });

  it("undoes a crossed pairing: deep with deep and shallow with shallow merge at B", () => {
    // A → B and B → C each through a deep and a shallow pair: pool-disjoint legs pair them one
    // way or the other; the best flow merges at B and divides B by the second hop's depths.
    const ab1 = v2(A, B, 1_000_000n * E18, 1_000_000n * E18);
    const ab2 = v2(A, B, 30_000n * E18, 30_000n * E18);
    const bc1 = v2(B, C, 40_000n * E18, 40_000n * E18);
    const bc2 = v2(B, C, 1_000_000n * E18, 1_000_000n * E18);
    const graph = graphOf(ab1, ab2, bc1, bc2);
    const params = {
      graph,
      tokenIn: A,
      tokenOut: C,
      amountIn: 60_000n * E18,
      gasPriceWei: 0n,
      weth: NO_WETH,
    };
    const quote = route(findRoute(params));
    const legsOnly = route(findRoute({ ...params, maxSplits: 1 }));
    expect(quote.flow?.hops.map((h) => h.edge.pool)).toEqual([ab2, ab1, bc1, bc2]);
    expect(quote.amountOut).toBeGreaterThan(legsOnly.amountOut);
    expect(certifyRoute(params, quote).gapBps).toBeLessThan(1);
  });

  it("from native ether, wraps first: the conversion is a hop of the flow", () => {
    const weth = token(9);
    const pools = [
      wrapper(weth),
      v2(weth, B, 10_000_000n * E18, 10_000_000n * E18),
      v2(B, C, 100_000n * E18, 100_000n * E18),
      v2(B, C, 60_000n * E18, 60_000n * E18),
    ];
    const graph = graphOf(...pools);
    const params = {
      graph,
      tokenIn: NATIVE_TOKEN_ADDRESS as Address,
      tokenOut: C,
      amountIn: 40_000n * E18,
      gasPriceWei: 0n,
      weth,
    };
    const quote = route(findRoute(params));
    // Wrap, then one pair, then B divided between the two B/C pairs: a flow.
    expect(quote.flow?.hops.map((h) => [h.edge.action, h.edge.pool])).toEqual([
      ["wrap", pools[0]],
      ["swap", pools[1]],
      ["swap", pools[3]],
      ["swap", pools[2]],
    ]);
    expect(certifyRoute(params, quote).gapBps).toBeLessThan(1);
  });

  it("a pool the dual fills to the end of its range gets a share it can take (synthetic graph seed 7, T2 → T1, $100,000)", () => {
    // Found by the quality benchmark's graphs: the dual's flow fills a concentrated pool to the
    // end of its liquidity, and the exact amounts ask it for a hair more; the solver cuts that
    // share to the most the pool takes (the token's largest other pool taking the rest) instead
    // of giving the flow up (without the cut, the flow under a lower cap on its splits answered,
    // 3.7 bp below the bound; whole paths are 116 bp below).
    const params = synthetic(7, "T2", "T1", 100_000);
    const quote = route(findRoute(params));
    expect(quote.flow).toBeDefined();
    expect(quote.amountOut).toBe(4857809707005109108347n);
    expect(route(findRoute({ ...params, flows: false })).amountOut).toBe(4802209109159478600100n);
    expect(certifyRoute(params, quote).gapBps).toBeLessThan(1.8);
  });

  // Regression cases from the quality benchmark's synthetic graphs (bench/quality.ts), each
  // with what it answered before the change that mended it.
  /**
   * The search's flow for `usd` of `from` into `to` on synthetic graph `seed`: its exact output,
   * whole paths' (when given) and its certificate's gap below `gapBelow` bp.
   */
  const regression = (
    [seed, from, to, usd]: [number, string, string, number],
    expected: { amountOut: bigint; paths?: bigint; gapBelow: number },
  ) => {
    const params = synthetic(seed, from, to, usd);
    const quote = route(findRoute(params));
    expect(quote.amountOut).toBe(expected.amountOut);
    if (expected.paths !== undefined) {
      expect(route(findRoute({ ...params, flows: false })).amountOut).toBe(expected.paths);
    }
    expect(certifyRoute(params, quote).gapBps).toBeLessThan(expected.gapBelow);
    return { params, quote };
  };

  it("reads the flow off a dual solved to parts per billion (seed 1, T17 → T6, $100,000)", () => {
    // Each pool's answer to the dual's prices was solved to a millionth: the descent stopped far
    // from the optimum, and the flow read off it fell 60% (5,997 bp) below the bound.
    regression([1, "T17", "T6", 100_000], {
      amountOut: 592726992458n,
      paths: 237253883582n,
      gapBelow: 0.01,
    });
  });

  it("keeps a share finer than a basis point (seed 1, T0 → T7, $10,000,000)", () => {
    // A detour through T13 takes 18,411 parts per billion of the input (0.18 bp) at a far better
    // rate than the drained T0/WETH pair: rounded to basis points it was dropped (37.7 bp below).
    const { quote } = regression([1, "T0", "T7", 10_000_000], {
      amountOut: 10024076411628010n,
      gapBelow: 0.01,
    });
    expect(widths(quote).least).toBe(18_411);
  });

  it("sends less to a pool that alone spends its token and is full (seed 4, T6 → T9, $100,000)", () => {
    // The dual fills the T1 → T9 range to its end; the exact WETH → T1 hop made a hair more T1
    // than it takes. WETH → T1's share is cut instead (the flow was given up: 17.5 bp below).
    regression([4, "T6", "T9", 100_000], {
      amountOut: 57082199133442403805n,
      paths: 56982321519829209019n,
      gapBelow: 0.01,
    });
  });

  it("seeks a small trade's flow over the pools ranked at a sliver too (seed 15, T0 → T17, $100)", () => {
    // The best path at the amount leads nowhere near the T0/WBTC pool that takes 2.5% of the
    // input: the flow was sought over the best path's pools alone (1.08 bp below).
    regression([15, "T0", "T17", 100], {
      amountOut: 474013825259633073245384n,
      paths: 473966719605214450823855n,
      gapBelow: 0.1,
    });
  });

  it("divides a token between up to twelve pools by default (seed 3, T16 → T7, $100,000)", () => {
    // USDC goes to four WETH pools and four USDT pools: capped at four, 9.7 bp below.
    const { params, quote } = regression([3, "T16", "T7", 100_000], {
      amountOut: 207160183610051878774n,
      gapBelow: 0.01,
    });
    expect(widths(quote).widest).toBe(8);
    const four = route(findRoute({ ...params, maxSplits: 4 }));
    expect(four.amountOut).toBe(206959150278021545653n);
    expect(widths(four).widest).toBe(4);
  });

  it("fills an amount no whole path can: two concentrated ranges behind one pool and before another", () => {
    // B → C through two V3 pools, each with one range holding about 5,000 B of room below the
    // price: 8,000 B fits in neither, and whole paths cannot divide B (both would need the A/B
    // and C/D pairs). A flow divides it between the ranges.
    const ab = v2(A, B, 1_000_000_000n * E18, 1_000_000_000n * E18);
    const range = () =>
      v3({
        token0: B,
        token1: C,
        feePpm: 500,
        tickSpacing: 10,
        tick: 0,
        positions: [{ lower: -100, upper: 100, liquidity: 10n ** 24n }],
      });
    const [r1, r2] = [range(), range()];
    const cd = v2(C, D, 1_000_000_000n * E18, 1_000_000_000n * E18);
    const graph = graphOf(ab, r1, r2, cd);
    const params = {
      graph,
      tokenIn: A,
      tokenOut: D,
      amountIn: 8_000n * E18,
      gasPriceWei: 0n,
      weth: NO_WETH,
    };
    expect(findRoute({ ...params, flows: false })).toEqual({
      ok: false,
      reason: "insufficient-liquidity",
    });
    const quote = route(findRoute(params));
    const hops = quote.flow?.hops ?? [];
    expect(new Set(hops.map((h) => h.edge.pool))).toEqual(new Set([ab, r1, r2, cd]));
    expect(hops.map((h) => h.edge.tokenIn)).toEqual([A, B, B, C]);
    const again = quoteFlow({ tokenIn: A, tokenOut: D, amountIn: params.amountIn, hops });
    expect(again.ok && again.amountOut).toBe(quote.amountOut);
    expect(certifyRoute(params, quote).gapBps).toBeLessThan(1);
  });

  it("stops solving once the dual shows no flow beats the route by a hundredth of a basis point", () => {
    // Two parallel pairs: the route's two whole paths already divide A as well as any flow.
    const deep = v2(A, B, 1_000_000n * E18, 1_000_000n * E18);
    const shallow = v2(A, B, 600_000n * E18, 600_000n * E18);
    const graph = graphOf(deep, shallow);
    const amountIn = 50_000n * E18;
    const params = { graph, tokenIn: A, tokenOut: B, amountIn, gasPriceWei: 0n, weth: NO_WETH };
    const quote = route(findRoute(params));
    expect(quote.flow).toBeUndefined();
    expect(quote.legs.map((l) => l.hops[0]?.edge.pool)).toEqual([deep, shallow]);
    const beat = Number(quote.amountOut);
    const edges = [edge(graph, deep, A), edge(graph, shallow, A)];
    const solve = { models: graph.models, edges, tokenIn: A, tokenOut: B, amountIn };
    const dual = { ...solve, amountIn: Number(amountIn), certify: false, maxSweeps: 0 };
    const full = flowBound(dual);
    const stopped = flowBound({ ...dual, stopAt: beat * (1 + FLOW_STOP_MARGIN) });
    expect([full.stopped, stopped.stopped]).toEqual([false, true]);
    expect(stopped.evaluations).toBeLessThan(full.evaluations);
    // The stop lost nothing beyond its margin: solved on, the flow makes no more than that.
    const costOf = () => 0n;
    expect(solveFlowRoute({ ...solve, costOf, beat })).toBeUndefined();
    const solved = solveFlowRoute({ ...solve, costOf });
    expect(Number(solved?.amountOut)).toBeLessThanOrEqual(beat * (1 + FLOW_STOP_MARGIN));
    expect(full.value).toBeLessThanOrEqual(beat * (1 + FLOW_STOP_MARGIN));
  });

  it("drops a pool that does not earn its gas", () => {
    const { graph, ab, bc1, bc2, cd } = diamond();
    // A trade small enough that dividing B pays less than a hop's gas at this price.
    const amountIn = 300n * E18;
    const params = { graph, tokenIn: A, tokenOut: D, amountIn, weth: D, gasPriceWei: 0n };
    const free = route(findRoute(params));
    expect(free.flow?.hops.map((h) => h.edge.pool)).toEqual([ab, bc2, bc1, cd]);
    // 10,000 gwei: a hop's gas costs more than dividing B gains.
    const paid = route(findRoute({ ...params, gasPriceWei: 10_000_000_000_000n }));
    expect(paid.flow).toBeUndefined();
    expect(paid.legs.map((l) => l.hops.map((h) => h.edge.pool))).toEqual([[ab, bc1, cd]]);
  });
});

describe("a bundle's route action", () => {
  it("inlines a flow: B divided at run time, C merged, and the route's steps are the flow's hops", () => {
    const { graph, ab, bc1, bc2, cd } = diamond();
    const user = token(0x7777);
    const built = buildBundle({
      chain,
      contracts,
      graph,
      gasPriceWei: 0n,
      request: {
        fromAddress: user,
        receiver: undefined,
        spender: user,
        routingStrategy: "delegate",
        actions: [
          {
            protocol: "core",
            action: "route",
            args: { tokenIn: A, tokenOut: D, amountIn: (40_000n * E18).toString() },
          },
        ],
      },
    });
    const functions = built.compiled.program.calls.map((c) => c.functionName);
    expect(functions.filter((f) => f === "splitProportionally" || f === "sum")).toEqual([
      "splitProportionally",
      "sum",
    ]);
    const found = route(
      findRoute({
        graph,
        tokenIn: A,
        tokenOut: D,
        amountIn: 40_000n * E18,
        gasPriceWei: 0n,
        weth: A,
      }),
    );
    expect(
      built.compiled.routeSteps.map((s) => [s.primaryAddress.toLowerCase(), s.amountIn]),
    ).toEqual(
      [ab, bc2, bc1, cd].map((pool, i) => [pool.address, String(found.flow?.hops[i]?.amountIn)]),
    );
  });
});
