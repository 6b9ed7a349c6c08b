/**
 * What a client needs besides the transaction: what must happen before it is sent (the
 * approval of the right spender, or the EIP-7702 delegation), the deadline the transaction
 * enforces, and a gas limit it succeeds with.
 */
import { type Address, getAddress } from "viem";
import { isNativeToken } from "../core/native.js";
import { executingAccount } from "./executing-account.js";
import type { ExecutionContracts, RoutingStrategy } from "./hop-context.js";

/** How long after the simulated block a transaction stays valid unless `deadline` is given. */
export const DEFAULT_DEADLINE_SECONDS = 1_200n;

/**
 * The deadline a bundle's first runs are compiled with when the client gave none (far enough
 * never to expire): they learn what the program delivers, and the final transaction, with the
 * real deadline (the simulated block's timestamp + 20 minutes), is simulated as returned.
 */
export const PROVISIONAL_DEADLINE = 2n ** 32n - 1n;

/**
 * Intrinsic gas of one EIP-7702 authorization (PER_EMPTY_ACCOUNT_COST): what the first
 * delegated transaction pays on top of the call, which a simulation with a code override omits.
 */
export const EIP7702_AUTHORIZATION_GAS = 25_000n;

/** Something the client must do before sending the transaction. */
export type BeforeSending =
  | { type: "approve"; token: string; spender: string; amount: string }
  | { type: "delegate"; account: string; delegateTo: string };

/**
 * The steps before sending: for `router` an approval of `tokenIn` to the router; for
 * `corewallet` an approval to the caller's own wallet (deployed or not) of what it pulls; for
 * `delegate` the EIP-7702 delegation of the caller's account to the delegate executor. Native
 * input and nothing pulled need no approval.
 * @example beforeSending({ strategy: "router", contracts, from, wallet, input: { token, amount } })
 */
export function beforeSending(params: {
  strategy: RoutingStrategy;
  contracts: ExecutionContracts;
  from: Address;
  /** The ERC20 pulled from the caller and how much (none: nothing is pulled). */
  input: { token: Address; amount: bigint } | undefined;
}): BeforeSending[] {
  const { strategy, contracts, from, input } = params;
  if (strategy === "delegate") {
    return [
      {
        type: "delegate",
        account: getAddress(from),
        delegateTo: getAddress(contracts.delegateExecutor),
      },
    ];
  }
  if (!input || isNativeToken(input.token) || input.amount === 0n) return [];
  const spender = inputSpender({ strategy, contracts, from });
  if (!spender) return [];
  return [
    {
      type: "approve",
      token: getAddress(input.token),
      spender: getAddress(spender),
      amount: input.amount.toString(),
    },
  ];
}

/**
 * Who takes the caller's ERC20 input under `strategy`, and so must be approved: the router, or
 * the caller's own CoreWallet (its CREATE2 address, deployed or not). A delegated account
 * spends its own balance: nobody.
 * @example inputSpender({ strategy: "corewallet", contracts, from })
 */
export function inputSpender(params: {
  strategy: RoutingStrategy;
  contracts: ExecutionContracts;
  from: Address;
}): Address | undefined {
  if (params.strategy === "router") return getAddress(params.contracts.router);
  if (params.strategy === "delegate") return undefined;
  const { wallet } = executingAccount(params);
  return wallet && getAddress(wallet);
}

/**
 * A gas limit the transaction succeeds with, from the gas its simulation used — an upper bound
 * derived from the EVM's rules rather than a binary search (`eth_estimateGas` runs the
 * transaction again and again on the node for every route):
 *
 * - refunds: the gas used is net of a refund of at most a fifth of the gross (EIP-3529), so
 *   the gross is at most 5/4 of it;
 * - EIP-150: a call passes on at most 63/64 of what is left; five nested calls (router,
 *   executor, pool, callback, token) need (64/63)^5 < 1.09 of their gas;
 * - a later block: a Uniswap V3 pool writes a price observation on its first swap of a block,
 *   possibly to a new storage slot, which a simulation on top of the latest block may not do;
 *   {@link LATER_BLOCK_GAS} covers that and the 2,300 an SSTORE requires to remain;
 * - `delegate`: the first transaction of an EIP-7702 account carries its authorization.
 */
export function gasLimit(params: { gasUsed: bigint; strategy: RoutingStrategy }): bigint {
  const gross = (params.gasUsed * 5n + 3n) / 4n;
  const nested = (gross * 109n + 99n) / 100n;
  return (
    nested + LATER_BLOCK_GAS + (params.strategy === "delegate" ? EIP7702_AUTHORIZATION_GAS : 0n)
  );
}

/** Gas for storage a transaction may write first in a later block (see {@link gasLimit}). */
export const LATER_BLOCK_GAS = 25_000n;
