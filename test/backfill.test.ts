/**
 * While the indexer backfills, the index is incomplete: every endpoint that answers from it
 * says so with a 503 instead of answering from partial data, and answers as soon as the backfill
 * completes. The indexer's `eth_getLogs` requests are held back at a gate in front of the chain
 * node, so the backfill cannot finish while the suite asks.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { encodeFunctionData, maxUint256 } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { UniswapV2Router02Abi } from "../abis/UniswapV2Router02.js";
import type { TopPool } from "../src/api/ops/top-pools.js";
import { devnetActors } from "./harness/actors.js";
import { sqlOverHttp } from "./harness/analytics-model.js";
import { ensureChromium } from "./harness/chromium.js";
import { type RpcGate, startRpcGate } from "./harness/rpc-gate.js";
import { type ServiceInstance, startService, waitForIndexedBlock } from "./harness/service.js";

let service: ServiceInstance;
let gate: RpcGate;
let browser: Browser | undefined;
/** While set, the head the indexer is shown trails the chain's by this many blocks. */
let latestLagBlocks = 0;

beforeAll(async () => {
  service = await startService({
    database: "pglite",
    waitForReady: false,
    ponderRpcUrl: async (anvilUrl) => {
      gate = await startRpcGate({
        target: anvilUrl,
        hold: (method) => method === "eth_getLogs",
        latestLagBlocks: () => latestLagBlocks,
      });
      return gate.url;
    },
  });
});

afterAll(async () => {
  await browser?.close();
  gate?.open();
  await service?.stop();
  await gate?.close();
});

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

/** The newest block the indexer has processed, per Ponder's `/status`. */
async function indexedBlock(): Promise<bigint> {
  const status = (await (await fetch(`${service.url}/status`)).json()) as Record<
    string,
    { block: { number: number } }
  >;
  return BigInt(Math.max(...Object.values(status).map((s) => s.block.number)));
}

/**
 * What the front page shows for the one chain, once it has read its figures at least `reads`
 * times (it reads every 2 s; a pace needs two reads) and shows an indexed block of at least `block`.
 */
async function frontPage(page: Page, block: number, reads = 1): Promise<Record<string, string>> {
  const section = page.locator(`section[data-chain="${service.deployment.chainId}"]`);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const done = Number(await page.locator("body").getAttribute("data-reads"));
    const shown = Number(
      await section
        .locator('[data-field="indexedBlock"]')
        .textContent()
        .catch(() => ""),
    );
    if (done >= reads && shown >= block) break;
    if (Date.now() > deadline) throw new Error(`the page still shows indexed block ${shown}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const fields = await section
    .locator("h2 [data-field], dl [data-field]")
    .evaluateAll((els) =>
      Object.fromEntries(els.map((el) => [el.getAttribute("data-field"), el.textContent ?? ""])),
    );
  const bar = await section.locator(".bar").getAttribute("aria-valuenow");
  return { ...fields, bar: bar ?? "" };
}

/** The progress the page must show: floor(per mille of start → head indexed) / 10, as a percent. */
function shownPercent(indexed: number, head: number): number {
  const start = service.deployment.startBlock;
  return Math.floor(((indexed - start) / (head - start)) * 1000) / 10;
}

const backfilling = {
  statusCode: 503,
  error: "Service Unavailable",
  message: "The indexer is still backfilling; indexed data is incomplete. Retry shortly.",
};

describe("while the indexer backfills", () => {
  const from = "0x00000000000000000000000000000000000a11ce";
  const token = (symbol: string) => {
    const found = service.deployment.tokens.find((t) => t.symbol === symbol);
    if (!found) throw new Error(`no ${symbol}`);
    return found.address;
  };
  const routePath = () =>
    `/v1/shortcuts/route?${new URLSearchParams({
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: "1000000000",
    })}`;
  const postBundle = () =>
    fetch(`${service.url}/v1/shortcuts/bundle?${new URLSearchParams({ fromAddress: from })}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        {
          protocol: "wrapped-native",
          action: "deposit",
          args: { amountIn: "1000000000000000000" },
        },
      ]),
    });
  const answer = async (res: Response) => ({ status: res.status, body: await res.json() });

  test("tokens, projects, routes and bundles answer 503 naming the backfill", async () => {
    // The indexer is running and asked for logs, which wait at the gate.
    // (/health answers before the backfill's first request; wait for that request.)
    const heldBy = Date.now() + 30_000;
    while (!gate.held().includes("eth_getLogs") && Date.now() < heldBy) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(gate.held()).toContain("eth_getLogs");
    expect((await fetch(`${service.url}/ready`)).status).toBe(503);

    expect(await answer(await fetch(`${service.url}/v1/tokens`))).toEqual({
      status: 503,
      body: backfilling,
    });
    expect(await answer(await fetch(`${service.url}/v1/projects`))).toEqual({
      status: 503,
      body: backfilling,
    });
    expect(await answer(await fetch(`${service.url}${routePath()}`))).toEqual({
      status: 503,
      body: backfilling,
    });
    expect(await answer(await postBundle())).toEqual({ status: 503, body: backfilling });
    // /v1/networks answers meanwhile: how far the held backfill is behind the chain's head.
    const head = Number(await rpc(service.anvil.url, "eth_blockNumber", []));
    const indexed = Number(await indexedBlock());
    expect(indexed).toBeLessThan(head);
    // The routing snapshot follows the index on its own schedule (it may have started before
    // the indexer recorded a block): wait until it reflects the held block.
    for (const until = Date.now() + 15_000; Date.now() < until; ) {
      const [network] = (await (await fetch(`${service.url}/v1/networks`)).json()) as {
        snapshotBlock: number | null;
      }[];
      if (network?.snapshotBlock === indexed) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const timestampOf = async (block: number) =>
      Number(
        (
          (await rpc(service.anvil.url, "eth_getBlockByNumber", [
            `0x${block.toString(16)}`,
            false,
          ])) as {
            timestamp: string;
          }
        ).timestamp,
      );
    expect(await answer(await fetch(`${service.url}/v1/networks`))).toEqual({
      status: 200,
      body: [
        {
          id: service.deployment.chainId,
          name: "Devnet",
          isConnected: true,
          indexedBlock: indexed,
          snapshotBlock: indexed,
          headBlock: head,
          lagBlocks: head - indexed,
          lagSeconds: (await timestampOf(head)) - (await timestampOf(indexed)),
          maxLagSeconds: 60,
          maxLagBlocks: null,
          // A devnet replays its world from its first block: its history is complete from there.
          historyFromBlock: service.deployment.startBlock,
        },
      ],
    });
    // The front page, in a browser, shows the same: the held backfill's block against the head.
    browser = await chromium.launch({ executablePath: ensureChromium(), args: ["--no-sandbox"] });
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(service.url);
    const percent = shownPercent(indexed, head);
    expect(percent).toBeLessThan(100);
    expect(await frontPage(page, indexed, 2)).toEqual({
      name: "Devnet",
      id: `chain ${service.deployment.chainId}`,
      status: "backfilling",
      indexedBlock: String(indexed),
      startBlock: String(service.deployment.startBlock),
      headBlock: String(head),
      progress: `${percent} %`,
      // Held: no block indexed between the page's reads, so no pace and no ETA.
      blocksPerSecond: "0 blocks/s",
      eta: "–",
      snapshotBlock: String(indexed),
      lagBlocks: `${head - indexed} blocks`,
      bar: String(percent),
    });
    expect(pageErrors).toEqual([]);
    await page.close();
    // Still backfilling after all these answers: they were given from an incomplete index.
    expect((await fetch(`${service.url}/ready`)).status).toBe(503);
  });

  test("a chain that moves faster than the indexer follows: caught up once past the head seen when the backfill ended", async () => {
    // A block every 500 ms, and the indexer is shown the chain's head 2 blocks late: from the
    // end of the backfill on it trails the head at every moment, by block count rather than by
    // timing, yet it is live. A readiness that waited for the indexer to reach the head of the
    // moment would never answer here. (The pace only has to leave the indexer time to follow.)
    latestLagBlocks = 2;
    let mining = true;
    const miner = (async () => {
      while (mining) {
        await rpc(service.anvil.url, "anvil_mine", ["0x1"]);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    try {
      gate.open();
      // A wait, not a claim: room for the indexer on a loaded 2-core machine.
      const deadline = Date.now() + 150_000;
      let tokens = await answer(await fetch(`${service.url}/v1/tokens`));
      while (tokens.status !== 200) {
        if (Date.now() > deadline)
          throw new Error(`still ${JSON.stringify(tokens)}:\n${service.output()}`);
        await new Promise((r) => setTimeout(r, 100));
        tokens = await answer(await fetch(`${service.url}/v1/tokens`));
      }
      // Answered while the index trails the chain: the indexer has not been shown the last two
      // blocks (the head only grows, so reading it after the index's block cannot narrow that).
      const indexed = await indexedBlock();
      const head = BigInt((await rpc(service.anvil.url, "eth_blockNumber", [])) as string);
      expect(indexed).toBeLessThanOrEqual(head - 2n);
    } finally {
      mining = false;
      await miner;
      latestLagBlocks = 0;
    }
  }, 180_000);

  test("once the backfill completes, the same requests succeed", async () => {
    const deadline = Date.now() + 60_000;
    while ((await fetch(`${service.url}/ready`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`never ready:\n${service.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const head = BigInt((await rpc(service.anvil.url, "eth_blockNumber", [])) as string);
    // The blocks mined above, indexed at the indexer's pace on a loaded machine.
    await waitForIndexedBlock(service, head, 120_000);

    const tokens = await answer(await fetch(`${service.url}/v1/tokens`));
    expect(tokens.status).toBe(200);
    // Every deployed ERC20 (and the native token) is listed once the index is complete.
    const listed = new Set(
      (tokens.body as { data: { address: string }[] }).data.map((t) => t.address.toLowerCase()),
    );
    expect(
      service.deployment.tokens.map((t) => t.address).filter((a) => !listed.has(a.toLowerCase())),
    ).toEqual([]);

    // The routing snapshot follows the index within its refresh interval; after the burst of
    // blocks above it may still be behind, and on a starved machine past the freshness guard's
    // limit (its 503) for a moment.
    let route = await answer(await fetch(`${service.url}${routePath()}`));
    const snapshotDeadline = Date.now() + 10_000;
    while (
      route.status === 503 &&
      /^The (routing snapshot|index) of chain \d+ is at block \d+, \d+ blocks and \d+ seconds behind/.test(
        (route.body as { message: string }).message,
      ) &&
      Date.now() < snapshotDeadline
    ) {
      await new Promise((r) => setTimeout(r, 100));
      route = await answer(await fetch(`${service.url}${routePath()}`));
    }
    expect(route.status).toBe(200);
    expect((route.body as { route: { tokenOut: string[] }[] }).route.at(-1)?.tokenOut).toEqual([
      token("WETH"),
    ]);
    const bundle = await answer(await postBundle());
    expect(bundle.status).toBe(200);
    expect((bundle.body as { amountsOut: Record<string, string> }).amountsOut).toEqual({
      [token("WETH")]: "1000000000000000000",
    });

    // The front page: live, every block up to the head indexed, as /v1/networks says.
    const page = await (browser as Browser).newPage();
    await page.goto(service.url);
    const [network] = (await (await fetch(`${service.url}/v1/networks`)).json()) as {
      indexedBlock: number;
      snapshotBlock: number;
      headBlock: number;
      lagBlocks: number;
    }[];
    expect(network?.headBlock).toBe(Number(head));
    const shown = await frontPage(page, Number(head));
    expect(shown).toMatchObject({
      status: "live",
      indexedBlock: String(head),
      headBlock: String(head),
      progress: "100 %",
      eta: "caught up",
      bar: "100",
    });
    // The snapshot follows the index within its refresh interval: what the page shows of it is
    // what /v1/networks said just before, or newer.
    expect(Number(shown.snapshotBlock)).toBeGreaterThanOrEqual(network?.snapshotBlock as number);
    expect(Number.parseInt(shown.lagBlocks as string, 10)).toBe(
      Number(head) - Number(shown.snapshotBlock),
    );
    await page.close();
  }, 180_000);

  test("the front page lists the pools with the most volume over 24 hours, as the history tables say", async () => {
    const a = await devnetActors(service);
    const trader = a.user(1);
    const me = trader.account.address;
    const amountIn = a.usd("USDC", 25_000);
    const router02 = service.deployment.uniswapV2.router02;
    await a.fund(me, token("USDC"), amountIn);
    await a.approve(trader, token("USDC"), router02, amountIn);
    const receipt = await a.send(trader, {
      to: router02,
      data: encodeFunctionData({
        abi: UniswapV2Router02Abi,
        functionName: "swapExactTokensForTokens",
        args: [amountIn, 0n, [token("USDC"), token("WETH")], me, maxUint256],
      }),
    });
    await waitForIndexedBlock(service, receipt.blockNumber);
    type Figures = { chains: { snapshotBlock: number | null; topPools: TopPool[] }[] };
    const figures = async () =>
      (await (await fetch(`${service.url}/overview.json`)).json()) as Figures;
    let overview = await figures();
    const deadline = Date.now() + 10_000;
    while ((overview.chains[0]?.snapshotBlock ?? 0) < Number(receipt.blockNumber)) {
      if (Date.now() > deadline)
        throw new Error(`snapshot still at ${overview.chains[0]?.snapshotBlock}`);
      await new Promise((r) => setTimeout(r, 100));
      overview = await figures();
    }
    const [chain] = overview.chains;
    const top = chain?.topPools ?? [];

    // The same question asked of the hour rows over SQL: the 24 hours before the graph's block.
    const block = (await rpc(service.anvil.url, "eth_getBlockByNumber", [
      `0x${(chain?.snapshotBlock ?? 0).toString(16)}`,
      false,
    ])) as { timestamp: string };
    const since = Number(block.timestamp) - 86_400;
    const volumes = new Map<string, bigint>();
    for (const row of await sqlOverHttp<{ pool: string; period_start: number; volume_usd: string }>(
      service.url,
      "select pool, period_start, volume_usd from pool_hour where chain_id = $1",
      [service.deployment.chainId],
    )) {
      if (Number(row.period_start) <= since) continue;
      volumes.set(
        row.pool.toLowerCase(),
        (volumes.get(row.pool.toLowerCase()) ?? 0n) + BigInt(row.volume_usd),
      );
    }
    const expected = [...volumes]
      .filter(([, v]) => v > 0n)
      .sort(([p, v], [q, w]) => (v === w ? (p < q ? -1 : 1) : v > w ? -1 : 1))
      .slice(0, 5)
      .map(([pool, v]) => [pool, Number((v * 100n) / 10n ** 18n) / 100]);
    expect(top.map((p) => [p.address.toLowerCase(), p.volume24hUsd])).toEqual(expected);
    // The pair just traded is among them, with at least this swap's volume (the swap's row).
    const [swapRow] = await sqlOverHttp<{ pool: string; amount_usd: string }>(
      service.url,
      "select pool, amount_usd from swap where tx_hash = $1",
      [receipt.transactionHash],
    );
    const swapUsd = Number((BigInt(swapRow?.amount_usd ?? "0") * 100n) / 10n ** 18n) / 100;
    // 25,000 USDC in, and the WETH out at the WETH price of that block: their mean.
    expect(swapUsd).toBeGreaterThan(24_000);
    expect(swapUsd).toBeLessThanOrEqual(25_000);
    const traded = top.find((p) => p.address.toLowerCase() === swapRow?.pool.toLowerCase());
    const usdcFirst = token("USDC").toLowerCase() < token("WETH").toLowerCase();
    expect([traded?.pair, traded?.protocolSlug]).toEqual([
      usdcFirst ? "USDC/WETH" : "WETH/USDC",
      "uniswap-v2",
    ]);
    expect(traded?.volume24hUsd).toBeGreaterThanOrEqual(swapUsd);
    expect(traded?.days.at(-1)?.volumeUsd).toBeGreaterThanOrEqual(swapUsd);

    // The page shows those pools, in that order, with the same figures.
    const page = await (browser as Browser).newPage();
    await page.goto(service.url);
    await frontPage(page, Number(receipt.blockNumber));
    const rows = await page
      .locator("table.pools tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.getAttribute("data-pool"),
          ...[...tr.querySelectorAll("td[data-field]")].map((td) => td.textContent),
          tr.querySelectorAll("svg rect").length,
        ]),
      );
    const usd = (v: number | null) =>
      v === null
        ? "–"
        : `$${v.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
    expect(rows).toEqual(
      top.map((p) => [
        p.address,
        p.pair,
        p.protocolSlug,
        usd(p.volume24hUsd),
        usd(p.tvlUsd),
        p.days.length,
      ]),
    );
    await page.close();
  }, 120_000);
});
