/**
 * The GraphQL and SQL-over-HTTP examples of docs/analysts.md's "History" section, run verbatim against
 * an indexer (Postgres mode) on the devnet after swaps in six pools; each answer is compared with
 * the same question answered from the history recomputed from the chain's logs
 * (test/harness/analytics-model.ts). The page's addresses must be the devnet's.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  type Abi,
  type Address,
  encodeFunctionData,
  type Hex,
  maxUint256,
  parseEther,
  parseUnits,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { SwapRouterAbi } from "../../abis/SwapRouter.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { UniswapV3FactoryAbi } from "../../abis/UniswapV3Factory.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { devnetActors } from "../harness/actors.js";
import {
  type AnalyticsModel,
  analyticsFromChain,
  sqlOverHttp,
} from "../harness/analytics-model.js";
import { type ServiceInstance, startService, waitForIndexedBlock } from "../harness/service.js";

/** The section's code blocks, in order: [language, text]. */
function readmeExamples(): [string, string][] {
  const readme = readFileSync(resolve(import.meta.dirname, "../../docs/analysts.md"), "utf8");
  const start = readme.indexOf("## History: events, hourly and daily aggregates, USD prices");
  const section = readme.slice(start, readme.indexOf("\n## ", start));
  return [...section.matchAll(/```(graphql|sql)\n([\s\S]*?)```/g)].map((m) => [
    m[1] as string,
    m[2] as string,
  ]);
}

type Rows = Record<string, string | number | null>[];
const str = (rows: Rows) =>
  rows.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])),
  );

describe("docs/analysts.md history examples", () => {
  let service: ServiceInstance;
  let model: AnalyticsModel;
  let examples: [string, string][];

  const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: Record<string, { items: Rows }>; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return Object.values(body.data ?? {})[0]?.items ?? [];
  };
  const example = (i: number, language: string) => {
    const e = examples[i];
    expect(e?.[0]).toBe(language);
    return e?.[1] as string;
  };

  beforeAll(async () => {
    examples = readmeExamples();
    service = await startService({ database: "postgres" });
    const a = await devnetActors(service);
    const d = service.deployment;
    const me = a.deployer.account.address;
    const rpc = async <T>(method: string, params: unknown[]) =>
      (await a.client.request({ method: method as never, params: params as never })) as T;
    const send = async (
      to: Address,
      abi: Abi | readonly unknown[],
      fn: string,
      args: unknown[],
      value = 0n,
    ) => {
      const hash = await rpc<Hex>("eth_sendTransaction", [
        {
          from: me,
          to,
          data: encodeFunctionData({ abi: abi as Abi, functionName: fn, args }),
          value: `0x${value.toString(16)}`,
          gas: "0x4c4b40",
        },
      ]);
      // An automined transaction can stall under load: mine it rather than wait without end.
      const receipt = await devnetReceipt(a.client, hash);
      expect(receipt.status).toBe("success");
    };
    const [usdc, usdt, dai, weth, wbtc] = ["USDC", "USDT", "DAI", "WETH", "WBTC"].map(
      a.token,
    ) as Address[];
    await send(usdc as Address, DevTokenAbi, "mint", [me, parseUnits("10000000", 6)]);
    await send(weth as Address, WETH9Abi, "deposit", [], parseEther("1000"));
    for (const t of [usdc, weth] as Address[])
      for (const spender of [d.uniswapV2.router02, d.uniswapV3.swapRouter])
        await send(t, DevTokenAbi, "approve", [spender, maxUint256]);
    const v2 = (path: Address[], amountIn: bigint) =>
      send(d.uniswapV2.router02, UniswapV2Router02Abi, "swapExactTokensForTokens", [
        amountIn,
        0n,
        path,
        me,
        maxUint256,
      ]);
    const v3 = (tokenIn: Address, tokenOut: Address, fee: number, amountIn: bigint) =>
      send(d.uniswapV3.swapRouter, SwapRouterAbi, "exactInputSingle", [
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
      ]);
    // Six pools, each with its own volume.
    await v3(usdc as Address, weth as Address, 500, parseUnits("90000", 6));
    await v3(weth as Address, usdc as Address, 500, parseEther("11"));
    await v2([usdc, weth] as Address[], parseUnits("70000", 6));
    await v2([usdc, usdt] as Address[], parseUnits("50000", 6));
    await v2([usdc, dai] as Address[], parseUnits("40000", 6));
    await v2([weth, wbtc] as Address[], parseEther("9"));
    await v3(weth as Address, usdc as Address, 3000, parseEther("4"));
    const head = await a.client.getBlockNumber({ cacheTime: 0 });
    await waitForIndexedBlock(service, head);
    model = await analyticsFromChain(a.client, d, head);

    // The page's addresses are the devnet's.
    const pool = await a.client.readContract({
      address: d.uniswapV3.factory,
      abi: UniswapV3FactoryAbi,
      functionName: "getPool",
      args: [usdc as Address, weth as Address, 500],
    });
    const section = examples.map(([, text]) => text).join("\n");
    expect(section).toContain(d.weth.toLowerCase());
    expect(section).toContain(pool.toLowerCase());
    expect(head).toBeGreaterThan(150n);
  }, 240_000);

  afterAll(async () => {
    await service?.stop();
  });

  test("the section has its seven examples", () => {
    expect(examples.map(([language]) => language)).toEqual([
      "graphql",
      "graphql",
      "sql",
      "graphql",
      "sql",
      "graphql",
      "sql",
    ]);
  });

  test("top pools by volume (GraphQL: the latest day)", async () => {
    const [latest] = await graphql(example(0, "graphql"));
    const day = Math.max(...model.pool_day.map((r) => Number(r.period_start)));
    expect(latest).toEqual({ periodStart: day });
    const top = await graphql(example(1, "graphql"), { day });
    const expected = model.pool_day
      .filter((r) => Number(r.period_start) === day)
      .sort((x, y) => Number(BigInt(y.volume_usd as string) - BigInt(x.volume_usd as string)))
      .slice(0, 5)
      .map((r) => ({
        pool: r.pool,
        protocolSlug: r.protocol_slug,
        token0: r.token0,
        token1: r.token1,
        volumeUsd: r.volume_usd,
        feesUsd: r.fees_usd,
        tvlUsd: r.tvl_usd,
        swapCount: Number(r.swap_count),
      }));
    expect(top).toEqual(expected);
    expect(BigInt(top[4]?.volumeUsd as string)).toBeGreaterThan(0n);
  });

  test("top pools by 24 h volume (SQL)", async () => {
    // The 24 hours up to the newest indexed hour.
    const since = Math.max(...model.pool_hour.map((r) => Number(r.period_start))) - 86_400 + 3600;
    const rows = await sqlOverHttp(service.url, example(2, "sql"), [since]);
    const sums = new Map<string, { volume: bigint; fees: bigint; swaps: number }>();
    for (const r of model.pool_hour.filter((h) => Number(h.period_start) >= since)) {
      const s = sums.get(r.pool as string) ?? { volume: 0n, fees: 0n, swaps: 0 };
      s.volume += BigInt(r.volume_usd as string);
      s.fees += BigInt(r.fees_usd as string);
      s.swaps += Number(r.swap_count);
      sums.set(r.pool as string, s);
    }
    const expected = [...sums]
      .sort(([p, x], [q, y]) =>
        x.volume === y.volume ? (p < q ? -1 : 1) : x.volume > y.volume ? -1 : 1,
      )
      .slice(0, 5)
      .map(([pool, s]) => ({
        pool,
        volume_usd: String(s.volume),
        fees_usd: String(s.fees),
        swaps: String(s.swaps),
      }));
    expect(str(rows as Rows)).toEqual(expected);
  });

  test("WETH's daily USD price (GraphQL and SQL)", async () => {
    const weth = service.deployment.weth.toLowerCase();
    const days = model.token_day
      .filter((r) => r.token === weth)
      .sort((x, y) => Number(x.period_start) - Number(y.period_start));
    expect(days.length).toBeGreaterThan(0);
    expect(await graphql(example(3, "graphql"))).toEqual(
      days.map((r) => ({
        periodStart: Number(r.period_start),
        openUsd: r.open_usd,
        highUsd: r.high_usd,
        lowUsd: r.low_usd,
        closeUsd: r.close_usd,
        volumeUsd: r.volume_usd,
      })),
    );
    expect(str((await sqlOverHttp(service.url, example(4, "sql"))) as Rows)).toEqual(
      days.map((r) => ({
        period_start: r.period_start,
        open_usd: r.open_usd,
        high_usd: r.high_usd,
        low_usd: r.low_usd,
        close_usd: r.close_usd,
        volume_usd: r.volume_usd,
      })),
    );
  });

  test("a pool's swaps in a block range (GraphQL and SQL)", async () => {
    const pool = /pool: "(0x[0-9a-f]{40})"/.exec(example(5, "graphql"))?.[1];
    const swaps = model.swap
      .filter((r) => r.pool === pool && BigInt(r.block_number as string) >= 150n)
      .sort((x, y) => Number(BigInt(x.block_number as string) - BigInt(y.block_number as string)));
    expect(swaps).toHaveLength(2);
    expect(await graphql(example(5, "graphql"))).toEqual(
      swaps.map((r) => ({
        blockNumber: r.block_number,
        txHash: r.tx_hash,
        logIndex: Number(r.log_index),
        sender: r.sender,
        recipient: r.recipient,
        amount0: r.amount0,
        amount1: r.amount1,
        amountUsd: r.amount_usd,
      })),
    );
    expect(str((await sqlOverHttp(service.url, example(6, "sql"))) as Rows)).toEqual(
      swaps.map((r) => ({
        block_number: r.block_number,
        tx_hash: r.tx_hash,
        log_index: r.log_index,
        sender: r.sender,
        recipient: r.recipient,
        amount0: r.amount0,
        amount1: r.amount1,
        amount_usd: r.amount_usd,
      })),
    );
  });
});
