/**
 * PancakeSwap V3, a fork of Uniswap V3 by configuration, on the devnet: its factory, pool,
 * SwapRouter and QuoterV2 from `@pancakeswap/v3-core`'s and `@pancakeswap/v3-periphery`'s
 * bytecode (devnet/world.ts). Its WETH/AAVE pool (0.25%) competes with Uniswap V2's pair of the
 * same tokens (0.3%); routes through it are quoted exactly and executed under every strategy.
 * Its data reaches every surface that shows pools: the history tables, the catalogue, prices
 * and balances (a token whose only pool is the fork's), and the front page's top pools.
 */
import { chromium } from "playwright-core";
import {
  type Address,
  erc20Abi,
  formatEther,
  getAddress,
  type Hex,
  maxUint256,
  parseEther,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { PancakeV3PoolAbi } from "../abis/PancakeV3Pool.js";
import { QuoterV2Abi } from "../abis/QuoterV2.js";
import { UniswapV2FactoryAbi } from "../abis/UniswapV2Factory.js";
import { UniswapV3FactoryAbi } from "../abis/UniswapV3Factory.js";
import { loadArtifact } from "../contracts/build.js";
import type { UniswapV3ForkDeployment } from "../devnet/deployment.js";
import { devnetDeployer, seedV3Positions, WETH_USD_PRICE } from "../devnet/world.js";
import { displayAddress } from "../engine/core/native.js";
import type { RouteStep } from "../engine/route/route.js";
import type { TopPool } from "../src/api/ops/top-pools.js";
import { devnetActors } from "./harness/actors.js";
import { ensureChromium } from "./harness/chromium.js";
import {
  type AnswerTx,
  coreWalletOf,
  ROUTING_STRATEGIES,
  type RoutingStrategyName,
  sendAnswerAs,
} from "./harness/send-route.js";
import {
  graphqlQuery,
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
  waitForRoutingGraph,
} from "./harness/service.js";

type RouteAnswer = {
  route: RouteStep[];
  amountOut: string;
  blockNumber: number;
  tx: { data: Hex; to: Address; from: Address; value: string };
};

describe("PancakeSwap V3 on the devnet: indexed, listed, routed and executed", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  let chainId: number;
  let fork: UniswapV3ForkDeployment;
  let pool: Address;
  let weth: Address;
  let aave: Address;

  const settleGraph = async () => {
    const head = await a.client.getBlockNumber({ cacheTime: 0 });
    await waitForIndexedBlock(service, head);
    await waitForRoutingGraph(service, chainId, head);
  };
  const route = async (query: Record<string, string>): Promise<RouteAnswer> => {
    const res = await fetch(`${service.url}/v1/shortcuts/route?${new URLSearchParams(query)}`);
    const body = (await res.json()) as unknown;
    if (res.status !== 200) throw new Error(`route ${res.status}: ${JSON.stringify(body)}`);
    return body as RouteAnswer;
  };
  /** PancakeSwap's own QuoterV2 on the pool, at `blockNumber`. */
  const quoterOut = async (amountIn: bigint, blockNumber: bigint) => {
    const { result } = await a.client.simulateContract({
      address: fork.quoterV2,
      abi: QuoterV2Abi,
      functionName: "quoteExactInputSingle",
      args: [{ tokenIn: weth, tokenOut: aave, amountIn, fee: 2500, sqrtPriceLimitX96: 0n }],
      blockNumber,
    });
    return result[0];
  };
  /** The `Swap`s of PancakeSwap's pool contract in a receipt. */
  const poolSwaps = (receipt: TransactionReceipt) =>
    parseEventLogs({ abi: PancakeV3PoolAbi, eventName: "Swap", logs: receipt.logs }).filter(
      (log) => getAddress(log.address) === pool,
    );

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    chainId = service.deployment.chainId;
    a = await devnetActors(service);
    const deployed = service.deployment.uniswapV3Forks?.find((f) => f.slug === "pancakeswap-v3");
    if (!deployed) throw new Error("the devnet has no PancakeSwap V3");
    fork = deployed;
    pool = getAddress(deployed.pools[0] as Address);
    weth = a.token("WETH");
    aave = a.token("AAVE");
  });

  afterAll(async () => {
    await service?.stop();
  });

  test("its pool is indexed under pancakeswap-v3 as the chain holds it", async () => {
    await settleGraph();
    const { v3Pools } = await graphqlQuery<{
      v3Pools: {
        items: {
          address: string;
          protocol: string;
          factory: string;
          fee: number;
          tickSpacing: number;
          sqrtPriceX96: string;
          tick: number;
          liquidity: string;
        }[];
      };
    }>(
      service,
      `{ v3Pools(where: { protocol: "pancakeswap-v3" }) { items { address protocol factory fee tickSpacing sqrtPriceX96 tick liquidity } } }`,
    );
    const [sqrtPriceX96, tick] = await a.client.readContract({
      address: pool,
      abi: PancakeV3PoolAbi,
      functionName: "slot0",
    });
    const liquidity = await a.client.readContract({
      address: pool,
      abi: PancakeV3PoolAbi,
      functionName: "liquidity",
    });
    expect(v3Pools.items).toEqual([
      {
        address: pool.toLowerCase(),
        protocol: "pancakeswap-v3",
        factory: fork.factory.toLowerCase(),
        fee: 2500,
        tickSpacing: 50,
        sqrtPriceX96: sqrtPriceX96.toString(),
        tick,
        liquidity: liquidity.toString(),
      },
    ]);
  });

  test.each(ROUTING_STRATEGIES.map((strategy, i) => [strategy, [3, 7, 8][i] as number] as const))(
    "%s: WETH → AAVE goes through PancakeSwap V3's 0.25% pool alone (called by the executor under the router, by its SwapRouter otherwise), exactly its QuoterV2's quote; the receiver gets amountOut, nothing stays behind",
    async (strategy: RoutingStrategyName, i: number) => {
      const u = a.user(i);
      const from = u.account.address;
      await settleGraph();
      // $3,000: the pool's concentrated 0.25% beats Uniswap V2's 0.3% pair by more than a split
      // would add.
      const amountIn = parseEther("1");
      await a.fund(from, weth, amountIn);
      const receiver = `0x00000000000000000000000000000000000cae0${i}` as Address;
      const r = await route({
        fromAddress: from,
        tokenIn: weth,
        tokenOut: aave,
        amountIn: amountIn.toString(),
        receiver,
        routingStrategy: strategy,
      });
      const expected = await quoterOut(amountIn, BigInt(r.blockNumber));
      expect(r.route).toEqual([
        {
          tokenIn: [weth],
          positionInId: [`${chainId}:${weth}`],
          tokenOut: [aave],
          positionOutId: [`${chainId}:${aave}:${weth}`],
          protocol: "pancakeswap-v3",
          action: "swap",
          primaryAddress: pool,
          amountIn: amountIn.toString(),
          amountOut: expected.toString(),
        },
      ]);
      expect(r.amountOut).toBe(expected.toString());
      const receipt = await sendAnswerAs(service, a, strategy, u, r, {
        token: weth,
        amount: amountIn,
      });
      expect(receipt.status).toBe("success");
      expect(await a.balanceOf(aave, receiver)).toBe(expected);
      // The pool's own event: it took exactly the input and paid exactly the quote.
      const swaps = poolSwaps(receipt);
      expect(swaps).toHaveLength(1);
      const { amount0, amount1 } = swaps[0]?.args ?? { amount0: 0n, amount1: 0n };
      const [paidIn, paidOut] =
        weth.toLowerCase() < aave.toLowerCase() ? [amount0, amount1] : [amount1, amount0];
      expect([paidIn, -paidOut]).toEqual([amountIn, expected]);
      // Under the router the executor swaps on the pool itself and pays it from its callback,
      // the data naming PancakeSwap's pool deployer; other accounts go through its SwapRouter.
      const direct = strategy === "router";
      expect(swaps[0]?.args.sender).toBe(
        direct ? service.deployment.execution.executor : fork.swapRouter,
      );
      const names = (address: Address) =>
        r.tx.data.toLowerCase().includes(address.slice(2).toLowerCase());
      expect([names(fork.poolDeployer), names(fork.swapRouter)]).toEqual([direct, !direct]);
      const wallet = strategy === "corewallet" ? await coreWalletOf(service, a, from) : undefined;
      const executing = {
        router: service.deployment.execution.executor as Address,
        corewallet: wallet,
        delegate: from,
      }[strategy];
      for (const holder of [service.deployment.execution.executor as Address, wallet, from]) {
        if (!holder) continue;
        expect(await a.balanceOf(weth, holder)).toBe(0n);
        expect(await a.balanceOf(aave, holder)).toBe(0n);
      }
      // The fork's SwapRouter keeps no allowance of the account that ran the program.
      expect(
        await a.client.readContract({
          address: weth,
          abi: erc20Abi,
          functionName: "allowance",
          args: [executing as Address, fork.swapRouter],
        }),
      ).toBe(0n);
    },
  );

  test("router: a large WETH → AAVE splits across PancakeSwap V3's pool and Uniswap V2's pair; the receiver gets exactly amountOut", async () => {
    const u = a.user(4);
    const from = u.account.address;
    await settleGraph();
    const amountIn = parseEther("200");
    await a.fund(from, weth, amountIn);
    const receiver = "0x00000000000000000000000000000000000cae10" as Address;
    const r = await route({
      fromAddress: from,
      tokenIn: weth,
      tokenOut: aave,
      amountIn: amountIn.toString(),
      receiver,
      routingStrategy: "router",
    });
    const uniswapPair = await a.client.readContract({
      address: service.deployment.uniswapV2.factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [weth, aave],
    });
    const venues = r.route.map((step) => [step.protocol, step.primaryAddress]);
    expect(venues).toContainEqual(["pancakeswap-v3", pool]);
    expect(venues).toContainEqual(["uniswap-v2", uniswapPair]);
    // The Pancake leg is exactly its QuoterV2's quote for that leg's input.
    const leg = r.route.find((step) => step.protocol === "pancakeswap-v3");
    expect(leg?.amountOut).toBe(
      (await quoterOut(BigInt(leg?.amountIn ?? 0), BigInt(r.blockNumber))).toString(),
    );
    const receipt = await sendAnswerAs(service, a, "router", u, r, {
      token: weth,
      amount: amountIn,
    });
    expect(receipt.status).toBe("success");
    expect(await a.balanceOf(aave, receiver)).toBe(BigInt(r.amountOut));
    expect(await a.balanceOf(weth, from)).toBe(0n);
    expect(await a.balanceOf(weth, service.deployment.execution.executor as Address)).toBe(0n);
  });

  test("bundle (router): pancakeswap-v3's swap on its pool, its output transferred on, exactly its QuoterV2's quote; the pool named under uniswap-v3, Uniswap's pool or no pool named under pancakeswap-v3, a 400", async () => {
    const u = a.user(5);
    const from = u.account.address;
    const third = "0x0000000000000000000000000000000000cae011" as Address;
    await settleGraph();
    const amountIn = parseEther("0.1");
    await a.fund(from, weth, amountIn);
    const post = async (protocol: string, named: Address = pool) => {
      const res = await fetch(
        `${service.url}/v1/shortcuts/bundle?${new URLSearchParams({ fromAddress: from, routingStrategy: "router" })}`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify([
            {
              protocol,
              action: "swap",
              args: {
                primaryAddress: named,
                tokenIn: weth,
                tokenOut: aave,
                amountIn: `${amountIn}`,
              },
            },
            {
              protocol: "core",
              action: "transfer",
              args: { token: aave, receiver: third, amount: { useOutputOfCallAt: 0 } },
            },
          ]),
        },
      );
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await post("uniswap-v3")).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: `actions[0].args.primaryAddress: ${displayAddress(pool.toLowerCase() as Address)} is a pancakeswap-v3 pool, not a uniswap-v3 one: name it under protocol pancakeswap-v3.`,
      },
    });
    // Under pancakeswap-v3, Uniswap's own pool of a pair is refused by name, and an address that
    // holds no indexed pool (here the executor, which a program could be pointed at) as well.
    const [uniswapPool] = service.deployment.uniswapV3.pools;
    const executor = service.deployment.execution.executor as Address;
    expect(await post("pancakeswap-v3", uniswapPool as Address)).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: `actions[0].args.primaryAddress: ${displayAddress((uniswapPool as Address).toLowerCase() as Address)} is a uniswap-v3 pool, not a pancakeswap-v3 one: name it under protocol uniswap-v3.`,
      },
    });
    expect(await post("pancakeswap-v3", executor)).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: `actions[0].args.primaryAddress: ${displayAddress(executor.toLowerCase() as Address)} is not an indexed v3 pool on chain ${chainId}.`,
      },
    });
    const r = await post("pancakeswap-v3");
    expect(r.status).toBe(200);
    const answer = r.body as AnswerTx;
    const expected = await quoterOut(amountIn, await a.client.getBlockNumber({ cacheTime: 0 }));
    const receipt = await sendAnswerAs(service, a, "router", u, answer, {
      token: weth,
      amount: amountIn,
    });
    expect(receipt.status).toBe("success");
    expect(await a.balanceOf(aave, third)).toBe(expected);
    expect(poolSwaps(receipt)).toHaveLength(1);
    expect(await a.balanceOf(weth, from)).toBe(0n);
    expect(await a.balanceOf(aave, service.deployment.execution.executor as Address)).toBe(0n);
  });

  test("its swaps in the history tables are pancakeswap-v3's, at 0.25% fees", async () => {
    await settleGraph();
    const { swaps } = await graphqlQuery<{
      swaps: { items: { protocolSlug: string; amountUsd: string; feesUsd: string }[] };
    }>(
      service,
      `{ swaps(where: { pool: "${pool.toLowerCase()}" }, limit: 100) { items { protocolSlug amountUsd feesUsd } } }`,
    );
    // The three single-pool routes, the split's leg and the bundle's swap above.
    expect(swaps.items).toHaveLength(5);
    for (const s of swaps.items) {
      expect(s.protocolSlug).toBe("pancakeswap-v3");
      expect(BigInt(s.amountUsd)).toBeGreaterThan(0n);
      expect(BigInt(s.feesUsd)).toBe((BigInt(s.amountUsd) * 2500n) / 1_000_000n);
    }
  });
  test("a token traded only on PancakeSwap V3 is in the catalogue and priced through the fork's pool; the fork's pool is among the front page's top pools under pancakeswap-v3", async () => {
    // A new token whose only pool is a PancakeSwap V3 pool against WETH, $500,000 a side.
    // (The deployer's WETH first: the actors send from the same account, and the deployer below
    // counts its nonces from when it is made.)
    await a.fund(a.deployer.account.address, weth, parseEther("1000"));
    const d = await devnetDeployer(service.anvil.url);
    const artifact = loadArtifact("DevToken");
    const only = await d.deploy(artifact.abi, artifact.bytecode, ["Fork Only", "FORKONLY", 18]);
    await d.write(only, DevTokenAbi, "mint", [d.address, parseEther("10000000")]);
    for (const t of [only, weth]) {
      await d.write(t, DevTokenAbi, "approve", [fork.positionManager, maxUint256]);
    }
    const [t0, t1] = weth.toLowerCase() < only.toLowerCase() ? [weth, only] : [only, weth];
    await d.write(fork.factory, UniswapV3FactoryAbi, "createPool", [t0, t1, 2500]);
    const onlyPool = await a.client.readContract({
      address: fork.factory,
      abi: UniswapV3FactoryAbi,
      functionName: "getPool",
      args: [t0, t1, 2500],
    });
    const spec = (address: Address) =>
      address === weth
        ? { address, decimals: 18, usdPrice: WETH_USD_PRICE }
        : { address, decimals: 18, usdPrice: 4 };
    await seedV3Positions(d, {
      pool: onlyPool,
      positionManager: fork.positionManager,
      token0: spec(t0),
      token1: spec(t1),
      fee: 2500,
      halfWidths: [12, 60, 600],
      usd: 500_000,
    });
    await settleGraph();

    // The catalogue lists it with the metadata its contract gives.
    const tokens = (await (
      await fetch(`${service.url}/v1/tokens?chainId=${chainId}&address=${only}`)
    ).json()) as { data: { address: string; symbol: string; decimals: number }[] };
    expect(tokens.data.map((t) => [t.address, t.symbol, t.decimals])).toEqual([
      [getAddress(only), "FORKONLY", 18],
    ]);

    // Its price: WETH's, times WETH per token at the fork pool's mid price (slot0).
    type Price = { price: number | null; decimals: number | null; confidence: number };
    const priceOf = async (token: Address) =>
      (await (await fetch(`${service.url}/v1/prices/${chainId}/${token}`)).json()) as Price;
    const [sqrtPriceX96] = await a.client.readContract({
      address: onlyPool,
      abi: PancakeV3PoolAbi,
      functionName: "slot0",
    });
    const token1PerToken0 = (Number(sqrtPriceX96) / 2 ** 96) ** 2;
    const wethPerToken = t0 === only ? token1PerToken0 : 1 / token1PerToken0;
    const wethPrice = (await priceOf(weth)).price as number;
    const priced = await priceOf(only);
    expect({
      decimals: priced.decimals,
      close: Math.abs((priced.price as number) / (wethPrice * wethPerToken) - 1) < 1e-9,
      confident: priced.confidence > 0,
    }).toEqual({ decimals: 18, close: true, confident: true });

    // An account's balance of it is valued at that price.
    const held = await a.client.readContract({
      address: only,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [d.address],
    });
    const balances = (await (
      await fetch(
        `${service.url}/v1/wallet/balances?chainId=${chainId}&eoaAddress=${d.address}&tokens=${only}`,
      )
    ).json()) as { token: string; amount: string; price: number; value: number }[];
    expect(balances.map((b) => [b.token, b.amount, b.price, b.value])).toEqual([
      [
        getAddress(only),
        held.toString(),
        priced.price,
        (priced.price as number) * Number(formatEther(held)),
      ],
    ]);

    // The front page's top pools (by the history tables' 24-hour volume): the fork's WETH/AAVE
    // pool, under its own slug, with the volume its swaps above recorded.
    const { swaps } = await graphqlQuery<{ swaps: { items: { amountUsd: string }[] } }>(
      service,
      `{ swaps(where: { pool: "${pool.toLowerCase()}" }, limit: 100) { items { amountUsd } } }`,
    );
    const volume = swaps.items.reduce((sum, s) => sum + BigInt(s.amountUsd), 0n);
    const overview = (await (await fetch(`${service.url}/overview.json`)).json()) as {
      chains: { id: number; topPools: TopPool[] }[];
    };
    const top = overview.chains.find((c) => c.id === chainId)?.topPools ?? [];
    const listed = top.find((p) => p.address === pool);
    const [p0, p1] = weth.toLowerCase() < aave.toLowerCase() ? [weth, aave] : [aave, weth];
    expect({
      protocolSlug: listed?.protocolSlug,
      pair: listed?.pair,
      poolId: listed?.poolId,
      volume24hUsd: listed?.volume24hUsd,
    }).toEqual({
      protocolSlug: "pancakeswap-v3",
      pair: p0 === weth ? "WETH/AAVE" : "AAVE/WETH",
      poolId: undefined,
      volume24hUsd: Number((volume * 100n) / 10n ** 18n) / 100,
    });
    expect([listed?.token0, listed?.token1]).toEqual([p0, p1]);

    // The page in a browser shows the pool's row with its protocol.
    const browser = await chromium.launch({
      executablePath: ensureChromium(),
      args: ["--no-sandbox"],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(service.url);
      await page.locator('body[data-reads="1"]').waitFor({ timeout: 20_000 });
      const row = page.locator(
        `section[data-chain="${chainId}"] table.pools tbody tr[data-pool="${pool}"]`,
      );
      expect({
        protocol: await row.locator('[data-field="protocol"]').textContent(),
        pair: await row.locator('[data-field="pair"]').textContent(),
        errors,
      }).toEqual({ protocol: "pancakeswap-v3", pair: listed?.pair, errors: [] });
    } finally {
      await browser.close();
    }
  }, 120_000);
});
