/** Program steps of aave-v3: the calls a hop or an action through it adds. */
import { type Address, getAbiItem, maxUint256 } from "viem";
import { AaveV3PoolAbi } from "../../../abis/AaveV3Pool.js";
import { addBalanceGrowth, addBalanceSnapshot } from "../../program/execution-steps.js";
import type { ProgramPlanner, ProgramValue } from "../../program/planner.js";
import { type Amount, addApprove } from "../../program/protocol-steps.js";

const aaveSupplyFn = getAbiItem({ abi: AaveV3PoolAbi, name: "supply" });

const aaveWithdrawFn = getAbiItem({ abi: AaveV3PoolAbi, name: "withdraw" });

const aaveBorrowFn = getAbiItem({ abi: AaveV3PoolAbi, name: "borrow" });

const aaveRepayFn = getAbiItem({ abi: AaveV3PoolAbi, name: "repay" });

/** Aave's variable interest rate mode (`DataTypes.InterestRateMode.VARIABLE`). */
const AAVE_VARIABLE_RATE = 2n;

/**
 * Supplies `amount` of `asset` to an Aave V3 pool for `onBehalfOf`, approving exactly that amount
 * (which the supply consumes). `Pool.supply` returns nothing: the output is `onBehalfOf`'s aToken
 * balance growth over the supply, read through the MinAmountOutCheck helper (exact whatever the
 * account held before).
 * @returns the aTokens `onBehalfOf` received.
 */
export function addAaveSupply(
  planner: ProgramPlanner,
  params: {
    pool: Address;
    asset: Address;
    aToken: Address;
    amount: Amount;
    onBehalfOf: Address;
    minAmountOutCheck: Address;
  },
): ProgramValue {
  const before = addBalanceSnapshot(planner, {
    minAmountOutCheck: params.minAmountOutCheck,
    token: params.aToken,
    account: params.onBehalfOf,
  });
  addApprove(planner, { token: params.asset, spender: params.pool, amount: params.amount });
  planner.add({
    target: params.pool,
    fn: aaveSupplyFn,
    args: [params.asset, params.amount, params.onBehalfOf, 0],
    label: "supply to aave",
  });
  return addBalanceGrowth(planner, {
    minAmountOutCheck: params.minAmountOutCheck,
    token: params.aToken,
    account: params.onBehalfOf,
    balanceBefore: before,
  });
}

/**
 * Withdraws `amount` of `asset` from an Aave V3 pool (burning the executing account's aTokens),
 * paying `to`; `"all"` withdraws the account's whole aToken balance (`type(uint256).max`).
 * @returns the amount withdrawn (Pool.withdraw's return value).
 */
export function addAaveWithdraw(
  planner: ProgramPlanner,
  params: { pool: Address; asset: Address; amount: Amount | "all"; to: Address },
): ProgramValue {
  return planner.add({
    target: params.pool,
    fn: aaveWithdrawFn,
    args: [params.asset, params.amount === "all" ? maxUint256 : params.amount, params.to],
    label: "withdraw from aave",
  });
}

/**
 * Borrows `amount` of `asset` at the variable rate against the executing account's collateral
 * (`onBehalfOf` is the account itself: only an account's own collateral backs its borrow); the
 * borrowed tokens arrive in the account.
 */
export function addAaveBorrow(
  planner: ProgramPlanner,
  params: { pool: Address; asset: Address; amount: Amount; account: Address },
): void {
  planner.add({
    target: params.pool,
    fn: aaveBorrowFn,
    args: [params.asset, params.amount, AAVE_VARIABLE_RATE, 0, params.account],
    label: "borrow from aave",
  });
}

/**
 * Repays up to `amount` of `onBehalfOf`'s variable debt in `asset`, approving exactly `amount`
 * and resetting the approval after (a repayment capped at the debt spends less).
 * @returns the amount repaid (Pool.repay's return value).
 */
export function addAaveRepay(
  planner: ProgramPlanner,
  params: { pool: Address; asset: Address; amount: Amount; onBehalfOf: Address },
): ProgramValue {
  addApprove(planner, { token: params.asset, spender: params.pool, amount: params.amount });
  const repaid = planner.add({
    target: params.pool,
    fn: aaveRepayFn,
    args: [params.asset, params.amount, AAVE_VARIABLE_RATE, params.onBehalfOf],
    label: "repay to aave",
  });
  addApprove(planner, { token: params.asset, spender: params.pool, amount: 0n });
  return repaid;
}
