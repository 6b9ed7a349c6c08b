/** Edge depths and the deepest-first order the search follows at hub tokens. */
import { describe, expect, it } from "vitest";
import type { Edge } from "../../engine/core/types.js";
import { createRoutingGraph, engine } from "../../engine/index.js";
import { MAX_TICK, MIN_SQRT_RATIO, MIN_TICK } from "../../engine/math/tick-math.js";
import { deepestEdgesFrom } from "../../engine/routing/edge-ranking.js";
import { E18, token, v2, v3 } from "./fixtures.js";

const edgeDepth = (edge: Edge, side: "in" | "out") => engine.models.depth(edge, side);

describe("edgeDepth", () => {
  it("a V3 pool at its price limit has no depth the way it reverts, and ranks last there", () => {
    const [a, b] = [token(1), token(2)];
    // Selling token0 into a pool at MIN_SQRT_RATIO reverts 'SPL'; its virtual token0 reserve
    // (liquidity / sqrtPrice, 1.8e37) would otherwise rank it above any real pool.
    const atLimit = v3({
      token0: a,
      token1: b,
      feePpm: 100,
      tickSpacing: 1,
      tick: MIN_TICK,
      sqrtPriceX96: MIN_SQRT_RATIO,
      positions: [{ lower: MIN_TICK, upper: MAX_TICK, liquidity: E18 }],
    });
    const blocked: Edge = { pool: atLimit, tokenIn: a, tokenOut: b, action: "swap" };
    const open: Edge = { pool: atLimit, tokenIn: b, tokenOut: a, action: "swap" };
    expect(edgeDepth(blocked, "in")).toBe(0);
    expect(edgeDepth(blocked, "out")).toBe(0);
    const sqrtPrice = Number(MIN_SQRT_RATIO) / 2 ** 96;
    expect(edgeDepth(open, "in")).toBe(1e18 * sqrtPrice);
    expect(edgeDepth(open, "out")).toBe(1e18 / sqrtPrice);

    const pair = v2(a, b, 1000n * E18, 1000n * E18);
    const graph = createRoutingGraph();
    graph.upsertPool(atLimit);
    graph.upsertPool(pair);
    expect(deepestEdgesFrom(graph, a, 1)).toEqual([
      { pool: pair, tokenIn: a, tokenOut: b, action: "swap" },
    ]);
  });
});
