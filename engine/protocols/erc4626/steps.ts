/** Program steps of erc4626: the calls a hop or an action through it adds. */
import { type Address, erc4626Abi, getAbiItem } from "viem";
import type { ProgramPlanner, ProgramValue } from "../../program/planner.js";
import { type Amount, addApprove } from "../../program/protocol-steps.js";

const depositFn = getAbiItem({ abi: erc4626Abi, name: "deposit" });

const redeemFn = getAbiItem({ abi: erc4626Abi, name: "redeem" });

/**
 * Deposits `assets` into an ERC4626 vault for `receiver`, approving exactly that amount (which
 * the deposit consumes, leaving no allowance).
 * @returns the shares minted.
 */
export function addErc4626Deposit(
  planner: ProgramPlanner,
  params: { vault: Address; asset: Address; assets: Amount; receiver: Address },
): ProgramValue {
  addApprove(planner, { token: params.asset, spender: params.vault, amount: params.assets });
  return planner.add({
    target: params.vault,
    fn: depositFn,
    args: [params.assets, params.receiver],
    label: "deposit",
  });
}

/**
 * Redeems `shares` of an ERC4626 vault owned by the executing account, paying `receiver`.
 * @returns the assets paid out.
 */
export function addErc4626Redeem(
  planner: ProgramPlanner,
  params: { vault: Address; shares: Amount; receiver: Address; owner: Address },
): ProgramValue {
  return planner.add({
    target: params.vault,
    fn: redeemFn,
    args: [params.shares, params.receiver, params.owner],
    label: "redeem",
  });
}
