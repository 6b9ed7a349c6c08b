/** The program planner and the command layout, without a chain. */
import {
  encodeAbiParameters,
  encodeFunctionData,
  getAbiItem,
  type Hex,
  parseAbiItem,
  toFunctionSelector,
} from "viem";
import { describe, expect, it } from "vitest";
import { SwapRouterAbi } from "../../abis/SwapRouter.js";
import { decodeCommandTarget, encodeCommand } from "../../engine/program/command-layout.js";
import { PlannerError, ProgramPlanner } from "../../engine/program/planner.js";

const target = "0x1111111111111111111111111111111111111111";
const other = "0x2222222222222222222222222222222222222222";
const add = parseAbiItem("function add(uint256 a, uint256 b) view returns (uint256)");
const transfer = parseAbiItem("function transfer(address to, uint256 amount) returns (bool)");
const concat = parseAbiItem("function concat(bytes a, bytes b) returns (bytes)");
const pair = parseAbiItem("function pair(uint256 a) returns (uint256, uint256)");
const deposit = parseAbiItem("function deposit() payable");
const word = (value: bigint): Hex => encodeAbiParameters([{ type: "uint256" }], [value]);

describe("encodeCommand", () => {
  it("packs selector | flags | inputs | output | target", () => {
    expect(
      encodeCommand({
        selector: "0xa9059cbb",
        callType: 0x01,
        tupleReturn: false,
        inputs: [0, 1 | 0x80],
        output: 2,
        target,
      }),
    ).toEqual([`0xa9059cbb01${"00"}81ffffffff02${target.slice(2)}`]);
    expect(decodeCommandTarget(`0xa9059cbb010081ffffffff02${target.slice(2)}`)).toEqual({
      selector: "0xa9059cbb",
      target,
    });
  });

  it("moves more than six inputs to an extended word, padded with 0xff", () => {
    const words = encodeCommand({
      selector: "0x12345678",
      callType: 0x03,
      tupleReturn: true,
      inputs: [9, 0, 1, 2, 3, 4, 5],
      output: 7,
      target,
    });
    expect(words).toEqual([
      `0x12345678c3ffffffffffff07${target.slice(2)}`,
      `0x09000102030405${"ff".repeat(25)}`,
    ]);
    expect(() =>
      encodeCommand({
        selector: "0x12345678",
        callType: 1,
        tupleReturn: false,
        inputs: new Array(33).fill(0),
        output: 0xff,
        target,
      }),
    ).toThrow(/at most 32 inputs/);
  });
});

describe("ProgramPlanner", () => {
  it("encodes calls, deduplicates literals and reuses slots of dead values", () => {
    const planner = new ProgramPlanner();
    const a = planner.add({ target, fn: add, args: [5n, 7n] });
    const b = planner.add({ target, fn: add, args: [a, 5n] });
    planner.add({ target: other, fn: transfer, args: [target, b], label: "pay" });
    const program = planner.plan();
    // Literals 5, 7 and the address; a takes 7's slot (7 is dead after call 0), then b takes
    // 5's slot (5 and a are both dead after call 1; the lowest free slot wins).
    expect(program.state).toEqual([
      word(5n),
      word(7n),
      encodeAbiParameters([{ type: "address" }], [target]),
    ]);
    const sel = (fn: Parameters<typeof toFunctionSelector>[0]) => toFunctionSelector(fn).slice(2);
    expect(program.commands).toEqual([
      `0x${sel(add)}020001ffffffff01${target.slice(2)}`,
      `0x${sel(add)}020100ffffffff00${target.slice(2)}`,
      `0x${sel(transfer)}010200ffffffffff${other.slice(2)}`,
    ]);
    expect(program.calls).toEqual([
      {
        commandIndex: 0,
        outputSlot: undefined,
        target,
        functionName: "add",
        signature: "add(uint256,uint256)",
        label: "add",
      },
      {
        commandIndex: 1,
        outputSlot: undefined,
        target,
        functionName: "add",
        signature: "add(uint256,uint256)",
        label: "add",
      },
      {
        commandIndex: 2,
        outputSlot: undefined,
        target: other,
        functionName: "transfer",
        signature: "transfer(address,uint256)",
        label: "pay",
      },
    ]);
  });

  it("stores dynamic literals as their tail and marks dynamic indices", () => {
    const planner = new ProgramPlanner();
    const joined = planner.add({ target, fn: concat, args: ["0xdead", "0x"] });
    planner.add({ target, fn: concat, args: [joined, joined] });
    const program = planner.plan();
    expect(program.state).toEqual([
      `0x${"0".repeat(63)}2dead${"0".repeat(60)}`,
      `0x${"0".repeat(64)}`,
    ]);
    // Both literals are dead after call 0, whose dynamic output takes slot 0 (high bit set).
    expect(program.commands[0]?.slice(10, 26)).toBe("018081ffffffff80");
    expect(program.commands[1]?.slice(10, 26)).toBe("018080ffffffffff");
  });

  it("spreads a static struct into words and uses an extended command for it", () => {
    const planner = new ProgramPlanner();
    const amount = planner.add({ target, fn: add, args: [1n, 2n] });
    const fn = getAbiItem({ abi: SwapRouterAbi, name: "exactInputSingle" });
    planner.add({
      target: other,
      fn,
      args: [
        {
          tokenIn: target,
          tokenOut: other,
          fee: 3000,
          recipient: target,
          deadline: 99n,
          amountIn: amount,
          amountOutMinimum: 0n,
          sqrtPriceLimitX96: 0n,
        },
      ],
    });
    const program = planner.plan();
    expect(program.commands).toHaveLength(3);
    // Flags: extended (0x40) | CALL (0x01).
    expect(program.commands[1]?.slice(10, 12)).toBe("41");
    const slots = program.commands[2]?.slice(2, 18);
    // tokenIn, tokenOut, fee, recipient (= tokenIn's slot), deadline, amountIn (call 0's output,
    // in the slot of the dead literal 1), amountOutMinimum and sqrtPriceLimitX96 (one zero word).
    expect(slots).toBe("0203040205000606");
  });

  it("keeps raw tuple returns and passes them as bytes", () => {
    const planner = new ProgramPlanner();
    const tuple = planner.add({ target, fn: pair, args: [1n] });
    expect(tuple.kind).toBe("raw");
    expect(tuple.abiType).toBe("bytes");
    planner.add({ target, fn: concat, args: [tuple, "0x"] });
    const program = planner.plan();
    // Tuple-return flag 0x80 with CALL 0x01; the output slot has no dynamic bit, its use does.
    expect(program.commands[0]?.slice(10, 12)).toBe("81");
    expect(program.commands[0]?.slice(24, 26)).toBe("00");
    expect(program.commands[1]?.slice(12, 16)).toBe("8081");
  });

  it("keeps values to the end on request and discards unused ones", () => {
    const planner = new ProgramPlanner();
    const unused = planner.add({ target, fn: add, args: [1n, 1n] });
    const kept = planner.add({ target, fn: add, args: [2n, 2n] });
    planner.keep(kept);
    const program = planner.plan();
    expect(unused.kind).toBe("static");
    expect(program.commands[0]?.slice(24, 26)).toBe("ff");
    expect(program.calls[1]?.outputSlot).toBe(0);
  });

  it("puts the value first in value calls", () => {
    const planner = new ProgramPlanner();
    const amount = planner.add({ target, fn: add, args: [1n, 2n] });
    planner.add({ target: other, fn: deposit, args: [], value: amount });
    planner.add({ target: other, fn: deposit, args: [], value: 10n });
    const program = planner.plan();
    expect(program.commands[1]?.slice(10, 26)).toBe("0300ffffffffffff");
    expect(program.commands[2]?.slice(10, 26)).toBe("0302ffffffffffff");
    expect(program.state[2]).toBe(word(10n));
  });

  it("lays out a dynamic struct holding a return value word by word, as its ABI encoding", () => {
    const swap = parseAbiItem([
      "struct Swap { bytes32 id; address assetIn; uint256 amount; bytes userData; }",
      "struct Funds { address sender; bool fromInternal; }",
      "function swap(Swap single, Funds funds, uint256 limit) returns (uint256)",
    ]);
    const planner = new ProgramPlanner();
    const amount = planner.add({ target, fn: add, args: [5n, 7n] });
    const single = {
      id: `0x${"ab".repeat(32)}`,
      assetIn: other,
      userData: "0xc0ffee",
    } as const;
    const funds = { sender: target, fromInternal: false } as const;
    planner.add({ target, fn: swap, args: [{ ...single, amount }, funds, 9n] });
    const program = planner.plan();
    // Extended command: its input word lists the slots, each a static word, up to 0xff.
    const inputs = (program.commands[2]?.slice(2) ?? "").match(/../g)?.map((b) => parseInt(b, 16));
    const slots = inputs?.slice(0, inputs.indexOf(0xff)) ?? [];
    expect(slots.every((slot) => slot < 0x80)).toBe(true);
    // The VM's calldata: each slot's word in turn, the amount's slot holding 12 (5 + 7).
    const amountSlot = program.commands[0]?.slice(24, 26);
    const calldata = slots
      .map((slot) => (slot === parseInt(amountSlot ?? "", 16) ? word(12n) : program.state[slot]))
      .map((w) => w?.slice(2))
      .join("");
    expect(`0x${program.commands[1]?.slice(2, 10)}${calldata}`).toBe(
      encodeFunctionData({ abi: [swap], args: [{ ...single, amount: 12n }, funds, 9n] }),
    );
    // A dynamic value returned by a call cannot sit beside such a layout: its length is unknown.
    const bytes = planner.add({ target, fn: concat, args: ["0x", "0x"] });
    const both = parseAbiItem([
      "struct Swap { bytes32 id; address assetIn; uint256 amount; bytes userData; }",
      "function both(Swap single, bytes data)",
    ]);
    expect(() => planner.add({ target, fn: both, args: [{ ...single, amount }, bytes] })).toThrow(
      "call 3 (both) argument 1 (data): a dynamic bytes returned by call 2 cannot be laid out beside return values in a struct",
    );
  });

  it("refuses what the VM cannot express, naming the call and argument", () => {
    const planner = new ProgramPlanner();
    const n = planner.add({ target, fn: add, args: [1n, 2n] });
    const bytes = planner.add({ target, fn: concat, args: ["0x", "0x"] });
    const none = planner.add({ target, fn: deposit, args: [], value: 1n });
    expect(() => planner.add({ target, fn: add, args: [1n] as never })).toThrow(
      "call 3 (add): expected 2 arguments, got 1",
    );
    expect(() => planner.add({ target, fn: add, args: [bytes, 1n] })).toThrow(
      "call 3 (add) argument 0 (a): expects a static uint256, got the bytes returned by call 1",
    );
    expect(() => planner.add({ target, fn: concat, args: [n, "0x"] })).toThrow(
      "call 3 (concat) argument 0 (a): expects a dynamic bytes, got the uint256 returned by call 0",
    );
    expect(() => planner.add({ target, fn: add, args: [none, 1n] })).toThrow(
      "call 2 returns nothing to use",
    );
    const arrayFn = parseAbiItem("function sum(uint256[] values) returns (uint256)");
    expect(() => planner.add({ target, fn: arrayFn, args: [[1n, n]] })).toThrow(
      "call 3 (sum) argument 0 (values): return values inside a dynamic uint256[] are not supported",
    );
    expect(() => planner.add({ target, fn: transfer, args: [target, -1n] })).toThrow(PlannerError);
    // @ts-expect-error arguments are typed from the ABI item: a string is not a uint256
    expect(() => planner.add({ target, fn: add, args: ["one", 1n] })).toThrow(PlannerError);
    expect(() => new ProgramPlanner().add({ target, fn: add, args: [n, 1n] })).toThrow(
      /another planner/,
    );
    const wide = parseAbiItem("function wide(uint256[33] values)");
    // A 33-element tuple literal, built at run time.
    const ones = Array.from({ length: 33 }, () => 1n) as never;
    expect(() => planner.add({ target, fn: wide, args: [ones] })).toThrow(
      "call 3 (wide): 33 input words exceed 32",
    );
  });

  it("refuses programs with more than 126 state slots", () => {
    const planner = new ProgramPlanner();
    for (let i = 0n; i < 64n; i++) planner.add({ target, fn: add, args: [2n * i, 2n * i + 1n] });
    expect(() => planner.plan()).toThrow("the program needs 128 state slots; the VM has 126");
  });
});
