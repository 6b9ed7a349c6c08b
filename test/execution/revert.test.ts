/** The revert decoder, on revert data built from the contracts' ABIs. */
import { encodeErrorResult, type Hex, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import { ProgramPlanner } from "../../engine/program/planner.js";
import { describeRevert } from "../../engine/program/revert.js";

const vault = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const token = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const receiver = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const errors = parseAbi([
  "error ExecutionFailed(uint256 commandIndex, address target, bytes reason)",
  "error ERC4626ExceededMaxDeposit(address receiver, uint256 assets, uint256 max)",
  "error Error(string)",
  "error Panic(uint256)",
  "error VaultPaused(uint256 since)",
]);
const executionFailed = (index: bigint, target: Hex, reason: Hex): Hex =>
  encodeErrorResult({ abi: errors, errorName: "ExecutionFailed", args: [index, target, reason] });

describe("describeRevert", () => {
  const planner = new ProgramPlanner();
  const approve = parseAbiItemLike("approve");
  planner.add({ target: token, fn: approve, args: [vault, 1n] });
  planner.add({
    target: token,
    fn: {
      type: "function",
      name: "sum8",
      stateMutability: "pure",
      inputs: Array.from({ length: 8 }, () => ({ type: "uint256" })),
      outputs: [],
    },
    args: [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n],
  });
  planner.add({ target: vault, fn: approve, args: [vault, 2n], label: "deposit" });
  const { calls } = planner.plan();

  it("names the step by its position in the program, its label and target", () => {
    const reason = encodeErrorResult({
      abi: errors,
      errorName: "ERC4626ExceededMaxDeposit",
      args: [receiver, 5000n, 0n],
    });
    // The third call is command 3: the second takes two words.
    const described = describeRevert({ data: executionFailed(3n, vault, reason), calls });
    expect(described.message).toBe(
      `Step 2 (deposit on ${vault}) failed: ERC4626: deposit more than max (assets 5000, max 0)`,
    );
    expect(described.step).toEqual({ index: 2, commandIndex: 3, target: vault, label: "deposit" });
    expect(described.errorName).toBe("ERC4626ExceededMaxDeposit");
    expect(described.args).toEqual([receiver, 5000n, 0n]);
  });

  it("falls back to the command index and the bare target without planned calls", () => {
    const reason = encodeErrorResult({ abi: errors, errorName: "Error", args: ["UniswapV2: K"] });
    expect(
      describeRevert({ data: executionFailed(7n, vault.toLowerCase() as Hex, reason) }).message,
    ).toBe(`Step 7 (call to ${vault}) failed: UniswapV2: K`);
  });

  it("describes nested programs, panics, custom errors from given ABIs, unknown and empty data", () => {
    const panic = encodeErrorResult({ abi: errors, errorName: "Panic", args: [0x11n] });
    const nested = executionFailed(0n, token, executionFailed(1n, vault, panic));
    expect(describeRevert({ data: nested, calls }).message).toBe(
      `Step 0 (approve on ${token}) failed: Step 1 (call to ${vault}) failed: panic 0x11 (arithmetic overflow or underflow)`,
    );
    const paused = encodeErrorResult({ abi: errors, errorName: "VaultPaused", args: [12n] });
    expect(describeRevert({ data: paused, abis: [errors] }).message).toBe("VaultPaused(since: 12)");
    expect(describeRevert({ data: paused }).message).toBe(
      `reverted with unknown error ${paused.slice(0, 10)}`,
    );
    expect(describeRevert({ data: "0x" }).message).toBe("reverted without a reason");
  });

  it("describes the router's own errors in words", () => {
    const short = encodeErrorResult({
      abi: ShortcutRouterAbi,
      errorName: "InsufficientOutput",
      args: [token, receiver, 99n, 100n],
    });
    expect(describeRevert({ data: short }).message).toBe(
      `${receiver} received 99 of ${token}, less than the minimum 100`,
    );
    const value = encodeErrorResult({
      abi: ShortcutRouterAbi,
      errorName: "MsgValueMismatch",
      args: [10n, 9n],
    });
    expect(describeRevert({ data: value }).message).toBe(
      "the transaction sends 9 wei, expected exactly 10 wei",
    );
    const fee = encodeErrorResult({
      abi: ShortcutRouterAbi,
      errorName: "FeeTooHigh",
      args: [150n, 100n],
    });
    expect(describeRevert({ data: fee }).message).toBe("FeeTooHigh(feeBps: 150, maxFeeBps: 100)");
  });
});

function parseAbiItemLike(name: "approve") {
  return {
    type: "function",
    name,
    stateMutability: "nonpayable",
    inputs: [
      { name: "spender", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [{ name: "", type: "bool" }],
  } as const;
}
