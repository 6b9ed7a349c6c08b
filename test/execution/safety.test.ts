/**
 * What the execution layer guarantees a user who signs a transaction, at the contract level:
 * nobody can jam the router by sending its executor funds (forced native currency, 1 wei of an
 * input token), programs cannot leave funds behind, deadlines hold, the VM refuses calls that
 * "succeed" without doing anything (no code, an ERC20 answering false), and an exact-input V3
 * step refuses a partial fill. Each case failed, or passed silently, before these guards.
 */
import {
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAbiItem,
  type Hex,
  parseUnits,
} from "viem";
import { describe, expect, it } from "vitest";
import { ProgramValuesAbi } from "../../abis/generated/ProgramValues.js";
import { QuirkyTokenAbi } from "../../abis/generated/QuirkyToken.js";
import { loadArtifact } from "../../contracts/build.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { encodeRouterSwapTx } from "../../engine/program/encode.js";
import { addSweep } from "../../engine/program/execution-steps.js";
import { ProgramPlanner } from "../../engine/program/planner.js";
import { addExecutorUniswapV2Swap } from "../../engine/protocols/uniswap-v2/steps.js";
import {
  allErrorsAbi,
  approve,
  balanceOf,
  errorData,
  expectRevert,
  findRevertData,
  revertData,
  useExecutionWorld,
} from "./harness.js";
import { quoteV2 } from "./quotes.js";
import type { ExecutionWorld, Wallet } from "./world.js";

const ctx = useExecutionWorld();

const allErrors = [...allErrorsAbi, ...QuirkyTokenAbi].filter((i) => i.type === "error");

async function deploy(
  world: ExecutionWorld,
  name: string,
  args: readonly unknown[] = [],
  value = 0n,
): Promise<Address> {
  const artifact = loadArtifact(name);
  const hash = await world.accounts.deployer.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args,
    value,
  } as never);
  const receipt = await devnetReceipt(world.client as never, hash);
  expect(receipt.status).toBe("success");
  return receipt.contractAddress as Address;
}

async function send(world: ExecutionWorld, from: Wallet, tx: { to: Address; data: Hex }) {
  const hash = await from.sendTransaction({ to: tx.to, data: tx.data, gas: 5_000_000n });
  return await devnetReceipt(world.client as never, hash);
}

/** A router program swapping `amountIn` of A for B on the V2 pair, swept to `receiver`. */
function programAB(world: ExecutionWorld, amountIn: bigint, receiver: Address) {
  const planner = new ProgramPlanner();
  addExecutorUniswapV2Swap(planner, {
    executor: world.execution.executor,
    pair: world.uniswapV2.pairs.AB.address,
    tokenIn: world.tokens.A.address,
    tokenOut: world.tokens.B.address,
    amountIn,
    recipient: world.execution.executor,
    feePpm: 3000,
  });
  addSweep(planner, {
    executor: world.execution.executor,
    token: world.tokens.B.address,
    to: receiver,
  });
  return planner.plan();
}

/** A router route A → B of `amountIn` for `receiver` (who sends it). */
function routeAB(world: ExecutionWorld, amountIn: bigint, receiver: Address, deadline?: bigint) {
  return encodeRouterSwapTx({
    router: world.execution.router,
    from: receiver,
    tokenIn: world.tokens.A.address,
    amountIn,
    tokenOut: world.tokens.B.address,
    minAmountOut: 1n,
    receiver,
    deadline,
    program: programAB(world, amountIn, receiver),
  });
}

describe("nobody can jam the router", () => {
  it("1 wei of native currency forced into the executor by SELFDESTRUCT does not block routes", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const executor = world.execution.executor;
    // The executor refuses plain payments outside a program; SELFDESTRUCT cannot be refused.
    await deploy(world, "ForceSend", [executor], 1n);
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, executor)).toBe(1n);
    const amountIn = parseUnits("10", 18);
    await approve(world, user, world.tokens.A.address, world.execution.router, amountIn);
    const expected = await quoteV2(
      world,
      world.uniswapV2.pairs.AB,
      world.tokens.A.address,
      amountIn,
    );
    const before = await balanceOf(world, world.tokens.B.address, user.account.address);
    const receipt = await send(world, user, routeAB(world, amountIn, user.account.address));
    expect(receipt.status).toBe("success");
    expect((await balanceOf(world, world.tokens.B.address, user.account.address)) - before).toBe(
      expected,
    );
    // The forced wei is still there: no route has to sweep it, and none is blocked by it.
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, executor)).toBe(1n);
  });

  it("1 wei of the input token sent to the executor does not block routes selling that token", async () => {
    const { world } = ctx;
    const { user, attacker } = world.accounts;
    const executor = world.execution.executor;
    const A = world.tokens.A.address;
    const transfer = await send(world, attacker, {
      to: A,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [executor, 1n] }),
    });
    expect(transfer.status).toBe("success");
    const amountIn = parseUnits("10", 18);
    await approve(world, user, A, world.execution.router, amountIn);
    const expected = await quoteV2(world, world.uniswapV2.pairs.AB, A, amountIn);
    const before = await balanceOf(world, world.tokens.B.address, user.account.address);
    const receipt = await send(world, user, routeAB(world, amountIn, user.account.address));
    expect(receipt.status).toBe("success");
    expect((await balanceOf(world, world.tokens.B.address, user.account.address)) - before).toBe(
      expected,
    );
    expect(await balanceOf(world, A, executor)).toBe(1n);
  });

  it("a program that leaves part of the input behind still reverts when the executor held some before", async () => {
    const { world } = ctx;
    const { user, attacker } = world.accounts;
    const executor = world.execution.executor;
    const A = world.tokens.A.address;
    await send(world, attacker, {
      to: A,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [executor, 5n] }),
    });
    const amountIn = parseUnits("10", 18);
    await approve(world, user, A, world.execution.router, amountIn);
    // The program swaps 3 wei less than the router pulls: the executor ends with 5 + 3.
    const data = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A,
      amountIn,
      tokenOut: world.tokens.B.address,
      minAmountOut: 1n,
      receiver: user.account.address,
      program: programAB(world, amountIn - 3n, user.account.address),
    });
    await expectRevert(world, user, data, errorData(allErrors, "ExecutorKeptFunds", [A, 5n, 8n]));
  });
});

describe("funds sent to the router itself", () => {
  it("native currency sent to the router reverts (it has no receive); ERC20s cannot be refused and no function moves them", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const hash = await user.sendTransaction({
      to: world.execution.router,
      value: 1n,
      gas: 100_000n,
    });
    const receipt = await devnetReceipt(world.client as never, hash);
    expect(receipt.status).toBe("reverted");
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, world.execution.router)).toBe(0n);
    // The router's ABI has no function that transfers its own balances: nothing to abuse.
    const functions = loadArtifact("ShortcutRouter")
      .abi.filter((item) => item.type === "function" && item.stateMutability !== "view")
      .map((item) => (item as { name: string }).name)
      .sort();
    expect(functions).toEqual(["bundle", "swap"]);
  });
});

describe("deadlines", () => {
  it("the router reverts DeadlineExpired after the deadline, and runs up to it", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const amountIn = parseUnits("1", 18);
    await approve(world, user, world.tokens.A.address, world.execution.router, 2n * amountIn);
    const block = await world.client.getBlock();
    const next = block.timestamp + 100n;
    const late = routeAB(world, amountIn, user.account.address, next - 1n);
    // What the node answers at that block time, then the transaction mined at it.
    let reverted: Hex = "0x";
    try {
      await world.client.call({
        account: user.account.address,
        to: late.to,
        data: late.data,
        blockOverrides: { time: next },
      });
    } catch (error) {
      reverted = findRevertData(error) ?? "0x";
    }
    expect(reverted).toBe(errorData(allErrors, "DeadlineExpired", [next - 1n, next]));
    await world.test.setNextBlockTimestamp({ timestamp: next });
    expect((await send(world, user, late)).status).toBe("reverted");
    await world.test.setNextBlockTimestamp({ timestamp: next + 1n });
    const receipt = await send(
      world,
      user,
      routeAB(world, amountIn, user.account.address, next + 1n),
    );
    expect(receipt.status).toBe("success");
  });
});

describe("the VM refuses steps that succeed without doing anything", () => {
  const transferFn = getAbiItem({ abi: erc20Abi, name: "transfer" });
  const approveFn = getAbiItem({ abi: erc20Abi, name: "approve" });

  async function runInHarness(world: ExecutionWorld, planner: ProgramPlanner): Promise<Hex> {
    const program = planner.plan();
    return await revertData(world, world.accounts.user, {
      to: world.testContracts.vmHarness,
      data: encodeFunctionData({
        abi: loadArtifact("CommandVMHarness").abi,
        functionName: "run",
        args: [program.commands, program.state],
      }),
    });
  }

  it("a call to an address without code reverts NoCode (it used to pass when its output was discarded)", async () => {
    const { world } = ctx;
    const nobody = "0x000000000000000000000000000000000000dEaD" as Address;
    const planner = new ProgramPlanner();
    planner.add({
      target: nobody,
      fn: transferFn,
      args: [world.accounts.user.account.address, 1n],
    });
    expect(await runInHarness(world, planner)).toBe(errorData(allErrors, "NoCode", [0n, nobody]));
  });

  it("an ERC20 transfer or approve answering false reverts TokenCallFailed; one answering nothing passes", async () => {
    const { world } = ctx;
    const falseToken = await deploy(world, "QuirkyToken", [1]);
    const silentToken = await deploy(world, "QuirkyToken", [2]);
    const harness = world.testContracts.vmHarness;
    const to = world.accounts.receiver.account.address;
    for (const fn of [transferFn, approveFn]) {
      const planner = new ProgramPlanner();
      planner.add({ target: falseToken, fn, args: [to, 5n] } as never);
      expect({ fn: fn.name, reverted: await runInHarness(world, planner) }).toEqual({
        fn: fn.name,
        reverted: errorData(allErrors, "TokenCallFailed", [0n, falseToken]),
      });
    }
    await send(world, world.accounts.user, {
      to: silentToken,
      data: encodeFunctionData({ abi: QuirkyTokenAbi, functionName: "mint", args: [harness, 7n] }),
    });
    const planner = new ProgramPlanner();
    planner.add({ target: silentToken, fn: transferFn, args: [to, 5n] });
    planner.add({ target: silentToken, fn: approveFn, args: [to, 2n] });
    expect(await runInHarness(world, planner)).toBe("0x");
  });
});

describe("exact-input V3 steps", () => {
  it("uniswapV3ExactInputAmountOut returns the output of a full fill and reverts PartialFill otherwise", async () => {
    const { world } = ctx;
    const deltas = (a0: bigint, a1: bigint) =>
      encodeAbiParameters([{ type: "int256" }, { type: "int256" }], [a0, a1]);
    const read = (data: Hex, amountIn: bigint) =>
      world.client.readContract({
        address: world.execution.programValues,
        abi: ProgramValuesAbi,
        functionName: "uniswapV3ExactInputAmountOut",
        args: [data, amountIn],
      });
    expect(await read(deltas(1000n, -997n), 1000n)).toBe(997n);
    expect(await read(deltas(-5n, 40n), 40n)).toBe(5n);
    const call = encodeFunctionData({
      abi: ProgramValuesAbi,
      functionName: "uniswapV3ExactInputAmountOut",
      args: [deltas(600n, -590n), 1000n],
    });
    expect(
      await revertData(world, world.accounts.user, {
        to: world.execution.programValues,
        data: call,
      }),
    ).toBe(errorData(allErrors, "PartialFill", [1000n, 600n]));
  });
});
