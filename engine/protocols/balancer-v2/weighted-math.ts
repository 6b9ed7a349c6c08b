/**
 * Balancer V2's `WeightedMath` (pool-weighted, as deployed by the 2023 weighted pool factory)
 * over upscaled 18-decimal amounts: each rounding direction is the library's, chosen so that
 * the pool never gives out more than the invariant allows.
 */
import { BalancerMathError } from "./errors.js";
import {
  add,
  complement,
  divDown,
  divUp,
  mulDown,
  mulUp,
  ONE,
  powDown,
  powUp,
  sub,
} from "./fixed-point.js";

/** A swap may bring in or take out at most 30% of the token's balance (the power's domain). */
export const MAX_IN_RATIO = 3n * 10n ** 17n;
export const MAX_OUT_RATIO = 3n * 10n ** 17n;
/** An exit may burn at most 30% of the BPT supply: the invariant may fall to 70% of itself. */
export const MIN_INVARIANT_RATIO = 7n * 10n ** 17n;

/**
 * The amount out for `amountIn` (fee already taken), as `WeightedMath._calcOutGivenIn`:
 * bO · (1 - (bI / (bI + aI))^(wI / wO)). The base and the power round up and the exponent down,
 * so the complement, and the amount out, round down.
 */
export function calcOutGivenIn(params: {
  balanceIn: bigint;
  weightIn: bigint;
  balanceOut: bigint;
  weightOut: bigint;
  amountIn: bigint;
}): bigint {
  const { balanceIn, weightIn, balanceOut, weightOut, amountIn } = params;
  if (amountIn > mulDown(balanceIn, MAX_IN_RATIO)) {
    throw new BalancerMathError("MAX_IN_RATIO", "calcOutGivenIn");
  }
  const base = divUp(balanceIn, add(balanceIn, amountIn));
  const power = powUp(base, divDown(weightIn, weightOut));
  return mulDown(balanceOut, complement(power));
}

/**
 * The amount in (before the fee) for `amountOut`, as `WeightedMath._calcInGivenOut`:
 * bI · ((bO / (bO - aO))^(wO / wI) - 1), every step rounded up.
 */
export function calcInGivenOut(params: {
  balanceIn: bigint;
  weightIn: bigint;
  balanceOut: bigint;
  weightOut: bigint;
  amountOut: bigint;
}): bigint {
  const { balanceIn, weightIn, balanceOut, weightOut, amountOut } = params;
  if (amountOut > mulDown(balanceOut, MAX_OUT_RATIO)) {
    throw new BalancerMathError("MAX_OUT_RATIO", "calcInGivenOut");
  }
  const base = divUp(balanceOut, sub(balanceOut, amountOut));
  const power = powUp(base, divUp(weightOut, weightIn));
  return mulUp(balanceIn, sub(power, ONE));
}

/**
 * BPT minted for a join with the exact `amountsIn`, as the deployed `WeightedMath._calcBptOutGivenExactTokensIn`.
 * The part of a token's amount beyond a proportional join is a swap in disguise and pays the
 * swap fee; the rest does not. Rounds down.
 */
export function calcBptOutGivenExactTokensIn(params: {
  balances: readonly bigint[];
  normalizedWeights: readonly bigint[];
  amountsIn: readonly bigint[];
  bptTotalSupply: bigint;
  swapFeePercentage: bigint;
}): bigint {
  const { balances, normalizedWeights, amountsIn, bptTotalSupply, swapFeePercentage } = params;
  const balanceRatiosWithFee = balances.map((balance, i) =>
    divDown(add(balance, amountsIn[i] ?? 0n), balance),
  );
  let invariantRatioWithFees = 0n;
  balanceRatiosWithFee.forEach((ratio, i) => {
    invariantRatioWithFees = add(
      invariantRatioWithFees,
      mulDown(ratio, weightAt(normalizedWeights, i)),
    );
  });
  // `_computeJoinExactTokensInInvariantRatio`.
  let invariantRatio = ONE;
  for (const [i, balance] of balances.entries()) {
    const amountIn = amountsIn[i] ?? 0n;
    let amountInWithoutFee: bigint;
    if ((balanceRatiosWithFee[i] ?? 0n) > invariantRatioWithFees) {
      const nonTaxableAmount =
        invariantRatioWithFees > ONE ? mulDown(balance, invariantRatioWithFees - ONE) : 0n;
      const swapFee = mulUp(sub(amountIn, nonTaxableAmount), swapFeePercentage);
      amountInWithoutFee = sub(amountIn, swapFee);
    } else {
      // No skip for a zero amount: the 2023 weighted pool was built from the 2022-09 release, before
      // the library skipped it, so a token left out still multiplies the ratio by
      // powDown(1, weight) = 1 - 1.0001e-14, and the chain's BPT out is that much lower.
      amountInWithoutFee = amountIn;
    }
    const balanceRatio = divDown(add(balance, amountInWithoutFee), balance);
    invariantRatio = mulDown(invariantRatio, powDown(balanceRatio, weightAt(normalizedWeights, i)));
  }
  return invariantRatio > ONE ? mulDown(bptTotalSupply, invariantRatio - ONE) : 0n;
}

/**
 * The amount of one token an exit burning exactly `bptAmountIn` pays, as
 * `WeightedMath._calcTokenOutGivenExactBptIn`: b · (1 - ((S - B) / S)^(1 / w)), the base and the
 * power rounded up so that the complement rounds down; the part beyond a proportional exit (a
 * swap in disguise) pays the swap fee, rounded up. Reverts (`MIN_BPT_IN_FOR_TOKEN_OUT`) past 30%
 * of the supply.
 */
export function calcTokenOutGivenExactBptIn(params: {
  balance: bigint;
  normalizedWeight: bigint;
  bptAmountIn: bigint;
  bptTotalSupply: bigint;
  swapFeePercentage: bigint;
}): bigint {
  const { balance, normalizedWeight, bptAmountIn, bptTotalSupply, swapFeePercentage } = params;
  const invariantRatio = divUp(sub(bptTotalSupply, bptAmountIn), bptTotalSupply);
  if (invariantRatio < MIN_INVARIANT_RATIO) {
    throw new BalancerMathError("MIN_BPT_IN_FOR_TOKEN_OUT", "calcTokenOutGivenExactBptIn");
  }
  const balanceRatio = powUp(invariantRatio, divDown(ONE, normalizedWeight));
  const amountOutWithoutFee = mulDown(balance, complement(balanceRatio));
  const taxableAmount = mulUp(amountOutWithoutFee, complement(normalizedWeight));
  const nonTaxableAmount = sub(amountOutWithoutFee, taxableAmount);
  return add(nonTaxableAmount, mulUp(taxableAmount, complement(swapFeePercentage)));
}

function weightAt(weights: readonly bigint[], i: number): bigint {
  const weight = weights[i];
  if (weight === undefined) throw new RangeError(`no weight for token ${i}`);
  return weight;
}
