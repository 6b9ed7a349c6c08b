/**
 * Turns revert data from the execution layer into one clear sentence, e.g.
 * `Step 3 (deposit on 0x5FbDB2315678afecb367f032d93F642f64180aa3) failed: ERC4626: deposit more
 * than max (assets 5000, max 0)`. Steps are numbered from 0 in the order they were added to the
 * planner.
 */
import {
  type Abi,
  type AbiParameter,
  type Address,
  decodeErrorResult,
  getAddress,
  type Hex,
  parseAbi,
  size,
  sliceHex,
} from "viem";
import { CoreWalletAbi } from "../../abis/generated/CoreWallet.js";
import { CoreWalletFactoryAbi } from "../../abis/generated/CoreWalletFactory.js";
import { DelegateExecutorAbi } from "../../abis/generated/DelegateExecutor.js";
import { MinAmountOutCheckAbi } from "../../abis/generated/MinAmountOutCheck.js";
import { ProgramValuesAbi } from "../../abis/generated/ProgramValues.js";
import { RouterExecutorAbi } from "../../abis/generated/RouterExecutor.js";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import { UniswapV4RouterAbi } from "../../abis/generated/UniswapV4Router.js";
import { PoolManagerAbi } from "../../abis/PoolManager.js";
import type { PlannedCall } from "./planner.js";

/** Errors of widely used contracts (OpenZeppelin 5 ERC20 / ERC4626 / utilities). */
const standardErrors = parseAbi([
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
  "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  "error ERC20InvalidSender(address sender)",
  "error ERC20InvalidReceiver(address receiver)",
  "error ERC20InvalidApprover(address approver)",
  "error ERC20InvalidSpender(address spender)",
  "error ERC4626ExceededMaxDeposit(address receiver, uint256 assets, uint256 max)",
  "error ERC4626ExceededMaxMint(address receiver, uint256 shares, uint256 max)",
  "error ERC4626ExceededMaxWithdraw(address owner, uint256 assets, uint256 max)",
  "error ERC4626ExceededMaxRedeem(address owner, uint256 shares, uint256 max)",
  "error SafeERC20FailedOperation(address token)",
  "error AddressEmptyCode(address target)",
  "error FailedCall()",
]);

const projectAbis: readonly Abi[] = [
  ShortcutRouterAbi,
  RouterExecutorAbi,
  DelegateExecutorAbi,
  CoreWalletAbi,
  CoreWalletFactoryAbi,
  MinAmountOutCheckAbi,
  ProgramValuesAbi,
  UniswapV4RouterAbi,
  // What a V4 swap's pool manager reverts with (a hook's failure comes wrapped in WrappedError).
  PoolManagerAbi,
  standardErrors,
];

const PANIC_REASONS: Record<number, string> = {
  1: "assertion failed",
  17: "arithmetic overflow or underflow",
  18: "division or modulo by zero",
  33: "invalid enum value",
  34: "invalid storage byte array",
  49: "pop from an empty array",
  50: "array index out of bounds",
  65: "out of memory",
  81: "call to an uninitialized function",
};

export type DescribeRevertParameters = {
  /** The revert data (`0x` when the call reverted without any). */
  data: Hex;
  /** The planned calls of the program that ran (`plan().calls`), to name the failed step. */
  calls?: readonly PlannedCall[];
  /** ABIs of the program's targets, whose custom errors may appear. */
  abis?: readonly Abi[];
};

/** A failed program step, as reported by `ExecutionFailed`. */
export type FailedStep = {
  /** Position of the step among the planned calls (its command index without `calls`). */
  index: number;
  commandIndex: number;
  target: Address;
  label: string | undefined;
};

export type RevertDescription = {
  /** One sentence, e.g. `Step 1 (deposit on 0x…) failed: ERC4626: deposit more than max …`. */
  message: string;
  /** The outermost failed step, when a program step failed. */
  step: FailedStep | undefined;
  /** The innermost decoded error name (`Error` for reason strings), if it could be decoded. */
  errorName: string | undefined;
  /** Its arguments. */
  args: readonly unknown[];
};

/**
 * Describes revert data from the router, an executor, a wallet or a program step.
 * @example describeRevert({ data, calls: program.calls, abis: [vaultAbi] }).message
 */
export function describeRevert(params: DescribeRevertParameters): RevertDescription {
  // Error(string) and Panic(uint256) are decoded without being listed.
  const errors = [...projectAbis, ...(params.abis ?? [])].flatMap((abi) =>
    abi.filter((item) => item.type === "error"),
  );
  return describe(params.data, params.calls, errors, 0);
}

function describe(
  data: Hex,
  calls: readonly PlannedCall[] | undefined,
  errors: Abi,
  depth: number,
): RevertDescription {
  if (size(data) === 0) {
    return {
      message: "reverted without a reason",
      step: undefined,
      errorName: undefined,
      args: [],
    };
  }
  const decoded = decode(data, errors);
  if (decoded === undefined) {
    const selector = size(data) >= 4 ? sliceHex(data, 0, 4) : data;
    return {
      message: `reverted with unknown error ${selector}`,
      step: undefined,
      errorName: undefined,
      args: [],
    };
  }
  const { errorName, args } = decoded;
  if (errorName === "ExecutionFailed" && depth < 8) {
    const [commandIndex, target, reason] = args as [bigint, Address, Hex];
    // Only the outermost program is the one `calls` describes; nested ones are named by index.
    const known = depth === 0 ? calls : undefined;
    const position = known?.findIndex((c) => c.commandIndex === Number(commandIndex)) ?? -1;
    const call = known?.[position];
    const step: FailedStep = {
      index: call === undefined ? Number(commandIndex) : position,
      commandIndex: Number(commandIndex),
      target: getAddress(target),
      label: call?.label,
    };
    const inner = describe(reason, undefined, errors, depth + 1);
    const what =
      step.label === undefined ? `call to ${step.target}` : `${step.label} on ${step.target}`;
    return {
      message: `Step ${step.index} (${what}) failed: ${inner.message}`,
      step,
      errorName: inner.errorName,
      args: inner.args,
    };
  }
  return { message: sentence(errorName, args, decoded.inputs), step: undefined, errorName, args };
}

function decode(
  data: Hex,
  abi: Abi,
): { errorName: string; args: readonly unknown[]; inputs: readonly AbiParameter[] } | undefined {
  try {
    const result = decodeErrorResult({ abi, data });
    return {
      errorName: result.errorName,
      args: result.args ?? [],
      inputs: "inputs" in result.abiItem ? result.abiItem.inputs : [],
    };
  } catch {
    return undefined;
  }
}

function sentence(name: string, args: readonly unknown[], inputs: readonly AbiParameter[]): string {
  const a = args as readonly bigint[] & readonly string[];
  switch (name) {
    case "Error":
      return String(args[0]);
    case "Panic": {
      const code = Number(args[0]);
      return `panic 0x${code.toString(16).padStart(2, "0")} (${PANIC_REASONS[code] ?? "unknown panic code"})`;
    }
    case "ERC20InsufficientBalance":
      return `ERC20: transfer amount exceeds balance (${a[0]} has ${a[1]}, needs ${a[2]})`;
    case "ERC20InsufficientAllowance":
      return `ERC20: insufficient allowance (${a[0]} may spend ${a[1]}, needs ${a[2]})`;
    case "ERC4626ExceededMaxDeposit":
      return `ERC4626: deposit more than max (assets ${a[1]}, max ${a[2]})`;
    case "ERC4626ExceededMaxMint":
      return `ERC4626: mint more than max (shares ${a[1]}, max ${a[2]})`;
    case "ERC4626ExceededMaxWithdraw":
      return `ERC4626: withdraw more than max (assets ${a[1]}, max ${a[2]})`;
    case "ERC4626ExceededMaxRedeem":
      return `ERC4626: redeem more than max (shares ${a[1]}, max ${a[2]})`;
    case "InsufficientOutput":
      return `${a[1]} received ${a[2]} of ${a[0]}, less than the minimum ${a[3]}`;
    case "MsgValueMismatch":
      return `the transaction sends ${a[1]} wei, expected exactly ${a[0]} wei`;
    case "DeadlineExpired":
      return `the deadline ${a[0]} passed (block time ${a[1]}): DeadlineExpired`;
    case "NoCode":
      return `step ${a[0]} called ${a[1]}, which has no code`;
    case "TokenCallFailed":
      return `step ${a[0]}: the token ${a[1]} answered false`;
    case "PartialFill":
      return `the pool took ${a[1]} of the exact input ${a[0]} (it ran out of liquidity)`;
    case "ExecutorKeptFunds":
      return `the program left ${BigInt(a[2] ?? 0) - BigInt(a[1] ?? 0)} of ${a[0]} in the executor`;
    case "ReentrancyGuardReentrantCall":
      return "reentrant call to the router";
    default:
      return `${name}(${inputs.map((input, i) => `${input.name || i}: ${String(args[i])}`).join(", ")})`;
  }
}
