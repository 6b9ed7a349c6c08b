/**
 * The pool math against exact values published with Uniswap's and OpenZeppelin's own test
 * suites and values worked out by hand; the on-chain equality over random amounts is in
 * onchain.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  getAmount0Delta,
  getAmount1Delta,
  getNextSqrtPriceFromInput,
} from "../../engine/math/sqrt-price-math.js";
import { computeSwapStep } from "../../engine/math/swap-math.js";
import {
  getSqrtRatioAtTick,
  getTickAtSqrtRatio,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
} from "../../engine/math/tick-math.js";
import { uniswapV3ExactIn, uniswapV3SwapAllowed } from "../../engine/math/uniswap-v3.js";
import { previewDeposit, previewRedeem } from "../../engine/protocols/erc4626/math.js";
import { uniswapV2AmountOut } from "../../engine/protocols/uniswap-v2/math.js";
import { E18, token, v3 } from "./fixtures.js";

/** sqrt(reserve1 / reserve0) × 2^96, floored (Uniswap's `encodePriceSqrt`). */
function encodePriceSqrt(reserve1: bigint, reserve0: bigint): bigint {
  const value = (reserve1 << 192n) / reserve0;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + value / x) / 2n;
  }
  return x;
}

describe("TickMath", () => {
  it("gives the sqrt ratio at the bounds, at 0 and next to it", () => {
    expect(getSqrtRatioAtTick(MIN_TICK)).toBe(MIN_SQRT_RATIO);
    expect(getSqrtRatioAtTick(MAX_TICK)).toBe(MAX_SQRT_RATIO);
    expect(getSqrtRatioAtTick(0)).toBe(1n << 96n);
    expect(getSqrtRatioAtTick(1)).toBe(79232123823359799118286999568n);
    expect(getSqrtRatioAtTick(-1)).toBe(79224201403219477170569942574n);
    expect(getSqrtRatioAtTick(MIN_TICK + 1)).toBe(4295343490n);
    expect(getSqrtRatioAtTick(MAX_TICK - 1)).toBe(
      1461373636630004318706518188784493106690254656249n,
    );
  });

  it("refuses ticks outside the range", () => {
    expect(() => getSqrtRatioAtTick(MAX_TICK + 1)).toThrow(RangeError);
    expect(() => getSqrtRatioAtTick(MIN_TICK - 1)).toThrow(RangeError);
  });

  it("gives the greatest tick at or below a sqrt ratio", () => {
    expect(getTickAtSqrtRatio(MIN_SQRT_RATIO)).toBe(MIN_TICK);
    expect(getTickAtSqrtRatio(4295343490n)).toBe(MIN_TICK + 1);
    expect(getTickAtSqrtRatio(MAX_SQRT_RATIO - 1n)).toBe(MAX_TICK - 1);
    for (const tick of [-200_000, -1, 0, 1, 50, 123_456]) {
      const ratio = getSqrtRatioAtTick(tick);
      expect(getTickAtSqrtRatio(ratio)).toBe(tick);
      expect(getTickAtSqrtRatio(ratio - 1n)).toBe(tick - 1);
    }
  });
});

describe("SqrtPriceMath", () => {
  const one = encodePriceSqrt(1n, 1n);
  const price121 = encodePriceSqrt(121n, 100n);

  it("token amounts between two prices, rounded up and down", () => {
    expect(getAmount0Delta(one, price121, E18, true)).toBe(90909090909090910n);
    expect(getAmount0Delta(one, price121, E18, false)).toBe(90909090909090909n);
    expect(getAmount1Delta(one, price121, E18, true)).toBe(100000000000000000n);
    expect(getAmount1Delta(one, price121, E18, false)).toBe(99999999999999999n);
    expect(getAmount0Delta(one, one, E18, true)).toBe(0n);
  });

  it("the price after an input of either token", () => {
    expect(getNextSqrtPriceFromInput(one, E18, E18 / 10n, false)).toBe(
      87150978765690771352898345369n,
    );
    expect(getNextSqrtPriceFromInput(one, E18, E18 / 10n, true)).toBe(
      72025602285694852357767227579n,
    );
    expect(getNextSqrtPriceFromInput(one, E18, 0n, true)).toBe(one);
  });
});

describe("SwapMath.computeSwapStep", () => {
  const one = encodePriceSqrt(1n, 1n);

  it("an input capped at the target price", () => {
    const target = encodePriceSqrt(101n, 100n);
    const step = computeSwapStep(one, target, 2n * E18, E18, 600n);
    expect(step).toEqual({
      sqrtRatioNextX96: target,
      amountIn: 9975124224178055n,
      amountOut: 9925619580021728n,
      feeAmount: 5988667735148n,
    });
  });

  it("an input spent before the target price", () => {
    const target = encodePriceSqrt(1000n, 100n);
    const step = computeSwapStep(one, target, 2n * E18, E18, 600n);
    expect(step.amountIn).toBe(999400000000000000n);
    expect(step.feeAmount).toBe(600000000000000n);
    expect(step.amountOut).toBe(666399946655997866n);
    expect(step.amountIn + step.feeAmount).toBe(E18);
    expect(step.sqrtRatioNextX96).toBeLessThan(target);
  });
});

describe("Uniswap V2 getAmountOut", () => {
  it("matches the values of Uniswap's tests", () => {
    expect(
      uniswapV2AmountOut({ amountIn: 2n, reserveIn: 100n, reserveOut: 100n, feePpm: 3000 }),
    ).toBe(1n);
    // Router02 test: 1 token into a 5/10 pair.
    expect(
      uniswapV2AmountOut({
        amountIn: E18,
        reserveIn: 5n * E18,
        reserveOut: 10n * E18,
        feePpm: 3000,
      }),
    ).toBe(1662497915624478906n);
  });

  it("is zero for nothing in or an empty pair", () => {
    expect(
      uniswapV2AmountOut({ amountIn: 0n, reserveIn: 100n, reserveOut: 100n, feePpm: 3000 }),
    ).toBe(0n);
    expect(
      uniswapV2AmountOut({ amountIn: 5n, reserveIn: 0n, reserveOut: 100n, feePpm: 3000 }),
    ).toBe(0n);
  });

  it("takes the pair's own fee", () => {
    // 1,000 in at 0.25%: 997,500 × 10^6 / (10^6 × 10^6 + 997,500 × 1,000).
    expect(
      uniswapV2AmountOut({
        amountIn: 1000n,
        reserveIn: 1_000_000n,
        reserveOut: 1_000_000n,
        feePpm: 2500,
      }),
    ).toBe(996n);
  });
});

describe("OpenZeppelin ERC4626 previews", () => {
  it("floors shares and assets with the virtual share and asset", () => {
    const totals = { totalAssets: 1000n, totalSupply: 900n, decimalsOffset: 0 };
    expect(previewDeposit(totals, 100n)).toBe(90n); // 100 × 901 / 1001 = 90.009
    expect(previewRedeem(totals, 90n)).toBe(99n); // 90 × 1001 / 901 = 99.99
  });

  it("uses 10^offset virtual shares", () => {
    const totals = { totalAssets: 1000n, totalSupply: 900_000n, decimalsOffset: 3 };
    expect(previewDeposit(totals, 100n)).toBe(90_009n); // 100 × 901,000 / 1,001
    expect(previewRedeem(totals, 90_009n)).toBe(99n); // 90,009 × 1,001 / 901,000 = 99.99
  });

  it("an empty vault: one share per asset times 10^offset", () => {
    expect(previewDeposit({ totalAssets: 0n, totalSupply: 0n, decimalsOffset: 0 }, 123n)).toBe(
      123n,
    );
    expect(previewDeposit({ totalAssets: 0n, totalSupply: 0n, decimalsOffset: 2 }, 123n)).toBe(
      12_300n,
    );
  });
});

describe("Uniswap V3 exact-input swap loop", () => {
  const [a, b] = [token(1), token(2)];
  // Three positions at tick spacing 60 around tick 0.
  const pool = v3({
    token0: a,
    token1: b,
    feePpm: 3000,
    tickSpacing: 60,
    tick: 0,
    positions: [
      { lower: -600, upper: 600, liquidity: 10n * E18 },
      { lower: -120, upper: 120, liquidity: 50n * E18 },
      { lower: -6000, upper: 6000, liquidity: E18 },
    ],
  });

  it("within the current range it is one swap step", () => {
    const result = uniswapV3ExactIn({ pool, zeroForOne: true, amountIn: E18 / 100n });
    const step = computeSwapStep(
      pool.sqrtPriceX96,
      getSqrtRatioAtTick(-120),
      pool.liquidity,
      E18 / 100n,
      3000n,
    );
    expect(result).toEqual({
      ok: true,
      amountOut: step.amountOut,
      ticksCrossed: 0,
      sqrtPriceX96After: step.sqrtRatioNextX96,
      liquidityAfter: 61n * E18,
    });
  });

  it("crosses initialized ticks, applying their liquidity", () => {
    const down = uniswapV3ExactIn({ pool, zeroForOne: true, amountIn: (8n * E18) / 10n });
    expect(down.ok && down.ticksCrossed).toBe(2);
    expect(down.ok && down.liquidityAfter).toBe(E18);
    const up = uniswapV3ExactIn({ pool, zeroForOne: false, amountIn: (8n * E18) / 10n });
    expect(up.ok && up.ticksCrossed).toBe(2);
    // Symmetric liquidity around the price: the same input out either way, to rounding.
    if (!down.ok || !up.ok) throw new Error("a swap the pool can fill failed");
    expect(down.amountOut - up.amountOut).toBeGreaterThanOrEqual(-2n);
    expect(down.amountOut - up.amountOut).toBeLessThanOrEqual(2n);
  });

  it("reports a swap the liquidity cannot fill, and one too small to give anything", () => {
    expect(uniswapV3ExactIn({ pool, zeroForOne: true, amountIn: 10n ** 30n })).toEqual({
      ok: false,
      reason: "exceeds-liquidity",
    });
    expect(uniswapV3ExactIn({ pool, zeroForOne: true, amountIn: 1n })).toEqual({
      ok: false,
      reason: "zero-output",
    });
  });

  it("skips ranges without liquidity to the next initialized tick", () => {
    // Nothing in range at tick 0; liquidity only below -1200.
    const gap = v3({
      token0: a,
      token1: b,
      feePpm: 500,
      tickSpacing: 10,
      tick: 0,
      positions: [{ lower: -30_000, upper: -1200, liquidity: 10n * E18 }],
    });
    const result = uniswapV3ExactIn({ pool: gap, zeroForOne: true, amountIn: E18 / 10n });
    expect(result.ok && result.ticksCrossed).toBe(1);
    expect(uniswapV3ExactIn({ pool: gap, zeroForOne: false, amountIn: E18 })).toEqual({
      ok: false,
      reason: "exceeds-liquidity",
    });
  });
});

describe("Uniswap V3 swap against the pool's price-limit check ('SPL')", () => {
  const [a, b] = [token(1), token(2)];
  /**
   * A 0.01% pool (tick spacing 1, so a position can start at MIN_TICK) at `sqrtPriceX96`, with
   * one position over every tick in range.
   */
  const at = (sqrtPriceX96: bigint, liquidity = E18) =>
    v3({
      token0: a,
      token1: b,
      feePpm: 100,
      tickSpacing: 1,
      tick: getTickAtSqrtRatio(sqrtPriceX96),
      sqrtPriceX96,
      positions: [{ lower: MIN_TICK, upper: MAX_TICK, liquidity }],
    });
  const PRICE_LIMIT = { ok: false, reason: "price-limit" };

  it("admits a direction only strictly inside its limit (MIN + 1 selling token0, MAX - 1 selling token1)", () => {
    expect(uniswapV3SwapAllowed(MIN_SQRT_RATIO, true)).toBe(false);
    expect(uniswapV3SwapAllowed(MIN_SQRT_RATIO + 1n, true)).toBe(false);
    expect(uniswapV3SwapAllowed(MIN_SQRT_RATIO + 2n, true)).toBe(true);
    expect(uniswapV3SwapAllowed(MIN_SQRT_RATIO, false)).toBe(true);
    expect(uniswapV3SwapAllowed(MAX_SQRT_RATIO - 1n, false)).toBe(false);
    expect(uniswapV3SwapAllowed(MAX_SQRT_RATIO - 2n, false)).toBe(true);
    expect(uniswapV3SwapAllowed(MAX_SQRT_RATIO - 1n, true)).toBe(true);
  });

  it("a pool at MIN_SQRT_RATIO with liquidity fills no token0 input; token1 in still fills", () => {
    const pool = at(MIN_SQRT_RATIO);
    expect(pool.tick).toBe(MIN_TICK);
    expect(pool.liquidity).toBe(E18);
    // Run without the check, the loop steps up to MIN + 1 and pays out 4.29e27 of token0.
    expect(uniswapV3ExactIn({ pool, zeroForOne: true, amountIn: 2n })).toEqual(PRICE_LIMIT);
    expect(uniswapV3ExactIn({ pool, zeroForOne: true, amountIn: E18 })).toEqual(PRICE_LIMIT);
    expect(
      uniswapV3ExactIn({ pool: at(MIN_SQRT_RATIO + 1n), zeroForOne: true, amountIn: 2n }),
    ).toEqual(PRICE_LIMIT);
    expect(uniswapV3ExactIn({ pool, zeroForOne: false, amountIn: 2n })).toEqual({
      ok: true,
      amountOut: 211815702713637871261940724647617409n,
      ticksCrossed: 0,
      sqrtPriceX96After: 4345022563n,
      liquidityAfter: E18,
    });
  });

  it("a pool at MAX_SQRT_RATIO - 1 with liquidity fills no token1 input; token0 in still fills", () => {
    const pool = at(MAX_SQRT_RATIO - 1n);
    expect(pool.tick).toBe(MAX_TICK - 1);
    expect(pool.liquidity).toBe(E18);
    expect(uniswapV3ExactIn({ pool, zeroForOne: false, amountIn: 2n })).toEqual(PRICE_LIMIT);
    expect(uniswapV3ExactIn({ pool, zeroForOne: false, amountIn: E18 })).toEqual(PRICE_LIMIT);
    expect(uniswapV3ExactIn({ pool, zeroForOne: true, amountIn: 2n })).toEqual({
      ok: true,
      amountOut: 212727348181083659448234997494028693n,
      ticksCrossed: 0,
      sqrtPriceX96After: 1444592706572290712980579284556879866719453002687n,
      liquidityAfter: E18,
    });
  });

  it("one step inside the limits the swap runs as before", () => {
    // One price unit inside: admitted, and 2 wei move a price this coarse by nothing.
    expect(
      uniswapV3ExactIn({ pool: at(MIN_SQRT_RATIO + 2n), zeroForOne: true, amountIn: 2n }),
    ).toEqual({ ok: false, reason: "zero-output" });
    expect(
      uniswapV3ExactIn({ pool: at(MAX_SQRT_RATIO - 2n), zeroForOne: false, amountIn: 2n }),
    ).toEqual({ ok: false, reason: "zero-output" });
    // One tick inside, with the liquidity to hold whole units of the output near the bound.
    const liquidity = 10n ** 30n;
    const low = at(getSqrtRatioAtTick(MIN_TICK + 1), liquidity);
    expect(uniswapV3ExactIn({ pool: low, zeroForOne: true, amountIn: 10n ** 44n })).toEqual({
      ok: true,
      amountOut: 293885n,
      ticksCrossed: 0,
      sqrtPriceX96After: 4295320206n,
      liquidityAfter: liquidity,
    });
    const high = at(getSqrtRatioAtTick(MAX_TICK - 1), liquidity);
    expect(uniswapV3ExactIn({ pool: high, zeroForOne: false, amountIn: 10n ** 44n })).toEqual({
      ok: true,
      amountOut: 293894n,
      ticksCrossed: 0,
      sqrtPriceX96After: 1461381558653974119997634167244087203330254656249n,
      liquidityAfter: liquidity,
    });
  });
});
