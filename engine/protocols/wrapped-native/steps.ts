/** Program steps of wrapped-native: the calls a hop or an action through it adds. */
import { type Address, getAbiItem } from "viem";
import { WETH9Abi } from "../../../abis/WETH9.js";
import type { ProgramPlanner } from "../../program/planner.js";
import type { Amount } from "../../program/protocol-steps.js";

const wethDepositFn = getAbiItem({ abi: WETH9Abi, name: "deposit" });

const wethWithdrawFn = getAbiItem({ abi: WETH9Abi, name: "withdraw" });

/** Wraps `amount` of native currency into WETH (a value call). */
export function addWrapNative(
  planner: ProgramPlanner,
  params: { weth: Address; amount: Amount },
): void {
  planner.add({
    target: params.weth,
    fn: wethDepositFn,
    args: [],
    value: params.amount,
    label: "wrap",
  });
}

/** Unwraps `amount` of WETH into native currency held by the executing account. */
export function addUnwrapNative(
  planner: ProgramPlanner,
  params: { weth: Address; amount: Amount },
): void {
  planner.add({ target: params.weth, fn: wethWithdrawFn, args: [params.amount], label: "unwrap" });
}
