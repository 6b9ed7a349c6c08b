/**
 * The history tables after a known series of events, mined at chosen timestamps across an hour
 * and a day boundary: V2 and V3 swaps, a V2 liquidity add and remove, a V3 position minted,
 * burned and collected, vault deposits and a withdrawal, and a dust pair that tries to set a
 * price. Every history row must equal its recomputation from the chain's own logs
 * (test/harness/analytics-model.ts); and, computed here from receipts and contract reads alone:
 * swap amounts to the wei, USD values to the cent at the prices of their blocks, what each pool
 * holds (its tokens' `balanceOf`), the hour and day buckets the series falls into.
 */
import {
  type Abi,
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  maxUint256,
  parseEther,
  parseEventLogs,
  parseUnits,
  type TransactionReceipt,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { NonfungiblePositionManagerAbi } from "../../abis/NonfungiblePositionManager.js";
import { SwapRouterAbi } from "../../abis/SwapRouter.js";
import { UniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { UniswapV3FactoryAbi } from "../../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { devnetActors } from "../harness/actors.js";
import { expectAnalyticsMatchChain, sqlOverHttp } from "../harness/analytics-model.js";
import { type ServiceInstance, startService, waitForIndexedBlock } from "../harness/service.js";

const E18 = 10n ** 18n;
/** One cent in the tables' unit (10^-18 USD). */
const CENT = 10n ** 16n;
const DAY = 86_400;

describe("history tables replayed from a known series of events", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  let me: Address;
  const receipts = new Map<string, TransactionReceipt>();
  let dayStart = 0;
  let top = 0n;
  /** PancakeSwap V1's WETH/LINK pair, where the series swaps once. */
  let forkPair: Address;

  const rpc = async <T>(method: string, params: unknown[]): Promise<T> =>
    (await a.client.request({ method: method as never, params: params as never })) as T;
  const send = async (
    name: string,
    to: Address,
    abi: Abi | readonly unknown[],
    functionName: string,
    args: unknown[],
    options: { value?: bigint; timestamp?: number } = {},
  ) => {
    if (options.timestamp !== undefined)
      await rpc("evm_setNextBlockTimestamp", [options.timestamp]);
    const hash = await rpc<Hex>("eth_sendTransaction", [
      {
        from: me,
        to,
        data: encodeFunctionData({ abi: abi as Abi, functionName, args }),
        value: `0x${(options.value ?? 0n).toString(16)}`,
        gas: "0x4c4b40",
      },
    ]);
    // An automined transaction can stay pending on a loaded machine: mined on a stall.
    const receipt = await devnetReceipt(a.client, hash);
    expect({ name, status: receipt.status }).toEqual({ name, status: "success" });
    receipts.set(name, receipt);
    return receipt;
  };
  const row = async (sql: string) =>
    (await sqlOverHttp(service.url, sql))[0] as Record<string, string | number | null>;
  const lower = (x: Address) => x.toLowerCase();

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    a = await devnetActors(service);
    me = a.deployer.account.address;
    const d = service.deployment;
    const usdc = a.token("USDC");
    const usdt = a.token("USDT");
    const link = a.token("LINK");
    const uni = a.token("UNI");
    const weth = a.token("WETH");
    // Inventory and approvals.
    for (const [t, amount] of [
      [usdc, parseUnits("10000000", 6)],
      [usdt, parseUnits("10000000", 6)],
      [link, parseEther("1000000")],
      [uni, parseEther("1000000")],
    ] as const)
      await send(`mint ${t}`, t, DevTokenAbi, "mint", [me, amount]);
    await send("wrap", weth, WETH9Abi, "deposit", [], { value: parseEther("1000") });
    for (const spender of [
      d.uniswapV2.router02,
      d.uniswapV3.swapRouter,
      d.uniswapV3.positionManager,
    ])
      for (const t of [usdc, usdt, link, uni, weth])
        await send(`approve ${t} ${spender}`, t, DevTokenAbi, "approve", [spender, maxUint256]);
    await send("approve vault", usdc, DevTokenAbi, "approve", [a.vault("svUSDC"), maxUint256]);

    // The series starts 100 s before the end of the first hour of the next UTC day.
    const now = Number((await a.client.getBlock()).timestamp);
    dayStart = now - (now % DAY) + DAY;
    const hourEnd = dayStart + 3600;
    const v2 = d.uniswapV2.router02;
    const v3 = d.uniswapV3.swapRouter;
    const exactIn = (tokenIn: Address, tokenOut: Address, fee: number, amountIn: bigint) => [
      {
        tokenIn,
        tokenOut,
        fee,
        recipient: me,
        deadline: maxUint256,
        amountIn,
        amountOutMinimum: 0n,
        sqrtPriceLimitX96: 0n,
      },
    ];
    await send(
      "v2 usdc→weth",
      v2,
      UniswapV2Router02Abi,
      "swapExactTokensForTokens",
      [parseUnits("30000", 6), 0n, [usdc, weth], me, maxUint256],
      { timestamp: hourEnd - 100 },
    );
    await send(
      "v3 weth→usdc",
      v3,
      SwapRouterAbi,
      "exactInputSingle",
      exactIn(weth, usdc, 500, parseEther("5")),
    );
    await send("v2 usdc→usdt", v2, UniswapV2Router02Abi, "swapExactTokensForTokens", [
      parseUnits("10000", 6),
      0n,
      [usdc, usdt],
      me,
      maxUint256,
    ]);
    // Second hour.
    const pool3000 = await a.client.readContract({
      address: d.uniswapV3.factory,
      abi: UniswapV3FactoryAbi,
      functionName: "getPool",
      args: [usdc, weth, 3000],
    });
    const [, tick] = await a.client.readContract({
      address: pool3000,
      abi: UniswapV3PoolAbi,
      functionName: "slot0",
    });
    const at = Math.floor(tick / 60) * 60;
    const [token0, token1] = lower(usdc) < lower(weth) ? [usdc, weth] : [weth, usdc];
    const minted = await send(
      "v3 mint",
      d.uniswapV3.positionManager,
      NonfungiblePositionManagerAbi,
      "mint",
      [
        {
          token0,
          token1,
          fee: 3000,
          tickLower: at - 600,
          tickUpper: at + 600,
          amount0Desired: token0 === usdc ? parseUnits("40000", 6) : parseEther("13"),
          amount1Desired: token1 === usdc ? parseUnits("40000", 6) : parseEther("13"),
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: me,
          deadline: maxUint256,
        },
      ],
      { timestamp: hourEnd + 10 },
    );
    const increase = parseEventLogs({
      abi: NonfungiblePositionManagerAbi,
      logs: minted.logs,
      eventName: "IncreaseLiquidity",
    })[0];
    if (!increase) throw new Error("no IncreaseLiquidity");
    const { tokenId, liquidity } = increase.args;
    await send(
      "v3 swap in range",
      v3,
      SwapRouterAbi,
      "exactInputSingle",
      exactIn(usdc, weth, 3000, parseUnits("20000", 6)),
    );
    await send(
      "v3 burn",
      d.uniswapV3.positionManager,
      NonfungiblePositionManagerAbi,
      "decreaseLiquidity",
      [
        {
          tokenId,
          liquidity: liquidity / 2n,
          amount0Min: 0n,
          amount1Min: 0n,
          deadline: maxUint256,
        },
      ],
    );
    await send(
      "v3 collect",
      d.uniswapV3.positionManager,
      NonfungiblePositionManagerAbi,
      "collect",
      [{ tokenId, recipient: me, amount0Max: 2n ** 128n - 1n, amount1Max: 2n ** 128n - 1n }],
    );
    await send("v2 add", v2, UniswapV2Router02Abi, "addLiquidity", [
      link,
      usdc,
      parseEther("2000"),
      parseUnits("30000", 6),
      0n,
      0n,
      me,
      maxUint256,
    ]);
    const linkUsdc = await a.client.readContract({
      address: d.uniswapV2.factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [link, usdc],
    });
    await send("approve lp", linkUsdc, UniswapV2PairAbi, "approve", [v2, maxUint256]);
    const lp = await a.client.readContract({
      address: linkUsdc,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [me],
    });
    await send("v2 remove", v2, UniswapV2Router02Abi, "removeLiquidity", [
      link,
      usdc,
      lp / 3n,
      0n,
      0n,
      me,
      maxUint256,
    ]);
    await send("deposit", a.vault("svUSDC"), DevVaultAbi, "deposit", [parseUnits("25000", 6), me]);
    await send("withdraw", a.vault("svUSDC"), DevVaultAbi, "withdraw", [
      parseUnits("10000", 6),
      me,
      me,
    ]);
    await send("v2 link→weth", v2, UniswapV2Router02Abi, "swapExactTokensForTokens", [
      parseEther("500"),
      0n,
      [link, weth],
      me,
      maxUint256,
    ]);
    // A swap on a fork's pair (PancakeSwap V1, 0.2%), straight through the pair.
    const fork = d.uniswapV2Forks?.find((f) => f.slug === "pancakeswap-v1");
    if (!fork) throw new Error("the devnet has no PancakeSwap V1");
    forkPair = await a.client.readContract({
      address: fork.factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [weth, link],
    });
    const [r0, r1] = await a.client.readContract({
      address: forkPair,
      abi: UniswapV2PairAbi,
      functionName: "getReserves",
    });
    const wethIs0 = lower(weth) < lower(link);
    const [reserveIn, reserveOut] = wethIs0 ? [r0, r1] : [r1, r0];
    const wethIn = parseEther("2");
    const linkOut = (wethIn * 998n * reserveOut) / (reserveIn * 1000n + wethIn * 998n);
    await send("fork weth in", weth, DevTokenAbi, "transfer", [forkPair, wethIn]);
    await send(
      "fork weth→link",
      forkPair,
      UniswapV2PairAbi,
      "swap",
      wethIs0 ? [0n, linkOut, me, "0x"] : [linkOut, 0n, me, "0x"],
    );
    // Next day: more swaps, and a dust UNI/USDC pair at 100× UNI's price.
    await send(
      "v2 weth→usdc",
      v2,
      UniswapV2Router02Abi,
      "swapExactTokensForTokens",
      [parseEther("7"), 0n, [weth, usdc], me, maxUint256],
      { timestamp: dayStart + DAY + 5 },
    );
    await send(
      "v3 usdc→weth",
      v3,
      SwapRouterAbi,
      "exactInputSingle",
      exactIn(usdc, weth, 500, parseUnits("12345.678901", 6)),
    );
    await send("v2 uni→weth", v2, UniswapV2Router02Abi, "swapExactTokensForTokens", [
      parseEther("1000"),
      0n,
      [uni, weth],
      me,
      maxUint256,
    ]);
    await send("dust add", v2, UniswapV2Router02Abi, "addLiquidity", [
      uni,
      usdc,
      parseEther("1"),
      parseUnits("800", 6),
      0n,
      0n,
      me,
      maxUint256,
    ]);
    await send("dust swap", v2, UniswapV2Router02Abi, "swapExactTokensForTokens", [
      parseUnits("100", 6),
      0n,
      [usdc, uni],
      me,
      maxUint256,
    ]);
    top = await a.client.getBlockNumber({ cacheTime: 0 });
    await waitForIndexedBlock(service, top);
  }, 240_000);

  afterAll(async () => {
    await service?.stop();
  });

  test("every history row equals its recomputation from the chain's logs", async () => {
    const model = await expectAnalyticsMatchChain(service, a.client, top);
    // The series is in it: 10 swaps of ours, 4 liquidity events, 2 vault events, 3 day buckets.
    expect(model.swap.filter((r) => BigInt(r.block_number as string) > top - 22n)).toHaveLength(10);
    expect(
      model.pool_day
        .filter((r) => Number(r.period_start) >= dayStart)
        .map((r) => r.period_start)
        .sort(),
    ).toEqual(expect.arrayContaining([String(dayStart), String(dayStart + DAY)]));
  });

  test("a swap between two stablecoins: amounts to the wei, USD to the cent, its fee", async () => {
    const receipt = receipts.get("v2 usdc→usdt") as TransactionReceipt;
    const log = parseEventLogs({ abi: UniswapV2PairAbi, logs: receipt.logs, eventName: "Swap" })[0];
    if (!log) throw new Error("no Swap");
    const r = await row(
      `select * from swap where tx_hash = '${receipt.transactionHash}' and log_index = ${log.logIndex}`,
    );
    const amount0 = log.args.amount0In - log.args.amount0Out;
    const amount1 = log.args.amount1In - log.args.amount1Out;
    expect([r.amount0, r.amount1, r.sender, r.recipient, r.block_number]).toEqual([
      amount0.toString(),
      amount1.toString(),
      lower(service.deployment.uniswapV2.router02),
      lower(me),
      receipt.blockNumber.toString(),
    ]);
    // Both sides are $1 tokens of 6 decimals: the mean of 10,000.000000 in and what came out.
    const abs = (x: bigint) => (x < 0n ? -x : x);
    const usd = ((abs(amount0) + abs(amount1)) * 10n ** 12n) / 2n;
    expect(BigInt(r.amount_usd as string) / CENT).toBe(usd / CENT);
    expect(BigInt(r.amount_usd as string)).toBe(usd);
    expect(BigInt(r.fees_usd as string)).toBe((usd * 3000n) / 1_000_000n);
  });

  test("a swap on a fork's pair is its protocol's, its fee the fork's 0.2%", async () => {
    const receipt = receipts.get("fork weth→link") as TransactionReceipt;
    const log = parseEventLogs({ abi: UniswapV2PairAbi, logs: receipt.logs, eventName: "Swap" })[0];
    if (!log) throw new Error("no Swap");
    expect(lower(log.address)).toBe(lower(forkPair));
    const r = await row(
      `select protocol_slug, amount_usd, fees_usd from swap where tx_hash = '${receipt.transactionHash}'`,
    );
    expect(r.protocol_slug).toBe("pancakeswap-v1");
    expect(BigInt(r.amount_usd as string)).toBeGreaterThan(0n);
    expect(BigInt(r.fees_usd as string)).toBe(
      (BigInt(r.amount_usd as string) * 2000n) / 1_000_000n,
    );
    const market = await row(
      `select protocol_slug, fee from pool_market where address = '${lower(forkPair)}'`,
    );
    expect(market).toEqual({ protocol_slug: "pancakeswap-v1", fee: 2000 });
  });

  test("a USDC→WETH swap valued at the WETH price its own block set, to the cent", async () => {
    const receipt = receipts.get("v2 usdc→weth") as TransactionReceipt;
    const log = parseEventLogs({ abi: UniswapV2PairAbi, logs: receipt.logs, eventName: "Swap" })[0];
    if (!log) throw new Error("no Swap");
    const pair = log.address;
    const [r0, r1] = await a.client.readContract({
      address: pair,
      abi: UniswapV2PairAbi,
      functionName: "getReserves",
      blockNumber: receipt.blockNumber,
    });
    const usdcIs0 = lower(a.token("USDC")) < lower(a.token("WETH"));
    const [rUsdc, rWeth] = usdcIs0 ? [r0, r1] : [r1, r0];
    const usdcIn = usdcIs0 ? log.args.amount0In : log.args.amount1In;
    const wethOut = usdcIs0 ? log.args.amount1Out : log.args.amount0Out;
    // WETH's price after the swap is the pair's (USDC per WETH); the swap's USD value is the mean
    // of both sides', in cents, from exact fractions: (usdcIn/1e6 + wethOut/1e18 × rUsdc/1e6 × 1e18/rWeth) / 2.
    const centsNumerator = usdcIn * 100n * rWeth + wethOut * rUsdc * 100n;
    const cents = centsNumerator / (2n * 10n ** 6n * rWeth);
    const r = await row(`select amount_usd from swap where tx_hash = '${receipt.transactionHash}'`);
    expect(BigInt(r.amount_usd as string) / CENT).toBe(cents);
  });

  test("what each pool holds is its tokens' balanceOf (V4 pools: together, the pool manager's); a token's TVL is the sum over its pools", async () => {
    const pools = await sqlOverHttp<Record<string, string>>(
      service.url,
      "select address, token0, token1, balance0, balance1 from pool_market",
    );
    const v4 = service.deployment.uniswapV4;
    if (!v4) throw new Error("the devnet has no Uniswap V4");
    expect(pools).toHaveLength(
      service.deployment.uniswapV2.pairs.length +
        (service.deployment.uniswapV2Forks ?? []).flatMap((f) => f.pairs).length +
        service.deployment.uniswapV3.pools.length +
        (service.deployment.uniswapV3Forks ?? []).flatMap((f) => f.pools).length +
        v4.pools.length +
        1,
    );
    const sums = new Map<string, bigint>();
    const add = (map: Map<string, bigint>, token: string, amount: bigint) =>
      map.set(token, (map.get(token) ?? 0n) + amount);
    /** What the V4 pools hold together, by token: the pool manager holds all of it. */
    const inManager = new Map<string, bigint>();
    for (const p of pools) {
      // A V4 pool is named by its 32-byte PoolId and holds nothing at an address of its own.
      if (p.address?.length === 66) {
        add(inManager, p.token0 as string, BigInt(p.balance0 as string));
        add(inManager, p.token1 as string, BigInt(p.balance1 as string));
        add(sums, p.token0 as string, BigInt(p.balance0 as string));
        add(sums, p.token1 as string, BigInt(p.balance1 as string));
        continue;
      }
      const held = await Promise.all(
        [p.token0, p.token1].map((t) =>
          a.client.readContract({
            address: t as Address,
            abi: erc20Abi,
            functionName: "balanceOf",
            args: [p.address as Address],
          }),
        ),
      );
      expect({ pool: p.address, balance0: p.balance0, balance1: p.balance1 }).toEqual({
        pool: p.address,
        balance0: String(held[0]),
        balance1: String(held[1]),
      });
      add(sums, p.token0 as string, held[0] as bigint);
      add(sums, p.token1 as string, held[1] as bigint);
    }
    expect(inManager.size).toBeGreaterThan(0);
    for (const [token, amount] of inManager) {
      expect({ token, amount: await a.balanceOf(token as Address, v4.poolManager) }).toEqual({
        token,
        amount,
      });
    }
    const tokens = await sqlOverHttp<Record<string, string>>(
      service.url,
      "select address, total_value_locked from token_market",
    );
    expect(Object.fromEntries(tokens.map((t) => [t.address, t.total_value_locked]))).toEqual(
      Object.fromEntries([...sums].map(([t, v]) => [t, String(v)])),
    );
  });

  test("hour and day buckets: the USDC/USDT pair's volume, the WETH/USDC 0.05% pool's hours", async () => {
    const receipt = receipts.get("v2 usdc→usdt") as TransactionReceipt;
    const log = parseEventLogs({ abi: UniswapV2PairAbi, logs: receipt.logs, eventName: "Swap" })[0];
    if (!log) throw new Error("no Swap");
    const day = await row(
      `select volume_token0, volume_token1, swap_count from pool_day where pool = '${lower(log.address)}' and period_start = ${dayStart}`,
    );
    expect(day).toEqual({
      volume_token0: String(log.args.amount0In + log.args.amount0Out),
      volume_token1: String(log.args.amount1In + log.args.amount1Out),
      swap_count: 1,
    });
    // The V3 swap in the first hour, the other in the next day: one swap in each bucket.
    const pool500 = (
      await a.client.readContract({
        address: service.deployment.uniswapV3.factory,
        abi: UniswapV3FactoryAbi,
        functionName: "getPool",
        args: [a.token("USDC"), a.token("WETH"), 500],
      })
    ).toLowerCase();
    const hours = await sqlOverHttp<Record<string, string | number>>(
      service.url,
      `select period_start, swap_count from pool_hour where pool = '${pool500}' and period_start >= ${dayStart} order by period_start`,
    );
    expect(hours).toEqual([
      { period_start: dayStart, swap_count: 1 },
      { period_start: dayStart + DAY, swap_count: 1 },
    ]);
  });

  test("a dust pair does not set a price; a liquid one does", async () => {
    const uni = lower(a.token("UNI"));
    const uniWeth = await a.client.readContract({
      address: service.deployment.uniswapV2.factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [a.token("UNI"), a.token("WETH")],
    });
    const r = await row(`select price_usd, priced_by from token_market where address = '${uni}'`);
    expect(r.priced_by).toBe(lower(uniWeth));
    // About $8 (the world's price), far from the dust pair's ~$800.
    expect(BigInt(r.price_usd as string) / E18).toBe(7n);
  });
});
