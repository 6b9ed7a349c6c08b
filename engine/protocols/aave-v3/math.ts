/**
 * Aave V3's interest and aToken amounts, as the Pool and AToken of @aave/core-v3 compute them:
 * ray (1e27) fixed point with half-up rounding (`WadRayMath`), the liquidity index accrued by
 * linear interest since the reserve's last update (`MathUtils.calculateLinearInterest`,
 * `ReserveLogic.getNormalizedIncome`), and the scaled balances aTokens keep.
 */

export const RAY = 10n ** 27n;
const HALF_RAY = RAY / 2n;
/** `MathUtils.SECONDS_PER_YEAR`: 365 days. */
export const SECONDS_PER_YEAR = 365n * 24n * 60n * 60n;

/** `WadRayMath.rayMul`: a × b / RAY, rounded half up. */
export function rayMul(a: bigint, b: bigint): bigint {
  return (a * b + HALF_RAY) / RAY;
}

/** `WadRayMath.rayDiv`: a × RAY / b, rounded half up. */
export function rayDiv(a: bigint, b: bigint): bigint {
  return (a * RAY + b / 2n) / b;
}

/** The state of a reserve's supply side as its last update left it. */
export type AaveSupplyState = {
  /** Ray. */
  liquidityIndex: bigint;
  /** Ray, per year. */
  liquidityRate: bigint;
  /** Unix seconds. */
  lastUpdateTimestamp: bigint;
};

/**
 * `ReserveLogic.getNormalizedIncome` at `timestamp`: the liquidity index grown by linear interest
 * since the last update (`RAY + rate × Δt / SECONDS_PER_YEAR`, floored, times the index).
 */
export function aaveNormalizedIncome(state: AaveSupplyState, timestamp: bigint): bigint {
  if (timestamp <= state.lastUpdateTimestamp) return state.liquidityIndex;
  const interest =
    RAY + (state.liquidityRate * (timestamp - state.lastUpdateTimestamp)) / SECONDS_PER_YEAR;
  return rayMul(interest, state.liquidityIndex);
}

/**
 * The aTokens an account holding none receives for supplying `amount` at `timestamp`:
 * `AToken.mint` adds `amount.rayDiv(index)` scaled, and `balanceOf` is the scaled balance
 * `.rayMul(index)` in the same block. `undefined` when the scaled amount rounds to zero (Aave
 * reverts `INVALID_MINT_AMOUNT`). An account already holding aTokens can see one wei more or less
 * (its balance is rounded once, over old and new scaled amounts together).
 */
export function aaveSupplyOut(
  state: AaveSupplyState,
  amount: bigint,
  timestamp: bigint,
): bigint | undefined {
  const index = aaveNormalizedIncome(state, timestamp);
  const scaled = rayDiv(amount, index);
  if (scaled === 0n) return undefined;
  return rayMul(scaled, index);
}
