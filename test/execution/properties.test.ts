/**
 * Property tests over random amounts, fees, receivers and program shapes routed through the
 * router: the receiver gets exactly what the program's last step produced (quoted independently
 * from reserves, QuoterV2 and ERC4626 previews), the caller loses exactly amountIn (fee
 * included, plus gas in native), the fee receiver gets exactly the fee, and no other balance of
 * anyone moves.
 */
import fc from "fast-check";
import {
  type Address,
  concatHex,
  decodeFunctionResult,
  encodeFunctionData,
  getAbiItem,
  getAddress,
  type Hex,
  hexToBigInt,
  maxUint256,
  parseAbiItem,
  parseUnits,
  sliceHex,
  toHex,
} from "viem";
import { describe, expect, it } from "vitest";
import { ArgProbeAbi } from "../../abis/generated/ArgProbe.js";
import { CommandVMHarnessAbi } from "../../abis/generated/CommandVMHarness.js";
import { ProgramValuesAbi } from "../../abis/generated/ProgramValues.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { encodeRouterSwapTx, routeFeeAmount } from "../../engine/program/encode.js";
import { addSweep } from "../../engine/program/execution-steps.js";
import { ProgramPlanner, type ProgramValue } from "../../engine/program/planner.js";
import { addErc4626Deposit } from "../../engine/protocols/erc4626/steps.js";
import { addExecutorUniswapV2Swap } from "../../engine/protocols/uniswap-v2/steps.js";
import { addUniswapV3PoolSwap } from "../../engine/protocols/uniswap-v3/steps.js";
import { addUnwrapNative, addWrapNative } from "../../engine/protocols/wrapped-native/steps.js";
import { splitByShares } from "../../engine/routing/quote-flow.js";
import { approve, balances, gasCost, sendOk, useExecutionWorld } from "./harness.js";
import { previewDeposit, quoteV2, quoteV3 } from "./quotes.js";
import type { ExecutionWorld } from "./world.js";

const ctx = useExecutionWorld();

const add = getAbiItem({ abi: ArgProbeAbi, name: "add" });
const sum8 = getAbiItem({ abi: ArgProbeAbi, name: "sum8" });
const weighted7 = getAbiItem({ abi: ArgProbeAbi, name: "weighted7" });
const pair = getAbiItem({ abi: ArgProbeAbi, name: "pair" });
const concat = getAbiItem({ abi: ArgProbeAbi, name: "concat" });
/** ProgramValues.tupleWord, declared as returning a uint256 (a word is any static type). */
const uint256Word = parseAbiItem(
  "function tupleWord(bytes data, uint256 index) pure returns (uint256)",
);

type Shape = "v2" | "v3" | "v2-deposit" | "v2-v3" | "native-in" | "native-out" | "v3-v2-deposit";

type Built = { tokenIn: Address; tokenOut: Address; planner: ProgramPlanner; expected: bigint };

/** Builds the program of `shape` for `net` (amountIn minus fee) and quotes its exact output. */
async function build(
  world: ExecutionWorld,
  shape: Shape,
  net: bigint,
  receiver: Address,
): Promise<Built> {
  const { A, B } = world.tokens;
  const { pairs } = world.uniswapV2;
  const { pools } = world.uniswapV3;
  const executor = world.execution.executor;
  const planner = new ProgramPlanner();
  const v2 = (
    pair: typeof pairs.AB,
    tokenIn: Address,
    amountIn: bigint | ProgramValue,
    recipient: Address,
  ) =>
    addExecutorUniswapV2Swap(planner, {
      pair: pair.address,
      tokenIn,
      tokenOut: pair.token0 === tokenIn ? pair.token1 : pair.token0,
      amountIn,
      recipient,
      executor,
      feePpm: 3000,
    });
  const v3 = (
    pool: typeof pools.AB,
    tokenIn: Address,
    amountIn: bigint | ProgramValue,
    recipient: Address,
  ) =>
    addUniswapV3PoolSwap(planner, {
      pool: pool.address,
      tokenIn,
      tokenOut: pool.token0 === tokenIn ? pool.token1 : pool.token0,
      fee: pool.fee,
      amountIn,
      recipient,
      executor,
    });
  switch (shape) {
    case "v2":
      v2(pairs.AB, A.address, net, receiver);
      return {
        tokenIn: A.address,
        tokenOut: B.address,
        planner,
        expected: await quoteV2(world, pairs.AB, A.address, net),
      };
    case "v3":
      v3(pools.AB, A.address, net, receiver);
      return {
        tokenIn: A.address,
        tokenOut: B.address,
        planner,
        expected: await quoteV3(world, pools.AB, A.address, net),
      };
    case "v2-deposit": {
      const out = v2(pairs.AB, A.address, net, executor);
      addErc4626Deposit(planner, {
        vault: world.vaults.B,
        asset: B.address,
        assets: out,
        receiver,
      });
      const swapped = await quoteV2(world, pairs.AB, A.address, net);
      return {
        tokenIn: A.address,
        tokenOut: world.vaults.B,
        planner,
        expected: await previewDeposit(world, world.vaults.B, swapped),
      };
    }
    case "v2-v3": {
      const out = v2(pairs.AB, A.address, net, executor);
      v3(pools.BW, B.address, out, receiver);
      const mid = await quoteV2(world, pairs.AB, A.address, net);
      return {
        tokenIn: A.address,
        tokenOut: world.weth,
        planner,
        expected: await quoteV3(world, pools.BW, B.address, mid),
      };
    }
    case "v3-v2-deposit": {
      const c = v3(pools.AC, A.address, net, executor);
      const b = v2(pairs.BC, world.tokens.C.address, c, executor);
      addErc4626Deposit(planner, { vault: world.vaults.B, asset: B.address, assets: b, receiver });
      const quotedC = await quoteV3(world, pools.AC, A.address, net);
      const quotedB = await quoteV2(world, pairs.BC, world.tokens.C.address, quotedC);
      return {
        tokenIn: A.address,
        tokenOut: world.vaults.B,
        planner,
        expected: await previewDeposit(world, world.vaults.B, quotedB),
      };
    }
    case "native-in":
      addWrapNative(planner, { weth: world.weth, amount: net });
      v2(pairs.AW, world.weth, net, receiver);
      return {
        tokenIn: NATIVE_TOKEN_ADDRESS,
        tokenOut: A.address,
        planner,
        expected: await quoteV2(world, pairs.AW, world.weth, net),
      };
    case "native-out": {
      const weth = v2(pairs.AW, A.address, net, executor);
      addUnwrapNative(planner, { weth: world.weth, amount: weth });
      addSweep(planner, { executor, token: NATIVE_TOKEN_ADDRESS, to: receiver });
      return {
        tokenIn: A.address,
        tokenOut: NATIVE_TOKEN_ADDRESS,
        planner,
        expected: await quoteV2(world, pairs.AW, A.address, net),
      };
    }
  }
}

describe("properties", () => {
  it("receiver gets exactly the last step's output; caller pays exactly amountIn; nothing else moves", async () => {
    const { world } = ctx;
    const { user, receiver, feeReceiver, bystander, victim, attacker } = world.accounts;
    await approve(world, user, world.tokens.A.address, world.execution.router, maxUint256);
    const tokens = [
      world.tokens.A.address,
      world.tokens.B.address,
      world.tokens.C.address,
      world.weth,
      world.vaults.A,
      world.vaults.B,
      NATIVE_TOKEN_ADDRESS,
    ].map((t) => getAddress(t));
    const accounts = [
      user.account.address,
      receiver.account.address,
      feeReceiver.account.address,
      bystander.account.address,
      victim.account.address,
      attacker.account.address,
      world.execution.router,
      world.execution.executor,
      world.execution.delegateExecutor,
      world.execution.walletFactory,
      world.execution.minAmountOutCheck,
      world.execution.programValues,
    ].map((a) => getAddress(a));

    const shapes: Shape[] = [
      "v2",
      "v3",
      "v2-deposit",
      "v2-v3",
      "native-in",
      "native-out",
      "v3-v2-deposit",
    ];
    const property = fc.asyncProperty(
      fc.constantFrom(...shapes),
      fc.bigInt({ min: 10n ** 14n, max: parseUnits("800", 18) }),
      fc.integer({ min: 0, max: 100 }),
      fc.boolean(),
      async (shape, rawAmount, feeBps, toSelf) => {
        const snapshot = await world.test.snapshot();
        try {
          // Native input is scaled down to a few ETH (the A amounts go up to 800 A).
          const amountIn = shape === "native-in" ? rawAmount / 100n : rawAmount;
          const to = toSelf ? user.account.address : receiver.account.address;
          const feeAmount = routeFeeAmount(amountIn, feeBps);
          const net = amountIn - feeAmount;
          const built = await build(world, shape, net, to);
          expect(built.expected).toBeGreaterThan(0n);
          const tx = encodeRouterSwapTx({
            router: world.execution.router,
            from: user.account.address,
            tokenIn: built.tokenIn,
            amountIn,
            tokenOut: built.tokenOut,
            minAmountOut: built.expected,
            receiver: to,
            fee: { bps: feeBps, receiver: feeReceiver.account.address },
            program: built.planner.plan(),
          });
          const before = await balances(world, tokens, accounts);
          const receipt = await sendOk(world, user, tx);
          const after = await balances(world, tokens, accounts);

          const expectedDelta = new Map<string, bigint>();
          const bump = (token: Address, account: Address, amount: bigint) => {
            const key = `${getAddress(token)}:${getAddress(account)}`;
            expectedDelta.set(key, (expectedDelta.get(key) ?? 0n) + amount);
          };
          bump(built.tokenIn, user.account.address, -amountIn);
          bump(NATIVE_TOKEN_ADDRESS, user.account.address, -gasCost(receipt));
          bump(built.tokenIn, feeReceiver.account.address, feeAmount);
          bump(built.tokenOut, to, built.expected);
          const actualDelta = new Map<string, bigint>();
          for (const [key, value] of after) {
            const delta = value - (before.get(key) ?? 0n);
            if (delta !== 0n) actualDelta.set(key, delta);
          }
          for (const [key, value] of expectedDelta) if (value === 0n) expectedDelta.delete(key);
          expect(Object.fromEntries(actualDelta)).toEqual(Object.fromEntries(expectedDelta));
        } finally {
          await world.test.revert({ id: snapshot });
        }
      },
    );
    console.log("property seed 4021 (random strategy programs), 40 runs");
    await fc.assert(property, { numRuns: 40, seed: 4021 });
  });

  it("random programs of chained, extended, tuple and dynamic calls compute what a direct evaluation does", async () => {
    const { world } = ctx;
    const probe = world.testContracts.argProbe;
    const programValues = world.execution.programValues;
    const op = fc.record({
      kind: fc.constantFrom("add", "sum8", "weighted7", "pairWord", "concat"),
      picks: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
      literals: fc.array(fc.bigInt({ min: 0n, max: 2n ** 64n }), { minLength: 8, maxLength: 8 }),
      bytes: fc.uint8Array({ maxLength: 40 }),
      keep: fc.boolean(),
    });
    const property = fc.asyncProperty(
      fc.array(op, { minLength: 1, maxLength: 14 }),
      async (ops) => {
        const planner = new ProgramPlanner();
        const numbers: { value: bigint; handle: ProgramValue | bigint }[] = [];
        const blobs: { value: Hex; handle: ProgramValue | Hex }[] = [];
        const kept: { handle: ProgramValue; expected: bigint | Hex }[] = [];
        const number = (pick: number, literal: bigint) => {
          // Even picks take an earlier result when there is one, odd picks a literal.
          const earlier = numbers[pick % Math.max(numbers.length, 1)];
          return pick % 2 === 0 && earlier !== undefined
            ? earlier
            : { value: literal, handle: literal };
        };
        for (const o of ops) {
          const args = o.picks.map((p, i) => number(p, o.literals[i] ?? 0n));
          const handles = args.map((a) => a.handle);
          let result: { value: bigint | Hex; handle: ProgramValue };
          if (o.kind === "add") {
            const [x, y] = args as [(typeof args)[0], (typeof args)[0]];
            result = {
              value: x.value + y.value,
              handle: planner.add({ target: probe, fn: add, args: [x.handle, y.handle] }),
            };
          } else if (o.kind === "sum8") {
            result = {
              value: args.reduce((t, a) => t + a.value, 0n),
              handle: planner.add({ target: probe, fn: sum8, args: handles as never }),
            };
          } else if (o.kind === "weighted7") {
            result = {
              value: args.slice(0, 7).reduce((t, a, i) => t + a.value * 10n ** BigInt(i), 0n),
              handle: planner.add({
                target: probe,
                fn: weighted7,
                args: handles.slice(0, 7) as never,
              }),
            };
          } else if (o.kind === "pairWord") {
            const [x] = args as [(typeof args)[0]];
            const index = BigInt((o.picks[1] ?? 0) % 2);
            const tuple = planner.add({ target: probe, fn: pair, args: [x.handle] });
            result = {
              value: index === 0n ? x.value : x.value * 2n,
              handle: planner.add({ target: programValues, fn: uint256Word, args: [tuple, index] }),
            };
          } else {
            const earlier = blobs[(o.picks[0] ?? 0) % Math.max(blobs.length, 1)];
            const left = earlier ?? { value: toHex(o.bytes), handle: toHex(o.bytes) };
            const right = toHex(o.bytes.slice(0, (o.picks[1] ?? 0) % 7));
            const value = concatHex([left.value, right]);
            const handle = planner.add({ target: probe, fn: concat, args: [left.handle, right] });
            blobs.push({ value, handle });
            if (o.keep) kept.push({ handle, expected: value });
            continue;
          }
          numbers.push({ value: result.value as bigint, handle: result.handle });
          if (o.keep) kept.push({ handle: result.handle, expected: result.value });
        }
        for (const k of kept) planner.keep(k.handle);
        const program = planner.plan();
        const { data } = await world.client.call({
          to: world.testContracts.vmHarness,
          data: encodeFunctionData({
            abi: CommandVMHarnessAbi,
            functionName: "run",
            args: [program.commands, program.state],
          }),
        });
        const state = decodeFunctionResult({
          abi: CommandVMHarnessAbi,
          functionName: "run",
          data: data ?? "0x",
        });
        for (const k of kept) {
          const slot = program.calls[k.handle.call]?.outputSlot ?? -1;
          const stored = state[slot] ?? "0x";
          if (typeof k.expected === "bigint") {
            expect(hexToBigInt(stored)).toBe(k.expected);
          } else {
            // A dynamic `bytes` value is stored as its tail: length word, then padded data.
            const length = Number(hexToBigInt(sliceHex(stored, 0, 32)));
            expect(length === 0 ? "0x" : sliceHex(stored, 32, 32 + length)).toBe(k.expected);
          }
        }
      },
    );
    console.log("property seed 5077 (random programs), 50 runs");
    await fc.assert(property, { numRuns: 50, seed: 5077 });
  });

  it("splitProportionally divides as a route's flow is quoted: each part rounded down, the last the rest", async () => {
    const { world } = ctx;
    const split = (amount: bigint, weights: bigint[]) =>
      world.client.readContract({
        address: world.execution.programValues,
        abi: ProgramValuesAbi,
        functionName: "splitProportionally",
        args: [amount, weights],
      });
    const property = fc.asyncProperty(
      fc.bigInt({ min: 0n, max: 2n ** 128n }),
      fc.array(fc.integer({ min: 0, max: 1_000_000_000 }), { minLength: 1, maxLength: 12 }),
      async (amount, weights) => {
        fc.pre(weights.some((w) => w > 0));
        const parts = await split(amount, weights.map(BigInt));
        expect(parts).toEqual(splitByShares(amount, weights));
        expect(parts.reduce((sum, p) => sum + p, 0n)).toBe(amount);
      },
    );
    console.log("property seed 6151 (proportional splits), 100 runs");
    await fc.assert(property, { numRuns: 100, seed: 6151 });
    await expect(split(10n, [0n, 0n])).rejects.toThrowError(
      /InvalidShares\(uint256 total\)\s+\(0\)/,
    );
  });
});
