/**
 * Program steps that call the execution layer's own contracts: the router executor's sweep, the
 * min-amount-out check used where no router wraps the program, and the value helpers.
 */
import { type Address, getAbiItem } from "viem";
import { MinAmountOutCheckAbi } from "../../abis/generated/MinAmountOutCheck.js";
import { ProgramValuesAbi } from "../../abis/generated/ProgramValues.js";
import { RouterExecutorAbi } from "../../abis/generated/RouterExecutor.js";
import type { ProgramPlanner, ProgramValue } from "./planner.js";

const sweepFn = getAbiItem({ abi: RouterExecutorAbi, name: "sweep" });
const balanceOfFn = getAbiItem({ abi: MinAmountOutCheckAbi, name: "balanceOf" });
const checkFn = getAbiItem({ abi: MinAmountOutCheckAbi, name: "checkMinAmountOut" });
const deadlineFn = getAbiItem({ abi: MinAmountOutCheckAbi, name: "checkDeadline" });
const growthFn = getAbiItem({ abi: MinAmountOutCheckAbi, name: "balanceGrowth" });
const tupleWordFn = getAbiItem({ abi: ProgramValuesAbi, name: "tupleWord" });
const arrayElementFn = getAbiItem({ abi: ProgramValuesAbi, name: "arrayElement" });

/**
 * Sends the router executor's whole balance of `token` (or native, as 0xeeee…) to `to`; the
 * router requires the executor to end with none of the input and outputs.
 * @returns the amount swept.
 */
export function addSweep(
  planner: ProgramPlanner,
  params: { executor: Address; token: Address; to: Address; label?: string },
): ProgramValue {
  return planner.add({
    target: params.executor,
    fn: sweepFn,
    args: [params.token, params.to],
    label: params.label ?? "sweep",
  });
}

/**
 * Reads `account`'s balance of `token` at this point of the program (first step of a program
 * that ends with {@link addMinAmountOutCheck}).
 */
export function addBalanceSnapshot(
  planner: ProgramPlanner,
  params: { minAmountOutCheck: Address; token: Address; account: Address },
): ProgramValue {
  return planner.add({
    target: params.minAmountOutCheck,
    fn: balanceOfFn,
    args: [params.token, params.account],
    label: "read balance",
  });
}

/**
 * Reverts the program unless `account`'s balance of `token` grew by `minAmountOut` since the
 * snapshot; returns the growth.
 */
export function addMinAmountOutCheck(
  planner: ProgramPlanner,
  params: {
    minAmountOutCheck: Address;
    token: Address;
    account: Address;
    balanceBefore: ProgramValue | bigint;
    minAmountOut: bigint;
  },
): ProgramValue {
  return planner.add({
    target: params.minAmountOutCheck,
    fn: checkFn,
    args: [params.token, params.account, params.balanceBefore, params.minAmountOut],
    label: "check minimum output",
  });
}

/** Reverts the program with DeadlineExpired once the block's timestamp is past `deadline`. */
export function addDeadlineCheck(
  planner: ProgramPlanner,
  params: { minAmountOutCheck: Address; deadline: bigint },
): void {
  planner.add({
    target: params.minAmountOutCheck,
    fn: deadlineFn,
    args: [params.deadline],
    label: "check deadline",
  });
}

/**
 * How much `account`'s balance of `token` grew since the snapshot (0 when it did not): what the
 * transaction made, as opposed to what the account held before it.
 */
export function addBalanceGrowth(
  planner: ProgramPlanner,
  params: {
    minAmountOutCheck: Address;
    token: Address;
    account: Address;
    balanceBefore: ProgramValue;
  },
): ProgramValue {
  return planner.add({
    target: params.minAmountOutCheck,
    fn: growthFn,
    args: [params.token, params.account, params.balanceBefore],
    label: "read growth",
  });
}

/** Word `index` of a raw tuple return value, usable as any static argument. */
export function addTupleWord(
  planner: ProgramPlanner,
  params: { programValues: Address; tuple: ProgramValue; index: bigint },
): ProgramValue {
  return planner.add({
    target: params.programValues,
    fn: tupleWordFn,
    args: [params.tuple, params.index],
    label: "read tuple word",
  });
}

/** Element `index` of a returned `uint256[]`. */
export function addArrayElement(
  planner: ProgramPlanner,
  params: { programValues: Address; array: ProgramValue; index: bigint },
): ProgramValue {
  return planner.add({
    target: params.programValues,
    fn: arrayElementFn,
    args: [params.array, params.index],
    label: "read array element",
  });
}
