/** Program steps of balancer-v2: a swap through the vault. */
import { type Address, getAbiItem, type Hex } from "viem";
import { BalancerV2VaultAbi } from "../../../abis/BalancerV2Vault.js";
import type { ProgramPlanner, ProgramValue } from "../../program/planner.js";
import { type Amount, addApprove } from "../../program/protocol-steps.js";

const vaultSwapFn = getAbiItem({ abi: BalancerV2VaultAbi, name: "swap" });

/** `IVault.SwapKind.GIVEN_IN`: the amount is what goes in, the limit the least that comes out. */
const GIVEN_IN = 0;

/** Parameters of {@link addBalancerV2Swap}. */
export type BalancerV2SwapParameters = {
  vault: Address;
  poolId: Hex;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: Amount;
  /** The account running the program: the vault pulls tokenIn from it (`funds.sender`). */
  sender: Address;
  /**
   * Whether tokenIn needs an allowance: not when it is a pool's BPT, whose `allowance` answers
   * the vault an unlimited one of its own and whose `transferFrom` by the vault spends none (an
   * approval would stay in storage for good).
   */
  approve: boolean;
  recipient: Address;
  /** The least tokenOut the vault may pay, else it reverts (`BAL#507`). */
  limit: bigint;
  /** Unix seconds after which the vault refuses the swap (`BAL#508`). */
  deadline: bigint;
};

/**
 * Swaps exactly `amountIn` of tokenIn through one pool of the vault, paying `recipient`: approves
 * the vault for exactly that amount, which its pull consumes (no allowance is left), unless
 * tokenIn is a BPT, then
 * `Vault.swap` with the account's own ERC20 balances (no internal balances either way).
 * @returns the amount out (`swap`'s `amountCalculated`).
 */
export function addBalancerV2Swap(
  planner: ProgramPlanner,
  params: BalancerV2SwapParameters,
): ProgramValue {
  if (params.approve) {
    addApprove(planner, { token: params.tokenIn, spender: params.vault, amount: params.amountIn });
  }
  return planner.add({
    target: params.vault,
    fn: vaultSwapFn,
    args: [
      {
        poolId: params.poolId,
        kind: GIVEN_IN,
        assetIn: params.tokenIn,
        assetOut: params.tokenOut,
        amount: params.amountIn,
        userData: "0x",
      },
      {
        sender: params.sender,
        fromInternalBalance: false,
        recipient: params.recipient,
        toInternalBalance: false,
      },
      params.limit,
      params.deadline,
    ],
    label: "swap on balancer v2",
  });
}
