/**
 * Uniswap V3's SqrtPriceMath: token amounts between two sqrt prices and the next sqrt price
 * after an input, with the library's rounding and its uint256 overflow branches.
 */
import {
  divRoundingUp,
  MAX_UINT160,
  MAX_UINT256,
  mulDiv,
  mulDivRoundingUp,
  Q96,
} from "./full-math.js";

/** A swap the pool contract would revert (a price leaving uint160, a liquidity of zero). */
export class SwapRevertError extends Error {
  override name = "SwapRevertError";
}

function toUint160(x: bigint): bigint {
  if (x > MAX_UINT160) throw new SwapRevertError("sqrt price overflows uint160");
  return x;
}

/** As `getNextSqrtPriceFromAmount0RoundingUp` with `add = true` (token0 in: price falls). */
export function getNextSqrtPriceFromAmount0RoundingUp(
  sqrtPX96: bigint,
  liquidity: bigint,
  amount: bigint,
): bigint {
  // The library returns the price unchanged for zero, not the rounded formula's result.
  if (amount === 0n) return sqrtPX96;
  const numerator1 = liquidity << 96n;
  const product = amount * sqrtPX96;
  // The precise branch runs only when neither the product nor the denominator overflows.
  if (product <= MAX_UINT256) {
    const denominator = numerator1 + product;
    if (denominator <= MAX_UINT256) {
      return mulDivRoundingUp(numerator1, sqrtPX96, denominator);
    }
  }
  return divRoundingUp(numerator1, numerator1 / sqrtPX96 + amount);
}

/** As `getNextSqrtPriceFromAmount1RoundingDown` with `add = true` (token1 in: price rises). */
export function getNextSqrtPriceFromAmount1RoundingDown(
  sqrtPX96: bigint,
  liquidity: bigint,
  amount: bigint,
): bigint {
  // Both of the library's branches compute floor(amount × 2^96 / liquidity).
  return toUint160(sqrtPX96 + mulDiv(amount, Q96, liquidity));
}

/** As `getNextSqrtPriceFromInput`: the price after `amountIn` goes in at `liquidity`. */
export function getNextSqrtPriceFromInput(
  sqrtPX96: bigint,
  liquidity: bigint,
  amountIn: bigint,
  zeroForOne: boolean,
): bigint {
  if (sqrtPX96 <= 0n || liquidity <= 0n) throw new SwapRevertError("no price or no liquidity");
  return zeroForOne
    ? getNextSqrtPriceFromAmount0RoundingUp(sqrtPX96, liquidity, amountIn)
    : getNextSqrtPriceFromAmount1RoundingDown(sqrtPX96, liquidity, amountIn);
}

/** As `getAmount0Delta(uint160, uint160, uint128, bool)`: token0 between two prices. */
export function getAmount0Delta(
  sqrtRatioAX96: bigint,
  sqrtRatioBX96: bigint,
  liquidity: bigint,
  roundUp: boolean,
): bigint {
  const [lower, upper] =
    sqrtRatioAX96 > sqrtRatioBX96 ? [sqrtRatioBX96, sqrtRatioAX96] : [sqrtRatioAX96, sqrtRatioBX96];
  const numerator1 = liquidity << 96n;
  const numerator2 = upper - lower;
  return roundUp
    ? divRoundingUp(mulDivRoundingUp(numerator1, numerator2, upper), lower)
    : mulDiv(numerator1, numerator2, upper) / lower;
}

/** As `getAmount1Delta(uint160, uint160, uint128, bool)`: token1 between two prices. */
export function getAmount1Delta(
  sqrtRatioAX96: bigint,
  sqrtRatioBX96: bigint,
  liquidity: bigint,
  roundUp: boolean,
): bigint {
  const difference =
    sqrtRatioAX96 > sqrtRatioBX96 ? sqrtRatioAX96 - sqrtRatioBX96 : sqrtRatioBX96 - sqrtRatioAX96;
  return roundUp
    ? mulDivRoundingUp(liquidity, difference, Q96)
    : mulDiv(liquidity, difference, Q96);
}
