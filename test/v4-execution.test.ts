/**
 * Uniswap V4 in the execution layer, on anvil with the real PoolManager and V4Quoter (from their
 * npm build artifacts) and pools initialized and funded here: the router executor's
 * `uniswapV4Swap` (through ShortcutRouter programs) and UniswapV4Router pay exactly what
 * V4Quoter quotes and keep nothing; fake pool managers, the real manager calling back out of
 * turn and a reentrant hook gain nothing and fail with exact errors.
 */
import {
  type Abi,
  type Address,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  getAbiItem,
  getAddress,
  type Hex,
  http,
  parseAbi,
  parseEther,
  parseUnits,
  type TransactionReceipt,
  toFunctionSelector,
  zeroAddress,
  zeroHash,
} from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { BalanceLensAbi } from "../abis/generated/BalanceLens.js";
import { CoreWalletFactoryAbi } from "../abis/generated/CoreWalletFactory.js";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { FakeUniswapV4PoolManagerAbi } from "../abis/generated/FakeUniswapV4PoolManager.js";
import { ReentrantV4HookAbi } from "../abis/generated/ReentrantV4Hook.js";
import { RouterExecutorAbi } from "../abis/generated/RouterExecutor.js";
import { UniswapV4RouterAbi } from "../abis/generated/UniswapV4Router.js";
import { V4LiquidityHelperAbi } from "../abis/generated/V4LiquidityHelper.js";
import { V4SwapHelperAbi } from "../abis/generated/V4SwapHelper.js";
import { PoolManagerAbi } from "../abis/PoolManager.js";
import { V4QuoterAbi } from "../abis/V4Quoter.js";
import { loadArtifact } from "../contracts/build.js";
import type { AnvilInstance } from "../devnet/anvil.js";
import { readNpmArtifact } from "../devnet/artifacts.js";
import { deployExecutionLayer, type ExecutionLayer } from "../devnet/execution.js";
import { devnetReceipt } from "../devnet/receipts.js";
import { encodeCoreWalletTx, encodeRouterSwapTx } from "../engine/program/encode.js";
import { addSweep } from "../engine/program/execution-steps.js";
import { ProgramPlanner } from "../engine/program/planner.js";
import { addApprove, addUniswapV3PoolSwap } from "../engine/program/protocol-steps.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/protocols/native.js";
import {
  allErrorsAbi,
  balanceOf,
  errorData,
  expectRevert,
  gasCost,
  sendOk,
  type TxRequest,
} from "./execution/harness.js";
import { quoteV3 } from "./execution/quotes.js";
import { deployExecutionWorld, type ExecutionWorld, sqrt, type Wallet } from "./execution/world.js";
import { startTestAnvil } from "./harness/anvil.js";

/** A V4 pool's key; currency0 is address(0) for native currency. */
type PoolKey = {
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
};

/**
 * Where the reentrant hook's code is placed: the pool manager reads a hook's permissions from
 * the low 14 bits of its address, here exactly BEFORE_SWAP_FLAG (1 << 7).
 */
const HOOK_ADDRESS = getAddress("0x00000000000000000000000000000000ba5e0080");
const MAX_TICK = 887272;

/** Errors of the V4 contracts around ours (CustomRevert's wrapper, the hook library's context). */
const v4ErrorsAbi = parseAbi([
  "error WrappedError(address target, bytes4 selector, bytes reason, bytes details)",
  "error HookCallFailed()",
]);
const errorsAbi: Abi = [
  ...allErrorsAbi,
  ...UniswapV4RouterAbi.filter((item) => item.type === "error"),
  ...PoolManagerAbi.filter((item) => item.type === "error"),
  ...v4ErrorsAbi,
];
const BEFORE_SWAP_SELECTOR = toFunctionSelector(
  "beforeSwap(address,(address,address,uint24,int24,address),(bool,int256,uint160),bytes)",
);
const HOOK_CALL_FAILED_SELECTOR = toFunctionSelector("HookCallFailed()");

const v4SwapFn = getAbiItem({ abi: RouterExecutorAbi, name: "uniswapV4Swap" });
const claimFn = getAbiItem({ abi: FakeUniswapV4PoolManagerAbi, name: "claim" });
const unlockFn = getAbiItem({ abi: PoolManagerAbi, name: "unlock" });

const executionFailed = (index: number, target: Address, reason: Hex): Hex =>
  errorData(errorsAbi, "ExecutionFailed", [BigInt(index), target, reason]);

type Suite = {
  world: ExecutionWorld;
  /** The execution layer deployed with the real pool manager. */
  layer: ExecutionLayer;
  /** `world` with `layer` as its execution layer (what the harness checks after each send). */
  v4World: ExecutionWorld;
  poolManager: Address;
  quoter: Address;
  swapHelper: Address;
  fakeManager: Address;
  pools: { AB: PoolKey; nativeA: PoolKey; hookedAB: PoolKey; narrowAC: PoolKey };
};

function sortedKey(
  x: Address,
  y: Address,
  fee: number,
  tickSpacing: number,
  hooks: Address = zeroAddress,
): PoolKey {
  const [currency0, currency1] = x.toLowerCase() < y.toLowerCase() ? [x, y] : [y, x];
  return { currency0, currency1, fee, tickSpacing, hooks };
}

/** The flattened key, as uniswapV4Swap and swapExactIn take it. */
function keyArgs(key: PoolKey) {
  return [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks] as const;
}

/** Whether selling `tokenIn` on `key` is a zeroForOne swap (native input as address(0)). */
function zeroForOne(key: PoolKey, tokenIn: Address): boolean {
  return key.currency0.toLowerCase() === tokenIn.toLowerCase();
}

/** The unlock data the settlement contracts encode: key, direction, amount, payer, recipient. */
function unlockData(
  key: PoolKey,
  zeroForOneSwap: boolean,
  amountIn: bigint,
  payer: Address,
  recipient: Address,
): Hex {
  return encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "currency0", type: "address" },
          { name: "currency1", type: "address" },
          { name: "fee", type: "uint24" },
          { name: "tickSpacing", type: "int24" },
          { name: "hooks", type: "address" },
        ],
      },
      { type: "bool" },
      { type: "uint256" },
      { type: "address" },
      { type: "address" },
    ],
    [key, zeroForOneSwap, amountIn, payer, recipient],
  );
}

describe("Uniswap V4 in the execution layer", () => {
  let anvil: AnvilInstance;
  let snapshot: Hex | undefined;
  const s = {} as Suite;

  const mined = async (hash: Hex): Promise<TransactionReceipt> => {
    const receipt = await devnetReceipt(s.world.client as never, hash);
    expect(receipt.status).toBe("success");
    return receipt;
  };
  const write = async (
    wallet: Wallet,
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
    value?: bigint,
  ): Promise<TransactionReceipt> =>
    await mined(
      await wallet.writeContract({ address, abi, functionName, args, value, gas: 5_000_000n }),
    );
  const deploy = async (
    artifact: { abi: Abi; bytecode: Hex },
    args: readonly unknown[],
  ): Promise<Address> => {
    const receipt = await mined(
      await s.world.accounts.deployer.deployContract({
        abi: artifact.abi,
        bytecode: artifact.bytecode,
        args,
        gas: 16_000_000n,
      }),
    );
    return getAddress(receipt.contractAddress as Address);
  };
  const approve = async (owner: Wallet, token: Address, spender: Address, amount: bigint) =>
    await write(owner, token, DevTokenAbi, "approve", [spender, amount]);

  /** Initializes `key` at amount1/amount0 and adds liquidity L = sqrt(amount0 · amount1). */
  const addPool = async (
    key: PoolKey,
    amount0: bigint,
    amount1: bigint,
    liquidityHelper: Address,
    ticksAroundPrice?: number,
  ): Promise<void> => {
    const sqrtPriceX96 = sqrt((amount1 << 192n) / amount0);
    const { result: tick } = await s.world.client.simulateContract({
      account: s.world.accounts.deployer.account,
      address: s.poolManager,
      abi: PoolManagerAbi,
      functionName: "initialize",
      args: [key, sqrtPriceX96],
    });
    await write(s.world.accounts.deployer, s.poolManager, PoolManagerAbi, "initialize", [
      key,
      sqrtPriceX96,
    ]);
    const spacing = key.tickSpacing;
    const centre = Math.floor(tick / spacing) * spacing;
    const [lower, upper] =
      ticksAroundPrice === undefined
        ? [-Math.floor(MAX_TICK / spacing) * spacing, Math.floor(MAX_TICK / spacing) * spacing]
        : [centre - ticksAroundPrice, centre + ticksAroundPrice];
    await write(
      s.world.accounts.deployer,
      liquidityHelper,
      V4LiquidityHelperAbi,
      "modifyLiquidity",
      [key, lower, upper, sqrt(amount0 * amount1), zeroHash],
      // Native currency0 rides along as value; the helper refunds what the position did not take.
      key.currency0 === zeroAddress ? (amount0 * 101n) / 100n : undefined,
    );
  };

  beforeAll(async () => {
    anvil = await startTestAnvil();
    s.world = await deployExecutionWorld(anvil.url);
    const { world } = s;
    const { A, B, C } = world.tokens;
    s.poolManager = await deploy(readNpmArtifact("PoolManager"), [
      world.accounts.deployer.account.address,
    ]);
    s.quoter = await deploy(readNpmArtifact("V4Quoter"), [s.poolManager]);
    const liquidityHelper = await deploy(loadArtifact("V4LiquidityHelper"), [s.poolManager]);
    s.swapHelper = await deploy(loadArtifact("V4SwapHelper"), [s.poolManager]);
    s.fakeManager = await deploy(loadArtifact("FakeUniswapV4PoolManager"), []);
    s.layer = await deployExecutionLayer({
      walletClient: world.accounts.deployer,
      publicClient: world.client as never,
      v3Factory: world.uniswapV3.factory,
      weth: world.weth,
      swapRouter: world.uniswapV3.swapRouter,
      v4PoolManager: s.poolManager,
    });
    s.v4World = { ...world, execution: s.layer };
    await world.test.setCode({
      address: HOOK_ADDRESS,
      bytecode: loadArtifact("ReentrantV4Hook").deployedBytecode,
    });
    for (const token of [A.address, B.address, C.address]) {
      await approve(world.accounts.deployer, token, liquidityHelper, 2n ** 255n);
    }
    s.pools = {
      AB: sortedKey(A.address, B.address, 3000, 60),
      nativeA: sortedKey(zeroAddress, A.address, 3000, 60),
      hookedAB: sortedKey(A.address, B.address, 3000, 60, HOOK_ADDRESS),
      narrowAC: sortedKey(A.address, C.address, 3000, 60),
    };
    // Prices as on the world's V2 and V3 pools: A = 10 B, A = 5 C, ETH = 300 A.
    const amounts = (key: PoolKey, x: Address, amountX: bigint, amountY: bigint) =>
      zeroForOne(key, x) ? ([amountX, amountY] as const) : ([amountY, amountX] as const);
    const ab = amounts(s.pools.AB, A.address, parseUnits("50000", 18), parseUnits("500000", 6));
    await addPool(s.pools.AB, ...ab, liquidityHelper);
    await addPool(s.pools.hookedAB, ...ab, liquidityHelper);
    await addPool(s.pools.nativeA, parseEther("1000"), parseUnits("300000", 18), liquidityHelper);
    // Liquidity 600 ticks (about 6%) either side of the price only: a large swap runs out.
    const ac = amounts(s.pools.narrowAC, A.address, parseUnits("100", 18), parseUnits("500", 18));
    await addPool(s.pools.narrowAC, ...ac, liquidityHelper, 600);
    snapshot = await world.test.snapshot();
  });

  beforeEach(async () => {
    if (snapshot === undefined) return;
    await s.world.test.revert({ id: snapshot });
    snapshot = await s.world.test.snapshot();
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  /** What V4Quoter says `amountIn` of `tokenIn` buys on `key`, at the current state. */
  const quote = async (key: PoolKey, tokenIn: Address, amountIn: bigint): Promise<bigint> => {
    const { result } = await s.world.client.simulateContract({
      address: s.quoter,
      abi: V4QuoterAbi,
      functionName: "quoteExactInputSingle",
      args: [
        {
          poolKey: key,
          zeroForOne: zeroForOne(key, tokenIn),
          exactAmount: amountIn,
          hookData: "0x",
        },
      ],
    });
    return result[0];
  };

  /** A router program of one V4 swap on the executor, plus optional later steps. */
  const v4Program = (
    key: PoolKey,
    tokenIn: Address,
    amountIn: bigint,
    recipient: Address,
    then?: (planner: ProgramPlanner) => void,
  ) => {
    const planner = new ProgramPlanner();
    planner.add({
      target: s.layer.executor,
      fn: v4SwapFn,
      args: [...keyArgs(key), zeroForOne(key, tokenIn), amountIn, recipient],
      label: "swap on uniswap v4",
    });
    then?.(planner);
    return planner.plan();
  };

  /** ShortcutRouter.swap of the user's `amountIn` running `program`, paying the receiver. */
  const routeTx = (
    tokenIn: Address,
    amountIn: bigint,
    tokenOut: Address,
    minAmountOut: bigint,
    program: { commands: readonly Hex[]; state: readonly Hex[] },
    router = s.layer.router,
  ): TxRequest =>
    encodeRouterSwapTx({
      router,
      from: s.world.accounts.user.account.address,
      tokenIn,
      amountIn,
      tokenOut,
      minAmountOut,
      receiver: s.world.accounts.receiver.account.address,
      program,
    });

  /** UniswapV4Router.swapExactIn calldata. */
  const swapExactIn = (
    key: PoolKey,
    tokenIn: Address,
    amountIn: bigint,
    amountOutMinimum: bigint,
    recipient: Address,
    router = s.layer.uniswapV4Router,
  ): TxRequest => ({
    to: router,
    data: encodeFunctionData({
      abi: UniswapV4RouterAbi,
      functionName: "swapExactIn",
      args: [...keyArgs(key), zeroForOne(key, tokenIn), amountIn, amountOutMinimum, recipient],
    }),
    value: tokenIn === zeroAddress ? amountIn : 0n,
  });

  /**
   * The V4 router, the executor and the router hold no token and no native currency, and neither
   * the executor nor the V4 router granted the pool manager an allowance.
   */
  const expectV4Clean = async (): Promise<void> => {
    const { world } = s;
    const tokens = [world.tokens.A.address, world.tokens.B.address, world.tokens.C.address];
    const holders = [s.layer.router, s.layer.executor, s.layer.uniswapV4Router];
    const held = await world.client.readContract({
      address: world.testContracts.lens,
      abi: BalanceLensAbi,
      functionName: "balances",
      args: [[...tokens, NATIVE_TOKEN_ADDRESS], holders],
    });
    expect(held.filter((amount) => amount !== 0n)).toEqual([]);
    for (const owner of [s.layer.executor, s.layer.uniswapV4Router]) {
      const granted = await world.client.readContract({
        address: world.testContracts.lens,
        abi: BalanceLensAbi,
        functionName: "allowances",
        args: [tokens, owner, [s.poolManager, s.swapHelper, HOOK_ADDRESS]],
      });
      expect(granted.filter((amount) => amount !== 0n)).toEqual([]);
    }
  };

  /** Native balance of `account` (as 0xeeee…). */
  const nativeBalance = (account: Address) => balanceOf(s.world, NATIVE_TOKEN_ADDRESS, account);

  describe("swaps through the router executor pay exactly the quote", () => {
    test("ERC20 → ERC20: A for B", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A, B } = world.tokens;
      const amountIn = parseUnits("250", 18);
      const expected = await quote(s.pools.AB, A.address, amountIn);
      await approve(user, A.address, s.layer.router, amountIn);
      const userA = await balanceOf(world, A.address, user.account.address);
      await sendOk(
        s.v4World,
        user,
        routeTx(
          A.address,
          amountIn,
          B.address,
          expected,
          v4Program(s.pools.AB, A.address, amountIn, receiver.account.address),
        ),
      );
      expect(await balanceOf(world, B.address, receiver.account.address)).toBe(expected);
      expect(userA - (await balanceOf(world, A.address, user.account.address))).toBe(amountIn);
      await expectV4Clean();
    });

    test("native → ERC20: ETH for A, the router forwarding msg.value to the executor", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A } = world.tokens;
      const amountIn = parseEther("2");
      const expected = await quote(s.pools.nativeA, zeroAddress, amountIn);
      const tx = routeTx(
        NATIVE_TOKEN_ADDRESS,
        amountIn,
        A.address,
        expected,
        v4Program(s.pools.nativeA, zeroAddress, amountIn, receiver.account.address),
      );
      expect(tx.value).toBe(amountIn);
      const userEth = await nativeBalance(user.account.address);
      const receipt = await sendOk(s.v4World, user, tx);
      expect(await balanceOf(world, A.address, receiver.account.address)).toBe(expected);
      expect(userEth - (await nativeBalance(user.account.address))).toBe(
        amountIn + gasCost(receipt),
      );
      await expectV4Clean();
    });

    test("ERC20 → native: A for ETH, taken by the pool manager straight to the receiver", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A } = world.tokens;
      const amountIn = parseUnits("600", 18);
      const expected = await quote(s.pools.nativeA, A.address, amountIn);
      await approve(user, A.address, s.layer.router, amountIn);
      const receiverEth = await nativeBalance(receiver.account.address);
      await sendOk(
        s.v4World,
        user,
        routeTx(
          A.address,
          amountIn,
          NATIVE_TOKEN_ADDRESS,
          expected,
          v4Program(s.pools.nativeA, A.address, amountIn, receiver.account.address),
        ),
      );
      expect((await nativeBalance(receiver.account.address)) - receiverEth).toBe(expected);
      await expectV4Clean();
    });

    test("ERC20 → native into the executor (its receive accepts during a program), then swept", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A } = world.tokens;
      const amountIn = parseUnits("600", 18);
      const expected = await quote(s.pools.nativeA, A.address, amountIn);
      await approve(user, A.address, s.layer.router, amountIn);
      const receiverEth = await nativeBalance(receiver.account.address);
      const program = v4Program(s.pools.nativeA, A.address, amountIn, s.layer.executor, (p) =>
        addSweep(p, {
          executor: s.layer.executor,
          token: NATIVE_TOKEN_ADDRESS,
          to: receiver.account.address,
        }),
      );
      await sendOk(
        s.v4World,
        user,
        routeTx(A.address, amountIn, NATIVE_TOKEN_ADDRESS, expected, program),
      );
      expect((await nativeBalance(receiver.account.address)) - receiverEth).toBe(expected);
      await expectV4Clean();
    });
  });

  describe("swaps through UniswapV4Router pay exactly the quote", () => {
    test("ERC20 → ERC20: B for A, pulled from the caller straight into the pool manager", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A, B } = world.tokens;
      const amountIn = parseUnits("3000", 6);
      const expected = await quote(s.pools.AB, B.address, amountIn);
      await approve(user, B.address, s.layer.uniswapV4Router, amountIn);
      const userB = await balanceOf(world, B.address, user.account.address);
      const managerB = await balanceOf(world, B.address, s.poolManager);
      const tx = swapExactIn(s.pools.AB, B.address, amountIn, expected, receiver.account.address);
      const { result } = await world.client.simulateContract({
        account: user.account,
        address: tx.to,
        abi: UniswapV4RouterAbi,
        functionName: "swapExactIn",
        args: [
          ...keyArgs(s.pools.AB),
          zeroForOne(s.pools.AB, B.address),
          amountIn,
          expected,
          receiver.account.address,
        ],
      });
      expect(result).toBe(expected);
      await sendOk(s.v4World, user, tx);
      expect(await balanceOf(world, A.address, receiver.account.address)).toBe(expected);
      expect(userB - (await balanceOf(world, B.address, user.account.address))).toBe(amountIn);
      expect((await balanceOf(world, B.address, s.poolManager)) - managerB).toBe(amountIn);
      expect(
        await world.client.readContract({
          address: B.address,
          abi: DevTokenAbi,
          functionName: "allowance",
          args: [user.account.address, s.layer.uniswapV4Router],
        }),
      ).toBe(0n);
      await expectV4Clean();
    });

    test("native → ERC20: msg.value is the input, settled whole", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A } = world.tokens;
      const amountIn = parseEther("2");
      const expected = await quote(s.pools.nativeA, zeroAddress, amountIn);
      const userEth = await nativeBalance(user.account.address);
      const receipt = await sendOk(
        s.v4World,
        user,
        swapExactIn(s.pools.nativeA, zeroAddress, amountIn, expected, receiver.account.address),
      );
      expect(await balanceOf(world, A.address, receiver.account.address)).toBe(expected);
      expect(userEth - (await nativeBalance(user.account.address))).toBe(
        amountIn + gasCost(receipt),
      );
      await expectV4Clean();
    });

    test("ERC20 → native: the manager pays the recipient", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A } = world.tokens;
      const amountIn = parseUnits("600", 18);
      const expected = await quote(s.pools.nativeA, A.address, amountIn);
      await approve(user, A.address, s.layer.uniswapV4Router, amountIn);
      const receiverEth = await nativeBalance(receiver.account.address);
      await sendOk(
        s.v4World,
        user,
        swapExactIn(s.pools.nativeA, A.address, amountIn, expected, receiver.account.address),
      );
      expect((await nativeBalance(receiver.account.address)) - receiverEth).toBe(expected);
      await expectV4Clean();
    });

    test("a CoreWallet program: exact approval to the V4 router, swap, native output to the owner, no allowance left", async () => {
      const { world } = s;
      const { user } = world.accounts;
      const { A } = world.tokens;
      const owner = user.account.address;
      const wallet = await world.client.readContract({
        address: s.layer.walletFactory,
        abi: CoreWalletFactoryAbi,
        functionName: "walletOf",
        args: [owner],
      });
      const amountIn = parseUnits("600", 18);
      const expected = await quote(s.pools.nativeA, A.address, amountIn);
      await approve(user, A.address, wallet, amountIn);
      const planner = new ProgramPlanner();
      addApprove(planner, { token: A.address, spender: s.layer.uniswapV4Router, amount: amountIn });
      planner.add({
        target: s.layer.uniswapV4Router,
        fn: getAbiItem({ abi: UniswapV4RouterAbi, name: "swapExactIn" }),
        args: [
          ...keyArgs(s.pools.nativeA),
          zeroForOne(s.pools.nativeA, A.address),
          amountIn,
          expected,
          owner,
        ],
      });
      const tx = encodeCoreWalletTx({
        walletFactory: s.layer.walletFactory,
        from: owner,
        tokenIn: A.address,
        amountIn,
        program: planner.plan(),
      });
      const ownerEth = await nativeBalance(owner);
      const ownerA = await balanceOf(world, A.address, owner);
      const receipt = await sendOk(s.v4World, user, tx, { allowanceOwners: [wallet] });
      expect((await nativeBalance(owner)) - ownerEth).toBe(expected - gasCost(receipt));
      expect(ownerA - (await balanceOf(world, A.address, owner))).toBe(amountIn);
      expect(await balanceOf(world, A.address, wallet)).toBe(0n);
      expect(await nativeBalance(wallet)).toBe(0n);
      expect(
        await world.client.readContract({
          address: A.address,
          abi: DevTokenAbi,
          functionName: "allowance",
          args: [wallet, s.layer.uniswapV4Router],
        }),
      ).toBe(0n);
      await expectV4Clean();
    });
  });

  describe("what the V4 swaps refuse", () => {
    test("direct calls to the executor's uniswapV4Swap are refused", async () => {
      const { world } = s;
      const { attacker } = world.accounts;
      await expectRevert(
        world,
        attacker,
        {
          to: s.layer.executor,
          data: encodeFunctionData({
            abi: RouterExecutorAbi,
            functionName: "uniswapV4Swap",
            args: [...keyArgs(s.pools.AB), true, 1n, attacker.account.address],
          }),
        },
        errorData(errorsAbi, "NotSelf", [attacker.account.address]),
      );
    });

    test("without a pool manager (a chain without V4) both revert UniswapV4NotConfigured", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A, B } = world.tokens;
      const amountIn = parseUnits("1", 18);
      // The world's own layer was deployed without a pool manager.
      expect(
        await world.client.readContract({
          address: world.execution.executor,
          abi: RouterExecutorAbi,
          functionName: "uniswapV4PoolManager",
        }),
      ).toBe(zeroAddress);
      await approve(user, A.address, world.execution.router, amountIn);
      const planner = new ProgramPlanner();
      planner.add({
        target: world.execution.executor,
        fn: v4SwapFn,
        args: [
          ...keyArgs(s.pools.AB),
          zeroForOne(s.pools.AB, A.address),
          amountIn,
          receiver.account.address,
        ],
      });
      await expectRevert(
        world,
        user,
        routeTx(A.address, amountIn, B.address, 1n, planner.plan(), world.execution.router),
        executionFailed(
          0,
          world.execution.executor,
          errorData(errorsAbi, "UniswapV4NotConfigured"),
        ),
      );
      const router = await deploy(loadArtifact("UniswapV4Router"), [zeroAddress]);
      await approve(user, A.address, router, amountIn);
      await expectRevert(
        world,
        user,
        swapExactIn(s.pools.AB, A.address, amountIn, 1n, receiver.account.address, router),
        errorData(errorsAbi, "UniswapV4NotConfigured"),
      );
    });

    test("a swap that runs out of liquidity before taking all its input reverts UniswapV4PartialFill", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A, C } = world.tokens;
      const key = s.pools.narrowAC;
      const amountIn = parseUnits("10000", 18);
      // What the pool takes of it, from the real manager through the devnet swap helper.
      await approve(user, A.address, s.swapHelper, amountIn);
      const { result: delta } = await world.client.simulateContract({
        account: user.account,
        address: s.swapHelper,
        abi: V4SwapHelperAbi,
        functionName: "swap",
        args: [key, zeroForOne(key, A.address), -amountIn, 0n],
      });
      const packed = BigInt(delta);
      const amount0 = BigInt.asIntN(128, packed >> 128n);
      const amount1 = BigInt.asIntN(128, packed);
      const taken = zeroForOne(key, A.address) ? amount0 : amount1;
      // Some, not all, of the input: the pool's liquidity ends before the price limit.
      expect(-taken > 0n && -taken < amountIn).toBe(true);
      await approve(user, A.address, s.layer.router, amountIn);
      await expectRevert(
        world,
        user,
        routeTx(
          A.address,
          amountIn,
          C.address,
          1n,
          v4Program(key, A.address, amountIn, receiver.account.address),
        ),
        executionFailed(
          0,
          s.layer.executor,
          errorData(errorsAbi, "UniswapV4PartialFill", [amountIn, taken]),
        ),
      );
      await approve(user, A.address, s.layer.uniswapV4Router, amountIn);
      await expectRevert(
        world,
        user,
        swapExactIn(key, A.address, amountIn, 1n, receiver.account.address),
        errorData(errorsAbi, "UniswapV4PartialFill", [amountIn, taken]),
      );
    });

    test("a swap whose output rounds to zero reverts UniswapV4NoOutput", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A, B } = world.tokens;
      // 1 wei of A (18 decimals) is worth 10^-11 of B's smallest unit, and the fee takes it.
      expect(await quote(s.pools.AB, A.address, 1n)).toBe(0n);
      await approve(user, A.address, s.layer.router, 1n);
      await expectRevert(
        world,
        user,
        routeTx(
          A.address,
          1n,
          B.address,
          1n,
          v4Program(s.pools.AB, A.address, 1n, receiver.account.address),
        ),
        executionFailed(0, s.layer.executor, errorData(errorsAbi, "UniswapV4NoOutput", [0n])),
      );
      await approve(user, A.address, s.layer.uniswapV4Router, 1n);
      await expectRevert(
        world,
        user,
        swapExactIn(s.pools.AB, A.address, 1n, 0n, receiver.account.address),
        errorData(errorsAbi, "UniswapV4NoOutput", [0n]),
      );
    });

    test("UniswapV4Router: amounts out of range, msg.value not the native input, output below the minimum, bad recipients", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A } = world.tokens;
      const to = receiver.account.address;
      await approve(user, A.address, s.layer.uniswapV4Router, 2n ** 255n);
      for (const amountIn of [0n, 2n ** 127n]) {
        await expectRevert(
          world,
          user,
          swapExactIn(s.pools.AB, A.address, amountIn, 0n, to),
          errorData(errorsAbi, "InvalidUniswapV4AmountIn", [amountIn]),
        );
      }
      const ethIn = parseEther("1");
      const native = swapExactIn(s.pools.nativeA, zeroAddress, ethIn, 1n, to);
      for (const value of [ethIn - 1n, ethIn + 1n, 0n]) {
        await expectRevert(
          world,
          user,
          { ...native, value },
          errorData(errorsAbi, "MsgValueMismatch", [ethIn, value]),
        );
      }
      const erc20 = swapExactIn(s.pools.nativeA, A.address, parseUnits("1", 18), 1n, to);
      await expectRevert(
        world,
        user,
        { ...erc20, value: 1n },
        errorData(errorsAbi, "MsgValueMismatch", [0n, 1n]),
      );
      const expected = await quote(s.pools.nativeA, zeroAddress, ethIn);
      await expectRevert(
        world,
        user,
        swapExactIn(s.pools.nativeA, zeroAddress, ethIn, expected + 1n, to),
        errorData(errorsAbi, "InsufficientOutput", [A.address, to, expected, expected + 1n]),
      );
      for (const recipient of [zeroAddress, s.layer.uniswapV4Router]) {
        await expectRevert(
          world,
          user,
          swapExactIn(s.pools.nativeA, zeroAddress, ethIn, 1n, recipient),
          errorData(errorsAbi, "InvalidRecipient", [recipient]),
        );
      }
      await expectV4Clean();
    });
  });

  describe("attacks", () => {
    /** The victim approved the V4 router for A without much limit, as a wallet might. */
    const victimApproves = async (): Promise<bigint> => {
      const { victim } = s.world.accounts;
      const allowance = parseUnits("1000000000", 18);
      await approve(victim, s.world.tokens.A.address, s.layer.uniswapV4Router, allowance);
      return allowance;
    };
    const victimState = async () => {
      const victim = s.world.accounts.victim.account.address;
      const { A, B } = s.world.tokens;
      return [
        await balanceOf(s.world, A.address, victim),
        await balanceOf(s.world, B.address, victim),
        await s.world.client.readContract({
          address: A.address,
          abi: DevTokenAbi,
          functionName: "allowance",
          args: [victim, s.layer.uniswapV4Router],
        }),
      ];
    };

    test("a fake pool manager calling unlockCallback with crafted data is refused by both, in and out of a program", async () => {
      const { world } = s;
      const { attacker, user, victim } = world.accounts;
      const { A, B } = world.tokens;
      await victimApproves();
      const before = await victimState();
      const key = s.pools.AB;
      const unexpected = (caller: Address) =>
        errorData(errorsAbi, "UnexpectedUnlockCaller", [caller, s.poolManager]);
      const claim = (victimContract: Address, data: Hex): TxRequest => ({
        to: s.fakeManager,
        data: encodeFunctionData({
          abi: FakeUniswapV4PoolManagerAbi,
          functionName: "claim",
          args: [victimContract, data],
        }),
      });
      const amount = parseUnits("1000", 18);
      // The V4 router asked to pull the victim's approved A to the attacker.
      const fromVictim = unlockData(
        key,
        zeroForOne(key, A.address),
        amount,
        victim.account.address,
        attacker.account.address,
      );
      await expectRevert(
        world,
        attacker,
        claim(s.layer.uniswapV4Router, fromVictim),
        unexpected(s.fakeManager),
      );
      // The executor asked to pay out of its own balance, outside a program...
      const fromExecutor = unlockData(
        key,
        zeroForOne(key, A.address),
        amount,
        s.layer.executor,
        attacker.account.address,
      );
      await expectRevert(
        world,
        attacker,
        claim(s.layer.executor, fromExecutor),
        unexpected(s.fakeManager),
      );
      // ... or by an EOA ...
      for (const target of [s.layer.executor, s.layer.uniswapV4Router]) {
        await expectRevert(
          world,
          attacker,
          {
            to: target,
            data: encodeFunctionData({
              abi: UniswapV4RouterAbi,
              functionName: "unlockCallback",
              args: [target === s.layer.executor ? fromExecutor : fromVictim],
            }),
          },
          unexpected(attacker.account.address),
        );
      }
      // ... or inside a program, while the executor holds the user's input.
      await approve(user, A.address, s.layer.router, amount);
      const planner = new ProgramPlanner();
      planner.add({ target: s.fakeManager, fn: claimFn, args: [s.layer.executor, fromExecutor] });
      await expectRevert(
        world,
        user,
        routeTx(A.address, amount, B.address, 1n, planner.plan()),
        executionFailed(0, s.fakeManager, unexpected(s.fakeManager)),
      );
      expect(await victimState()).toEqual(before);
    });

    test("a V4 router configured with a fake manager still cannot be called back with another payer's data", async () => {
      const { world } = s;
      const { attacker, victim } = world.accounts;
      const { A } = world.tokens;
      const key = s.pools.AB;
      const router = await deploy(loadArtifact("UniswapV4Router"), [s.fakeManager]);
      await approve(victim, A.address, router, parseUnits("1000000", 18));
      const before = await balanceOf(world, A.address, victim.account.address);
      // The manager calls back with data naming the victim as payer instead of the caller.
      await write(attacker, s.fakeManager, FakeUniswapV4PoolManagerAbi, "setForged", [
        unlockData(
          key,
          true,
          parseUnits("1000", 18),
          victim.account.address,
          attacker.account.address,
        ),
      ]);
      await approve(attacker, A.address, router, 1n);
      await expectRevert(
        world,
        attacker,
        swapExactIn(key, A.address, 1n, 0n, attacker.account.address, router),
        errorData(errorsAbi, "NoUniswapV4SwapInProgress"),
      );
      expect(await balanceOf(world, A.address, victim.account.address)).toBe(before);
    });

    test("the real pool manager calling back out of turn is refused: outside a program, with no swap in progress", async () => {
      const { world } = s;
      const { attacker, user, victim } = world.accounts;
      const { A, B } = world.tokens;
      await victimApproves();
      const before = await victimState();
      const key = s.pools.AB;
      const amount = parseUnits("1000", 18);
      await world.test.impersonateAccount({ address: s.poolManager });
      await world.test.setBalance({ address: s.poolManager, value: parseEther("1") });
      const asManager = createWalletClient({
        account: s.poolManager,
        chain: world.chain,
        transport: http(anvil.url),
      }) as unknown as Wallet;
      const callback = (target: Address, data: Hex): TxRequest => ({
        to: target,
        data: encodeFunctionData({
          abi: UniswapV4RouterAbi,
          functionName: "unlockCallback",
          args: [data],
        }),
      });
      await expectRevert(
        world,
        asManager,
        callback(
          s.layer.executor,
          unlockData(key, true, amount, s.layer.executor, attacker.account.address),
        ),
        errorData(errorsAbi, "NotExecuting"),
      );
      await expectRevert(
        world,
        asManager,
        callback(
          s.layer.uniswapV4Router,
          unlockData(
            key,
            zeroForOne(key, A.address),
            amount,
            victim.account.address,
            attacker.account.address,
          ),
        ),
        errorData(errorsAbi, "NoUniswapV4SwapInProgress"),
      );
      await world.test.stopImpersonatingAccount({ address: s.poolManager });
      // A program unlocking the manager itself: the manager calls the executor back while a
      // program runs, but with data the executor did not send.
      await approve(user, A.address, s.layer.router, amount);
      const planner = new ProgramPlanner();
      planner.add({
        target: s.poolManager,
        fn: unlockFn,
        args: [
          unlockData(
            key,
            zeroForOne(key, A.address),
            amount,
            s.layer.executor,
            attacker.account.address,
          ),
        ],
      });
      await expectRevert(
        world,
        user,
        routeTx(A.address, amount, B.address, 1n, planner.plan()),
        executionFailed(0, s.poolManager, errorData(errorsAbi, "NoUniswapV4SwapInProgress")),
      );
      expect(await victimState()).toEqual(before);
    });

    /** Arms the reentrant hook of `hookedAB` (the attacker's own contract). */
    const armHook = async (target: Address, payload: Hex, bubble = false) =>
      await write(s.world.accounts.attacker, HOOK_ADDRESS, ReentrantV4HookAbi, "arm", [
        target,
        payload,
        bubble,
      ]);
    /** What the hook recorded of its attempts. */
    const hookRecord = async () => {
      const read = (functionName: "attempts" | "lastSucceeded" | "lastReturnData") =>
        s.world.client.readContract({
          address: HOOK_ADDRESS,
          abi: ReentrantV4HookAbi,
          functionName,
        });
      return {
        attempts: await read("attempts"),
        succeeded: await read("lastSucceeded"),
        returnData: await read("lastReturnData"),
      };
    };
    const expectHookEmpty = async () => {
      const { A, B } = s.world.tokens;
      for (const token of [A.address, B.address, NATIVE_TOKEN_ADDRESS]) {
        expect(await balanceOf(s.world, token, HOOK_ADDRESS)).toBe(0n);
      }
    };

    test("a reentrant hook gains nothing from a route: the executor's uniswapV4Swap, unlockCallback and execute refuse it, and the receiver gets exactly the quote", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A, B } = world.tokens;
      const key = s.pools.hookedAB;
      const amountIn = parseUnits("100", 18);
      const sweep = new ProgramPlanner();
      addSweep(sweep, { executor: s.layer.executor, token: A.address, to: HOOK_ADDRESS });
      const sweepToHook = sweep.plan();
      const ab = s.pools.AB;
      // While the hook runs, the executor holds the route's input (paid after the swap).
      const attempts = [
        {
          name: "uniswapV4Swap of the executor's input to the hook",
          payload: encodeFunctionData({
            abi: RouterExecutorAbi,
            functionName: "uniswapV4Swap",
            args: [...keyArgs(ab), zeroForOne(ab, A.address), amountIn, HOOK_ADDRESS],
          }),
          error: errorData(errorsAbi, "NotSelf", [HOOK_ADDRESS]),
        },
        {
          name: "unlockCallback paying from the executor to the hook",
          payload: encodeFunctionData({
            abi: RouterExecutorAbi,
            functionName: "unlockCallback",
            args: [
              unlockData(ab, zeroForOne(ab, A.address), amountIn, s.layer.executor, HOOK_ADDRESS),
            ],
          }),
          error: errorData(errorsAbi, "UnexpectedUnlockCaller", [HOOK_ADDRESS, s.poolManager]),
        },
        {
          name: "execute of a sweep to the hook",
          payload: encodeFunctionData({
            abi: RouterExecutorAbi,
            functionName: "execute",
            args: [sweepToHook.commands, sweepToHook.state],
          }),
          error: errorData(errorsAbi, "NotRouter", [HOOK_ADDRESS]),
        },
      ];
      for (const [i, attempt] of attempts.entries()) {
        await armHook(s.layer.executor, attempt.payload);
        const expected = await quote(key, A.address, amountIn);
        await approve(user, A.address, s.layer.router, amountIn);
        const before = await balanceOf(world, B.address, receiver.account.address);
        await sendOk(
          s.v4World,
          user,
          routeTx(
            A.address,
            amountIn,
            B.address,
            expected,
            v4Program(key, A.address, amountIn, receiver.account.address),
          ),
        );
        const received = (await balanceOf(world, B.address, receiver.account.address)) - before;
        expect({ attempt: attempt.name, received }).toEqual({
          attempt: attempt.name,
          received: expected,
        });
        expect({ attempt: attempt.name, ...(await hookRecord()) }).toEqual({
          attempt: attempt.name,
          attempts: BigInt(i + 1),
          succeeded: false,
          returnData: attempt.error,
        });
      }
      await expectHookEmpty();
      await expectV4Clean();
    });

    test("a reentrant hook cannot spend an approval of the V4 router: its callback refuses the hook, a nested swap finds the manager unlocked", async () => {
      const { world } = s;
      const { victim } = world.accounts;
      const { A, B } = world.tokens;
      const key = s.pools.hookedAB;
      const ab = s.pools.AB;
      const amountIn = parseUnits("100", 18);
      await victimApproves();
      const attempts = [
        {
          name: "unlockCallback pulling the victim's A to the hook",
          payload: encodeFunctionData({
            abi: UniswapV4RouterAbi,
            functionName: "unlockCallback",
            args: [
              unlockData(
                ab,
                zeroForOne(ab, A.address),
                parseUnits("10000", 18),
                victim.account.address,
                HOOK_ADDRESS,
              ),
            ],
          }),
          error: errorData(errorsAbi, "UnexpectedUnlockCaller", [HOOK_ADDRESS, s.poolManager]),
        },
        {
          name: "a nested swapExactIn",
          payload: encodeFunctionData({
            abi: UniswapV4RouterAbi,
            functionName: "swapExactIn",
            args: [...keyArgs(ab), zeroForOne(ab, A.address), amountIn, 0n, HOOK_ADDRESS],
          }),
          error: errorData(errorsAbi, "AlreadyUnlocked"),
        },
      ];
      for (const [i, attempt] of attempts.entries()) {
        await armHook(s.layer.uniswapV4Router, attempt.payload);
        const expected = await quote(key, A.address, amountIn);
        const [a, b, allowance] = await victimState();
        await sendOk(
          s.v4World,
          victim,
          swapExactIn(key, A.address, amountIn, expected, victim.account.address),
        );
        expect({ attempt: attempt.name, state: await victimState() }).toEqual({
          attempt: attempt.name,
          state: [(a ?? 0n) - amountIn, (b ?? 0n) + expected, (allowance ?? 0n) - amountIn],
        });
        expect({ attempt: attempt.name, ...(await hookRecord()) }).toEqual({
          attempt: attempt.name,
          attempts: BigInt(i + 1),
          succeeded: false,
          returnData: attempt.error,
        });
      }
      expect(await balanceOf(world, B.address, HOOK_ADDRESS)).toBe(0n);
      await expectHookEmpty();
      await expectV4Clean();
    });

    test("a hook that reverts with the refused reentry reverts the swap, the reason wrapped by the manager", async () => {
      const { world } = s;
      const { user, receiver, victim } = world.accounts;
      const { A, B } = world.tokens;
      const key = s.pools.hookedAB;
      const ab = s.pools.AB;
      const amountIn = parseUnits("100", 18);
      const wrapped = (reason: Hex) =>
        errorData(errorsAbi, "WrappedError", [
          HOOK_ADDRESS,
          BEFORE_SWAP_SELECTOR,
          reason,
          HOOK_CALL_FAILED_SELECTOR,
        ]);
      await armHook(
        s.layer.executor,
        encodeFunctionData({
          abi: RouterExecutorAbi,
          functionName: "uniswapV4Swap",
          args: [...keyArgs(ab), zeroForOne(ab, A.address), amountIn, HOOK_ADDRESS],
        }),
        true,
      );
      await approve(user, A.address, s.layer.router, amountIn);
      await expectRevert(
        world,
        user,
        routeTx(
          A.address,
          amountIn,
          B.address,
          1n,
          v4Program(key, A.address, amountIn, receiver.account.address),
        ),
        executionFailed(
          0,
          s.layer.executor,
          wrapped(errorData(errorsAbi, "NotSelf", [HOOK_ADDRESS])),
        ),
      );
      await victimApproves();
      const before = await victimState();
      await armHook(
        s.layer.uniswapV4Router,
        encodeFunctionData({
          abi: UniswapV4RouterAbi,
          functionName: "unlockCallback",
          args: [
            unlockData(
              ab,
              zeroForOne(ab, A.address),
              amountIn,
              victim.account.address,
              HOOK_ADDRESS,
            ),
          ],
        }),
        true,
      );
      await expectRevert(
        world,
        victim,
        swapExactIn(key, A.address, amountIn, 1n, victim.account.address),
        wrapped(errorData(errorsAbi, "UnexpectedUnlockCaller", [HOOK_ADDRESS, s.poolManager])),
      );
      expect(await victimState()).toEqual(before);
      await expectHookEmpty();
    });
  });

  test("gas: one V4 swap through the router executor, one V3 swap, one UniswapV4Router swap", async () => {
    const { world } = s;
    const { user, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const to = receiver.account.address;
    const amountIn = parseUnits("100", 18);
    // The receiver already holds B, so each swap's credit to it costs the same.
    await write(user, B.address, DevTokenAbi, "transfer", [to, 1n]);
    // A later block than the V3 pool's last observation, as a swap on a live chain meets it: the
    // pool then writes an oracle observation (about 4,000 gas), whatever the wall clock did.
    await world.test.increaseTime({ seconds: 12 });
    const v3Pool = world.uniswapV3.pools.AB;
    const v3Expected = await quoteV3(world, v3Pool, A.address, amountIn);
    const v3Planner = new ProgramPlanner();
    addUniswapV3PoolSwap(v3Planner, {
      executor: s.layer.executor,
      pool: v3Pool.address,
      tokenIn: A.address,
      tokenOut: B.address,
      fee: v3Pool.fee,
      amountIn,
      recipient: to,
      amountOut: false,
    });
    await approve(user, A.address, s.layer.router, amountIn);
    let before = await balanceOf(world, B.address, to);
    const v3 = await sendOk(
      s.v4World,
      user,
      routeTx(A.address, amountIn, B.address, v3Expected, v3Planner.plan()),
    );
    expect((await balanceOf(world, B.address, to)) - before).toBe(v3Expected);

    const v4Expected = await quote(s.pools.AB, A.address, amountIn);
    await approve(user, A.address, s.layer.router, amountIn);
    before = await balanceOf(world, B.address, to);
    const v4 = await sendOk(
      s.v4World,
      user,
      routeTx(
        A.address,
        amountIn,
        B.address,
        v4Expected,
        v4Program(s.pools.AB, A.address, amountIn, to),
      ),
    );
    expect((await balanceOf(world, B.address, to)) - before).toBe(v4Expected);

    const direct = await quote(s.pools.AB, A.address, amountIn);
    await approve(user, A.address, s.layer.uniswapV4Router, amountIn);
    before = await balanceOf(world, B.address, to);
    const v4Router = await sendOk(
      s.v4World,
      user,
      swapExactIn(s.pools.AB, A.address, amountIn, direct, to),
    );
    expect((await balanceOf(world, B.address, to)) - before).toBe(direct);

    // Native input: settled with the call's value (no sync, no token transfer).
    const ethIn = parseEther("1");
    const nativeExpected = await quote(s.pools.nativeA, zeroAddress, ethIn);
    await write(user, A.address, DevTokenAbi, "transfer", [to, 1n]);
    before = await balanceOf(world, A.address, to);
    const v4Native = await sendOk(
      s.v4World,
      user,
      routeTx(
        NATIVE_TOKEN_ADDRESS,
        ethIn,
        A.address,
        nativeExpected,
        v4Program(s.pools.nativeA, zeroAddress, ethIn, to),
      ),
    );
    expect((await balanceOf(world, A.address, to)) - before).toBe(nativeExpected);
    const diff = v4.gasUsed - v3.gasUsed;
    console.log(
      `gas used, 100 A for B: ShortcutRouter + V3 pool ${v3.gasUsed}, ShortcutRouter + V4 (uniswapV4Swap) ${v4.gasUsed} (${diff >= 0n ? "+" : ""}${diff}), UniswapV4Router.swapExactIn ${v4Router.gasUsed}; 1 ETH for A: ShortcutRouter + V4 ${v4Native.gasUsed}`,
    );
  });
});
