/**
 * The `corewallet` and `delegate` strategies: programs that run as the user's own account
 * (a CoreWallet clone, an EIP-7702 account, a smart wallet DELEGATECALLing), check their own
 * minimum output, and swap on Uniswap V3 through SwapRouter with exact approvals reset after.
 */
import { type Address, encodeFunctionData, type Hex, parseEther, parseUnits } from "viem";
import { describe, expect, it } from "vitest";
import { CoreWalletAbi } from "../../abis/generated/CoreWallet.js";
import { CoreWalletFactoryAbi } from "../../abis/generated/CoreWalletFactory.js";
import { TestSmartWalletAbi } from "../../abis/generated/TestSmartWallet.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { FLAG_EXTENDED_COMMAND } from "../../engine/program/command-layout.js";
import { predictCoreWalletAddress } from "../../engine/program/core-wallet-address.js";
import {
  encodeCoreWalletTx,
  encodeDelegateCalldata,
  encodeDelegateTx,
} from "../../engine/program/encode.js";
import { addBalanceSnapshot, addMinAmountOutCheck } from "../../engine/program/execution-steps.js";
import { type PlannedProgram, ProgramPlanner } from "../../engine/program/planner.js";
import { addUniswapV2Swap } from "../../engine/protocols/uniswap-v2/steps.js";
import { addUniswapV3RouterSwap } from "../../engine/protocols/uniswap-v3/steps.js";
import { addUnwrapNative, addWrapNative } from "../../engine/protocols/wrapped-native/steps.js";
import {
  allErrorsAbi,
  approve,
  balanceOf,
  errorData,
  expectRevert,
  gasCost,
  sendOk,
  useExecutionWorld,
} from "./harness.js";
import { quoteV2, quoteV3 } from "./quotes.js";
import type { ExecutionWorld, V3Pool } from "./world.js";

const ctx = useExecutionWorld();

/** snapshot → SwapRouter exact-input swap → minimum check, run as `account`. */
function guardedV3Swap(
  world: ExecutionWorld,
  params: {
    pool: V3Pool;
    tokenIn: Address;
    amountIn: bigint;
    recipient: Address;
    minAmountOut: bigint;
    wrapFirst?: boolean;
  },
): PlannedProgram {
  const tokenOut = params.pool.token0 === params.tokenIn ? params.pool.token1 : params.pool.token0;
  const planner = new ProgramPlanner();
  const minAmountOutCheck = world.execution.minAmountOutCheck;
  const before = addBalanceSnapshot(planner, {
    minAmountOutCheck,
    token: tokenOut,
    account: params.recipient,
  });
  if (params.wrapFirst) addWrapNative(planner, { weth: world.weth, amount: params.amountIn });
  addUniswapV3RouterSwap(planner, {
    swapRouter: world.uniswapV3.swapRouter,
    tokenIn: params.tokenIn,
    tokenOut,
    fee: params.pool.fee,
    amountIn: params.amountIn,
    recipient: params.recipient,
  });
  addMinAmountOutCheck(planner, {
    minAmountOutCheck,
    token: tokenOut,
    account: params.recipient,
    balanceBefore: before,
    minAmountOut: params.minAmountOut,
  });
  return planner.plan();
}

function hasExtendedCommand(program: PlannedProgram): boolean {
  return program.calls.some((call) => {
    const word = program.commands[call.commandIndex] ?? "0x";
    return (Number.parseInt(word.slice(10, 12), 16) & FLAG_EXTENDED_COMMAND) !== 0;
  });
}

describe("corewallet", () => {
  it("deploys the owner's wallet at its CREATE2 address, pulls the approved input and swaps through SwapRouter", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const { A, B } = world.tokens;
    const owner = user.account.address;
    const factory = world.execution.walletFactory;
    const wallet = predictCoreWalletAddress({
      factory,
      implementation: world.execution.walletImplementation,
      owner,
    });
    expect(
      await world.client.readContract({
        address: factory,
        abi: CoreWalletFactoryAbi,
        functionName: "walletOf",
        args: [owner],
      }),
    ).toBe(wallet);
    expect(await world.client.getCode({ address: wallet })).toBeUndefined();

    const amountIn = parseUnits("321.5", 18);
    await approve(world, user, A.address, wallet, amountIn);
    const expected = await quoteV3(world, world.uniswapV3.pools.AB, A.address, amountIn);
    const program = guardedV3Swap(world, {
      pool: world.uniswapV3.pools.AB,
      tokenIn: A.address,
      amountIn,
      recipient: owner,
      minAmountOut: expected,
    });
    // exactInputSingle takes a static struct of 8 words: an extended command.
    expect(hasExtendedCommand(program)).toBe(true);
    const tx = encodeCoreWalletTx({
      walletFactory: factory,
      from: owner,
      tokenIn: A.address,
      amountIn,
      program,
    });
    expect(tx.to).toBe(factory);
    expect(tx.value).toBe(0n);
    const ownerA = await balanceOf(world, A.address, owner);
    const ownerB = await balanceOf(world, B.address, owner);
    await sendOk(world, user, tx, { allowanceOwners: [wallet] });
    expect(await balanceOf(world, A.address, owner)).toBe(ownerA - amountIn);
    expect(await balanceOf(world, B.address, owner)).toBe(ownerB + expected);
    expect(await balanceOf(world, A.address, wallet)).toBe(0n);
    expect(
      await world.client.readContract({
        address: wallet,
        abi: CoreWalletAbi,
        functionName: "owner",
      }),
    ).toBe(owner);

    // Once deployed, the owner calls the wallet directly; the factory path still works too.
    const second = parseUnits("10", 18);
    await approve(world, user, A.address, wallet, second * 2n);
    for (const deployedWallet of [wallet, undefined]) {
      const expectedNext = await quoteV3(world, world.uniswapV3.pools.AB, A.address, second);
      const next = encodeCoreWalletTx({
        walletFactory: factory,
        from: owner,
        tokenIn: A.address,
        amountIn: second,
        program: guardedV3Swap(world, {
          pool: world.uniswapV3.pools.AB,
          tokenIn: A.address,
          amountIn: second,
          recipient: owner,
          minAmountOut: expectedNext,
        }),
        deployedWallet,
      });
      expect(next.to).toBe(deployedWallet ?? factory);
      const beforeB = await balanceOf(world, B.address, owner);
      await sendOk(world, user, next, { allowanceOwners: [wallet] });
      expect(await balanceOf(world, B.address, owner)).toBe(beforeB + expectedNext);
    }
  });

  it("takes native input (tokenInAmountToTransfer), wraps and swaps", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { B } = world.tokens;
    const amountIn = parseEther("1.75");
    const expected = await quoteV3(world, world.uniswapV3.pools.BW, world.weth, amountIn);
    const program = guardedV3Swap(world, {
      pool: world.uniswapV3.pools.BW,
      tokenIn: world.weth,
      amountIn,
      recipient: receiver.account.address,
      minAmountOut: expected,
      wrapFirst: true,
    });
    const tx = encodeCoreWalletTx({
      walletFactory: world.execution.walletFactory,
      from: user.account.address,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      amountIn,
      program,
    });
    expect(tx.value).toBe(amountIn);
    const wallet = predictCoreWalletAddress({
      factory: world.execution.walletFactory,
      implementation: world.execution.walletImplementation,
      owner: user.account.address,
    });
    const userEth = await balanceOf(world, NATIVE_TOKEN_ADDRESS, user.account.address);
    const receiverB = await balanceOf(world, B.address, receiver.account.address);
    const receipt = await sendOk(world, user, tx, { allowanceOwners: [wallet] });
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, user.account.address)).toBe(
      userEth - amountIn - gasCost(receipt),
    );
    expect(await balanceOf(world, B.address, receiver.account.address)).toBe(receiverB + expected);
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, wallet)).toBe(0n);
    expect(await balanceOf(world, world.weth, wallet)).toBe(0n);
  });

  it("a wallet program whose output falls short of its minimum fails in the check step", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const { A, B } = world.tokens;
    const owner = user.account.address;
    const wallet = predictCoreWalletAddress({
      factory: world.execution.walletFactory,
      implementation: world.execution.walletImplementation,
      owner,
    });
    const amountIn = parseUnits("3", 18);
    await approve(world, user, A.address, wallet, amountIn);
    const expected = await quoteV3(world, world.uniswapV3.pools.AB, A.address, amountIn);
    const program = guardedV3Swap(world, {
      pool: world.uniswapV3.pools.AB,
      tokenIn: A.address,
      amountIn,
      recipient: owner,
      minAmountOut: expected + 1n,
    });
    const check = program.calls.at(-1);
    expect(check?.label).toBe("check minimum output");
    const tx = encodeCoreWalletTx({
      walletFactory: world.execution.walletFactory,
      from: owner,
      tokenIn: A.address,
      amountIn,
      program,
    });
    const reason = errorData(allErrorsAbi, "InsufficientOutput", [
      B.address,
      owner,
      expected,
      expected + 1n,
    ]);
    await expectRevert(
      world,
      user,
      tx,
      errorData(allErrorsAbi, "ExecutionFailed", [
        BigInt(check?.commandIndex ?? -1),
        world.execution.minAmountOutCheck,
        reason,
      ]),
    );
  });
});

describe("delegate", () => {
  it("runs a program as an EIP-7702 account: SwapRouter swap with the allowance reset, minimum checked", async () => {
    const { world } = ctx;
    const { delegator } = world.accounts;
    const { A, B } = world.tokens;
    const account = delegator.account.address;
    const amountIn = parseUnits("55", 18);
    const expected = await quoteV3(world, world.uniswapV3.pools.AB, A.address, amountIn);
    const program = guardedV3Swap(world, {
      pool: world.uniswapV3.pools.AB,
      tokenIn: A.address,
      amountIn,
      recipient: account,
      minAmountOut: expected,
    });
    const authorization = await delegator.signAuthorization({
      contractAddress: world.execution.delegateExecutor,
      executor: "self",
    });
    const tx = encodeDelegateTx({ from: account, program });
    expect(tx.to).toBe(account);
    const accountA = await balanceOf(world, A.address, account);
    const accountB = await balanceOf(world, B.address, account);
    await sendOk(
      world,
      delegator,
      { ...tx, authorizationList: [authorization] },
      { allowanceOwners: [account] },
    );
    expect(await balanceOf(world, A.address, account)).toBe(accountA - amountIn);
    expect(await balanceOf(world, B.address, account)).toBe(accountB + expected);
  });

  it("an EIP-7702 account can receive native currency from a program (unwrapping WETH)", async () => {
    const { world } = ctx;
    const { delegator } = world.accounts;
    const account = delegator.account.address;
    const amount = parseEther("2.5");
    const planner = new ProgramPlanner();
    const before = addBalanceSnapshot(planner, {
      minAmountOutCheck: world.execution.minAmountOutCheck,
      token: NATIVE_TOKEN_ADDRESS,
      account,
    });
    addUnwrapNative(planner, { weth: world.weth, amount });
    addMinAmountOutCheck(planner, {
      minAmountOutCheck: world.execution.minAmountOutCheck,
      token: NATIVE_TOKEN_ADDRESS,
      account,
      balanceBefore: before,
      minAmountOut: amount,
    });
    const authorization = await delegator.signAuthorization({
      contractAddress: world.execution.delegateExecutor,
      executor: "self",
    });
    const tx = encodeDelegateTx({ from: account, program: planner.plan() });
    const eth = await balanceOf(world, NATIVE_TOKEN_ADDRESS, account);
    const weth = await balanceOf(world, world.weth, account);
    const receipt = await sendOk(world, delegator, { ...tx, authorizationList: [authorization] });
    expect(await balanceOf(world, NATIVE_TOKEN_ADDRESS, account)).toBe(
      eth + amount - gasCost(receipt),
    );
    expect(await balanceOf(world, world.weth, account)).toBe(weth - amount);
  });

  it("runs a program in a smart wallet that DELEGATECALLs the delegate executor", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const { A, B } = world.tokens;
    const smartWallet = world.testContracts.smartWallet;
    const amountIn = parseUnits("100", 18);
    const expected = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, amountIn);
    const planner = new ProgramPlanner();
    const minAmountOutCheck = world.execution.minAmountOutCheck;
    const before = addBalanceSnapshot(planner, {
      minAmountOutCheck,
      token: B.address,
      account: smartWallet,
    });
    addUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn,
      recipient: smartWallet,
      programValues: world.execution.programValues,
      feePpm: 3000,
    });
    addMinAmountOutCheck(planner, {
      minAmountOutCheck,
      token: B.address,
      account: smartWallet,
      balanceBefore: before,
      minAmountOut: expected,
    });
    const data: Hex = encodeFunctionData({
      abi: TestSmartWalletAbi,
      functionName: "delegate",
      args: [world.execution.delegateExecutor, encodeDelegateCalldata(planner.plan())],
    });
    const walletA = await balanceOf(world, A.address, smartWallet);
    const walletB = await balanceOf(world, B.address, smartWallet);
    await sendOk(world, user, { to: smartWallet, data }, { allowanceOwners: [smartWallet] });
    expect(await balanceOf(world, A.address, smartWallet)).toBe(walletA - amountIn);
    expect(await balanceOf(world, B.address, smartWallet)).toBe(walletB + expected);
  });
});
