/**
 * The command VM itself, through a test harness contract that exposes it: chained outputs,
 * tuple returns, extended commands, dynamic arguments, value calls, exact failure reports.
 */
import {
  type AbiParameter,
  type Address,
  decodeAbiParameters,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  getAbiItem,
  type Hex,
  keccak256,
  parseEther,
  toHex,
} from "viem";
import { describe, expect, it } from "vitest";
import { ArgProbeAbi } from "../../abis/generated/ArgProbe.js";
import { CommandVMHarnessAbi } from "../../abis/generated/CommandVMHarness.js";
import {
  CALL_TYPE_CALL,
  CALL_TYPE_STATICCALL,
  encodeCommand,
  FLAG_EXTENDED_COMMAND,
  INDEX_DYNAMIC,
  INDEX_END,
} from "../../engine/program/command-layout.js";
import { addTupleWord } from "../../engine/program/execution-steps.js";
import {
  type PlannedProgram,
  ProgramPlanner,
  type ProgramValue,
} from "../../engine/program/planner.js";
import { describeRevert } from "../../engine/program/revert.js";
import {
  allErrorsAbi,
  balanceOf,
  errorData,
  revertData,
  sendOk,
  useExecutionWorld,
} from "./harness.js";
import type { ExecutionWorld } from "./world.js";

const ctx = useExecutionWorld();

const add = getAbiItem({ abi: ArgProbeAbi, name: "add" });
const sum8 = getAbiItem({ abi: ArgProbeAbi, name: "sum8" });
const weighted7 = getAbiItem({ abi: ArgProbeAbi, name: "weighted7" });
const concat = getAbiItem({ abi: ArgProbeAbi, name: "concat" });
const range = getAbiItem({ abi: ArgProbeAbi, name: "range" });
const sumArray = getAbiItem({ abi: ArgProbeAbi, name: "sumArray" });
const greet = getAbiItem({ abi: ArgProbeAbi, name: "greet" });
const pair = getAbiItem({ abi: ArgProbeAbi, name: "pair" });
const mixed = getAbiItem({ abi: ArgProbeAbi, name: "mixed" });
const pay = getAbiItem({ abi: ArgProbeAbi, name: "pay" });
const failWithCode = getAbiItem({ abi: ArgProbeAbi, name: "failWithCode" });
const failWithReason = getAbiItem({ abi: ArgProbeAbi, name: "failWithReason" });

function runData(program: { commands: readonly Hex[]; state: readonly Hex[] }): Hex {
  return encodeFunctionData({
    abi: CommandVMHarnessAbi,
    functionName: "run",
    args: [program.commands, program.state],
  });
}

/** Runs a program in the harness (eth_call) and returns its final state. */
async function run(
  world: ExecutionWorld,
  program: { commands: readonly Hex[]; state: readonly Hex[] },
  value = 0n,
) {
  const { data } = await world.client.call({
    account: world.accounts.user.account.address,
    to: world.testContracts.vmHarness,
    data: runData(program),
    value,
  });
  return decodeFunctionResult({
    abi: CommandVMHarnessAbi,
    functionName: "run",
    data: data ?? "0x",
  });
}

/** The final value of a kept ProgramValue, decoded as `type`. */
function finalValue(
  program: PlannedProgram,
  state: readonly Hex[],
  value: ProgramValue,
  type: AbiParameter,
): unknown {
  const slot = program.calls[value.call]?.outputSlot;
  if (slot === undefined) throw new Error("value not kept");
  const bytes = state[slot] ?? "0x";
  // Dynamic values are stored as their tail: put the offset word back to decode them.
  const encoded = value.dynamic ? (`${toHex(32, { size: 32 })}${bytes.slice(2)}` as Hex) : bytes;
  return decodeAbiParameters([type], encoded)[0];
}

describe("CommandVM", () => {
  it("chains return values into later calls and reuses dead slots", async () => {
    const { world } = ctx;
    const probe = world.testContracts.argProbe;
    const planner = new ProgramPlanner();
    const three = planner.add({ target: probe, fn: add, args: [1n, 2n] });
    const thirteen = planner.add({ target: probe, fn: add, args: [three, 10n] });
    const sixteen = planner.add({ target: probe, fn: add, args: [thirteen, three] });
    const last = planner.add({ target: probe, fn: add, args: [sixteen, sixteen] });
    planner.keep(last);
    const program = planner.plan();
    // Literals 1, 2, 10 take three slots; every return value fits in a slot freed before it.
    expect(program.state).toHaveLength(3);
    const state = await run(world, program);
    expect(finalValue(program, state, last, { type: "uint256" })).toBe(32n);
  });

  it("keeps tuple returns as bytes and reads their words", async () => {
    const { world } = ctx;
    const probe = world.testContracts.argProbe;
    const planner = new ProgramPlanner();
    const tuple = planner.add({ target: probe, fn: pair, args: [21n] });
    expect(tuple.kind).toBe("raw");
    const first = addTupleWord(planner, {
      programValues: world.execution.programValues,
      tuple,
      index: 0n,
    });
    const second = addTupleWord(planner, {
      programValues: world.execution.programValues,
      tuple,
      index: 1n,
    });
    const total = planner.add({ target: probe, fn: add, args: [first, second] });
    // The raw tuple is also a valid `bytes` argument.
    const joined = planner.add({ target: probe, fn: concat, args: [tuple, "0xff"] });
    planner.keep(total);
    planner.keep(joined);
    const program = planner.plan();
    const state = await run(world, program);
    expect(finalValue(program, state, total, { type: "uint256" })).toBe(63n);
    expect(finalValue(program, state, joined, { type: "bytes" })).toBe(
      `${encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [21n, 42n])}ff`,
    );
  });

  it("passes more than six inputs through extended commands, in order", async () => {
    const { world } = ctx;
    const probe = world.testContracts.argProbe;
    const planner = new ProgramPlanner();
    const seven = planner.add({ target: probe, fn: add, args: [3n, 4n] });
    const s = planner.add({ target: probe, fn: sum8, args: [1n, 2n, 3n, 4n, 5n, 6n, 7n, seven] });
    const w = planner.add({ target: probe, fn: weighted7, args: [1n, 2n, 3n, 4n, 5n, 6n, seven] });
    planner.keep(s);
    planner.keep(w);
    const program = planner.plan();
    // add (1 word) + sum8 (2 words) + weighted7 (2 words).
    expect(program.commands).toHaveLength(5);
    expect(program.calls.map((c) => c.commandIndex)).toEqual([0, 1, 3]);
    const flags = Number.parseInt(program.commands[1]?.slice(10, 12) ?? "0", 16);
    expect(flags & FLAG_EXTENDED_COMMAND).toBe(FLAG_EXTENDED_COMMAND);
    const state = await run(world, program);
    expect(finalValue(program, state, s, { type: "uint256" })).toBe(35n);
    expect(finalValue(program, state, w, { type: "uint256" })).toBe(7654321n);
  });

  it("passes dynamic arguments (bytes, string, arrays) and dynamic return values", async () => {
    const { world } = ctx;
    const probe = world.testContracts.argProbe;
    const planner = new ProgramPlanner();
    const joined = planner.add({ target: probe, fn: concat, args: ["0xdeadbeef01", "0x"] });
    const again = planner.add({ target: probe, fn: concat, args: [joined, "0x2233"] });
    const hello = planner.add({ target: probe, fn: greet, args: ["weiroll layout"] });
    const values = planner.add({ target: probe, fn: range, args: [5n, 4n] });
    const total = planner.add({ target: probe, fn: sumArray, args: [values] });
    const hash = planner.add({ target: probe, fn: mixed, args: [total, again, 9n, values] });
    const literalArray = planner.add({ target: probe, fn: sumArray, args: [[1n, 2n, 3n, 1000n]] });
    for (const v of [again, hello, total, hash, literalArray]) planner.keep(v);
    const program = planner.plan();
    const state = await run(world, program);
    expect(finalValue(program, state, again, { type: "bytes" })).toBe("0xdeadbeef012233");
    expect(finalValue(program, state, hello, { type: "string" })).toBe("hello weiroll layout");
    expect(finalValue(program, state, total, { type: "uint256" })).toBe(26n);
    expect(finalValue(program, state, hash, { type: "bytes32" })).toBe(
      keccak256(
        encodeAbiParameters(
          [{ type: "uint256" }, { type: "bytes" }, { type: "uint256" }, { type: "uint256[]" }],
          [26n, "0xdeadbeef012233", 9n, [5n, 6n, 7n, 8n]],
        ),
      ),
    );
    expect(finalValue(program, state, literalArray, { type: "uint256" })).toBe(1006n);
  });

  it("makes value calls with a literal or a returned amount", async () => {
    const { world } = ctx;
    const probe = world.testContracts.argProbe;
    const planner = new ProgramPlanner();
    planner.add({ target: probe, fn: pay, args: [1n], value: parseEther("1") });
    const amount = planner.add({ target: probe, fn: add, args: [parseEther("0.25"), 5n] });
    const paid = planner.add({ target: probe, fn: pay, args: [2n], value: amount });
    planner.keep(paid);
    const program = planner.plan();
    const state = await run(world, program, parseEther("3"));
    expect(finalValue(program, state, paid, { type: "uint256" })).toBe(parseEther("0.25") + 5n);
    const before = await balanceOf(world, "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", probe);
    await sendOk(world, world.accounts.user, {
      to: world.testContracts.vmHarness,
      data: runData(program),
      value: parseEther("3"),
    });
    expect(await balanceOf(world, "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", probe)).toBe(
      before + parseEther("1.25") + 5n,
    );
    expect(() => planner.add({ target: probe, fn: add, args: [1n, 2n], value: 1n })).toThrow(
      /value sent to non-payable add/,
    );
  });

  it("reports the real index, target and reason of the failed command", async () => {
    const { world } = ctx;
    const probe = world.testContracts.argProbe;
    const harness = world.testContracts.vmHarness;
    const planner = new ProgramPlanner();
    planner.add({ target: probe, fn: sum8, args: [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n] });
    planner.add({ target: probe, fn: add, args: [1n, 2n] });
    planner.add({ target: probe, fn: failWithCode, args: [7n], label: "withdraw" });
    const program = planner.plan();
    const data = await revertData(world, world.accounts.user, {
      to: harness,
      data: runData(program),
    });
    const reason = errorData(allErrorsAbi, "ProbeFailed", [7n, harness]);
    // The third call is command word 3 (the first call takes two words).
    expect(data).toBe(errorData(allErrorsAbi, "ExecutionFailed", [3n, probe, reason]));
    expect(describeRevert({ data, calls: program.calls, abis: [ArgProbeAbi] }).message).toBe(
      `Step 2 (withdraw on ${probe}) failed: ProbeFailed(code: 7, caller: ${harness})`,
    );

    const withReason = new ProgramPlanner();
    withReason.add({
      target: probe,
      fn: failWithReason,
      args: ["ERC4626: deposit more than max"],
      label: "deposit",
    });
    const reasonData = await revertData(world, world.accounts.user, {
      to: harness,
      data: runData(withReason.plan()),
    });
    expect(describeRevert({ data: reasonData, calls: withReason.plan().calls }).message).toBe(
      `Step 0 (deposit on ${probe}) failed: ERC4626: deposit more than max`,
    );
  });

  it("rejects malformed commands with errors naming the command", async () => {
    const { world } = ctx;
    const probe = world.testContracts.argProbe as Address;
    const harness = world.testContracts.vmHarness;
    const addSelector = encodeFunctionData({
      abi: ArgProbeAbi,
      functionName: "add",
      args: [0n, 0n],
    }).slice(0, 10) as Hex;
    const word = (flags: number, inputs: number[], output = INDEX_END) => {
      const [w] = encodeCommand({
        selector: addSelector,
        callType: CALL_TYPE_CALL,
        tupleReturn: false,
        inputs,
        output,
        target: probe,
      });
      const hex = w ?? "0x";
      return `${hex.slice(0, 10)}${flags.toString(16).padStart(2, "0")}${hex.slice(12)}` as Hex;
    };
    const one = encodeAbiParameters([{ type: "uint256" }], [1n]);
    const expectError = async (
      commands: Hex[],
      state: Hex[],
      name: string,
      args: readonly unknown[],
    ) => {
      const data = await revertData(world, world.accounts.user, {
        to: harness,
        data: runData({ commands, state }),
      });
      expect(data).toBe(errorData(allErrorsAbi, name, args));
    };
    const ok = word(CALL_TYPE_STATICCALL, [0, 0]);
    // Call type 0 (DELEGATECALL in the original format) and the reserved raw-data bit 0x20.
    await expectError([ok, word(0x00, [0, 0])], [one], "InvalidCommandFlags", [1n, 0n]);
    await expectError([word(0x21, [0, 0])], [one], "InvalidCommandFlags", [0n, 0x21n]);
    // An extended command with no input word after it.
    await expectError(
      [ok, word(FLAG_EXTENDED_COMMAND | CALL_TYPE_CALL, [])],
      [one],
      "MissingExtendedInputs",
      [1n],
    );
    // Slot 5 of a one-slot state; the whole-state marker 0xfe.
    await expectError([word(CALL_TYPE_CALL, [0, 5])], [one], "InvalidStateIndex", [0n, 5n]);
    await expectError([word(CALL_TYPE_CALL, [0, 0xfe])], [one], "InvalidStateIndex", [0n, 0xfen]);
    // A static argument whose slot is not one word; a dynamic one that is not whole words.
    await expectError([word(CALL_TYPE_CALL, [0, 1])], [one, `${one}00`], "InvalidStaticValue", [
      0n,
      1n,
      33n,
    ]);
    await expectError(
      [word(CALL_TYPE_CALL, [0, 1 | INDEX_DYNAMIC])],
      [one, "0x01"],
      "InvalidDynamicValue",
      [0n, 1n, 1n],
    );
    // A two-word return written as a single static value.
    const pairSelector = encodeFunctionData({
      abi: ArgProbeAbi,
      functionName: "pair",
      args: [0n],
    }).slice(0, 10) as Hex;
    const [pairWord] = encodeCommand({
      selector: pairSelector,
      callType: CALL_TYPE_CALL,
      tupleReturn: false,
      inputs: [0],
      output: 0,
      target: probe,
    });
    await expectError([pairWord ?? "0x"], [one], "UnexpectedReturnData", [0n, 64n]);
  });
});
