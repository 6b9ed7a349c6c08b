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
import { describe, expect, test } from "vitest";
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
import { readNpmArtifact } from "../devnet/artifacts.js";
import { deployExecutionLayer, type ExecutionLayer } from "../devnet/execution.js";
import { devnetReceipt } from "../devnet/receipts.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/core/native.js";
import { encodeCoreWalletTx, encodeRouterSwapTx } from "../engine/program/encode.js";
import { addSweep } from "../engine/program/execution-steps.js";
import { ProgramPlanner } from "../engine/program/planner.js";
import { addApprove } from "../engine/program/protocol-steps.js";
import { addUniswapV3PoolSwap } from "../engine/protocols/uniswap-v3/steps.js";
import {
  allErrorsAbi,
  approve,
  balanceOf,
  errorData,
  expectRevert,
  gasCost,
  sendOk,
  type TxRequest,
  useExecutionWorld,
} from "./execution/harness.js";
import { quoteV3 } from "./execution/quotes.js";
import { type ExecutionWorld, sqrt, type Wallet } from "./execution/world.js";

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
const swapExactInFn = getAbiItem({ abi: UniswapV4RouterAbi, name: "swapExactIn" });
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

/** RouterExecutor.uniswapV4Swap's arguments: `amountIn` of `tokenIn` sold on `key`. */
function v4SwapArgs(key: PoolKey, tokenIn: Address, amountIn: bigint, recipient: Address) {
  return [...keyArgs(key), zeroForOne(key, tokenIn), amountIn, recipient] as const;
}

/** UniswapV4Router.swapExactIn's arguments: `amountIn` of `tokenIn` sold on `key`. */
function swapExactInArgs(
  key: PoolKey,
  tokenIn: Address,
  amountIn: bigint,
  amountOutMinimum: bigint,
  recipient: Address,
) {
  return [
    ...keyArgs(key),
    zeroForOne(key, tokenIn),
    amountIn,
    amountOutMinimum,
    recipient,
  ] as const;
}

/**
 * The unlock data the settlement contracts encode: key, direction (selling `tokenIn`), amount,
 * payer, recipient.
 */
function unlockData(
  key: PoolKey,
  tokenIn: Address,
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
    [key, zeroForOne(key, tokenIn), amountIn, payer, recipient],
  );
}

/** Calldata of unlockCallback(data), which the executor and the V4 router both expose. */
const unlockCallbackCall = (data: Hex): Hex =>
  encodeFunctionData({ abi: UniswapV4RouterAbi, functionName: "unlockCallback", args: [data] });

/** A token of the world by symbol, native ether as 0xeeee…. */
type TokenSymbol = "A" | "B" | "C" | "ETH";

/** A row of the swap tables: a pool of the suite, the tokens by symbol, the input. */
type SwapCase = {
  name: string;
  pool: keyof Suite["pools"];
  tokenIn: TokenSymbol;
  tokenOut: TokenSymbol;
  amountIn: bigint;
};

describe("Uniswap V4 in the execution layer", () => {
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

  useExecutionWorld(async (world) => {
    s.world = world;
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
      await approve(world, world.accounts.deployer, token, liquidityHelper, 2n ** 255n);
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
  });

  /** The token of `symbol`, native ether as 0xeeee…. */
  const token = (symbol: TokenSymbol): Address =>
    symbol === "ETH" ? NATIVE_TOKEN_ADDRESS : s.world.tokens[symbol].address;
  /** `token` as a V4 currency: native is address(0). */
  const currency = (token: Address): Address =>
    token === NATIVE_TOKEN_ADDRESS ? zeroAddress : token;

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
    options: { executor?: Address; next?: (planner: ProgramPlanner) => void } = {},
  ) => {
    const planner = new ProgramPlanner();
    planner.add({
      target: options.executor ?? s.layer.executor,
      fn: v4SwapFn,
      args: v4SwapArgs(key, tokenIn, amountIn, recipient),
      label: "swap on uniswap v4",
    });
    options.next?.(planner);
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
      args: swapExactInArgs(key, tokenIn, amountIn, amountOutMinimum, recipient),
    }),
    value: tokenIn === zeroAddress ? amountIn : 0n,
  });

  const allowance = (token: Address, owner: Address, spender: Address) =>
    s.world.client.readContract({
      address: token,
      abi: DevTokenAbi,
      functionName: "allowance",
      args: [owner, spender],
    });

  /** Native balance of `account` (as 0xeeee…). */
  const nativeBalance = (account: Address) => balanceOf(s.world, NATIVE_TOKEN_ADDRESS, account);

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

  /**
   * Sends the user's V4 swap `tx`, an ERC20 input first approved to `spender` for exactly
   * `amountIn`, and asserts its settlement to the wei: the user paid `amountIn`, `to` (default
   * the receiver) got `expected`, the pool manager took `amountIn`, the approval is used up and
   * the V4 contracts hold nothing. `label` names the case in failure messages.
   */
  const expectSwapPays = async (swap: {
    tx: TxRequest;
    spender: Address;
    tokenIn: Address;
    amountIn: bigint;
    tokenOut: Address;
    expected: bigint;
    to?: Address;
    allowanceOwners?: readonly Address[];
    label?: string;
  }): Promise<TransactionReceipt> => {
    const { world } = s;
    const { user } = world.accounts;
    const payer = user.account.address;
    const { tokenIn, tokenOut, amountIn, label } = swap;
    const to = swap.to ?? world.accounts.receiver.account.address;
    const nativeIn = tokenIn === NATIVE_TOKEN_ADDRESS;
    if (!nativeIn) await approve(world, user, tokenIn, swap.spender, amountIn);
    const read = () =>
      Promise.all([
        balanceOf(world, tokenIn, payer),
        balanceOf(world, tokenOut, to),
        balanceOf(world, tokenIn, s.poolManager),
      ]);
    const [payerBefore, toBefore, managerBefore] = await read();
    const receipt = await sendOk(s.v4World, user, swap.tx, {
      allowanceOwners: swap.allowanceOwners,
    });
    const [payerAfter, toAfter, managerAfter] = await read();
    // The user's gas is part of a native amount it pays, and comes off one it receives.
    const gas = (account: Address, token: Address) =>
      account === payer && token === NATIVE_TOKEN_ADDRESS ? gasCost(receipt) : 0n;
    expect(
      {
        paid: payerBefore - payerAfter,
        received: toAfter - toBefore,
        taken: managerAfter - managerBefore,
      },
      label,
    ).toEqual({
      paid: amountIn + gas(payer, tokenIn),
      received: swap.expected - gas(to, tokenOut),
      taken: amountIn,
    });
    if (!nativeIn) expect(await allowance(tokenIn, payer, swap.spender), label).toBe(0n);
    await expectV4Clean();
    return receipt;
  };

  /**
   * Both V4 settlements refuse the user's sale of `amountIn` of the ERC20 `tokenIn` on `key`
   * with exactly `error`: a route whose one step is `layer`'s uniswapV4Swap (step 0 failing) and
   * `v4Router`'s swapExactIn, each after an exact approval.
   */
  const expectBothRevert = async (refused: {
    key: PoolKey;
    tokenIn: Address;
    tokenOut: Address;
    amountIn: bigint;
    error: Hex;
    layer?: ExecutionLayer;
    v4Router?: Address;
    /** swapExactIn's amountOutMinimum (the route's is 1). */
    v4RouterMinOut?: bigint;
  }): Promise<void> => {
    const { world } = s;
    const { user, receiver } = world.accounts;
    const { key, tokenIn, tokenOut, amountIn, error, layer = s.layer } = refused;
    const v4Router = refused.v4Router ?? s.layer.uniswapV4Router;
    const to = receiver.account.address;
    await approve(world, user, tokenIn, layer.router, amountIn);
    await expectRevert(
      world,
      user,
      routeTx(
        tokenIn,
        amountIn,
        tokenOut,
        1n,
        v4Program(key, tokenIn, amountIn, to, { executor: layer.executor }),
        layer.router,
      ),
      executionFailed(0, layer.executor, error),
    );
    await approve(world, user, tokenIn, v4Router, amountIn);
    await expectRevert(
      world,
      user,
      swapExactIn(key, tokenIn, amountIn, refused.v4RouterMinOut ?? 1n, to, v4Router),
      error,
    );
  };

  describe("swaps through the router executor pay exactly the quote", () => {
    const swaps: (SwapCase & { swept?: boolean })[] = [
      {
        name: "ERC20 → ERC20: A for B",
        pool: "AB",
        tokenIn: "A",
        tokenOut: "B",
        amountIn: parseUnits("250", 18),
      },
      {
        name: "native → ERC20: ETH for A, the router forwarding msg.value to the executor",
        pool: "nativeA",
        tokenIn: "ETH",
        tokenOut: "A",
        amountIn: parseEther("2"),
      },
      {
        name: "ERC20 → native: A for ETH, taken by the pool manager straight to the receiver",
        pool: "nativeA",
        tokenIn: "A",
        tokenOut: "ETH",
        amountIn: parseUnits("600", 18),
      },
      {
        name: "ERC20 → native into the executor (its receive accepts during a program), then swept",
        pool: "nativeA",
        tokenIn: "A",
        tokenOut: "ETH",
        amountIn: parseUnits("600", 18),
        swept: true,
      },
    ];
    for (const { name, pool, amountIn, swept, ...symbols } of swaps) {
      test(name, async () => {
        const key = s.pools[pool];
        const [tokenIn, tokenOut] = [token(symbols.tokenIn), token(symbols.tokenOut)];
        const receiver = s.world.accounts.receiver.account.address;
        const expected = await quote(key, currency(tokenIn), amountIn);
        const program = swept
          ? v4Program(key, currency(tokenIn), amountIn, s.layer.executor, {
              next: (planner) =>
                addSweep(planner, { executor: s.layer.executor, token: tokenOut, to: receiver }),
            })
          : v4Program(key, currency(tokenIn), amountIn, receiver);
        const tx = routeTx(tokenIn, amountIn, tokenOut, expected, program);
        expect(tx.value).toBe(tokenIn === NATIVE_TOKEN_ADDRESS ? amountIn : 0n);
        await expectSwapPays({
          tx,
          spender: s.layer.router,
          tokenIn,
          amountIn,
          tokenOut,
          expected,
        });
      });
    }
  });

  describe("swaps through UniswapV4Router pay exactly the quote", () => {
    const swaps: SwapCase[] = [
      {
        name: "ERC20 → ERC20: B for A, pulled from the caller straight into the pool manager",
        pool: "AB",
        tokenIn: "B",
        tokenOut: "A",
        amountIn: parseUnits("3000", 6),
      },
      {
        name: "native → ERC20: msg.value is the input, settled whole",
        pool: "nativeA",
        tokenIn: "ETH",
        tokenOut: "A",
        amountIn: parseEther("2"),
      },
      {
        name: "ERC20 → native: the manager pays the recipient",
        pool: "nativeA",
        tokenIn: "A",
        tokenOut: "ETH",
        amountIn: parseUnits("600", 18),
      },
    ];
    for (const { name, pool, amountIn, ...symbols } of swaps) {
      test(name, async () => {
        const { user, receiver } = s.world.accounts;
        const key = s.pools[pool];
        const [tokenIn, tokenOut] = [token(symbols.tokenIn), token(symbols.tokenOut)];
        const expected = await quote(key, currency(tokenIn), amountIn);
        const to = receiver.account.address;
        const tx = swapExactIn(key, currency(tokenIn), amountIn, expected, to);
        const receipt = await expectSwapPays({
          tx,
          spender: s.layer.uniswapV4Router,
          tokenIn,
          amountIn,
          tokenOut,
          expected,
        });
        // What the call returned: the same call simulated on the state it was mined on.
        const { result } = await s.world.client.simulateContract({
          account: user.account,
          address: tx.to,
          abi: UniswapV4RouterAbi,
          functionName: "swapExactIn",
          args: swapExactInArgs(key, currency(tokenIn), amountIn, expected, to),
          value: tx.value,
          blockNumber: receipt.blockNumber - 1n,
        });
        expect(result).toBe(expected);
      });
    }

    test("a CoreWallet program: exact approval to the V4 router, swap, native output to the owner, no allowance left", async () => {
      const { world } = s;
      const { A } = world.tokens;
      const owner = world.accounts.user.account.address;
      const wallet = await world.client.readContract({
        address: s.layer.walletFactory,
        abi: CoreWalletFactoryAbi,
        functionName: "walletOf",
        args: [owner],
      });
      const amountIn = parseUnits("600", 18);
      const expected = await quote(s.pools.nativeA, A.address, amountIn);
      const planner = new ProgramPlanner();
      addApprove(planner, { token: A.address, spender: s.layer.uniswapV4Router, amount: amountIn });
      planner.add({
        target: s.layer.uniswapV4Router,
        fn: swapExactInFn,
        args: swapExactInArgs(s.pools.nativeA, A.address, amountIn, expected, owner),
      });
      const tx = encodeCoreWalletTx({
        walletFactory: s.layer.walletFactory,
        from: owner,
        tokenIn: A.address,
        amountIn,
        program: planner.plan(),
      });
      await expectSwapPays({
        tx,
        spender: wallet,
        tokenIn: A.address,
        amountIn,
        tokenOut: NATIVE_TOKEN_ADDRESS,
        expected,
        to: owner,
        allowanceOwners: [wallet],
      });
      expect(await balanceOf(world, A.address, wallet)).toBe(0n);
      expect(await nativeBalance(wallet)).toBe(0n);
      expect(await allowance(A.address, wallet, s.layer.uniswapV4Router)).toBe(0n);
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
      const { A, B } = world.tokens;
      // The world's own layer was deployed without a pool manager.
      expect(
        await world.client.readContract({
          address: world.execution.executor,
          abi: RouterExecutorAbi,
          functionName: "uniswapV4PoolManager",
        }),
      ).toBe(zeroAddress);
      await expectBothRevert({
        key: s.pools.AB,
        tokenIn: A.address,
        tokenOut: B.address,
        amountIn: parseUnits("1", 18),
        error: errorData(errorsAbi, "UniswapV4NotConfigured"),
        layer: world.execution,
        v4Router: await deploy(loadArtifact("UniswapV4Router"), [zeroAddress]),
      });
    });

    test("a swap that runs out of liquidity before taking all its input reverts UniswapV4PartialFill", async () => {
      const { world } = s;
      const { user } = world.accounts;
      const { A, C } = world.tokens;
      const key = s.pools.narrowAC;
      const amountIn = parseUnits("10000", 18);
      // What the pool takes of it, from the real manager through the devnet swap helper.
      await approve(world, user, A.address, s.swapHelper, amountIn);
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
      await expectBothRevert({
        key,
        tokenIn: A.address,
        tokenOut: C.address,
        amountIn,
        error: errorData(errorsAbi, "UniswapV4PartialFill", [amountIn, taken]),
      });
    });

    test("a swap whose output rounds to zero reverts UniswapV4NoOutput", async () => {
      const { A, B } = s.world.tokens;
      // 1 wei of A (18 decimals) is worth 10^-11 of B's smallest unit, and the fee takes it.
      expect(await quote(s.pools.AB, A.address, 1n)).toBe(0n);
      await expectBothRevert({
        key: s.pools.AB,
        tokenIn: A.address,
        tokenOut: B.address,
        amountIn: 1n,
        error: errorData(errorsAbi, "UniswapV4NoOutput", [0n]),
        v4RouterMinOut: 0n,
      });
    });

    test("UniswapV4Router: amounts out of range, msg.value not the native input, output below the minimum, bad recipients", async () => {
      const { world } = s;
      const { user, receiver } = world.accounts;
      const { A } = world.tokens;
      const to = receiver.account.address;
      await approve(world, user, A.address, s.layer.uniswapV4Router, 2n ** 255n);
      const ethIn = parseEther("1");
      const native = swapExactIn(s.pools.nativeA, zeroAddress, ethIn, 1n, to);
      const erc20 = swapExactIn(s.pools.nativeA, A.address, parseUnits("1", 18), 1n, to);
      const expected = await quote(s.pools.nativeA, zeroAddress, ethIn);
      const refused: [TxRequest, Hex][] = [
        ...[0n, 2n ** 127n].map((amountIn): [TxRequest, Hex] => [
          swapExactIn(s.pools.AB, A.address, amountIn, 0n, to),
          errorData(errorsAbi, "InvalidUniswapV4AmountIn", [amountIn]),
        ]),
        ...[ethIn - 1n, ethIn + 1n, 0n].map((value): [TxRequest, Hex] => [
          { ...native, value },
          errorData(errorsAbi, "MsgValueMismatch", [ethIn, value]),
        ]),
        [{ ...erc20, value: 1n }, errorData(errorsAbi, "MsgValueMismatch", [0n, 1n])],
        [
          swapExactIn(s.pools.nativeA, zeroAddress, ethIn, expected + 1n, to),
          errorData(errorsAbi, "InsufficientOutput", [A.address, to, expected, expected + 1n]),
        ],
        ...[zeroAddress, s.layer.uniswapV4Router].map((recipient): [TxRequest, Hex] => [
          swapExactIn(s.pools.nativeA, zeroAddress, ethIn, 1n, recipient),
          errorData(errorsAbi, "InvalidRecipient", [recipient]),
        ]),
      ];
      for (const [tx, error] of refused) await expectRevert(world, user, tx, error);
      await expectV4Clean();
    });
  });

  describe("attacks", () => {
    /** The victim's A, B and A allowance to the V4 router. */
    const victimState = async () => {
      const victim = s.world.accounts.victim.account.address;
      const { A, B } = s.world.tokens;
      return [
        await balanceOf(s.world, A.address, victim),
        await balanceOf(s.world, B.address, victim),
        await allowance(A.address, victim, s.layer.uniswapV4Router),
      ];
    };
    /**
     * The victim approves the V4 router for A without much limit, as a wallet might; returns the
     * victim's state then.
     */
    const victimApproves = async () => {
      const { world } = s;
      const amount = parseUnits("1000000000", 18);
      await approve(
        world,
        world.accounts.victim,
        world.tokens.A.address,
        s.layer.uniswapV4Router,
        amount,
      );
      return await victimState();
    };
    /** unlockCallback(data) sent to `target` (the executor or the V4 router). */
    const unlockCallbackTx = (target: Address, data: Hex): TxRequest => ({
      to: target,
      data: unlockCallbackCall(data),
    });

    test("a fake pool manager calling unlockCallback with crafted data is refused by both, in and out of a program", async () => {
      const { world } = s;
      const { attacker, user, victim } = world.accounts;
      const { A, B } = world.tokens;
      const before = await victimApproves();
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
      const toAttacker = (payer: Address) =>
        unlockData(key, A.address, amount, payer, attacker.account.address);
      const fromExecutor = toAttacker(s.layer.executor);
      // The V4 router asked to pull the victim's approved A to the attacker, the executor to pay
      // out of its own balance: through the fake manager outside a program, or by an EOA ...
      const crafted = [
        [s.layer.uniswapV4Router, toAttacker(victim.account.address)],
        [s.layer.executor, fromExecutor],
      ] as const;
      for (const [target, data] of crafted) {
        await expectRevert(world, attacker, claim(target, data), unexpected(s.fakeManager));
        await expectRevert(
          world,
          attacker,
          unlockCallbackTx(target, data),
          unexpected(attacker.account.address),
        );
      }
      // ... or inside a program, while the executor holds the user's input.
      await approve(world, user, A.address, s.layer.router, amount);
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
      await approve(world, victim, A.address, router, parseUnits("1000000", 18));
      const before = await balanceOf(world, A.address, victim.account.address);
      // The manager calls back with data naming the victim as payer instead of the caller.
      await write(attacker, s.fakeManager, FakeUniswapV4PoolManagerAbi, "setForged", [
        unlockData(
          key,
          key.currency0,
          parseUnits("1000", 18),
          victim.account.address,
          attacker.account.address,
        ),
      ]);
      await approve(world, attacker, A.address, router, 1n);
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
      const before = await victimApproves();
      const key = s.pools.AB;
      const amount = parseUnits("1000", 18);
      await world.test.impersonateAccount({ address: s.poolManager });
      await world.test.setBalance({ address: s.poolManager, value: parseEther("1") });
      const asManager = createWalletClient({
        account: s.poolManager,
        chain: world.chain,
        transport: http(world.chain.rpcUrls.default.http[0]),
      }) as unknown as Wallet;
      await expectRevert(
        world,
        asManager,
        unlockCallbackTx(
          s.layer.executor,
          unlockData(key, key.currency0, amount, s.layer.executor, attacker.account.address),
        ),
        errorData(errorsAbi, "NotExecuting"),
      );
      await expectRevert(
        world,
        asManager,
        unlockCallbackTx(
          s.layer.uniswapV4Router,
          unlockData(key, A.address, amount, victim.account.address, attacker.account.address),
        ),
        errorData(errorsAbi, "NoUniswapV4SwapInProgress"),
      );
      await world.test.stopImpersonatingAccount({ address: s.poolManager });
      // A program unlocking the manager itself: the manager calls the executor back while a
      // program runs, but with data the executor did not send.
      await approve(world, user, A.address, s.layer.router, amount);
      const planner = new ProgramPlanner();
      planner.add({
        target: s.poolManager,
        fn: unlockFn,
        args: [unlockData(key, A.address, amount, s.layer.executor, attacker.account.address)],
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
    /**
     * Arms the hook to call `target` with each attempt's payload in turn, runs `swap` through the
     * hooked pool and asserts the attempt failed with exactly its error.
     */
    const expectHookRefusedEach = async (
      target: Address,
      attempts: readonly { name: string; payload: Hex; error: Hex }[],
      swap: (attempt: string) => Promise<void>,
    ) => {
      for (const [i, attempt] of attempts.entries()) {
        await armHook(target, attempt.payload);
        await swap(attempt.name);
        expect(await hookRecord(), attempt.name).toEqual({
          attempts: BigInt(i + 1),
          succeeded: false,
          returnData: attempt.error,
        });
      }
    };
    const expectHookEmpty = async () => {
      const { A, B } = s.world.tokens;
      for (const token of [A.address, B.address, NATIVE_TOKEN_ADDRESS]) {
        expect(await balanceOf(s.world, token, HOOK_ADDRESS)).toBe(0n);
      }
    };
    /** The executor's uniswapV4Swap of `amountIn` A on the unhooked pool, paying the hook. */
    const swapToHook = (amountIn: bigint): Hex =>
      encodeFunctionData({
        abi: RouterExecutorAbi,
        functionName: "uniswapV4Swap",
        args: v4SwapArgs(s.pools.AB, s.world.tokens.A.address, amountIn, HOOK_ADDRESS),
      });
    /** unlockCallback of a sale of `amountIn` A on the unhooked pool, `payer` paying the hook. */
    const unlockToHook = (payer: Address, amountIn: bigint): Hex =>
      unlockCallbackCall(
        unlockData(s.pools.AB, s.world.tokens.A.address, amountIn, payer, HOOK_ADDRESS),
      );
    const unexpectedHookCaller = () =>
      errorData(errorsAbi, "UnexpectedUnlockCaller", [HOOK_ADDRESS, s.poolManager]);

    test("a reentrant hook gains nothing from a route: the executor's uniswapV4Swap, unlockCallback and execute refuse it, and the receiver gets exactly the quote", async () => {
      const { world } = s;
      const { receiver } = world.accounts;
      const { A, B } = world.tokens;
      const key = s.pools.hookedAB;
      const amountIn = parseUnits("100", 18);
      const sweep = new ProgramPlanner();
      addSweep(sweep, { executor: s.layer.executor, token: A.address, to: HOOK_ADDRESS });
      const sweepToHook = sweep.plan();
      // While the hook runs, the executor holds the route's input (paid after the swap).
      const attempts = [
        {
          name: "uniswapV4Swap of the executor's input to the hook",
          payload: swapToHook(amountIn),
          error: errorData(errorsAbi, "NotSelf", [HOOK_ADDRESS]),
        },
        {
          name: "unlockCallback paying from the executor to the hook",
          payload: unlockToHook(s.layer.executor, amountIn),
          error: unexpectedHookCaller(),
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
      await expectHookRefusedEach(s.layer.executor, attempts, async (attempt) => {
        const expected = await quote(key, A.address, amountIn);
        await expectSwapPays({
          tx: routeTx(
            A.address,
            amountIn,
            B.address,
            expected,
            v4Program(key, A.address, amountIn, receiver.account.address),
          ),
          spender: s.layer.router,
          tokenIn: A.address,
          amountIn,
          tokenOut: B.address,
          expected,
          label: attempt,
        });
      });
      await expectHookEmpty();
    });

    test("a reentrant hook cannot spend an approval of the V4 router: its callback refuses the hook, a nested swap finds the manager unlocked", async () => {
      const { world } = s;
      const { victim } = world.accounts;
      const { A, B } = world.tokens;
      const key = s.pools.hookedAB;
      const amountIn = parseUnits("100", 18);
      await victimApproves();
      const attempts = [
        {
          name: "unlockCallback pulling the victim's A to the hook",
          payload: unlockToHook(victim.account.address, parseUnits("10000", 18)),
          error: unexpectedHookCaller(),
        },
        {
          name: "a nested swapExactIn",
          payload: encodeFunctionData({
            abi: UniswapV4RouterAbi,
            functionName: "swapExactIn",
            args: swapExactInArgs(s.pools.AB, A.address, amountIn, 0n, HOOK_ADDRESS),
          }),
          error: errorData(errorsAbi, "AlreadyUnlocked"),
        },
      ];
      await expectHookRefusedEach(s.layer.uniswapV4Router, attempts, async (attempt) => {
        const expected = await quote(key, A.address, amountIn);
        const [a, b, approved] = await victimState();
        await sendOk(
          s.v4World,
          victim,
          swapExactIn(key, A.address, amountIn, expected, victim.account.address),
        );
        expect(await victimState(), attempt).toEqual([
          (a ?? 0n) - amountIn,
          (b ?? 0n) + expected,
          (approved ?? 0n) - amountIn,
        ]);
      });
      expect(await balanceOf(world, B.address, HOOK_ADDRESS)).toBe(0n);
      await expectHookEmpty();
      await expectV4Clean();
    });

    test("a hook that reverts with the refused reentry reverts the swap, the reason wrapped by the manager", async () => {
      const { world } = s;
      const { user, receiver, victim } = world.accounts;
      const { A, B } = world.tokens;
      const key = s.pools.hookedAB;
      const amountIn = parseUnits("100", 18);
      const wrapped = (reason: Hex) =>
        errorData(errorsAbi, "WrappedError", [
          HOOK_ADDRESS,
          BEFORE_SWAP_SELECTOR,
          reason,
          HOOK_CALL_FAILED_SELECTOR,
        ]);
      await armHook(s.layer.executor, swapToHook(amountIn), true);
      await approve(world, user, A.address, s.layer.router, amountIn);
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
      const before = await victimApproves();
      await armHook(s.layer.uniswapV4Router, unlockToHook(victim.account.address, amountIn), true);
      await expectRevert(
        world,
        victim,
        swapExactIn(key, A.address, amountIn, 1n, victim.account.address),
        wrapped(unexpectedHookCaller()),
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
    await approve(world, user, A.address, s.layer.router, amountIn);
    const before = await balanceOf(world, B.address, to);
    const v3 = await sendOk(
      s.v4World,
      user,
      routeTx(A.address, amountIn, B.address, v3Expected, v3Planner.plan()),
    );
    expect((await balanceOf(world, B.address, to)) - before).toBe(v3Expected);

    const aForB = { tokenIn: A.address, amountIn, tokenOut: B.address };
    const v4Expected = await quote(s.pools.AB, A.address, amountIn);
    const v4 = await expectSwapPays({
      ...aForB,
      tx: routeTx(
        A.address,
        amountIn,
        B.address,
        v4Expected,
        v4Program(s.pools.AB, A.address, amountIn, to),
      ),
      spender: s.layer.router,
      expected: v4Expected,
    });

    const direct = await quote(s.pools.AB, A.address, amountIn);
    const v4Router = await expectSwapPays({
      ...aForB,
      tx: swapExactIn(s.pools.AB, A.address, amountIn, direct, to),
      spender: s.layer.uniswapV4Router,
      expected: direct,
    });

    // Native input: settled with the call's value (no sync, no token transfer).
    const ethIn = parseEther("1");
    const nativeExpected = await quote(s.pools.nativeA, zeroAddress, ethIn);
    await write(user, A.address, DevTokenAbi, "transfer", [to, 1n]);
    const v4Native = await expectSwapPays({
      tx: routeTx(
        NATIVE_TOKEN_ADDRESS,
        ethIn,
        A.address,
        nativeExpected,
        v4Program(s.pools.nativeA, zeroAddress, ethIn, to),
      ),
      spender: s.layer.router,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      amountIn: ethIn,
      tokenOut: A.address,
      expected: nativeExpected,
    });
    const diff = v4.gasUsed - v3.gasUsed;
    console.log(
      `gas used, 100 A for B: ShortcutRouter + V3 pool ${v3.gasUsed}, ShortcutRouter + V4 (uniswapV4Swap) ${v4.gasUsed} (${diff >= 0n ? "+" : ""}${diff}), UniswapV4Router.swapExactIn ${v4Router.gasUsed}; 1 ETH for A: ShortcutRouter + V4 ${v4Native.gasUsed}`,
    );
  });
});
