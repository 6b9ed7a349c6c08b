/**
 * Checks of the execution contracts that a one-character change would break without any other
 * suite noticing: the router's refusal of native currency that an ERC20-input program leaves in
 * the executor, MinAmountOutCheck.checkDeadline at exactly its deadline and one second past it,
 * and the router's fee bound, which the TypeScript side mirrors.
 */
import { encodeFunctionData, type Hex, maxUint256, parseEther } from "viem";
import { describe, expect, it } from "vitest";
import { MinAmountOutCheckAbi } from "../../abis/generated/MinAmountOutCheck.js";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { encodeRouterSwapTx, MAX_FEE_BPS } from "../../engine/program/encode.js";
import { ProgramPlanner } from "../../engine/program/planner.js";
import { addTransfer } from "../../engine/program/protocol-steps.js";
import { addUnwrapNative } from "../../engine/protocols/wrapped-native/steps.js";
import {
  allErrorsAbi,
  approve,
  balanceOf,
  errorData,
  expectRevert,
  findRevertData,
  sendOk,
  useExecutionWorld,
} from "./harness.js";
import type { ExecutionWorld } from "./world.js";

const ctx = useExecutionWorld();

/**
 * A router swap of `amountIn` WETH whose program pays the receiver all but `unwrapped` wei of it
 * as WETH and unwraps the rest into the executor's native balance.
 */
function wethSwapLeavingNative(world: ExecutionWorld, amountIn: bigint, unwrapped: bigint) {
  const { user, receiver } = world.accounts;
  const planner = new ProgramPlanner();
  addTransfer(planner, {
    token: world.weth,
    to: receiver.account.address,
    amount: amountIn - unwrapped,
  });
  if (unwrapped > 0n) addUnwrapNative(planner, { weth: world.weth, amount: unwrapped });
  return encodeRouterSwapTx({
    router: world.execution.router,
    from: user.account.address,
    tokenIn: world.weth,
    amountIn,
    tokenOut: world.weth,
    minAmountOut: amountIn - unwrapped,
    receiver: receiver.account.address,
    program: planner.plan(),
  });
}

describe("the router's check of native currency left in the executor", () => {
  it("an ERC20-input program that leaves 1 wei of native currency in the executor reverts ExecutorKeptFunds", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const amountIn = parseEther("2");
    await approve(world, user, world.weth, world.execution.router, maxUint256);
    await expectRevert(
      world,
      user,
      wethSwapLeavingNative(world, amountIn, 1n),
      errorData(allErrorsAbi, "ExecutorKeptFunds", [NATIVE_TOKEN_ADDRESS, 0n, 1n]),
    );
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, world.execution.executor)).toBe(0n);
    // The same program with nothing unwrapped runs: the revert was the native check's.
    await sendOk(world, user, wethSwapLeavingNative(world, amountIn, 0n));
    expect(await balanceOf(world, world.weth, world.accounts.receiver.account.address)).toBe(
      amountIn,
    );
  });
});

describe("MinAmountOutCheck.checkDeadline", () => {
  /** What checkDeadline(deadline) answers in a block with timestamp `time`: "0x" when it passes. */
  async function checkAt(world: ExecutionWorld, deadline: bigint, time: bigint): Promise<Hex> {
    try {
      await world.client.call({
        to: world.execution.minAmountOutCheck,
        data: encodeFunctionData({
          abi: MinAmountOutCheckAbi,
          functionName: "checkDeadline",
          args: [deadline],
        }),
        blockOverrides: { time },
      });
    } catch (error) {
      const data = findRevertData(error);
      if (data === undefined) throw error;
      return data;
    }
    return "0x";
  }

  it("passes in the block whose timestamp is the deadline and reverts DeadlineExpired one second later", async () => {
    const { world } = ctx;
    const deadline = (await world.client.getBlock()).timestamp + 1_000n;
    expect(await checkAt(world, deadline, deadline - 1n)).toBe("0x");
    expect(await checkAt(world, deadline, deadline)).toBe("0x");
    expect(await checkAt(world, deadline, deadline + 1n)).toBe(
      errorData(allErrorsAbi, "DeadlineExpired", [deadline, deadline + 1n]),
    );
  });

  it("mined: a transaction in the deadline's own block succeeds, one in the next second reverts", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const deadline = (await world.client.getBlock()).timestamp + 1_000n;
    const data = encodeFunctionData({
      abi: MinAmountOutCheckAbi,
      functionName: "checkDeadline",
      args: [deadline],
    });
    const mined = async (time: bigint) => {
      await world.test.setNextBlockTimestamp({ timestamp: time });
      const hash = await user.sendTransaction({
        to: world.execution.minAmountOutCheck,
        data,
        gas: 100_000n,
      });
      const receipt = await devnetReceipt(world.client as never, hash);
      const block = await world.client.getBlock({ blockNumber: receipt.blockNumber });
      return { status: receipt.status, timestamp: block.timestamp };
    };
    expect(await mined(deadline)).toEqual({ status: "success", timestamp: deadline });
    expect(await mined(deadline + 1n)).toEqual({ status: "reverted", timestamp: deadline + 1n });
  });
});

describe("the router's fee bound", () => {
  it("is the engine's MAX_FEE_BPS, read from the deployed router", async () => {
    const { world } = ctx;
    const onChain = await world.client.readContract({
      address: world.execution.router,
      abi: ShortcutRouterAbi,
      functionName: "MAX_FEE_BPS",
    });
    expect(onChain).toBe(BigInt(MAX_FEE_BPS));
  });
});
