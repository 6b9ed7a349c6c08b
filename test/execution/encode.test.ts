/** Transaction encoders of the three routing strategies. */
import { type Address, decodeFunctionData, getAddress, keccak256, parseEther } from "viem";
import { describe, expect, it } from "vitest";
import { CoreWalletAbi } from "../../abis/generated/CoreWallet.js";
import { CoreWalletFactoryAbi } from "../../abis/generated/CoreWalletFactory.js";
import { DelegateExecutorAbi } from "../../abis/generated/DelegateExecutor.js";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import {
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterBundleTx,
  encodeRouterSwapTx,
  routeFeeAmount,
} from "../../engine/program/encode.js";

const router: Address = "0x1000000000000000000000000000000000000001";
const user: Address = "0x2000000000000000000000000000000000000002";
const tokenA: Address = "0x3000000000000000000000000000000000000003";
const tokenB = "0x4000000000000000000000000000000000000004";
const feeTo = "0x5000000000000000000000000000000000000005";
const program = { commands: [keccak256("0x01")], state: ["0x1234" as const] };

describe("encoders", () => {
  it("router swap: params, program and value (native input only)", () => {
    const tx = encodeRouterSwapTx({
      router,
      from: user,
      tokenIn: tokenA,
      amountIn: 1000n,
      tokenOut: tokenB,
      minAmountOut: 900n,
      receiver: user,
      fee: { bps: 30, receiver: feeTo },
      deadline: 1_800_000_000n,
      program,
    });
    expect(tx.to).toBe(router);
    expect(tx.from).toBe(user);
    expect(tx.value).toBe(0n);
    expect(decodeFunctionData({ abi: ShortcutRouterAbi, data: tx.data })).toEqual({
      functionName: "swap",
      args: [
        {
          tokenIn: getAddress(tokenA),
          amountIn: 1000n,
          tokenOut: getAddress(tokenB),
          minAmountOut: 900n,
          receiver: getAddress(user),
          feeBps: 30n,
          feeReceiver: getAddress(feeTo),
          deadline: 1_800_000_000n,
        },
        program.commands,
        program.state,
      ],
    });
    const native = encodeRouterSwapTx({
      router,
      from: user,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      amountIn: parseEther("2"),
      tokenOut: tokenB,
      minAmountOut: 1n,
      receiver: user,
      program,
    });
    expect(native.value).toBe(parseEther("2"));
  });

  it("router bundle: several outputs; refuses none and fees outside 0–100 bps", () => {
    const tx = encodeRouterBundleTx({
      router,
      from: user,
      tokenIn: tokenA,
      amountIn: 1000n,
      outputs: [
        { token: tokenA, account: user, minAmountOut: 1n },
        { token: tokenB, account: feeTo, minAmountOut: 2n },
      ],
      program,
    });
    const decoded = decodeFunctionData({ abi: ShortcutRouterAbi, data: tx.data });
    expect(decoded.functionName).toBe("bundle");
    // Each output names the account the router checks it on.
    expect((decoded.args[0] as { outputs: unknown }).outputs).toEqual([
      { token: getAddress(tokenA), account: getAddress(user), minAmountOut: 1n },
      { token: getAddress(tokenB), account: getAddress(feeTo), minAmountOut: 2n },
    ]);
    const base = { router, from: user, tokenIn: tokenA, amountIn: 1n, receiver: user, program };
    const { receiver: _, ...bundleBase } = base;
    expect(() => encodeRouterBundleTx({ ...bundleBase, outputs: [] })).toThrow(
      "a router bundle needs a checked output",
    );
    expect(() =>
      encodeRouterSwapTx({
        ...base,
        tokenOut: tokenB,
        minAmountOut: 1n,
        fee: { bps: 101, receiver: feeTo },
      }),
    ).toThrow("fee must be an integer from 0 to 100 bps, got 101");
    expect(routeFeeAmount(12345n, 100)).toBe(123n);
    expect(routeFeeAmount(99n, 100)).toBe(0n);
  });

  it("delegate: the account calls itself with the executor's calldata", () => {
    const tx = encodeDelegateTx({ from: user, program, value: 5n });
    expect(tx).toMatchObject({ to: user, from: user, value: 5n });
    expect(decodeFunctionData({ abi: DelegateExecutorAbi, data: tx.data })).toEqual({
      functionName: "execute",
      args: [program.commands, program.state],
    });
  });

  it("corewallet: deploy-and-execute through the factory, or the deployed wallet directly", () => {
    const factory = "0x6000000000000000000000000000000000000006";
    const wallet = "0x7000000000000000000000000000000000000007";
    const viaFactory = encodeCoreWalletTx({
      walletFactory: factory,
      from: user,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      amountIn: 7n,
      program,
    });
    expect(viaFactory).toMatchObject({ to: factory, from: user, value: 7n });
    expect(decodeFunctionData({ abi: CoreWalletFactoryAbi, data: viaFactory.data })).toEqual({
      functionName: "deployAndExecute",
      args: [getAddress(NATIVE_TOKEN_ADDRESS), 7n, program.commands, program.state],
    });
    const direct = encodeCoreWalletTx({
      walletFactory: factory,
      from: user,
      tokenIn: tokenA,
      amountIn: 7n,
      program,
      deployedWallet: wallet,
    });
    expect(direct).toMatchObject({ to: wallet, from: user, value: 0n });
    expect(decodeFunctionData({ abi: CoreWalletAbi, data: direct.data }).functionName).toBe(
      "executeShortcut",
    );
  });
});
