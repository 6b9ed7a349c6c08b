/** Uniswap V3's `SwapMath.computeSwapStep` for exact-input swaps. */
import { mulDiv, mulDivRoundingUp } from "./full-math.js";
import { getAmount0Delta, getAmount1Delta, getNextSqrtPriceFromInput } from "./sqrt-price-math.js";

export type SwapStep = {
  sqrtRatioNextX96: bigint;
  amountIn: bigint;
  amountOut: bigint;
  feeAmount: bigint;
};

const ONE_MILLION = 1_000_000n;

/**
 * One step of an exact-input swap: from `sqrtRatioCurrentX96` towards `sqrtRatioTargetX96` at
 * constant `liquidity`, spending at most `amountRemaining` (fee included). The direction is
 * implied by the two prices, as in the library.
 */
export function computeSwapStep(
  sqrtRatioCurrentX96: bigint,
  sqrtRatioTargetX96: bigint,
  liquidity: bigint,
  amountRemaining: bigint,
  feePips: bigint,
): SwapStep {
  const zeroForOne = sqrtRatioCurrentX96 >= sqrtRatioTargetX96;
  const amountRemainingLessFee = mulDiv(amountRemaining, ONE_MILLION - feePips, ONE_MILLION);
  let amountIn = zeroForOne
    ? getAmount0Delta(sqrtRatioTargetX96, sqrtRatioCurrentX96, liquidity, true)
    : getAmount1Delta(sqrtRatioCurrentX96, sqrtRatioTargetX96, liquidity, true);
  const sqrtRatioNextX96 =
    amountRemainingLessFee >= amountIn
      ? sqrtRatioTargetX96
      : getNextSqrtPriceFromInput(
          sqrtRatioCurrentX96,
          liquidity,
          amountRemainingLessFee,
          zeroForOne,
        );
  const max = sqrtRatioNextX96 === sqrtRatioTargetX96;
  let amountOut: bigint;
  if (zeroForOne) {
    if (!max) amountIn = getAmount0Delta(sqrtRatioNextX96, sqrtRatioCurrentX96, liquidity, true);
    amountOut = getAmount1Delta(sqrtRatioNextX96, sqrtRatioCurrentX96, liquidity, false);
  } else {
    if (!max) amountIn = getAmount1Delta(sqrtRatioCurrentX96, sqrtRatioNextX96, liquidity, true);
    amountOut = getAmount0Delta(sqrtRatioCurrentX96, sqrtRatioNextX96, liquidity, false);
  }
  // Short of the target the whole remainder is spent: what the price move did not take is fee.
  const feeAmount = max
    ? mulDivRoundingUp(amountIn, feePips, ONE_MILLION - feePips)
    : amountRemaining - amountIn;
  return { sqrtRatioNextX96, amountIn, amountOut, feeAmount };
}
