import {
  type Address,
  decodeEventLog,
  decodeFunctionResult,
  getAbiItem,
  maxUint256,
  parseEther,
  parseUnits,
} from "viem";
import { describe, expect, it } from "vitest";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import {
  encodeRouterBundleTx,
  encodeRouterSwapTx,
  routeFeeAmount,
} from "../../engine/program/encode.js";
import { addArrayElement, addSweep } from "../../engine/program/execution-steps.js";
import { ProgramPlanner } from "../../engine/program/planner.js";
import { addApprove, addTransfer } from "../../engine/program/protocol-steps.js";
import { describeRevert } from "../../engine/program/revert.js";
import { addErc4626Deposit } from "../../engine/protocols/erc4626/steps.js";
import { addExecutorUniswapV2Swap } from "../../engine/protocols/uniswap-v2/steps.js";
import { addUniswapV3PoolSwap } from "../../engine/protocols/uniswap-v3/steps.js";
import { addUnwrapNative, addWrapNative } from "../../engine/protocols/wrapped-native/steps.js";
import {
  approve,
  balanceOf,
  balances,
  gasCost,
  revertData,
  sendOk,
  type TxRequest,
  useExecutionWorld,
} from "./harness.js";
import { previewDeposit, quoteV2, quoteV3 } from "./quotes.js";
import type { ExecutionWorld, Wallet } from "./world.js";

const ctx = useExecutionWorld();

/** Simulates a router call and returns what the entry point `fn` returns. */
async function simulateAmounts(
  world: ExecutionWorld,
  from: Wallet,
  tx: TxRequest,
  fn: "swap" | "bundle" = "swap",
): Promise<bigint[]> {
  const { data } = await world.client.call({
    account: from.account.address,
    to: tx.to,
    data: tx.data,
    value: tx.value,
  });
  const result = decodeFunctionResult({
    abi: ShortcutRouterAbi,
    functionName: fn,
    data: data ?? "0x",
  });
  return typeof result === "bigint" ? [result] : [...result];
}

describe("ShortcutRouter", () => {
  it("a V2 swap takes the pair's fee as an argument: below the pair's own the pair refuses it (K), above it the pair pays what was asked", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("1000", 18);
    await approve(world, user, A.address, world.execution.router, maxUint256);
    const pair = world.uniswapV2.pairs.AB;
    const [reserveIn, reserveOut] = await (async () => {
      const [r0, r1] = await world.client.readContract({
        address: pair.address,
        abi: UniswapV2PairAbi,
        functionName: "getReserves",
      });
      return A.address.toLowerCase() < B.address.toLowerCase() ? [r0, r1] : [r1, r0];
    })();
    /** The router transaction of one executor swap at `feePpm`, with no minimum beyond 1 wei. */
    const swapAt = (feePpm: number) => {
      const planner = new ProgramPlanner();
      addExecutorUniswapV2Swap(planner, {
        pair: pair.address,
        tokenIn: A.address,
        tokenOut: B.address,
        amountIn,
        recipient: receiver.account.address,
        executor: world.execution.executor,
        feePpm,
      });
      const program = planner.plan();
      return {
        program,
        tx: encodeRouterSwapTx({
          router: world.execution.router,
          from: user.account.address,
          tokenIn: A.address,
          amountIn,
          tokenOut: B.address,
          minAmountOut: 1n,
          receiver: receiver.account.address,
          program,
        }),
      };
    };
    // 0.2% on a 0.3% pair asks for more than its K allows.
    const cheap = swapAt(2000);
    const described = describeRevert({
      data: await revertData(world, user, cheap.tx),
      calls: cheap.program.calls,
      abis: [],
    });
    expect(described.message).toBe(
      `Step 0 (swap on uniswap v2 on ${world.execution.executor}) failed: UniswapV2: K`,
    );
    // 1% asks for less: the pair pays exactly that, the rest of the output stays in the pair.
    const dear = swapAt(10_000);
    const asked =
      (amountIn * 990_000n * reserveOut) / (reserveIn * 1_000_000n + amountIn * 990_000n);
    expect(await simulateAmounts(world, user, dear.tx)).toEqual([asked]);
  });

  it("swaps on a Uniswap V2 pair: the receiver gets the exact quote, the caller pays exactly amountIn", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("1234.5", 18);
    await approve(world, user, A.address, world.execution.router, maxUint256);
    const expected = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, amountIn);
    const planner = new ProgramPlanner();
    addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn,
      recipient: receiver.account.address,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: B.address,
      minAmountOut: expected,
      receiver: receiver.account.address,
      program: planner.plan(),
    });
    expect(tx.value).toBe(0n);
    expect(await simulateAmounts(world, user, tx)).toEqual([expected]);
    const before = await balances(
      world,
      [A.address, B.address],
      [user.account.address, receiver.account.address],
    );
    const receipt = await sendOk(world, user, tx);
    const after = await balances(
      world,
      [A.address, B.address],
      [user.account.address, receiver.account.address],
    );
    const delta = (token: Address, who: Wallet) =>
      (after.get(`${token}:${who.account.address}`) ?? 0n) -
      (before.get(`${token}:${who.account.address}`) ?? 0n);
    expect(delta(A.address, user)).toBe(-amountIn);
    expect(delta(B.address, receiver)).toBe(expected);
    expect(delta(B.address, user)).toBe(0n);
    const routed = receipt.logs
      .filter((log) => log.address.toLowerCase() === world.execution.router.toLowerCase())
      .map((log) => decodeEventLog({ abi: ShortcutRouterAbi, data: log.data, topics: log.topics }));
    expect(routed).toEqual([
      {
        eventName: "Routed",
        args: {
          sender: user.account.address,
          receiver: receiver.account.address,
          tokenIn: A.address,
          amountIn,
          feeAmount: 0n,
          amountsOut: [expected],
        },
      },
    ]);
  });

  it("swaps on a Uniswap V3 pool called directly, paid from the executor's swap callback", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("77.123456789", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const expected = await quoteV3(world, world.uniswapV3.pools.AB, A.address, amountIn);
    const planner = new ProgramPlanner();
    addUniswapV3PoolSwap(planner, {
      pool: world.uniswapV3.pools.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      fee: 3000,
      amountIn,
      recipient: receiver.account.address,
      executor: world.execution.executor,
      // Nothing reads the output amount: no helper call.
      amountOut: false,
    });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: B.address,
      minAmountOut: expected,
      receiver: receiver.account.address,
      program: planner.plan(),
    });
    const userA = await balanceOf(world, A.address, user.account.address);
    const receiverB = await balanceOf(world, B.address, receiver.account.address);
    await sendOk(world, user, tx);
    expect(await balanceOf(world, A.address, user.account.address)).toBe(userA - amountIn);
    expect(await balanceOf(world, B.address, receiver.account.address)).toBe(receiverB + expected);
    // The exact approval was used up.
    expect(
      await world.client.readContract({
        address: A.address,
        abi: DevVaultAbi,
        functionName: "allowance",
        args: [user.account.address, world.execution.router],
      }),
    ).toBe(0n);
  });

  it("chains swap → deposit → transfer of the exact output (the shares minted)", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("250", 18);
    await approve(world, user, A.address, world.execution.router, maxUint256);
    const swapped = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, amountIn);
    const expectedShares = await previewDeposit(world, world.vaults.B, swapped);
    const executor = world.execution.executor;
    const planner = new ProgramPlanner();
    const amountB = addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn,
      recipient: executor,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    const shares = addErc4626Deposit(planner, {
      vault: world.vaults.B,
      asset: B.address,
      assets: amountB,
      receiver: executor,
    });
    addTransfer(planner, { token: world.vaults.B, to: receiver.account.address, amount: shares });
    const program = planner.plan();
    // The return values (amountB, shares) live in slots of literals no longer needed.
    expect(program.state).not.toContain("0x");
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: world.vaults.B,
      minAmountOut: expectedShares,
      receiver: receiver.account.address,
      program,
    });
    expect(await simulateAmounts(world, user, tx)).toEqual([expectedShares]);
    const sharesBefore = await balanceOf(world, world.vaults.B, receiver.account.address);
    await sendOk(world, user, tx);
    expect(await balanceOf(world, world.vaults.B, receiver.account.address)).toBe(
      sharesBefore + expectedShares,
    );
    // Nothing of the intermediate token stayed behind.
    expect(await balanceOf(world, B.address, executor)).toBe(0n);
  });

  it("runs a bundle with two checked outputs and a fee taken from amountIn", async () => {
    const { world } = ctx;
    const { user, receiver, feeReceiver } = world.accounts;
    const { A, B, C } = world.tokens;
    const amountIn = parseUnits("900", 18);
    const fee = { bps: 25, receiver: feeReceiver.account.address };
    const feeAmount = routeFeeAmount(amountIn, fee.bps);
    expect(feeAmount).toBe(parseUnits("2.25", 18));
    const toSwap = amountIn - feeAmount;
    const first = toSwap / 3n;
    const second = toSwap - first;
    await approve(world, user, A.address, world.execution.router, amountIn);
    const expectedB = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, first);
    const expectedC = await quoteV3(world, world.uniswapV3.pools.AC, A.address, second);
    const planner = new ProgramPlanner();
    addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn: first,
      recipient: receiver.account.address,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    addUniswapV3PoolSwap(planner, {
      pool: world.uniswapV3.pools.AC.address,
      tokenIn: A.address,
      tokenOut: C.address,
      fee: 3000,
      amountIn: second,
      recipient: receiver.account.address,
      executor: world.execution.executor,
    });
    const tx = encodeRouterBundleTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      outputs: [
        { token: B.address, account: receiver.account.address, minAmountOut: expectedB },
        { token: C.address, account: receiver.account.address, minAmountOut: expectedC },
      ],
      fee,
      program: planner.plan(),
    });
    expect(await simulateAmounts(world, user, tx, "bundle")).toEqual([expectedB, expectedC]);
    const who = [user.account.address, receiver.account.address, feeReceiver.account.address];
    const before = await balances(world, [A.address, B.address, C.address], who);
    await sendOk(world, user, tx);
    const after = await balances(world, [A.address, B.address, C.address], who);
    const delta = (token: Address, account: Address) =>
      (after.get(`${token}:${account}`) ?? 0n) - (before.get(`${token}:${account}`) ?? 0n);
    expect(delta(A.address, user.account.address)).toBe(-amountIn);
    expect(delta(A.address, feeReceiver.account.address)).toBe(feeAmount);
    expect(delta(B.address, receiver.account.address)).toBe(expectedB);
    expect(delta(C.address, receiver.account.address)).toBe(expectedC);
  });

  it("takes native input: msg.value = amountIn, the fee in native, the rest wrapped and swapped", async () => {
    const { world } = ctx;
    const { user, receiver, feeReceiver } = world.accounts;
    const { A } = world.tokens;
    const amountIn = parseEther("3.21");
    const fee = { bps: 100, receiver: feeReceiver.account.address };
    const feeAmount = routeFeeAmount(amountIn, fee.bps);
    const wrapped = amountIn - feeAmount;
    const expected = await quoteV2(world, world.uniswapV2.pairs.AW, world.weth, wrapped);
    const planner = new ProgramPlanner();
    addWrapNative(planner, { weth: world.weth, amount: wrapped });
    addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AW.address,
      tokenIn: world.weth,
      tokenOut: A.address,
      amountIn: wrapped,
      recipient: receiver.account.address,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      amountIn,
      tokenOut: A.address,
      minAmountOut: expected,
      receiver: receiver.account.address,
      fee,
      program: planner.plan(),
    });
    expect(tx.value).toBe(amountIn);
    const userEth = await balanceOf(world, NATIVE_TOKEN_ADDRESS, user.account.address);
    const feeEth = await balanceOf(world, NATIVE_TOKEN_ADDRESS, feeReceiver.account.address);
    const receiverA = await balanceOf(world, A.address, receiver.account.address);
    const receipt = await sendOk(world, user, tx);
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, user.account.address)).toBe(
      userEth - amountIn - gasCost(receipt),
    );
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, feeReceiver.account.address)).toBe(
      feeEth + feeAmount,
    );
    expect(await balanceOf(world, A.address, receiver.account.address)).toBe(receiverA + expected);
  });

  it("delivers native output: swap to WETH, unwrap, sweep native to the receiver, checked on its balance", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A } = world.tokens;
    const amountIn = parseUnits("3000", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const expected = await quoteV2(world, world.uniswapV2.pairs.AW, A.address, amountIn);
    const executor = world.execution.executor;
    const planner = new ProgramPlanner();
    const weth = addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AW.address,
      tokenIn: A.address,
      tokenOut: world.weth,
      amountIn,
      recipient: executor,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    addUnwrapNative(planner, { weth: world.weth, amount: weth });
    addSweep(planner, { executor, token: NATIVE_TOKEN_ADDRESS, to: receiver.account.address });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: NATIVE_TOKEN_ADDRESS,
      minAmountOut: expected,
      receiver: receiver.account.address,
      program: planner.plan(),
    });
    const receiverEth = await balanceOf(world, NATIVE_TOKEN_ADDRESS, receiver.account.address);
    await sendOk(world, user, tx);
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, receiver.account.address)).toBe(
      receiverEth + expected,
    );
  });

  it("sweeps unused input back to the receiver so the executor ends empty", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("10", 18);
    const used = parseUnits("6.5", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const expected = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, used);
    const planner = new ProgramPlanner();
    addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn: used,
      recipient: receiver.account.address,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    addSweep(planner, {
      executor: world.execution.executor,
      token: A.address,
      to: receiver.account.address,
    });
    addSweep(planner, {
      executor: world.execution.executor,
      token: B.address,
      to: receiver.account.address,
    });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: B.address,
      minAmountOut: expected,
      receiver: receiver.account.address,
      program: planner.plan(),
    });
    const receiverA = await balanceOf(world, A.address, receiver.account.address);
    await sendOk(world, user, tx);
    expect(await balanceOf(world, A.address, receiver.account.address)).toBe(
      receiverA + amountIn - used,
    );
  });

  it("swaps through Router02 with an exact approval, a dynamic path and a dynamic return value", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A, B, C } = world.tokens;
    const amountIn = parseUnits("42", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const path = [A.address, B.address, C.address];
    const amounts = await world.client.readContract({
      address: world.uniswapV2.router02,
      abi: UniswapV2Router02Abi,
      functionName: "getAmountsOut",
      args: [amountIn, path],
    });
    const expected = amounts[2] ?? 0n;
    const executor = world.execution.executor;
    const planner = new ProgramPlanner();
    addApprove(planner, { token: A.address, spender: world.uniswapV2.router02, amount: amountIn });
    const out = planner.add({
      target: world.uniswapV2.router02,
      fn: getAbiItem({ abi: UniswapV2Router02Abi, name: "swapExactTokensForTokens" }),
      args: [amountIn, 1n, path, executor, maxUint256],
    });
    const last = addArrayElement(planner, {
      programValues: world.execution.executor,
      array: out,
      index: 2n,
    });
    addTransfer(planner, { token: C.address, to: receiver.account.address, amount: last });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: C.address,
      minAmountOut: expected,
      receiver: receiver.account.address,
      program: planner.plan(),
    });
    const receiverC = await balanceOf(world, C.address, receiver.account.address);
    await sendOk(world, user, tx);
    expect(await balanceOf(world, C.address, receiver.account.address)).toBe(receiverC + expected);
  });

  it("reports which step failed, on which contract, and why", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("5", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const executor = world.execution.executor;
    const planner = new ProgramPlanner();
    addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn,
      recipient: executor,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    const tooMuch = parseUnits("1000000", 6);
    addErc4626Deposit(planner, {
      vault: world.vaults.B,
      asset: B.address,
      assets: tooMuch,
      receiver: executor,
    });
    const program = planner.plan();
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: world.vaults.B,
      minAmountOut: 1n,
      receiver: receiver.account.address,
      program,
    });
    const swapped = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, amountIn);
    const data = await revertData(world, user, tx);
    const described = describeRevert({ data, calls: program.calls, abis: [DevVaultAbi] });
    expect(described.message).toBe(
      `Step 2 (deposit on ${world.vaults.B}) failed: ERC20: transfer amount exceeds balance (${executor} has ${swapped}, needs ${tooMuch})`,
    );
    expect(described.step).toEqual({
      index: 2,
      commandIndex: 2,
      target: world.vaults.B,
      label: "deposit",
    });
    expect(described.errorName).toBe("ERC20InsufficientBalance");
  });
});
