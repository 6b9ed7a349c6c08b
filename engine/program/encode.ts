/**
 * Encodes a planned program into the unsigned transaction of each routing strategy:
 *
 * - `router`: the user calls ShortcutRouter, which pulls the input, runs the program in its
 *   executor and checks the outputs on chain (a bundle's, each at the account it pays);
 * - `delegate`: the program runs as the user's own account through DelegateExecutor (an
 *   EIP-7702 account delegating to it calls itself; a smart wallet DELEGATECALLs the calldata);
 * - `corewallet`: the program runs in the user's CoreWallet, deployed on first use.
 */
import { type Address, encodeFunctionData, type Hex, maxUint256 } from "viem";
import { CoreWalletAbi } from "../../abis/generated/CoreWallet.js";
import { CoreWalletFactoryAbi } from "../../abis/generated/CoreWalletFactory.js";
import { DelegateExecutorAbi } from "../../abis/generated/DelegateExecutor.js";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import { isNativeToken } from "../core/native.js";

/** An unsigned transaction (the API serializes `value` as a decimal string). */
export type EncodedTx = { to: Address; from: Address; data: Hex; value: bigint };

/** The part of a planned program the chain needs. */
export type Program = { commands: readonly Hex[]; state: readonly Hex[] };

/** A fee of `bps` basis points of amountIn (0 to {@link MAX_FEE_BPS}) sent to `receiver`. */
export type RouteFee = { bps: number; receiver: Address };

/**
 * Highest fee the router accepts, in basis points: the one bound of the TypeScript side (the
 * API's validation of `fee` is derived from it), equal to ShortcutRouter's `MAX_FEE_BPS`.
 */
export const MAX_FEE_BPS = 100;

/** The fee the router takes out of `amountIn` (rounded down, as on chain). */
export function routeFeeAmount(amountIn: bigint, bps: number): bigint {
  return (amountIn * BigInt(bps)) / 10_000n;
}

export type EncodeRouterSwapTxParameters = {
  router: Address;
  /** The caller, whose tokenIn is pulled. */
  from: Address;
  tokenIn: Address;
  amountIn: bigint;
  tokenOut: Address;
  minAmountOut: bigint;
  receiver: Address;
  fee?: RouteFee;
  /**
   * Last acceptable block timestamp (unix seconds); the router reverts DeadlineExpired after.
   * Default: none (2^256 − 1); the API always sets one.
   */
  deadline?: bigint;
  program: Program;
};

/**
 * `ShortcutRouter.swap`: one input, one checked output.
 * @example encodeRouterSwapTx({ router, from, tokenIn, amountIn, tokenOut, minAmountOut, receiver, program })
 */
export function encodeRouterSwapTx(params: EncodeRouterSwapTxParameters): EncodedTx {
  const order = { ...routerOrder(params), tokenOut: params.tokenOut };
  const data = encodeFunctionData({
    abi: ShortcutRouterAbi,
    functionName: "swap",
    args: [
      { ...order, receiver: params.receiver, minAmountOut: params.minAmountOut },
      params.program.commands,
      params.program.state,
    ],
  });
  return routerTx(params, data);
}

export type EncodeRouterBundleTxParameters = Omit<
  EncodeRouterSwapTxParameters,
  "tokenOut" | "minAmountOut" | "receiver"
> & {
  /**
   * Every output the router checks, each naming the account it pays (the receiver, a merchant,
   * a transfer's target) and its minimum (at least one output).
   */
  outputs: readonly { token: Address; account: Address; minAmountOut: bigint }[];
};

/** `ShortcutRouter.bundle`: one input, several checked outputs, each at its own account. */
export function encodeRouterBundleTx(params: EncodeRouterBundleTxParameters): EncodedTx {
  const order = routerOrder(params);
  if (params.outputs.length === 0) throw new RangeError("a router bundle needs a checked output");
  const outputs = params.outputs.map((o) => ({
    token: o.token,
    account: o.account,
    minAmountOut: o.minAmountOut,
  }));
  const data = encodeFunctionData({
    abi: ShortcutRouterAbi,
    functionName: "bundle",
    args: [{ ...order, outputs }, params.program.commands, params.program.state],
  });
  return routerTx(params, data);
}

/** The fields both router orders share, the fee checked. */
function routerOrder(params: EncodeRouterBundleTxParameters | EncodeRouterSwapTxParameters) {
  checkFee(params.fee);
  return {
    tokenIn: params.tokenIn,
    amountIn: params.amountIn,
    feeBps: BigInt(params.fee?.bps ?? 0),
    feeReceiver: params.fee?.receiver ?? ZERO_ADDRESS,
    deadline: params.deadline ?? maxUint256,
  };
}

/** A router call from the caller, with the native input as its value. */
function routerTx(
  params: { router: Address; from: Address; tokenIn: Address; amountIn: bigint },
  data: Hex,
): EncodedTx {
  return {
    to: params.router,
    from: params.from,
    data,
    value: nativeValue(params.tokenIn, params.amountIn),
  };
}

/** Calldata of `DelegateExecutor.execute`, for a smart wallet to DELEGATECALL. */
export function encodeDelegateCalldata(program: Program): Hex {
  return encodeFunctionData({
    abi: DelegateExecutorAbi,
    functionName: "execute",
    args: [program.commands, program.state],
  });
}

export type EncodeDelegateTxParameters = {
  /** An EIP-7702 account whose code delegates to DelegateExecutor; it sends to itself. */
  from: Address;
  program: Program;
  /** Native currency the program spends from the account (default 0). */
  value?: bigint;
};

/**
 * The `delegate` strategy for an EIP-7702 account: a transaction from the account to itself
 * calling `execute`. The program must check its own minimum output (addMinAmountOutCheck).
 */
export function encodeDelegateTx(params: EncodeDelegateTxParameters): EncodedTx {
  return {
    to: params.from,
    from: params.from,
    data: encodeDelegateCalldata(params.program),
    value: params.value ?? 0n,
  };
}

export type EncodeCoreWalletTxParameters = {
  walletFactory: Address;
  /** The wallet owner. */
  from: Address;
  /** ERC20 approved by the owner to the wallet, NATIVE_TOKEN_ADDRESS, or any token with amountIn 0. */
  tokenIn: Address;
  /** tokenInAmountToApprove (ERC20, pulled by the wallet) or tokenInAmountToTransfer (native). */
  amountIn: bigint;
  program: Program;
  /** The owner's wallet when it is already deployed: call it directly, skipping the factory. */
  deployedWallet?: Address;
};

/**
 * The `corewallet` strategy: `CoreWalletFactory.deployAndExecute` (deploys the owner's wallet
 * if needed), or `CoreWallet.executeShortcut` on an already deployed wallet. The program must
 * check its own minimum output (addMinAmountOutCheck).
 */
export function encodeCoreWalletTx(params: EncodeCoreWalletTxParameters): EncodedTx {
  const value = nativeValue(params.tokenIn, params.amountIn);
  const args = [
    params.tokenIn,
    params.amountIn,
    params.program.commands,
    params.program.state,
  ] as const;
  if (params.deployedWallet !== undefined) {
    return {
      to: params.deployedWallet,
      from: params.from,
      data: encodeFunctionData({ abi: CoreWalletAbi, functionName: "executeShortcut", args }),
      value,
    };
  }
  return {
    to: params.walletFactory,
    from: params.from,
    data: encodeFunctionData({ abi: CoreWalletFactoryAbi, functionName: "deployAndExecute", args }),
    value,
  };
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000" as const;

function nativeValue(tokenIn: Address, amountIn: bigint): bigint {
  return isNativeToken(tokenIn) ? amountIn : 0n;
}

function checkFee(fee: RouteFee | undefined): void {
  if (fee === undefined) return;
  if (!Number.isInteger(fee.bps) || fee.bps < 0 || fee.bps > MAX_FEE_BPS) {
    throw new RangeError(`fee must be an integer from 0 to ${MAX_FEE_BPS} bps, got ${fee.bps}`);
  }
}
