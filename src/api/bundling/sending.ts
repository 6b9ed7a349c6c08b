/**
 * What a client needs besides the transaction: what must happen before it is sent (the
 * approval of the right spender, or the EIP-7702 delegation), the deadline the transaction
 * enforces, and a gas limit it succeeds with.
 */
import { type Address, getAddress } from "viem";
import { isNativeToken } from "../../../protocols/native";
import { calldataGas } from "../chain/calldata-gas";
import type { ExecutionContracts, RoutingStrategy } from "../routing/route-program";
import type { EncodedTx } from "./encode";

/** How long after the simulated block a transaction stays valid unless `deadline` is given. */
export const DEFAULT_DEADLINE_SECONDS = 1_200n;

/**
 * The deadline encoded for the simulation when the client gave none: far enough never to
 * expire, and as many non-zero bytes as a real one, so that re-encoding the real deadline
 * (the simulated block's timestamp + 20 minutes) changes the calldata's gas by almost nothing.
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
  /** The caller's CoreWallet (corewallet only). */
  wallet: Address | undefined;
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
  const spender = strategy === "router" ? contracts.router : params.wallet;
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
 * Headroom over the node's estimate, in percent. The estimate runs on the latest block's state
 * and time; the transaction lands in a later block, where a Uniswap V3 pool writes a new price
 * observation on its first swap (an SSTORE the estimate did not see), and where the caller's
 * real balances replace the simulation's exact ones. Without it, 1 in 6 transactions sent with
 * the bare estimate ran out of gas in the test suite.
 */
export const GAS_HEADROOM_PERCENT = 10n;

/**
 * The gas limit of the transaction sent: the node's estimate for the simulated encoding plus
 * {@link GAS_HEADROOM_PERCENT}, plus what the final encoding's calldata costs more (its minimum
 * and deadline words may differ), plus the first-time EIP-7702 authorization for `delegate`.
 */
export function gasLimit(params: {
  estimate: bigint;
  simulated: EncodedTx;
  sent: EncodedTx;
  strategy: RoutingStrategy;
}): bigint {
  const extra = calldataGas(params.sent.data) - calldataGas(params.simulated.data);
  return (
    params.estimate +
    (params.estimate * GAS_HEADROOM_PERCENT) / 100n +
    (extra > 0n ? extra : 0n) +
    (params.strategy === "delegate" ? EIP7702_AUTHORIZATION_GAS : 0n)
  );
}
