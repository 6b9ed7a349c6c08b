/**
 * An exact-input Uniswap V3 swap computed off-chain, step by step as `UniswapV3Pool.swap` does
 * it: each step runs to the next initialized tick or to the end of the current bitmap word
 * (where the pool also stops a step, which matters for rounding), crossing initialized ticks
 * and applying their liquidity net. The tick table stands in for the bitmap.
 */
import type { V3Pool, V3Tick } from "../core/types.js";
import { SwapRevertError } from "./sqrt-price-math.js";
import { computeSwapStep } from "./swap-math.js";
import {
  getSqrtRatioAtTick,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
} from "./tick-math.js";

/** The pool state an exact-input swap reads. */
export type V3SwapState = Pick<
  V3Pool,
  "feePpm" | "tickSpacing" | "sqrtPriceX96" | "tick" | "liquidity" | "ticks"
>;

export type V3ExactInParameters = {
  pool: V3SwapState;
  /** True to sell token0 for token1. */
  zeroForOne: boolean;
  amountIn: bigint;
};

export type V3ExactInResult =
  | {
      ok: true;
      amountOut: bigint;
      /** Initialized ticks the swap crossed (each costs gas on chain). */
      ticksCrossed: number;
      sqrtPriceX96After: bigint;
      liquidityAfter: bigint;
    }
  | {
      ok: false;
      /**
       * `exceeds-liquidity`: the price limit was reached with input left over;
       * `price-limit`: the pool's price already sits at (or beyond) the swap's price limit, so
       * `swap` reverts 'SPL' before moving anything (see {@link uniswapV3SwapAllowed}).
       */
      reason: "exceeds-liquidity" | "price-limit" | "zero-output";
    };

const MAX_INT256 = (1n << 255n) - 1n;

/** Index of the last tick ≤ `tick` in the ascending list, or -1. */
function lastAtOrBelow(ticks: readonly V3Tick[], tick: number): number {
  let lo = 0;
  let hi = ticks.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((ticks[mid] as V3Tick).tick <= tick) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * As `TickBitmap.nextInitializedTickWithinOneWord` over the sorted tick list: the next
 * initialized tick in the swap's direction within the current 256-spacing word, or the word's
 * last tick (uninitialized) when the word holds none. Returns the index of the initialized
 * tick in `ticks`, or -1.
 */
function nextTickWithinWord(
  ticks: readonly V3Tick[],
  tick: number,
  tickSpacing: number,
  lte: boolean,
): { next: number; index: number } {
  const compressed = Math.floor(tick / tickSpacing);
  if (lte) {
    // `& 255` is uint8(compressed % 256) in two's complement, as the library's cast.
    const wordStart = (compressed - (compressed & 255)) * tickSpacing;
    const i = lastAtOrBelow(ticks, compressed * tickSpacing);
    const candidate = i >= 0 ? (ticks[i] as V3Tick).tick : undefined;
    return candidate !== undefined && candidate >= wordStart
      ? { next: candidate, index: i }
      : { next: wordStart, index: -1 };
  }
  const start = compressed + 1;
  const wordEnd = (start + (255 - (start & 255))) * tickSpacing;
  const i = lastAtOrBelow(ticks, start * tickSpacing - 1) + 1;
  const candidate = i < ticks.length ? (ticks[i] as V3Tick).tick : undefined;
  return candidate !== undefined && candidate <= wordEnd
    ? { next: candidate, index: i }
    : { next: wordEnd, index: -1 };
}

/**
 * The price limit our swaps pass to `pool.swap`: the furthest the pool accepts in each
 * direction (the same as SwapRouter's and QuoterV2's for a limit of 0).
 */
export function uniswapV3SqrtPriceLimit(zeroForOne: boolean): bigint {
  return zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n;
}

/**
 * Whether `UniswapV3Pool.swap` accepts a swap in this direction at the pool's current price
 * with {@link uniswapV3SqrtPriceLimit}: false for a pool at or below `MIN_SQRT_RATIO + 1`
 * selling token0, or at or above `MAX_SQRT_RATIO - 1` selling token1, where it reverts 'SPL'
 * (the swap loop run anyway would step towards the limit in the wrong direction).
 */
export function uniswapV3SwapAllowed(sqrtPriceX96: bigint, zeroForOne: boolean): boolean {
  const sqrtPriceLimitX96 = uniswapV3SqrtPriceLimit(zeroForOne);
  // require(zeroForOne
  //   ? sqrtPriceLimitX96 < slot0Start.sqrtPriceX96 && sqrtPriceLimitX96 > TickMath.MIN_SQRT_RATIO
  //   : sqrtPriceLimitX96 > slot0Start.sqrtPriceX96 && sqrtPriceLimitX96 < TickMath.MAX_SQRT_RATIO,
  //   'SPL');
  return zeroForOne
    ? sqrtPriceLimitX96 < sqrtPriceX96 && sqrtPriceLimitX96 > MIN_SQRT_RATIO
    : sqrtPriceLimitX96 > sqrtPriceX96 && sqrtPriceLimitX96 < MAX_SQRT_RATIO;
}

/**
 * The output of selling `amountIn` into the pool, as `pool.swap(recipient, zeroForOne,
 * amountIn, MIN_SQRT_RATIO + 1 | MAX_SQRT_RATIO - 1, data)` — and therefore QuoterV2's
 * `quoteExactInputSingle` with no price limit — would compute it.
 */
export function uniswapV3ExactIn(params: V3ExactInParameters): V3ExactInResult {
  const { pool, zeroForOne } = params;
  if (params.amountIn <= 0n || params.amountIn > MAX_INT256) {
    throw new RangeError(`amountIn ${params.amountIn} is not a positive int256`);
  }
  // The pool checks the limit against its starting price before anything else ('SPL').
  if (!uniswapV3SwapAllowed(pool.sqrtPriceX96, zeroForOne)) {
    return { ok: false, reason: "price-limit" };
  }
  const ticks = pool.ticks;
  const feePips = BigInt(pool.feePpm);
  const sqrtPriceLimitX96 = uniswapV3SqrtPriceLimit(zeroForOne);
  let remaining = params.amountIn;
  let amountOut = 0n;
  let sqrtPriceX96 = pool.sqrtPriceX96;
  let tick = pool.tick;
  let liquidity = pool.liquidity;
  let ticksCrossed = 0;
  try {
    while (remaining !== 0n && sqrtPriceX96 !== sqrtPriceLimitX96) {
      let { next: tickNext, index } = nextTickWithinWord(ticks, tick, pool.tickSpacing, zeroForOne);
      if (liquidity === 0n) {
        // Steps without liquidity move the price and nothing else: go straight to the next
        // initialized tick, or stop if there is none (the input can never be spent).
        index = zeroForOne ? lastAtOrBelow(ticks, tick) : lastAtOrBelow(ticks, tick) + 1;
        if (index < 0 || index >= ticks.length) return { ok: false, reason: "exceeds-liquidity" };
        tickNext = (ticks[index] as V3Tick).tick;
      }
      if (tickNext < MIN_TICK) tickNext = MIN_TICK;
      else if (tickNext > MAX_TICK) tickNext = MAX_TICK;
      const sqrtPriceNextX96 = getSqrtRatioAtTick(tickNext);
      const beyondLimit = zeroForOne
        ? sqrtPriceNextX96 < sqrtPriceLimitX96
        : sqrtPriceNextX96 > sqrtPriceLimitX96;
      const step = computeSwapStep(
        sqrtPriceX96,
        beyondLimit ? sqrtPriceLimitX96 : sqrtPriceNextX96,
        liquidity,
        remaining,
        feePips,
      );
      sqrtPriceX96 = step.sqrtRatioNextX96;
      remaining -= step.amountIn + step.feeAmount;
      amountOut += step.amountOut;
      if (sqrtPriceX96 === sqrtPriceNextX96) {
        if (index >= 0) {
          const liquidityNet = (ticks[index] as V3Tick).liquidityNet;
          liquidity += zeroForOne ? -liquidityNet : liquidityNet;
          if (liquidity < 0n) throw new SwapRevertError("liquidity underflow at a crossed tick");
          ticksCrossed++;
        }
        tick = zeroForOne ? tickNext - 1 : tickNext;
      }
      // Short of the step's target the pool recomputes its tick from the price; that step spent
      // the whole remainder, so the loop ends here and the output does not need the tick.
    }
  } catch (error) {
    if (error instanceof SwapRevertError) return { ok: false, reason: "exceeds-liquidity" };
    throw error;
  }
  if (remaining !== 0n) return { ok: false, reason: "exceeds-liquidity" };
  if (amountOut === 0n) return { ok: false, reason: "zero-output" };
  return {
    ok: true,
    amountOut,
    ticksCrossed,
    sqrtPriceX96After: sqrtPriceX96,
    liquidityAfter: liquidity,
  };
}
