/**
 * Balancer V2 pools in floats, for the route search: the weighted pool's power law and the stable
 * invariant's Newton iterations over upscaled balances, the same formulas as the exact math
 * without its fixed-point rounding. Models are built once per pool state and quoted without
 * allocating; `NaN` where the exact math reverts.
 */
import { AMP_PRECISION } from "./stable-math.js";

/** A weighted pool's fee and its balances and weights, per token in the pool's order. */
export type WeightedFloatModel = {
  balances: Float64Array;
  weights: Float64Array;
  /** One less the swap fee. */
  gamma: number;
  /** The BPT supply joins and exits price against (the actual supply). */
  supply: number;
};

/** A weighted pool's normalized weight of token `i` as a fraction (the model keeps 18 decimals). */
function weightOf(m: WeightedFloatModel, i: number): number {
  return (m.weights[i] as number) / 1e18;
}

/**
 * BPT minted for `amountIn` of token `i` alone (`calcBptOutGivenExactTokensIn`): the part of
 * the amount beyond its weight's share pays the fee, the rest joins proportionally.
 */
export function weightedJoinOut(m: WeightedFloatModel, i: number, amountIn: number): number {
  const balance = m.balances[i] as number;
  const weight = weightOf(m, i);
  const net = amountIn - (1 - weight) * amountIn * (1 - m.gamma);
  return m.supply * (((balance + net) / balance) ** weight - 1);
}

/**
 * Token `o` paid for burning `bptIn` (`calcTokenOutGivenExactBptIn`): the balance's share the
 * invariant's fall frees, less the fee on the part beyond a proportional exit; `NaN` past 30%
 * of the supply, where the pool reverts.
 */
export function weightedExitOut(m: WeightedFloatModel, o: number, bptIn: number): number {
  const ratio = (m.supply - bptIn) / m.supply;
  if (!(ratio >= 0.7)) return Number.NaN;
  const weight = weightOf(m, o);
  const withoutFee = (m.balances[o] as number) * (1 - ratio ** (1 / weight));
  return withoutFee * (1 - (1 - weight) * (1 - m.gamma));
}

/** `WeightedMath.calcOutGivenIn`: at most 30% of the balance in per swap, after the fee. */
export function weightedOut(m: WeightedFloatModel, i: number, o: number, amountIn: number): number {
  const balanceIn = m.balances[i] as number;
  const net = amountIn * m.gamma;
  if (net > balanceIn * 0.3) return Number.NaN;
  const base = balanceIn / (balanceIn + net);
  return (
    (m.balances[o] as number) * (1 - base ** ((m.weights[i] as number) / (m.weights[o] as number)))
  );
}

/**
 * A composable stable pool without its BPT: upscaled balances (token units times the scaling
 * factor with its rate), the invariant of them, and the actual BPT supply joins and exits price
 * against.
 */
export type StableFloatModel = {
  /** Upscaled balances, the BPT left out. */
  balances: Float64Array;
  /** Upscaled units per token unit, the BPT's slot left out like its balance. */
  scales: Float64Array;
  /** A · n (the amplification without its precision, times the number of tokens). */
  ampTimesTotal: number;
  invariant: number;
  supply: number;
  fee: number;
};

/** What the stable invariant is a function of: the upscaled balances and the amplification. */
export type StableCurve = Pick<StableFloatModel, "balances" | "ampTimesTotal">;

/** The pool's `amp` (with its precision) times `n`, as a float. */
export function ampTimesTotal(amp: bigint, n: number): number {
  return (Number(amp) / Number(AMP_PRECISION)) * n;
}

/**
 * `StableMath._calculateInvariant` of the balances with balance `index` replaced by `value`
 * (index -1 replaces none).
 */
export function stableInvariant(pool: StableCurve, index: number, value: number): number {
  const { balances, ampTimesTotal: ampTotal } = pool;
  const n = balances.length;
  let sum = 0;
  for (let k = 0; k < n; k++) sum += k === index ? value : (balances[k] as number);
  if (sum === 0) return 0;
  let invariant = sum;
  for (let round = 0; round < 255; round++) {
    let dP = invariant;
    for (let k = 0; k < n; k++)
      dP = (dP * invariant) / ((k === index ? value : (balances[k] as number)) * n);
    const previous = invariant;
    invariant =
      ((ampTotal * sum + dP * n) * invariant) / ((ampTotal - 1) * invariant + (n + 1) * dP);
    if (Math.abs(invariant - previous) <= previous * 1e-15) return invariant;
  }
  return invariant;
}

/**
 * `StableMath._getTokenBalanceGivenInvariantAndAllOtherBalances`: the balance of token `target`
 * that keeps `invariant`, the others as in `balances` but for `index`, which is `value`.
 */
export function stableBalanceGiven(
  pool: StableCurve,
  invariant: number,
  target: number,
  index: number,
  value: number,
): number {
  const { balances, ampTimesTotal: ampTotal } = pool;
  const n = balances.length;
  let sum = 0;
  // c = D^(n+1) / (A·n · n^n · Π others), built up one factor at a time to stay in range.
  let c = invariant / ampTotal;
  for (let k = 0; k < n; k++) {
    if (k === target) continue;
    const balance = k === index ? value : (balances[k] as number);
    sum += balance;
    c = (c * invariant) / (balance * n);
  }
  c = (c * invariant) / n;
  const b = sum + invariant / ampTotal;
  let y = (invariant * invariant + c) / (invariant + b);
  for (let round = 0; round < 255; round++) {
    const previous = y;
    y = (y * y + c) / (2 * y + b - invariant);
    if (Math.abs(y - previous) <= previous * 1e-15) return y;
  }
  return y;
}

function balanceSum(balances: Float64Array): number {
  let sum = 0;
  for (let k = 0; k < balances.length; k++) sum += balances[k] as number;
  return sum;
}

/** Upscaled `tokenOut` for `amountIn` (upscaled) of another token, the fee off the input. */
export function stableSwapOut(m: StableFloatModel, i: number, o: number, amountIn: number): number {
  const balanceIn = (m.balances[i] as number) + amountIn * (1 - m.fee);
  const y = stableBalanceGiven(m, m.invariant, o, i, balanceIn);
  const out = (m.balances[o] as number) - y;
  return out > 0 ? out : Number.NaN;
}

/**
 * BPT for `amountIn` (upscaled) of token `i` (`calcBptOutGivenExactTokensIn` with one amount):
 * the fee is charged on the part of the amount beyond a proportional join.
 */
export function stableJoinOut(m: StableFloatModel, i: number, amountIn: number): number {
  const balance = m.balances[i] as number;
  const proportional = (balance * amountIn) / balanceSum(m.balances);
  const net =
    amountIn <= proportional ? amountIn : proportional + (amountIn - proportional) * (1 - m.fee);
  const grown = stableInvariant(m, i, balance + net);
  return grown > m.invariant ? (m.supply * (grown - m.invariant)) / m.invariant : 0;
}

/**
 * Token `o` (upscaled) for `bptIn` (`calcTokenOutGivenExactBptIn`): the invariant shrinks with
 * the supply, and the fee is charged on the part beyond a proportional exit.
 */
export function stableExitOut(m: StableFloatModel, o: number, bptIn: number): number {
  if (bptIn >= m.supply) return Number.NaN;
  const invariant = (m.invariant * (m.supply - bptIn)) / m.supply;
  const balance = m.balances[o] as number;
  const y = stableBalanceGiven(m, invariant, o, -1, 0);
  const withoutFee = balance - y;
  const taxable = withoutFee * (1 - balance / balanceSum(m.balances));
  return withoutFee - taxable * m.fee;
}

/**
 * How much the invariant grows per upscaled unit of token `k` at the margin, ∂D/∂x_k: what one
 * upscaled unit of it is worth in units of the invariant (its mid price against the pool).
 */
export function stableMarginalValue(m: StableFloatModel, k: number): number {
  const n = m.balances.length;
  let dP = m.invariant;
  for (let j = 0; j < n; j++) dP = (dP * m.invariant) / ((m.balances[j] as number) * n);
  return (
    (m.ampTimesTotal + dP / (m.balances[k] as number)) /
    (m.ampTimesTotal - 1 + ((n + 1) * dP) / m.invariant)
  );
}
