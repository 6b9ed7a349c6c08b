import { describe, expect, it } from "vitest";
import type { Pool } from "../../engine/core/types.js";
import { createRoutingGraph } from "../../engine/index.js";
import { MAX_TICK, MIN_SQRT_RATIO, MIN_TICK } from "../../engine/math/tick-math.js";
import { balancerV2PoolOf } from "../../engine/protocols/balancer-v2/pool.js";
import type { RoutingGraph } from "../../engine/routing/graph.js";
import { priceImpactBps, usdPrices } from "../../engine/routing/prices.js";
import { PRICE_SCALE, spotPrices, staleSpotPrices } from "../../engine/routing/spot-prices.js";
import { E6, E18, token, v2, v3 } from "./fixtures.js";

const [usdc, weth, link, dust, island, usdt] = [
  token(1),
  token(2),
  token(3),
  token(4),
  token(5),
  token(6),
];

function graphOf(...pools: Pool[]): RoutingGraph {
  const graph = createRoutingGraph();
  for (const pool of pools) graph.upsertPool(pool);
  return graph;
}

/** A 50/50 Balancer weighted pool of `a` and `b` (18 and 6 decimals) whose BPT supply is `supply`. */
function weighted(
  address: number,
  [a, b]: [`0x${string}`, `0x${string}`],
  [balanceA, balanceB]: [bigint, bigint],
  supply: bigint,
  decimals: [number, number] = [18, 6],
) {
  return balancerV2PoolOf({
    address: token(address),
    poolId: `0x${address.toString(16).padStart(64, "0")}`,
    vault: token(0xba12),
    type: "weighted",
    state: {
      tokens: [a, b],
      balances: [balanceA, balanceB],
      scalingFactors: decimals.map((d) => 10n ** BigInt(36 - d)),
      normalizedWeights: [E18 / 2n, E18 / 2n],
      swapFeePercentage: 3n * 10n ** 15n,
      actualSupply: supply,
    },
  });
}

describe("usdPrices", () => {
  // WETH at 3,000 USDC; LINK at 0.005 WETH ($15) in a deep pool, at $1,500 in a dust pool.
  const graph = graphOf(
    v2(usdc, weth, 30_000_000n * E6, 10_000n * E18),
    v2(weth, link, 1_000n * E18, 200_000n * E18),
    v2(usdc, link, 1_500n * E6, 1n * E18),
    v2(link, dust, 1n * E18, 1n * E18),
    v2(island, token(7), E18, E18),
  );
  const stablecoins = [{ address: usdc, decimals: 6 }];

  it("values one raw unit in USD × 10^36 through the deepest connection", () => {
    const prices = usdPrices({ graph, stablecoins });
    expect(prices.get(usdc)).toBe(PRICE_SCALE / 10n ** 6n);
    // 10^30 × 3e13 / 1e22 = 3,000 × 10^18.
    expect(prices.get(weth)).toBe(3_000n * E18);
    // Through WETH (deep), not the dust USDC pair: $15.
    expect(prices.get(link)).toBe(15n * E18);
    // Priced through LINK's dust pool, the only one it has.
    expect(prices.get(dust)).toBe(15n * E18);
    expect(prices.get(island)).toBeUndefined();
  });

  it("values a weighted pool's BPT, which no edge reaches, at its share of the pool's balances", () => {
    // 100 WETH and 300,000 USDC behind 1,000 BPT: $600 a BPT, $600,000 of depth.
    const bpt = token(0xb1);
    const unpriced = token(0xb3);
    const withBpts = graphOf(
      v2(usdc, weth, 30_000_000n * E6, 10_000n * E18),
      weighted(0xb1, [weth, usdc], [100n * E18, 300_000n * E6], 1_000n * E18),
      // Its tokens reach no anchor: neither they nor its BPT are priced.
      weighted(0xb3, [island, token(7)], [E18, 1_000n * E6], E18),
    );
    const spot = spotPrices({
      graph: withBpts,
      anchors: [{ token: usdc, price: PRICE_SCALE / E6 }],
    });
    // (100e18 × 3,000e18 + 300,000e6 × 1e30) / 1,000e18 per raw unit, × 10^36.
    expect(spot.prices.get(bpt)).toBe(600n * E18);
    expect(spot.prices.get(unpriced)).toBeUndefined();
    // The depth behind the BPT's price: its pool's $600,000, less than the WETH pair's.
    expect(spot.depth.get(bpt)).toBe(600_000);
    expect(spot.approx.get(bpt)).toBeCloseTo(600 / 1e18, 30);
    // Off by a wei of supply, the price moves: it is the balances' value over the supply.
    const moreSupply = spotPrices({
      graph: graphOf(
        v2(usdc, weth, 30_000_000n * E6, 10_000n * E18),
        weighted(0xb1, [weth, usdc], [100n * E18, 300_000n * E6], 1_000n * E18 + 1n),
      ),
      anchors: [{ token: usdc, price: PRICE_SCALE / E6 }],
    });
    expect(moreSupply.prices.get(bpt)).toBe((600_000n * E18 * E18) / (1_000n * E18 + 1n));
  });

  it("values a fork's V2 LP token, which no deposit edge reaches, at its share of the reserves; Uniswap's own across its deposit edge", () => {
    // The same 100 WETH and 300,000 USDC behind each pair (3,000 USDC a WETH, as the deep pair).
    const deep = v2(usdc, weth, 30_000_000n * E6, 10_000n * E18);
    const own = v2(weth, usdc, 100n * E18, 300_000n * E6);
    const fork = { ...v2(weth, usdc, 100n * E18, 300_000n * E6, 2500), protocol: "pancakeswap-v2" };
    const lpSupply = fork.totalSupply;
    const spot = spotPrices({
      graph: graphOf(deep, own, fork),
      anchors: [{ token: usdc, price: PRICE_SCALE / E6 }],
    });
    // (100e18 × 3,000e18 + 300,000e6 × 1e30) / supply per raw unit, × 10^36.
    expect(spot.prices.get(fork.address)).toBe((600_000n * E18 * E18) / lpSupply);
    // Uniswap's pair: twice its share of the USDC reserve, across the deposit edge.
    expect(spot.prices.get(own.address)).toBe(
      ((PRICE_SCALE / E6) * 2n * 300_000n * E6) / own.totalSupply,
    );
    // A fork pair with no LP in existence is not priced.
    const empty = { ...fork, address: token(0xe0), totalSupply: 0n };
    const none = spotPrices({
      graph: graphOf(deep, empty),
      anchors: [{ token: usdc, price: PRICE_SCALE / E6 }],
    });
    expect(none.prices.get(empty.address)).toBeUndefined();
  });

  it("takes every stablecoin at one dollar when decimals are given", () => {
    const withUsdt = graphOf(
      v2(usdc, usdt, 1_000_000n * E6, 1_010_000n * E6),
      v2(usdt, weth, 30_000_000n * E6, 10_000n * E18),
    );
    const prices = usdPrices({
      graph: withUsdt,
      stablecoins: [
        { address: usdc, decimals: 6 },
        { address: usdt, decimals: 6 },
      ],
    });
    expect(prices.get(usdt)).toBe(PRICE_SCALE / 10n ** 6n);
    expect(prices.get(weth)).toBe(3_000n * E18);
  });

  it("with bare addresses, prices are relative to the first stablecoin held", () => {
    const prices = usdPrices({ graph, stablecoins: [token(99), usdc] });
    expect(prices.get(usdc)).toBe(PRICE_SCALE);
    expect(prices.get(weth)).toBe(3_000n * 10n ** 24n);
  });

  it("reprices after the graph changes, unless told staleness is fine", () => {
    const g = graphOf(v2(usdc, weth, 3_000n * E6, E18));
    expect(usdPrices({ graph: g, stablecoins }).get(weth)).toBe(3_000n * E18);
    const pair = [...g.pools()][0] as Pool;
    g.upsertPool({ ...pair, ...(pair.kind === "v2" ? { reserve0: 3_300n * E6 } : {}) });
    expect(usdPrices({ graph: g, stablecoins, maxStaleChanges: 1 }).get(weth)).toBe(3_000n * E18);
    expect(usdPrices({ graph: g, stablecoins }).get(weth)).toBe(3_300n * E18);
  });

  it("reads V3 and anchors of any value", () => {
    // token(1) < token(2): at tick 0 one raw unit of each is worth the same.
    const pool = v3({
      token0: usdc,
      token1: weth,
      feePpm: 500,
      tickSpacing: 10,
      tick: 0,
      positions: [{ lower: -100, upper: 100, liquidity: E18 }],
    });
    const prices = spotPrices({ graph: graphOf(pool), anchors: [{ token: weth, price: 7n }] });
    expect(prices.prices.get(usdc)).toBe(7n);
  });

  it("prices nothing through a V3 pool the way it sits at its price limit", () => {
    // WETH is token0 of a pool at MIN_SQRT_RATIO: selling WETH there reverts 'SPL', so the
    // pool's mid price (3.4e38 WETH per LINK) backs no trade and must not price LINK.
    const atLimit = v3({
      token0: weth,
      token1: link,
      feePpm: 100,
      tickSpacing: 1,
      tick: MIN_TICK,
      sqrtPriceX96: MIN_SQRT_RATIO,
      positions: [{ lower: MIN_TICK, upper: MAX_TICK, liquidity: E18 }],
    });
    const anchors = [{ token: weth, price: PRICE_SCALE }];
    expect(spotPrices({ graph: graphOf(atLimit), anchors }).prices.get(link)).toBeUndefined();
    const withPair = graphOf(atLimit, v2(weth, link, 1_000n * E18, 200_000n * E18));
    expect(spotPrices({ graph: withPair, anchors }).prices.get(link)).toBe(PRICE_SCALE / 200n);
  });
});

describe("staleSpotPrices", () => {
  // USDC–WETH (deep), WETH–LINK, a USDC–LINK dust pair and LINK–DUST, built afresh per test.
  const world = () => {
    const deep = v2(usdc, weth, 30_000_000n * E6, 10_000n * E18);
    const linkPair = v2(weth, link, 1_000n * E18, 200_000n * E18);
    const pools = [
      deep,
      linkPair,
      v2(usdc, link, 1_500n * E6, 1n * E18),
      v2(link, dust, E18, 2n * E18),
    ];
    return { graph: graphOf(...pools), pools, deep, linkPair };
  };
  /** `pool` (a V2 pair of `world`) with new reserves, same address. */
  const withReserves = (pool: Pool, reserve0: bigint, reserve1: bigint): Pool => ({
    ...pool,
    ...(pool.kind === "v2" ? { reserve0, reserve1 } : {}),
  });
  const anchors = [{ token: usdc, price: PRICE_SCALE / 10n ** 6n }];
  const tokens = [usdc, weth, link, dust, island];

  it("recomputes, a few edges at a time, what a fresh pricing gives, and keeps it", () => {
    const { graph, pools, deep } = world();
    const before = spotPrices({ graph, anchors });
    expect(before.prices.get(weth)).toBe(3_000n * E18);
    // WETH to 3,300 USDC: the deep pool's USDC reserve up 10% (usdc = token(1) is token0).
    const moved = withReserves(deep, 33_000_000n * E6, 10_000n * E18);
    graph.upsertPool(moved);
    expect(staleSpotPrices(graph, 1)).toEqual([]);
    const [run, ...others] = staleSpotPrices(graph, 0);
    expect(others).toEqual([]);
    // Already under way: not started twice.
    expect(staleSpotPrices(graph, 0)).toEqual([]);
    let steps = 1;
    while (!run?.advance(1)) {
      // Until it is done, requests that accept the drift get the prices from before it.
      expect(spotPrices({ graph, anchors, maxStaleChanges: 1 })).toBe(before);
      steps++;
    }
    // Four pairs, both ways: eight edges, one per step.
    expect(steps).toBe(8);
    const kept = spotPrices({ graph, anchors });
    expect(kept).not.toBe(before);
    expect(kept.prices.get(weth)).toBe(3_300n * E18);
    const fresh = spotPrices({ graph: graphOf(moved, ...pools.slice(1)), anchors });
    for (const t of tokens) {
      expect(kept.prices.get(t)).toBe(fresh.prices.get(t));
      expect(kept.depth.get(t)).toBe(fresh.depth.get(t));
    }
    // LINK at 0.005 WETH ($16.50), DUST at half a LINK.
    expect(kept.prices.get(dust)).toBe(825n * 10n ** 16n);
  });

  it("keeps the newer of a stepped run and a pricing done meanwhile", () => {
    const { graph, deep } = world();
    spotPrices({ graph, anchors });
    graph.upsertPool(withReserves(deep, 33_000_000n * E6, 10_000n * E18));
    const [run] = staleSpotPrices(graph, 0);
    expect(run?.advance(2)).toBe(false);
    // A request that accepts no drift prices the graph on the spot, after one more change.
    graph.upsertPool(withReserves(deep, 36_000_000n * E6, 10_000n * E18));
    const now = spotPrices({ graph, anchors });
    expect(now.prices.get(weth)).toBe(3_600n * E18);
    expect(run?.advance(100)).toBe(true);
    // The run started before the last change: what the request computed stays.
    expect(spotPrices({ graph, anchors })).toBe(now);
  });

  it("only reprices anchor sets already asked for, and reports the block they reflect", () => {
    const { graph, linkPair } = world();
    graph.blockNumber = 7n;
    graph.blockTimestamp = 1_700_000_000n;
    expect(staleSpotPrices(graph, 0)).toEqual([]);
    const first = spotPrices({ graph, anchors });
    expect([first.blockNumber, first.blockTimestamp]).toEqual([7n, 1_700_000_000n]);
    // LINK to 0.01 WETH ($30): weth = token(2) is token0.
    graph.upsertPool(withReserves(linkPair, 1_000n * E18, 100_000n * E18));
    graph.blockNumber = 8n;
    const [run, ...others] = staleSpotPrices(graph, 0);
    expect(others).toEqual([]);
    expect(run?.advance(Number.POSITIVE_INFINITY)).toBe(true);
    const kept = spotPrices({ graph, anchors });
    expect(kept.blockNumber).toBe(8n);
    expect(kept.prices.get(link)).toBe(30n * E18);
  });
});

describe("priceImpactBps", () => {
  const prices = new Map([
    [weth, 3_000n * E18],
    [usdc, PRICE_SCALE / 10n ** 6n],
  ]);

  it("is the value lost between input and output, in basis points", () => {
    const impact = (amountOut: bigint) =>
      priceImpactBps({ prices, tokenIn: weth, tokenOut: usdc, amountIn: E18, amountOut });
    expect(impact(2_970n * E6)).toBe(100);
    expect(impact(3_000n * E6)).toBe(0);
    expect(impact(2_999_999_999n)).toBe(0); // rounded towards zero
    expect(impact(3_030n * E6)).toBe(-100);
  });

  it("is null when either token has no USD price", () => {
    expect(
      priceImpactBps({ prices, tokenIn: weth, tokenOut: link, amountIn: E18, amountOut: 1n }),
    ).toBeNull();
  });
});
