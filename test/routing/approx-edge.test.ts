/**
 * The float shadows the search ranks with follow the exact pool math closely (they decide
 * which paths are quoted exactly, never an amount).
 */
import { describe, expect, it } from "vitest";
import { rawAmount, syntheticGraph } from "../../bench/synthetic-graph.js";
import { mulberry32 } from "../../devnet/random.js";
import type { ApproxQuote } from "../../engine/core/quote.js";
import type { Address, Edge } from "../../engine/core/types.js";
import { engine, simulateEdge } from "../../engine/index.js";
import { MAX_TICK, MIN_SQRT_RATIO, MIN_TICK } from "../../engine/math/tick-math.js";
import { uniswapV2ZapIn, uniswapV2ZapOut } from "../../engine/protocols/uniswap-v2/math.js";
import { E18, token, v3 } from "./fixtures.js";

const approxEdge = (edge: Edge, amountIn: number, result: ApproxQuote) =>
  engine.models.approx(edge, amountIn, result);
const approxEdgeQuoter = (edge: Edge) => engine.models.approxQuoter(edge);
const approxSpot = (edge: Edge, result: Parameters<typeof engine.models.approxSpot>[1]) =>
  engine.models.approxSpot(edge, result);

/**
 * A single-sided V2 add or removal rounds its intermediate amounts to whole units too (the
 * sale, the two deposits; the burn's two shares): each a relative error of one unit in it.
 */
function intermediateUnits(edge: Edge, amountIn: bigint): number {
  const pool = edge.pool;
  if (pool.kind !== "v2" || edge.action === "swap") return 0;
  const reserve = (t: Address) => (t === pool.token0 ? pool.reserve0 : pool.reserve1);
  const other = (t: Address) => (t === pool.token0 ? pool.token1 : pool.token0);
  const { totalSupply } = pool;
  if (edge.action === "deposit") {
    const reserveIn = reserve(edge.tokenIn);
    const reserveOut = reserve(other(edge.tokenIn));
    const zap = uniswapV2ZapIn({ amountIn, reserveIn, reserveOut, totalSupply });
    if (!zap) return 0;
    // The sale's output also sets the reserve left after it, which prices the deposit.
    const left = reserveOut - zap.swapOut;
    return [zap.swapOut, left, zap.depositIn, zap.depositOther].reduce(
      (s, x) => s + 1 / Number(x),
      0,
    );
  }
  const reserveOwn = reserve(edge.tokenOut);
  const reserveOther = reserve(other(edge.tokenOut));
  const zap = uniswapV2ZapOut({ liquidity: amountIn, reserveOwn, reserveOther, totalSupply });
  if (!zap) return 0;
  // One unit of the other token is worth reserveOwn / reserveOther units of the output.
  const otherUnit = Number(reserveOwn) / Number(reserveOther);
  return (1 + otherUnit) / Number(zap.amountOut) + 1 / Number(zap.amountOwn);
}

describe("approxEdge", () => {
  it("is within 1e-7 of the exact quote (plus its rounding to whole units), and fails where the exact quote fails", () => {
    const world = syntheticGraph({ pools: 400, seed: 5, v4Share: 0.3 });
    const edges: Edge[] = [];
    for (const token of world.graph.tokens()) edges.push(...world.graph.edgesFrom(token));
    // The V2 pairs' terminal edges: into and out of their LP tokens.
    for (const pool of world.graph.pools()) {
      if (pool.kind !== "v2") continue;
      edges.push(...world.graph.edgesFromVia(pool.address, pool.address));
      edges.push(...world.graph.edgesIntoVia(pool.address, pool.address));
    }
    const random = mulberry32(17);
    const quote: ApproxQuote = { out: 0, ticksCrossed: 0 };
    let compared = 0;
    let failures = 0;
    /** V4 edges compared: with a protocol fee, and selling native ether. */
    let v4WithFee = 0;
    let v4Native = 0;
    for (let i = 0; i < 3_000; i++) {
      const edge = edges[Math.floor(random() * edges.length)] as Edge;
      const token = world.tokens.find((t) => t.address === edge.tokenIn);
      // From $1 to $100M worth: from spot to well past what most pools hold.
      const amountIn = token
        ? rawAmount(token, 10 ** (8 * random()))
        : 10n ** BigInt(Math.floor(6 + 18 * random()));
      const exact = simulateEdge(edge, amountIn);
      approxEdge(edge, Number(amountIn), quote);
      if (exact.ok) {
        // The exact math rounds to whole units (the fee up, the output down, at each step): on
        // tiny amounts that rounding, a few units, is what separates the two.
        const relative = Math.abs(quote.out / Number(exact.amountOut) - 1);
        const units =
          1 / Number(amountIn) + 1 / Number(exact.amountOut) + intermediateUnits(edge, amountIn);
        expect(relative).toBeLessThan(1e-7 + (2 + 2 * exact.ticksCrossed) * units);
        expect(quote.ticksCrossed).toBe(exact.ticksCrossed);
        compared++;
        if (edge.pool.kind === "v4" && edge.pool.protocolFee !== 0) v4WithFee++;
        if (
          edge.pool.kind === "v4" &&
          edge.tokenIn === "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
        ) {
          v4Native++;
        }
      } else if (exact.reason === "exceeds-liquidity") {
        expect(quote.out).toBeNaN();
        failures++;
      }
    }
    expect(compared).toBeGreaterThan(1_000);
    expect(failures).toBeGreaterThan(20);
    expect(v4WithFee).toBeGreaterThan(10);
    expect(v4Native).toBeGreaterThan(0);
  });

  it("a V3 pool at its price limit takes nothing that way, as the exact quote says", () => {
    const [a, b] = [token(1), token(2)];
    // Selling token0 into a pool at MIN_SQRT_RATIO reverts 'SPL'.
    const pool = v3({
      token0: a,
      token1: b,
      feePpm: 100,
      tickSpacing: 1,
      tick: MIN_TICK,
      sqrtPriceX96: MIN_SQRT_RATIO,
      positions: [{ lower: MIN_TICK, upper: MAX_TICK, liquidity: E18 }],
    });
    const blocked: Edge = { pool, tokenIn: a, tokenOut: b, action: "swap" };
    const open: Edge = { pool, tokenIn: b, tokenOut: a, action: "swap" };
    const quote: ApproxQuote = { out: 0, ticksCrossed: 0 };
    expect(simulateEdge(blocked, 2n)).toEqual({ ok: false, reason: "price-limit" });
    // The float walk alone gives 0 for 2 wei and 2.4e-17 for 10^22 here, not a failure.
    for (const amountIn of [2, 1e22, 1e30]) {
      expect(approxEdge(blocked, amountIn, quote)).toEqual({ out: Number.NaN, ticksCrossed: 0 });
      expect(approxEdgeQuoter(blocked)(amountIn, quote)).toEqual({
        out: Number.NaN,
        ticksCrossed: 0,
      });
    }
    const sqrtPrice = Number(MIN_SQRT_RATIO) / 2 ** 96;
    expect(approxSpot(blocked, { rate: 0, depthIn: 0 })).toEqual({
      rate: sqrtPrice * sqrtPrice,
      depthIn: 0,
    });
    // The other way the pool trades: its float quote and depth are as for any pool.
    const exact = simulateEdge(open, E18);
    expect(exact.ok && exact.amountOut).toBe(18446050707367246062248564429158194664n);
    approxEdge(open, 1e18, quote);
    expect(Math.abs(quote.out / 1.8446050707367246e37 - 1)).toBeLessThan(1e-7);
    expect(approxSpot(open, { rate: 0, depthIn: 0 })).toEqual({
      rate: 1 / (sqrtPrice * sqrtPrice),
      depthIn: 1e18 * sqrtPrice,
    });
  });
});
