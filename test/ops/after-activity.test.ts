/**
 * Every endpoint after activity on every protocol: the devnet activity generator runs each of
 * its kinds once (V2, V3 and V4 swaps, V3 and V4 liquidity, vault deposits, redeems and yield,
 * Aave supplies, borrows, repayments and withdrawals), then one large swap on a Uniswap V4 pool
 * puts it among the front page's top pools. Each endpoint must then answer 2xx with the shape
 * the OpenAPI document gives it (checked here, and again for every answer when the service
 * stops), and the front page in a real browser must show the figures, the V4 pool among them.
 */
import { type Browser, chromium } from "playwright-core";
import { type Address, encodeFunctionData, type Hex, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { V4SwapHelperAbi } from "../../abis/generated/V4SwapHelper.js";
import { type ActivityKind, runActivity } from "../../devnet/activity.js";
import type { UniswapV4PoolKey } from "../../devnet/deployment.js";
import type { TopPool } from "../../src/api/ops/top-pools.js";
import { devnetActors } from "../harness/actors.js";
import { ensureChromium } from "../harness/chromium.js";
import {
  assertContract,
  fetchOpenApiDocument,
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
  waitForRoutingGraph,
} from "../harness/service.js";

const FROM = "0x00000000000000000000000000000000000a11ce";
/** The activity generator's seed (any seed runs each kind once in its first 14 steps). */
const SEED = 2_417;

let service: ServiceInstance;
let browser: Browser | undefined;
let counts: Record<ActivityKind, number>;
let v4Pool: UniswapV4PoolKey & { id: Hex };
let lastBlock: bigint;

beforeAll(async () => {
  service = await startService({ database: "pglite" });
  const d = service.deployment;
  counts = await runActivity({
    rpcUrl: service.anvil.url,
    deployment: d,
    steps: 14,
    intervalMs: 0,
    seed: SEED,
  });
  // One large swap on the hookless USDC/WETH V4 pool: the pool with the most volume of the day.
  const usdc = d.tokens.find((t) => t.symbol === "USDC")?.address as Address;
  const pool = d.uniswapV4?.pools.find(
    (p) =>
      p.hooks === zeroAddress &&
      [p.currency0, p.currency1].every((c) => [usdc, d.weth].includes(c as Address)),
  );
  if (!pool || !d.uniswapV4) throw new Error("the devnet has no hookless USDC/WETH V4 pool");
  v4Pool = pool;
  const a = await devnetActors(service);
  const trader = a.user(2);
  const amountIn = a.usd("USDC", 400_000);
  await a.fund(trader.account.address, usdc, amountIn);
  await a.approve(trader, usdc, d.uniswapV4.swapHelper, amountIn);
  const { currency0, currency1, fee, tickSpacing, hooks } = pool;
  const receipt = await a.send(trader, {
    to: d.uniswapV4.swapHelper,
    data: encodeFunctionData({
      abi: V4SwapHelperAbi,
      functionName: "swap",
      // Exact input (a negative amount) of USDC.
      args: [{ currency0, currency1, fee, tickSpacing, hooks }, currency0 === usdc, -amountIn, 0n],
    }),
  });
  expect(receipt.status).toBe("success");
  lastBlock = receipt.blockNumber;
  // The generator's allowances and actions are a few hundred blocks for the indexer to follow.
  await waitForIndexedBlock(service, lastBlock, 180_000);
  await waitForRoutingGraph(service, d.chainId, lastBlock, 60_000);
}, 480_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe("after activity on every protocol", () => {
  test("the generator ran every kind of action once", () => {
    expect(Object.values(counts)).toEqual(Array.from({ length: 14 }, () => 1));
  });

  test("every endpoint answers 2xx with the shape the OpenAPI document gives it", async () => {
    const d = service.deployment;
    const usdc = d.tokens.find((t) => t.symbol === "USDC")?.address as Address;
    const get = (path: string) => ({ method: "GET", path });
    const requests: { method: string; path: string; body?: unknown }[] = [
      get("/health"),
      get("/ready"),
      get("/status"),
      get("/metrics"),
      get("/metrics/api"),
      get("/"),
      get("/overview.json"),
      get("/overview.js"),
      get("/docs"),
      get("/v1/openapi.json"),
      get("/v1/tokens"),
      get(`/v1/tokens?chainId=${d.chainId}&protocolSlug=uniswap-v4`),
      get("/v1/standards"),
      get("/v1/standards/uniswap-v4"),
      get("/v1/projects"),
      get("/v1/projects/uniswap-v4/logo.svg"),
      get("/v1/protocols"),
      get("/v1/actions"),
      get("/v1/actions/uniswap-v4"),
      get(`/v1/prices/${d.chainId}?addresses=${usdc}&addresses=${d.weth}`),
      get(`/v1/prices/${d.chainId}/${d.weth}`),
      get("/v1/networks"),
      get(`/v1/wallet/balances?chainId=${d.chainId}&eoaAddress=${FROM}`),
      get(
        `/v1/wallet/approve?chainId=${d.chainId}&fromAddress=${FROM}&tokenAddress=${usdc}&amount=1`,
      ),
      get(
        `/v1/shortcuts/route?chainId=${d.chainId}&fromAddress=${FROM}&tokenIn=${usdc}&tokenOut=${d.weth}&amountIn=1000000000`,
      ),
      {
        method: "POST",
        path: `/v1/shortcuts/bundle?chainId=${d.chainId}&fromAddress=${FROM}`,
        body: [{ protocol: "wrapped-native", action: "deposit", args: { amountIn: "1000" } }],
      },
      {
        method: "POST",
        path: "/graphql",
        body: { query: "{ poolMarkets(limit: 1) { totalCount } }" },
      },
    ];
    const statuses: string[] = [];
    for (const r of requests) {
      const res = await fetch(`${service.url}${r.path}`, {
        method: r.method,
        ...(r.body === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(r.body) }),
      });
      const text = await res.text();
      statuses.push(
        `${r.method} ${r.path.split("?")[0]} ${res.status}${res.status >= 300 ? ` ${text.slice(0, 300)}` : ""}`,
      );
    }
    expect(statuses).toEqual(requests.map((r) => `${r.method} ${r.path.split("?")[0]} 200`));
    // Every answer above against the document (what the service's stop checks as well).
    await assertContract(service.url, await fetchOpenApiDocument(service.url));
  }, 120_000);

  test("/overview.json lists the V4 pool by its pool id in the pool manager, with its tokens", async () => {
    const d = service.deployment;
    const overview = (await (await fetch(`${service.url}/overview.json`)).json()) as {
      chains: { topPools: TopPool[] }[];
    };
    const top = overview.chains[0]?.topPools ?? [];
    const v4 = top.find((p) => p.protocolSlug === "uniswap-v4");
    const symbol = (a: string) =>
      a === d.weth ? "WETH" : d.tokens.find((t) => t.address === a)?.symbol;
    expect({
      first: top[0]?.poolId,
      address: v4?.address,
      poolId: v4?.poolId,
      token0: v4?.token0,
      token1: v4?.token1,
      pair: v4?.pair,
    }).toEqual({
      first: v4Pool.id,
      address: d.uniswapV4?.poolManager,
      poolId: v4Pool.id,
      token0: v4Pool.currency0,
      token1: v4Pool.currency1,
      pair: `${symbol(v4Pool.currency0)}/${symbol(v4Pool.currency1)}`,
    });
    // Pools with an address of their own carry no pool id.
    for (const p of top.filter((p) => p.protocolSlug !== "uniswap-v4")) {
      expect({ address: p.address, poolId: p.poolId }).toEqual({
        address: p.address,
        poolId: undefined,
      });
    }
  });

  test("the front page shows the figures, the V4 pool first among the top pools", async () => {
    browser = await chromium.launch({ executablePath: ensureChromium(), args: ["--no-sandbox"] });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await page.goto(service.url);
    await page.locator('body[data-reads="1"]').waitFor({ timeout: 20_000 });
    const section = page.locator(`section[data-chain="${service.deployment.chainId}"]`);
    const firstRow = section.locator("table.pools tbody tr").first();
    expect({
      error: await page.locator("#error").textContent(),
      indexedBlock: Number(await section.locator('[data-field="indexedBlock"]').textContent()),
      pool: await firstRow.getAttribute("data-pool"),
      protocol: await firstRow.locator('[data-field="protocol"]').textContent(),
      errors,
    }).toEqual({
      error: "",
      indexedBlock: expect.any(Number),
      pool: v4Pool.id,
      protocol: "uniswap-v4",
      errors: [],
    });
    expect(
      Number(await section.locator('[data-field="indexedBlock"]').textContent()),
    ).toBeGreaterThanOrEqual(Number(lastBlock));
    await page.close();
  }, 60_000);
});
