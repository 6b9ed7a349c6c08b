/** Program steps of balancer-v2: a swap through the vault, a weighted pool's single-token join and exit. */
import { type Address, getAbiItem, type Hex } from "viem";
import { BalancerV2VaultAbi } from "../../../abis/BalancerV2Vault.js";
import { ProgramValuesAbi } from "../../../abis/generated/ProgramValues.js";
import { addBalanceGrowth, addBalanceSnapshot } from "../../program/execution-steps.js";
import type { ProgramPlanner, ProgramValue } from "../../program/planner.js";
import { type Amount, addApprove } from "../../program/protocol-steps.js";

const vaultSwapFn = getAbiItem({ abi: BalancerV2VaultAbi, name: "swap" });

const vaultJoinFn = getAbiItem({ abi: BalancerV2VaultAbi, name: "joinPool" });

const vaultExitFn = getAbiItem({ abi: BalancerV2VaultAbi, name: "exitPool" });

const joinRequestFn = getAbiItem({ abi: ProgramValuesAbi, name: "balancerV2JoinRequest" });

const exitRequestFn = getAbiItem({ abi: ProgramValuesAbi, name: "balancerV2ExitRequest" });

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

/** Parameters of {@link addBalancerV2WeightedJoinExit}. */
export type BalancerV2JoinExitParameters = {
  /** A single-token join (`EXACT_TOKENS_IN_FOR_BPT_OUT`) or exit (`EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`). */
  side: "join" | "exit";
  vault: Address;
  poolId: Hex;
  /** The pool's address: its BPT. */
  pool: Address;
  /** The pool's tokens in the vault's order. */
  tokens: readonly Address[];
  /** The pool's token joined with or paid out. */
  token: Address;
  /** The exact amount of `token` joined with, or of BPT burnt. */
  amountIn: Amount;
  /** The account running the program: the vault pulls the token or burns the BPT from it. */
  sender: Address;
  recipient: Address;
  /** The least BPT the join mints, or of `token` the exit pays, else the pool or vault reverts. */
  limit: bigint;
  /** The helpers' contract that builds the request at run time (ProgramValues). */
  programValues: Address;
  /** Where balances are read (MinAmountOutCheck): the output is `recipient`'s balance growth. */
  minAmountOutCheck: Address;
};

/**
 * A weighted pool's single-token join, minting its BPT to `recipient` for exactly `amountIn` of
 * one of its tokens (approved to the vault exactly, which the join pulls whole: no allowance is
 * left), or its single-token exit, burning exactly `amountIn` of the sender's BPT (the pool
 * burns it itself: no approval) for one of its tokens paid to `recipient`. The request is built
 * at run time (ProgramValues), since `amountIn` is usually what the step before paid;
 * `Vault.joinPool` and `exitPool` return nothing, so the output is `recipient`'s balance growth
 * over the call.
 * @returns the BPT minted, or the amount of the token paid.
 */
export function addBalancerV2WeightedJoinExit(
  planner: ProgramPlanner,
  params: BalancerV2JoinExitParameters,
): ProgramValue {
  const join = params.side === "join";
  const output = join ? params.pool : params.token;
  const before = addBalanceSnapshot(planner, {
    minAmountOutCheck: params.minAmountOutCheck,
    token: output,
    account: params.recipient,
  });
  const request = planner.add({
    target: params.programValues,
    fn: join ? joinRequestFn : exitRequestFn,
    args: [
      params.tokens,
      BigInt(params.tokens.indexOf(params.token)),
      params.amountIn,
      params.limit,
    ],
    label: `balancer v2 ${params.side} request`,
  });
  if (join) {
    addApprove(planner, { token: params.token, spender: params.vault, amount: params.amountIn });
  }
  planner.add({
    target: params.vault,
    fn: join ? vaultJoinFn : vaultExitFn,
    args: [params.poolId, params.sender, params.recipient, request],
    label: join ? "join on balancer v2" : "exit from balancer v2",
  });
  return addBalanceGrowth(planner, {
    minAmountOutCheck: params.minAmountOutCheck,
    token: output,
    account: params.recipient,
    balanceBefore: before,
  });
}
