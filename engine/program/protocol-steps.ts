/**
 * Program steps for the protocols the execution layer drives directly: ERC20 transfers and
 * approvals, WETH, Uniswap V2 pairs, Uniswap V3 pools (through the router executor's swap
 * callback) and Uniswap's SwapRouter (for wallets, which have no such callback), Uniswap V4
 * pools (the router executor's unlock callback, or the execution layer's V4 router for wallets),
 * ERC4626 vaults.
 * Each returns the step's output amount as a ProgramValue where there is one.
 */
import { type Address, erc20Abi, getAbiItem } from "viem";
import type { ProgramPlanner, ProgramValue } from "./planner.js";

const transferFn = getAbiItem({ abi: erc20Abi, name: "transfer" });

const approveFn = getAbiItem({ abi: erc20Abi, name: "approve" });

export type Amount = bigint | ProgramValue;

export function sorted(a: Address, b: Address): [Address, Address] {
  return a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
}

/** Transfers `amount` of `token` from the executing account to `to`. */
export function addTransfer(
  planner: ProgramPlanner,
  params: { token: Address; to: Address; amount: Amount; label?: string },
): void {
  planner.add({
    target: params.token,
    fn: transferFn,
    args: [params.to, params.amount],
    label: params.label ?? "transfer",
  });
}

/** Approves `amount` of `token` to `spender` (use 0 to reset an allowance). */
export function addApprove(
  planner: ProgramPlanner,
  params: { token: Address; spender: Address; amount: Amount },
): void {
  planner.add({
    target: params.token,
    fn: approveFn,
    args: [params.spender, params.amount],
    label: "approve",
  });
}
