/**
 * Shared helpers of the execution-layer suites: one anvil and world per suite with a snapshot
 * restored before every test, transactions that must succeed (followed by the execution-layer
 * invariants) or must revert with an exact error, and balance reads.
 */
import {
  type Abi,
  type Address,
  encodeErrorResult,
  getAddress,
  type Hex,
  type SignedAuthorizationList,
  type TransactionReceipt,
} from "viem";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { ArgProbeAbi } from "../../abis/generated/ArgProbe.js";
import { BalanceLensAbi } from "../../abis/generated/BalanceLens.js";
import { CommandVMHarnessAbi } from "../../abis/generated/CommandVMHarness.js";
import { CoreWalletAbi } from "../../abis/generated/CoreWallet.js";
import { CoreWalletFactoryAbi } from "../../abis/generated/CoreWalletFactory.js";
import { DelegateExecutorAbi } from "../../abis/generated/DelegateExecutor.js";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { MinAmountOutCheckAbi } from "../../abis/generated/MinAmountOutCheck.js";
import { ProgramValuesAbi } from "../../abis/generated/ProgramValues.js";
import { RouterExecutorAbi } from "../../abis/generated/RouterExecutor.js";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { startTestAnvil } from "../harness/anvil.js";
import { deployExecutionWorld, type ExecutionWorld, type Wallet } from "./world.js";

/** Every error the suites may expect, for decoding failures in assertion messages. */
export const allErrorsAbi: Abi = [
  ...ShortcutRouterAbi,
  ...RouterExecutorAbi,
  ...DelegateExecutorAbi,
  ...CoreWalletAbi,
  ...CoreWalletFactoryAbi,
  ...MinAmountOutCheckAbi,
  ...ProgramValuesAbi,
  ...CommandVMHarnessAbi,
  ...ArgProbeAbi,
  ...DevVaultAbi,
  ...DevTokenAbi,
].filter((item) => item.type === "error");

/**
 * Starts an anvil with the test world for the calling suite and restores a snapshot of the
 * freshly deployed world before each test. Read `ctx.world` inside tests. A suite that needs more
 * on the chain passes `setup`: it runs once on the new world, before the snapshot, so every test
 * starts from what it deployed.
 */
export function useExecutionWorld(setup?: (world: ExecutionWorld) => Promise<void>): {
  world: ExecutionWorld;
} {
  const ctx = {} as { world: ExecutionWorld };
  let anvil: AnvilInstance | undefined;
  let snapshot: Hex | undefined;
  beforeAll(async () => {
    anvil = await startTestAnvil();
    ctx.world = await deployExecutionWorld(anvil.url);
    await setup?.(ctx.world);
    snapshot = await ctx.world.test.snapshot();
  });
  beforeEach(async () => {
    if (snapshot === undefined) return;
    // A snapshot is consumed by reverting to it: take a fresh one each time.
    await ctx.world.test.revert({ id: snapshot });
    snapshot = await ctx.world.test.snapshot();
  });
  afterAll(async () => {
    await anvil?.stop();
  });
  return ctx;
}

/** A transaction to send. */
export type TxRequest = {
  to: Address;
  data: Hex;
  value?: bigint;
  authorizationList?: SignedAuthorizationList;
};

/**
 * Sends a transaction that must succeed, then checks the execution-layer invariants: router and
 * executor hold none of any token touched nor native currency, and the executor has granted no
 * allowance (plus those of `allowanceOwners`, e.g. a wallet that approved a router in-program).
 */
export async function sendOk(
  world: ExecutionWorld,
  from: Wallet,
  tx: TxRequest,
  options: { allowanceOwners?: readonly Address[] } = {},
): Promise<TransactionReceipt> {
  const hash = await from.sendTransaction({
    to: tx.to,
    data: tx.data,
    value: tx.value ?? 0n,
    authorizationList: tx.authorizationList,
    gas: 5_000_000n,
  });
  const receipt = await devnetReceipt(world.client as never, hash);
  if (receipt.status !== "success") {
    const reason = await revertData(world, from, tx);
    throw new Error(`transaction reverted: ${reason}`);
  }
  await expectExecutionLayerClean(world, options.allowanceOwners ?? []);
  return receipt;
}

/** All tokens the suites touch (ERC20s; native is checked separately). */
export function touchedTokens(world: ExecutionWorld): Address[] {
  return [
    world.tokens.A.address,
    world.tokens.B.address,
    world.tokens.C.address,
    world.weth,
    world.vaults.A,
    world.vaults.B,
    world.reentrantToken,
  ];
}

/** Every contract that could have been granted an allowance by a program. */
export function possibleSpenders(world: ExecutionWorld): Address[] {
  return [
    world.uniswapV2.router02,
    world.uniswapV3.swapRouter,
    world.uniswapV3.positionManager,
    world.vaults.A,
    world.vaults.B,
    ...Object.values(world.uniswapV2.pairs).map((p) => p.address),
    ...Object.values(world.uniswapV3.pools).map((p) => p.address),
    world.execution.router,
    world.execution.executor,
    world.testContracts.fakePool,
    world.accounts.attacker.account.address,
  ];
}

/** Asserts that router and executor hold nothing and the given owners granted nothing. */
export async function expectExecutionLayerClean(
  world: ExecutionWorld,
  allowanceOwners: readonly Address[] = [],
): Promise<void> {
  const tokens = [...touchedTokens(world), NATIVE_TOKEN_ADDRESS];
  const holders = [world.execution.router, world.execution.executor];
  const balances = await world.client.readContract({
    address: world.testContracts.lens,
    abi: BalanceLensAbi,
    functionName: "balances",
    args: [tokens, holders],
  });
  const held = tokens.flatMap((token, i) =>
    holders.map((holder, j) => ({ token, holder, amount: balances[i * holders.length + j] })),
  );
  expect(held.filter((h) => h.amount !== 0n)).toEqual([]);
  const spenders = possibleSpenders(world);
  for (const owner of [world.execution.executor, ...allowanceOwners]) {
    const allowances = await world.client.readContract({
      address: world.testContracts.lens,
      abi: BalanceLensAbi,
      functionName: "allowances",
      args: [touchedTokens(world), owner, spenders],
    });
    const granted = touchedTokens(world).flatMap((token, i) =>
      spenders.map((spender, j) => ({
        owner,
        token,
        spender,
        amount: allowances[i * spenders.length + j],
      })),
    );
    expect(granted.filter((g) => g.amount !== 0n)).toEqual([]);
  }
}

/** The revert data of `tx` simulated from `from` at the latest block ('0x' if it succeeds). */
export async function revertData(world: ExecutionWorld, from: Wallet, tx: TxRequest): Promise<Hex> {
  try {
    await world.client.call({
      account: from.account.address,
      to: tx.to,
      data: tx.data,
      value: tx.value ?? 0n,
      authorizationList: tx.authorizationList,
      gas: 5_000_000n,
    });
  } catch (error) {
    const data = findRevertData(error);
    if (data !== undefined) return data;
    throw error;
  }
  return "0x";
}

export function findRevertData(error: unknown): Hex | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current !== null && typeof current === "object"; depth++) {
    const data = (current as { data?: unknown }).data;
    if (typeof data === "string" && data.startsWith("0x")) return data as Hex;
    if (
      data !== null &&
      typeof data === "object" &&
      typeof (data as { data?: unknown }).data === "string"
    ) {
      return (data as { data: Hex }).data;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The encoding of an error, for comparing revert data exactly. */
export function errorData(abi: Abi, errorName: string, args: readonly unknown[] = []): Hex {
  return encodeErrorResult({ abi, errorName, args });
}

/**
 * Asserts that `tx` reverts with exactly `expected` (revert data, see {@link errorData}): first
 * by simulation, which returns the data, then by mining it, which must fail.
 */
export async function expectRevert(
  world: ExecutionWorld,
  from: Wallet,
  tx: TxRequest,
  expected: Hex,
): Promise<TransactionReceipt> {
  expect(await revertData(world, from, tx)).toBe(expected);
  const hash = await from.sendTransaction({
    to: tx.to,
    data: tx.data,
    value: tx.value ?? 0n,
    authorizationList: tx.authorizationList,
    gas: 5_000_000n,
  });
  const receipt = await devnetReceipt(world.client as never, hash);
  expect(receipt.status).toBe("reverted");
  return receipt;
}

/** Balances of `tokens` (native as 0xeeee…) for `accounts`, as a map keyed `token:account`. */
export async function balances(
  world: ExecutionWorld,
  tokens: readonly Address[],
  accounts: readonly Address[],
): Promise<Map<string, bigint>> {
  const values = await world.client.readContract({
    address: world.testContracts.lens,
    abi: BalanceLensAbi,
    functionName: "balances",
    args: [tokens, accounts],
  });
  const result = new Map<string, bigint>();
  tokens.forEach((token, i) => {
    accounts.forEach((account, j) => {
      result.set(
        `${getAddress(token)}:${getAddress(account)}`,
        values[i * accounts.length + j] ?? 0n,
      );
    });
  });
  return result;
}

/** One balance (native as 0xeeee…). */
export async function balanceOf(
  world: ExecutionWorld,
  token: Address,
  account: Address,
): Promise<bigint> {
  const map = await balances(world, [token], [account]);
  return map.values().next().value ?? 0n;
}

/** Native currency spent on gas by a mined transaction. */
export function gasCost(receipt: TransactionReceipt): bigint {
  return receipt.gasUsed * receipt.effectiveGasPrice;
}

/** Approves `amount` of `token` from `owner` to `spender`. */
export async function approve(
  world: ExecutionWorld,
  owner: Wallet,
  token: Address,
  spender: Address,
  amount: bigint,
): Promise<void> {
  const hash = await owner.writeContract({
    address: token,
    abi: DevTokenAbi,
    functionName: "approve",
    args: [spender, amount],
  });
  const receipt = await devnetReceipt(world.client as never, hash);
  expect(receipt.status).toBe("success");
}
