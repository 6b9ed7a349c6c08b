/**
 * Balancer V2's `StableMath` (pool-stable, as deployed by the 2023 composable stable pool
 * factory) over upscaled 18-decimal balances. The invariant and the balance that restores it
 * are found by Newton's method, with the library's integer steps and its stopping rule (two
 * iterates at most 1 apart, within 255 steps), so both land on the chain's value to the wei.
 *
 * `amp` is the amplification parameter times `AMP_PRECISION`, as the pool stores it.
 */
import { BalancerMathError } from "./errors.js";
import {
  add,
  complement,
  divDown,
  divDownInteger,
  divUp,
  divUpInteger,
  mul,
  mulDown,
  mulUp,
  ONE,
  sub,
} from "./fixed-point.js";

export const AMP_PRECISION = 1000n;
const MAX_ITERATIONS = 255;

/** Whether two successive Newton iterates are within 1 of each other. */
function converged(next: bigint, previous: bigint): boolean {
  return next > previous ? next - previous <= 1n : previous - next <= 1n;
}

function at(values: readonly bigint[], i: number): bigint {
  const value = values[i];
  if (value === undefined) throw new RangeError(`no balance at index ${i}`);
  return value;
}

function sum(values: readonly bigint[]): bigint {
  return values.reduce((total, value) => add(total, value), 0n);
}

/** The invariant D of `balances`, as `StableMath._calculateInvariant` (zero for empty balances). */
export function calculateInvariant(amp: bigint, balances: readonly bigint[]): bigint {
  const total = sum(balances);
  if (total === 0n) return 0n;
  const n = BigInt(balances.length);
  const ampTimesTotal = amp * n;
  let invariant = total;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    let dP = invariant;
    for (const balance of balances) dP = divDownInteger(mul(dP, invariant), mul(balance, n));
    const previous = invariant;
    invariant = divDownInteger(
      mul(add(divDownInteger(mul(ampTimesTotal, total), AMP_PRECISION), mul(dP, n)), invariant),
      add(
        divDownInteger(mul(ampTimesTotal - AMP_PRECISION, invariant), AMP_PRECISION),
        mul(n + 1n, dP),
      ),
    );
    if (converged(invariant, previous)) return invariant;
  }
  throw new BalancerMathError("STABLE_INVARIANT_DIDNT_CONVERGE", "calculateInvariant");
}

/**
 * The balance of token `tokenIndex` that keeps `invariant` given all the other balances, as
 * `StableMath._getTokenBalanceGivenInvariantAndAllOtherBalances` (rounded up at each step).
 */
export function getTokenBalanceGivenInvariantAndAllOtherBalances(
  amp: bigint,
  balances: readonly bigint[],
  invariant: bigint,
  tokenIndex: number,
): bigint {
  const n = BigInt(balances.length);
  const ampTimesTotal = amp * n;
  let total = at(balances, 0);
  let pD = at(balances, 0) * n;
  for (let j = 1; j < balances.length; j++) {
    pD = divDownInteger(mul(mul(pD, at(balances, j)), n), invariant);
    total = add(total, at(balances, j));
  }
  const balance = at(balances, tokenIndex);
  total -= balance;
  const inv2 = mul(invariant, invariant);
  // c = D^2 / (A·n·P_D) · balance, the division rounded up.
  const c = mul(mul(divUpInteger(inv2, mul(ampTimesTotal, pD)), AMP_PRECISION), balance);
  const b = add(total, mul(divDownInteger(invariant, ampTimesTotal), AMP_PRECISION));
  let tokenBalance = divUpInteger(add(inv2, c), add(invariant, b));
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const previous = tokenBalance;
    tokenBalance = divUpInteger(
      add(mul(tokenBalance, tokenBalance), c),
      sub(add(mul(tokenBalance, 2n), b), invariant),
    );
    if (converged(tokenBalance, previous)) return tokenBalance;
  }
  throw new BalancerMathError("STABLE_GET_BALANCE_DIDNT_CONVERGE", "getTokenBalance");
}

/** With the token in's balance raised by `amountIn`, what token out's must fall to, less one. */
export function calcOutGivenIn(params: {
  amp: bigint;
  balances: readonly bigint[];
  indexIn: number;
  indexOut: number;
  amountIn: bigint;
  invariant: bigint;
}): bigint {
  const { amp, indexIn, indexOut, invariant } = params;
  const balances = [...params.balances];
  balances[indexIn] = add(at(balances, indexIn), params.amountIn);
  const finalBalanceOut = getTokenBalanceGivenInvariantAndAllOtherBalances(
    amp,
    balances,
    invariant,
    indexOut,
  );
  // The 1 wei less rounds the amount out down past the Newton's method's own error.
  return sub(sub(at(balances, indexOut), finalBalanceOut), 1n);
}

/** With token out's balance lowered by `amountOut`, what token in's must rise to, plus one. */
export function calcInGivenOut(params: {
  amp: bigint;
  balances: readonly bigint[];
  indexIn: number;
  indexOut: number;
  amountOut: bigint;
  invariant: bigint;
}): bigint {
  const { amp, indexIn, indexOut, invariant } = params;
  const balances = [...params.balances];
  balances[indexOut] = sub(at(balances, indexOut), params.amountOut);
  const finalBalanceIn = getTokenBalanceGivenInvariantAndAllOtherBalances(
    amp,
    balances,
    invariant,
    indexIn,
  );
  return add(sub(finalBalanceIn, at(balances, indexIn)), 1n);
}

type JoinExitParameters = {
  amp: bigint;
  balances: readonly bigint[];
  bptTotalSupply: bigint;
  currentInvariant: bigint;
  swapFeePercentage: bigint;
};

/**
 * BPT out for exact token amounts in, as `StableMath._calcBptOutGivenExactTokensIn`: the part of
 * each amount beyond a proportional join pays the swap fee. Rounds down.
 */
export function calcBptOutGivenExactTokensIn(
  params: JoinExitParameters & { amountsIn: readonly bigint[] },
): bigint {
  const { amp, balances, amountsIn, bptTotalSupply, currentInvariant, swapFeePercentage } = params;
  const sumBalances = sum(balances);
  const balanceRatiosWithFee: bigint[] = [];
  let invariantRatioWithFees = 0n;
  for (const [i, balance] of balances.entries()) {
    const currentWeight = divDown(balance, sumBalances);
    const ratio = divDown(add(balance, at(amountsIn, i)), balance);
    balanceRatiosWithFee.push(ratio);
    invariantRatioWithFees = add(invariantRatioWithFees, mulDown(ratio, currentWeight));
  }
  const newBalances = balances.map((balance, i) => {
    const amountIn = at(amountsIn, i);
    if (at(balanceRatiosWithFee, i) <= invariantRatioWithFees) return add(balance, amountIn);
    const nonTaxableAmount = mulDown(balance, sub(invariantRatioWithFees, ONE));
    const taxableAmount = sub(amountIn, nonTaxableAmount);
    return add(balance, add(nonTaxableAmount, mulDown(taxableAmount, ONE - swapFeePercentage)));
  });
  const invariantRatio = divDown(calculateInvariant(amp, newBalances), currentInvariant);
  return invariantRatio > ONE ? mulDown(bptTotalSupply, invariantRatio - ONE) : 0n;
}

/**
 * The single-token part of a join or exit for exact BPT: the token's balance at the invariant
 * scaled by the supply's change (`newSupply / supply`, rounded up), its difference from the
 * current balance, and the share of it a proportional join or exit would not have moved (the
 * taxable share: 1 - the token's weight in the balances, rounded up).
 */
function singleTokenForBpt(
  params: JoinExitParameters & { tokenIndex: number },
  newSupply: bigint,
): { newBalance: bigint; taxablePercentage: bigint } {
  const { amp, balances, tokenIndex, bptTotalSupply, currentInvariant } = params;
  const newInvariant = mulUp(divUp(newSupply, bptTotalSupply), currentInvariant);
  const newBalance = getTokenBalanceGivenInvariantAndAllOtherBalances(
    amp,
    balances,
    newInvariant,
    tokenIndex,
  );
  const currentWeight = divDown(at(balances, tokenIndex), sum(balances));
  return { newBalance, taxablePercentage: complement(currentWeight) };
}

/**
 * Token in for exact BPT out, as `StableMath._calcTokenInGivenExactBptOut`: the balance for
 * the grown invariant, with the fee grossed up on the taxable share.
 */
export function calcTokenInGivenExactBptOut(
  params: JoinExitParameters & { tokenIndex: number; bptAmountOut: bigint },
): bigint {
  const { newBalance, taxablePercentage } = singleTokenForBpt(
    params,
    add(params.bptTotalSupply, params.bptAmountOut),
  );
  const amountInWithoutFee = sub(newBalance, at(params.balances, params.tokenIndex));
  const taxableAmount = mulUp(amountInWithoutFee, taxablePercentage);
  const nonTaxableAmount = sub(amountInWithoutFee, taxableAmount);
  return add(nonTaxableAmount, divUp(taxableAmount, ONE - params.swapFeePercentage));
}

/**
 * BPT in for exact token amounts out, as `StableMath._calcBptInGivenExactTokensOut`: the part
 * of each amount beyond a proportional exit pays the swap fee. Rounds up.
 */
export function calcBptInGivenExactTokensOut(
  params: JoinExitParameters & { amountsOut: readonly bigint[] },
): bigint {
  const { amp, balances, amountsOut, bptTotalSupply, currentInvariant, swapFeePercentage } = params;
  const sumBalances = sum(balances);
  const balanceRatiosWithoutFee: bigint[] = [];
  let invariantRatioWithoutFees = 0n;
  for (const [i, balance] of balances.entries()) {
    const currentWeight = divUp(balance, sumBalances);
    const ratio = divUp(sub(balance, at(amountsOut, i)), balance);
    balanceRatiosWithoutFee.push(ratio);
    invariantRatioWithoutFees = add(invariantRatioWithoutFees, mulUp(ratio, currentWeight));
  }
  const newBalances = balances.map((balance, i) => {
    const amountOut = at(amountsOut, i);
    if (invariantRatioWithoutFees <= at(balanceRatiosWithoutFee, i)) return sub(balance, amountOut);
    const nonTaxableAmount = mulDown(balance, complement(invariantRatioWithoutFees));
    const taxableAmount = sub(amountOut, nonTaxableAmount);
    return sub(balance, add(nonTaxableAmount, divUp(taxableAmount, ONE - swapFeePercentage)));
  });
  const invariantRatio = divDown(calculateInvariant(amp, newBalances), currentInvariant);
  return mulUp(bptTotalSupply, complement(invariantRatio));
}

/**
 * Token out for exact BPT in, as `StableMath._calcTokenOutGivenExactBptIn`: the balance for the
 * shrunk invariant, with the fee taken from the taxable share.
 */
export function calcTokenOutGivenExactBptIn(
  params: JoinExitParameters & { tokenIndex: number; bptAmountIn: bigint },
): bigint {
  const { newBalance, taxablePercentage } = singleTokenForBpt(
    params,
    sub(params.bptTotalSupply, params.bptAmountIn),
  );
  const amountOutWithoutFee = sub(at(params.balances, params.tokenIndex), newBalance);
  const taxableAmount = mulUp(amountOutWithoutFee, taxablePercentage);
  const nonTaxableAmount = sub(amountOutWithoutFee, taxableAmount);
  return add(nonTaxableAmount, mulDown(taxableAmount, ONE - params.swapFeePercentage));
}
