/**
 * The devnet world's Uniswap V4 (`devnet/uniswap-v4.ts`): hooks at mined addresses, pools at the
 * world's prices, and the devnet helpers and hooks doing exactly what they say on the chain.
 */
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getContractAddress,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
  padHex,
  parseEventLogs,
  parseUnits,
  type TransactionReceipt,
  toFunctionSelector,
  toHex,
  type WalletClient,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { V4InputFeeHookAbi } from "../../abis/generated/V4InputFeeHook.js";
import { V4LiquidityHelperAbi } from "../../abis/generated/V4LiquidityHelper.js";
import { V4SwapCounterHookAbi } from "../../abis/generated/V4SwapCounterHook.js";
import { V4SwapHelperAbi } from "../../abis/generated/V4SwapHelper.js";
import { PoolManagerAbi } from "../../abis/PoolManager.js";
import { StateViewAbi } from "../../abis/StateView.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { V4QuoterAbi } from "../../abis/V4Quoter.js";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { DEVNET_ACCOUNT_KEYS, DEVNET_DEPLOYER_KEY } from "../../devnet/anvil.js";
import type { Deployment, UniswapV4Deployment } from "../../devnet/deployment.js";
import { sqrtPriceX96FromPrice } from "../../devnet/price.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import {
  DEVNET_V4_PROTOCOL_FEE,
  HOOK_FLAGS,
  mineHookSalt,
  uniswapV4PoolId,
} from "../../devnet/uniswap-v4.js";
import { chainOf, deployWorld, WETH_USD_PRICE } from "../../devnet/world.js";
import { DETERMINISTIC_DEPLOYMENT_PROXY } from "../../engine/core/execution-addresses.js";
import { getAmount0Delta, getAmount1Delta } from "../../engine/math/sqrt-price-math.js";
import { getSqrtRatioAtTick } from "../../engine/math/tick-math.js";
import { startTestAnvil } from "../harness/anvil.js";

type Pool = UniswapV4Deployment["pools"][number];
type Wallet = WalletClient & { account: { address: Address } };

const lowBits = (address: Address) => Number(BigInt(address) & 0x3fffn);

describe("mineHookSalt", () => {
  test("the first salt from 0 whose CREATE2 address carries exactly the flags", () => {
    const initCode: Hex = "0x6080604052348015600e575f80fd5b50";
    const flags = HOOK_FLAGS.beforeSwap | HOOK_FLAGS.beforeSwapReturnsDelta;
    const { salt, address } = mineHookSalt({ initCode, flags });
    const create2 = (s: Hex) =>
      getContractAddress({
        opcode: "CREATE2",
        from: DETERMINISTIC_DEPLOYMENT_PROXY,
        salt: s,
        bytecode: initCode,
      });
    expect(create2(salt)).toBe(address);
    expect(lowBits(address)).toBe(0x88);
    for (let s = 0; s < Number(BigInt(salt)); s++) {
      expect(lowBits(create2(padHex(toHex(s), { size: 32 })))).not.toBe(0x88);
    }
  });
});

describe("the devnet world's Uniswap V4", () => {
  let anvil: AnvilInstance;
  let deployment: Deployment;
  let v4: UniswapV4Deployment;
  let client: PublicClient;
  let deployer: Wallet;
  let stranger: Wallet;

  const symbolOf = (address: Address) =>
    address === zeroAddress
      ? "ETH"
      : (deployment.tokens.find((t) => t.address === address)?.symbol ?? address);
  const pricedOf = (address: Address) =>
    address === zeroAddress
      ? { decimals: 18, usdPrice: WETH_USD_PRICE }
      : (deployment.tokens.find((t) => t.address === address) ?? { decimals: 0, usdPrice: 0 });
  const poolOf = (a: string, b: string, fee: number, hooks: Address = zeroAddress): Pool => {
    const pool = v4.pools.find(
      (p) =>
        [symbolOf(p.currency0), symbolOf(p.currency1)].sort().join("/") ===
          [a, b].sort().join("/") &&
        p.fee === fee &&
        p.hooks === hooks,
    );
    if (!pool) throw new Error(`no V4 pool ${a}/${b} ${fee}`);
    return pool;
  };
  const keyOf = (p: Pool) => ({
    currency0: p.currency0,
    currency1: p.currency1,
    fee: p.fee,
    tickSpacing: p.tickSpacing,
    hooks: p.hooks,
  });
  const slot0 = (p: Pool) =>
    client.readContract({
      address: v4.stateView,
      abi: StateViewAbi,
      functionName: "getSlot0",
      args: [p.id],
    });
  const balanceOf = async (currency: Address, who: Address) =>
    currency === zeroAddress
      ? await client.getBalance({ address: who })
      : await client.readContract({
          address: currency,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [who],
        });
  const send = async (
    wallet: Wallet,
    call: { address: Address; abi: Abi; functionName: string; args: unknown[]; value?: bigint },
  ): Promise<TransactionReceipt> => {
    const hash = await wallet.writeContract({
      ...call,
      account: wallet.account,
      chain: wallet.chain,
      gas: 5_000_000n,
    } as never);
    const receipt = await devnetReceipt(client, hash);
    expect(receipt.status).toBe("success");
    return receipt;
  };
  const quoteIn = async (p: Pool, zeroForOne: boolean, exactAmount: bigint) =>
    (
      await client.simulateContract({
        address: v4.quoter,
        abi: V4QuoterAbi,
        functionName: "quoteExactInputSingle",
        args: [{ poolKey: keyOf(p), zeroForOne, exactAmount, hookData: "0x" }],
      })
    ).result[0];
  const swapEvent = (receipt: TransactionReceipt) => {
    const [event] = parseEventLogs({ abi: PoolManagerAbi, eventName: "Swap", logs: receipt.logs });
    if (!event) throw new Error("no Swap event");
    return event.args;
  };

  beforeAll(async () => {
    anvil = await startTestAnvil();
    deployment = await deployWorld({ rpcUrl: anvil.url });
    if (!deployment.uniswapV4) throw new Error("the world has no Uniswap V4");
    v4 = deployment.uniswapV4;
    const chain = await chainOf(anvil.url);
    client = createPublicClient({ chain, transport: http(anvil.url) }) as PublicClient;
    const wallet = (key: Hex) =>
      createWalletClient({
        chain,
        transport: http(anvil.url),
        account: privateKeyToAccount(key),
      }) as Wallet;
    deployer = wallet(DEVNET_DEPLOYER_KEY);
    stranger = wallet(DEVNET_ACCOUNT_KEYS[0]);
    for (const spender of [v4.swapHelper, v4.liquidityHelper]) {
      for (const symbol of ["WETH", "USDC", "DAI"]) {
        const token = deployment.tokens.find((t) => t.symbol === symbol)?.address as Address;
        await send(deployer, {
          address: token,
          abi: DevTokenAbi,
          functionName: "approve",
          args: [spender, maxUint256],
        });
      }
    }
  }, 120_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  test("the pools: pairs, fees, tick spacings and hooks, each id the keccak of its key", () => {
    const { afterSwap, returnsDelta } = v4.hooks;
    expect(
      v4.pools.map((p) => [
        symbolOf(p.currency0),
        symbolOf(p.currency1),
        p.fee,
        p.tickSpacing,
        p.hooks === afterSwap ? "afterSwap" : p.hooks === returnsDelta ? "returnsDelta" : p.hooks,
      ]),
    ).toEqual([
      ["ETH", "USDC", 100, 10, zeroAddress],
      ["WETH", "USDC", 500, 10, zeroAddress],
      ["DAI", "USDC", 100, 1, zeroAddress],
      ["WETH", "USDT", 2500, 50, zeroAddress],
      ["WETH", "DAI", 3000, 60, "afterSwap"],
      ["WETH", "USDC", 500, 10, "returnsDelta"],
      ["USDT", "USDC", 500, 10, zeroAddress],
    ]);
    for (const p of v4.pools) expect(p.id).toBe(uniswapV4PoolId(keyOf(p)));
  });

  test("the hooks sit at addresses whose low 14 bits are exactly their permissions", async () => {
    expect(lowBits(v4.hooks.afterSwap)).toBe(0x40);
    expect(lowBits(v4.hooks.returnsDelta)).toBe(0x88);
    for (const [hook, abi] of [
      [v4.hooks.afterSwap, V4SwapCounterHookAbi],
      [v4.hooks.returnsDelta, V4InputFeeHookAbi],
    ] as const) {
      const permissions = await client.readContract({
        address: hook,
        abi,
        functionName: "PERMISSIONS",
      });
      expect(permissions).toBe(BigInt(lowBits(hook)));
    }
  });

  test("every pool is initialized at the world's reference price, with its LP and protocol fees", async () => {
    const protocolFeePool = poolOf("USDC", "USDT", 500);
    for (const p of v4.pools) {
      const [sqrtPriceX96, , protocolFee, lpFee] = await slot0(p);
      expect(sqrtPriceX96).toBe(
        sqrtPriceX96FromPrice(pricedOf(p.currency0), pricedOf(p.currency1)),
      );
      expect(lpFee).toBe(p.fee);
      expect(protocolFee).toBe(p === protocolFeePool ? DEVNET_V4_PROTOCOL_FEE : 0);
    }
    expect(DEVNET_V4_PROTOCOL_FEE).toBe(2_048_500);
  });

  test("V4 WETH/USDC 0.05% holds the V3 pool's price and in-range liquidity", async () => {
    const v4Pool = poolOf("WETH", "USDC", 500);
    const v3Pool = deployment.uniswapV3.pools[0] as Address;
    const [v3Price] = await client.readContract({
      address: v3Pool,
      abi: UniswapV3PoolAbi,
      functionName: "slot0",
    });
    const [v4Price] = await slot0(v4Pool);
    expect(v4Price).toBe(v3Price);
    const v4Liquidity = await client.readContract({
      address: v4.stateView,
      abi: StateViewAbi,
      functionName: "getLiquidity",
      args: [v4Pool.id],
    });
    const v3Liquidity = await client.readContract({
      address: v3Pool,
      abi: UniswapV3PoolAbi,
      functionName: "liquidity",
    });
    expect(v4Liquidity).toBe(v3Liquidity);
  });

  test("native ether in: the quoted output arrives, the unspent value comes back, ticks are crossed", async () => {
    const pool = poolOf("ETH", "USDC", 100);
    const amountIn = parseUnits("1000", 18);
    const quoted = await quoteIn(pool, true, amountIn);
    const liquidityBefore = await client.readContract({
      address: v4.stateView,
      abi: StateViewAbi,
      functionName: "getLiquidity",
      args: [pool.id],
    });
    const me = deployer.account.address;
    const [ethBefore, usdcBefore] = [
      await balanceOf(zeroAddress, me),
      await balanceOf(pool.currency1, me),
    ];
    const receipt = await send(deployer, {
      address: v4.swapHelper,
      abi: V4SwapHelperAbi,
      functionName: "swap",
      args: [keyOf(pool), true, -amountIn, 0n],
      value: amountIn + parseUnits("1", 18),
    });
    const gasPaid = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(await balanceOf(zeroAddress, me)).toBe(ethBefore - amountIn - gasPaid);
    expect(await balanceOf(pool.currency1, me)).toBe(usdcBefore + quoted);
    expect(await balanceOf(zeroAddress, v4.swapHelper)).toBe(0n);
    expect(swapEvent(receipt)).toMatchObject({ amount0: -amountIn, amount1: quoted });
    // $3M against positions of $2M a side: the price leaves the narrow positions behind.
    expect(swapEvent(receipt).liquidity).not.toBe(liquidityBefore);
  });

  test("the returnsDelta hook keeps 1% of an exact input; the pool swaps the other 99%", async () => {
    const pool = poolOf("WETH", "USDC", 500, v4.hooks.returnsDelta);
    const weth = deployment.weth;
    const wethIsZero = pool.currency0 === weth;
    const amountIn = parseUnits("10", 18);
    const quoted = await quoteIn(pool, wethIsZero, amountIn);
    const me = deployer.account.address;
    const usdc = wethIsZero ? pool.currency1 : pool.currency0;
    const [wethBefore, usdcBefore, hookBefore] = [
      await balanceOf(weth, me),
      await balanceOf(usdc, me),
      await balanceOf(weth, v4.hooks.returnsDelta),
    ];
    const receipt = await send(deployer, {
      address: v4.swapHelper,
      abi: V4SwapHelperAbi,
      functionName: "swap",
      args: [keyOf(pool), wethIsZero, -amountIn, 0n],
    });
    expect(await balanceOf(weth, me)).toBe(wethBefore - amountIn);
    expect(await balanceOf(usdc, me)).toBe(usdcBefore + quoted);
    expect(await balanceOf(weth, v4.hooks.returnsDelta)).toBe(hookBefore + amountIn / 100n);
    const event = swapEvent(receipt);
    expect(wethIsZero ? event.amount0 : event.amount1).toBe(-(amountIn - amountIn / 100n));
    expect(wethIsZero ? event.amount1 : event.amount0).toBe(quoted);
    const [hookFee] = parseEventLogs({
      abi: V4InputFeeHookAbi,
      eventName: "HookFee",
      logs: receipt.logs,
    });
    expect(hookFee?.args).toEqual({ id: pool.id, currency: weth, amount: amountIn / 100n });

    // Exact output: nothing kept.
    const out = parseUnits("1000", 6);
    const hookAfter = await balanceOf(weth, v4.hooks.returnsDelta);
    const exactOut = await send(deployer, {
      address: v4.swapHelper,
      abi: V4SwapHelperAbi,
      functionName: "swap",
      args: [keyOf(pool), wethIsZero, out, 0n],
    });
    expect(await balanceOf(weth, v4.hooks.returnsDelta)).toBe(hookAfter);
    expect(wethIsZero ? swapEvent(exactOut).amount1 : swapEvent(exactOut).amount0).toBe(out);
  });

  test("the afterSwap hook counts the pool's swaps and leaves its amounts alone", async () => {
    const pool = poolOf("WETH", "DAI", 3000, v4.hooks.afterSwap);
    const count = () =>
      client.readContract({
        address: v4.hooks.afterSwap,
        abi: V4SwapCounterHookAbi,
        functionName: "swapCount",
        args: [pool.id],
      });
    const before = await count();
    const amountIn = parseUnits("5000", 18);
    const daiIsZero = symbolOf(pool.currency0) === "DAI";
    const quoted = await quoteIn(pool, daiIsZero, amountIn);
    const receipt = await send(deployer, {
      address: v4.swapHelper,
      abi: V4SwapHelperAbi,
      functionName: "swap",
      args: [keyOf(pool), daiIsZero, -amountIn, 0n],
    });
    const event = swapEvent(receipt);
    expect(daiIsZero ? [event.amount0, event.amount1] : [event.amount1, event.amount0]).toEqual([
      -amountIn,
      quoted,
    ]);
    expect(await count()).toBe(before + 1n);
  });

  test("liquidity: the caller pays exactly what the position needs, and only the caller removes it", async () => {
    const pool = poolOf("ETH", "USDC", 100);
    const usdc = pool.currency1;
    const who = stranger.account.address;
    await send(deployer, {
      address: usdc,
      abi: DevTokenAbi,
      functionName: "transfer",
      args: [who, parseUnits("100000", 6)],
    });
    await send(stranger, {
      address: usdc,
      abi: DevTokenAbi,
      functionName: "approve",
      args: [v4.liquidityHelper, maxUint256],
    });
    const [sqrtPriceX96, tick] = await slot0(pool);
    const spacing = pool.tickSpacing;
    const tickLower = Math.floor(tick / spacing) * spacing - 10 * spacing;
    const tickUpper = Math.floor(tick / spacing) * spacing + 11 * spacing;
    const [lower, upper] = [getSqrtRatioAtTick(tickLower), getSqrtRatioAtTick(tickUpper)];
    const liquidity = 10n ** 15n;
    const salt = padHex("0x01", { size: 32 });
    const args = (delta: bigint) => [keyOf(pool), tickLower, tickUpper, delta, salt];
    const owed0 = getAmount0Delta(sqrtPriceX96, upper, liquidity, true);
    const owed1 = getAmount1Delta(lower, sqrtPriceX96, liquidity, true);
    const [eth, usd] = [await balanceOf(zeroAddress, who), await balanceOf(usdc, who)];
    const added = await send(stranger, {
      address: v4.liquidityHelper,
      abi: V4LiquidityHelperAbi,
      functionName: "modifyLiquidity",
      args: args(liquidity),
      value: owed0 + parseUnits("1", 18),
    });
    const gasAdd = added.gasUsed * added.effectiveGasPrice;
    expect(await balanceOf(zeroAddress, who)).toBe(eth - owed0 - gasAdd);
    expect(await balanceOf(usdc, who)).toBe(usd - owed1);

    // Same ticks and salt, another caller: that caller's position holds nothing, and taking
    // liquidity out of it underflows in the pool manager.
    const refused = await client
      .simulateContract({
        account: deployer.account,
        address: v4.liquidityHelper,
        abi: V4LiquidityHelperAbi,
        functionName: "modifyLiquidity",
        args: [keyOf(pool), tickLower, tickUpper, -liquidity, salt],
      })
      .catch((e: { cause?: { signature?: Hex } }) => e.cause?.signature);
    expect(refused).toBe(toFunctionSelector("SafeCastOverflow()"));

    const removed = await send(stranger, {
      address: v4.liquidityHelper,
      abi: V4LiquidityHelperAbi,
      functionName: "modifyLiquidity",
      args: args(-liquidity),
    });
    const gasRemove = removed.gasUsed * removed.effectiveGasPrice;
    // No swap in between: no fees, and each amount rounds down on the way out.
    expect(await balanceOf(zeroAddress, who)).toBe(
      eth - owed0 - gasAdd - gasRemove + getAmount0Delta(sqrtPriceX96, upper, liquidity, false),
    );
    expect(await balanceOf(usdc, who)).toBe(
      usd - owed1 + getAmount1Delta(lower, sqrtPriceX96, liquidity, false),
    );
  });

  test("only the pool manager may call the helpers and hooks back", async () => {
    const caller = stranger.account.address;
    const refusal = { errorName: "NotPoolManager", args: [caller] };
    for (const [address, abi] of [
      [v4.liquidityHelper, V4LiquidityHelperAbi],
      [v4.swapHelper, V4SwapHelperAbi],
    ] as const) {
      const error = await client
        .simulateContract({
          account: caller,
          address,
          abi,
          functionName: "unlockCallback",
          args: ["0x"],
        })
        .catch((e: { cause?: { data?: unknown } }) => e.cause?.data);
      expect(error).toMatchObject(refusal);
    }
    const pool = poolOf("WETH", "DAI", 3000, v4.hooks.afterSwap);
    const params = { zeroForOne: true, amountSpecified: -1n, sqrtPriceLimitX96: 0n };
    const afterSwap = await client
      .simulateContract({
        account: caller,
        address: v4.hooks.afterSwap,
        abi: V4SwapCounterHookAbi,
        functionName: "afterSwap",
        args: [caller, keyOf(pool), params, 0n, "0x"],
      })
      .catch((e: { cause?: { data?: unknown } }) => e.cause?.data);
    expect(afterSwap).toMatchObject(refusal);
    const beforeSwap = await client
      .simulateContract({
        account: caller,
        address: v4.hooks.returnsDelta,
        abi: V4InputFeeHookAbi,
        functionName: "beforeSwap",
        args: [caller, keyOf(pool), params, "0x"],
      })
      .catch((e: { cause?: { data?: unknown } }) => e.cause?.data);
    expect(beforeSwap).toMatchObject(refusal);
  });
});
