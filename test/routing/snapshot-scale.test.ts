/**
 * The routing snapshot at mainnet scale against the local Postgres: a schema seeded by
 * bench/seed-scale.ts (400,000 V2 pairs, 30,000 V3 pools with their ticks, 150,000 tokens,
 * 300 vaults) is served by `ponder serve`; the whole graph is loaded before `/ready`, and a block
 * that rewrites 70,000 pairs — more keys than Postgres takes bind parameters — is applied and
 * then reorged away without a full rebuild and without a query failing.
 * Timings are measured in bench/scale.ts, not here.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  blockEndCheckpoint,
  createPonderSchema,
  dropScaleSchema,
  generateScaleState,
  HUBS,
  insertScaleState,
  MAINNET_SIZES,
  type ScaleState,
  SEEDED_HEAD_BLOCK,
  scaleChainEnv,
} from "../../bench/seed-scale.js";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { startAnvil } from "../../devnet/anvil.js";
import { purgeSyncCache } from "../../devnet/sync-cache.js";
import { freePort } from "../harness/net.js";
import { waitUntil } from "../harness/ponder-process.js";
import { TEST_DATABASE_URL } from "../harness/service.js";
import { sample } from "../ops/prometheus.js";

const root = resolve(import.meta.dirname, "../..");
const SEED = 20261123;
/** More pairs than one query may bind parameters for (65,535). */
const REWRITTEN_PAIRS = 70_000;

const chainId = 880_000 + Math.floor(Math.random() * 10_000);
const schema = `scale_test_${process.pid}`;
let state: ScaleState;
let anvil: AnvilInstance | undefined;
let ponder: ChildProcess | undefined;
let output = "";
let url = "";

const metric = async (name: string, labels: Record<string, string>) =>
  sample(await (await fetch(`${url}/metrics/api`)).text(), name, labels);
const chain = { chain_id: String(chainId) };
const refreshes = (kind: "full" | "incremental") =>
  metric("shortcuts_snapshot_refresh_duration_seconds_count", { ...chain, kind });

beforeAll(async () => {
  console.log(`mainnet-scale snapshot test: seed ${SEED}, chain ${chainId}, schema ${schema}`);
  state = generateScaleState({ seed: SEED, chainId, sizes: MAINNET_SIZES });
  await createPonderSchema({
    databaseUrl: TEST_DATABASE_URL,
    schema,
    chainId,
    anvilPort: await freePort(),
    httpPort: await freePort(),
  });
  await insertScaleState({ databaseUrl: TEST_DATABASE_URL, schema, state });
  anvil = await startAnvil({ port: await freePort(), chainId });
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  ponder = spawn(
    resolve(root, "node_modules/.bin/ponder"),
    ["serve", "--schema", schema, "--port", String(port), "--log-level", "warn"],
    {
      cwd: root,
      env: {
        ...process.env,
        ...scaleChainEnv(chainId, anvil.url),
        DATABASE_URL: TEST_DATABASE_URL,
        NODE_OPTIONS: "--max-old-space-size=1536",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  ponder.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  ponder.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  await waitUntil(
    "ponder serve answered /ready",
    async () => (await fetch(`${url}/ready`)).status === 200,
    { timeoutMs: 120_000, output: () => output, process: ponder, tolerateErrors: true },
  );
}, 300_000);

afterAll(async () => {
  if (ponder && ponder.exitCode === null) {
    const exited = new Promise((r) => ponder?.once("exit", r));
    ponder.kill("SIGTERM");
    await exited;
  }
  await anvil?.stop();
  await purgeSyncCache(TEST_DATABASE_URL, chainId);
  await dropScaleSchema(TEST_DATABASE_URL, schema);
}, 60_000);

/** Every pair, every initialized V3 pool, every vault, and the native wrapper. */
function expectedPools(): number {
  const v3 = state.tables.find((t) => t.name === "v3_pool")?.rows ?? [];
  const initialized = v3.filter((r) => r[9] !== null).length;
  return MAINNET_SIZES.v2Pairs + initialized + MAINNET_SIZES.vaults + 1;
}

test("the whole graph is loaded before /ready, once", async () => {
  expect(await metric("shortcuts_snapshot_pools", chain)).toBe(expectedPools());
  expect(await metric("shortcuts_snapshot_block", chain)).toBe(Number(SEEDED_HEAD_BLOCK));
  expect(await refreshes("full")).toBe(1);
  // Where the build's time went: the process's CPU and the main thread's GC pauses, measured
  // over the same refresh. Building 400,000 pools' objects collects garbage; pauses of the
  // main thread are inside its wall time.
  const full = { ...chain, kind: "full" };
  const wall = (await metric("shortcuts_snapshot_refresh_duration_seconds_sum", full)) as number;
  expect(await metric("shortcuts_snapshot_refresh_cpu_seconds_count", full)).toBe(1);
  expect(await metric("shortcuts_snapshot_refresh_gc_seconds_count", full)).toBe(1);
  const cpu = (await metric("shortcuts_snapshot_refresh_cpu_seconds_sum", full)) as number;
  const gc = (await metric("shortcuts_snapshot_refresh_gc_seconds_sum", full)) as number;
  expect(cpu).toBeGreaterThan(0);
  expect(gc).toBeGreaterThan(0);
  expect(gc).toBeLessThan(wall);
  const base = await fetch(`${url}/v1/tokens?type=base&chainId=${chainId}`);
  expect(base.status).toBe(200);
  // The tokens plus the native currency.
  expect(((await base.json()) as { meta: { total: number } }).meta.total).toBe(
    MAINNET_SIZES.tokens + 1,
  );
});

test("token pages at this size are exactly what counting and skipping rows gives", async () => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  const weth = HUBS[0]?.address as string;
  const filters: [string, string, unknown[]][] = [
    ["", "true", []],
    ["type=base", "type = 'base'", []],
    ["type=defi", "type = 'defi'", []],
    ["protocolSlug=uniswap-v2", "protocol_slug = 'uniswap-v2'", []],
    [`underlyingTokens=${weth}`, "underlying_tokens @> array[$1]::text[]", [weth]],
  ];
  try {
    for (const [query, where, params] of filters) {
      const total = Number(
        (await client.query(`select count(*) as n from "${schema}".token where ${where}`, params))
          .rows[0]?.n,
      );
      const lastPage = Math.max(1, Math.ceil(total / 1000));
      for (const page of [1, 2, Math.ceil(lastPage / 2), lastPage, lastPage + 1]) {
        const res = await fetch(`${url}/v1/tokens?chainId=${chainId}&${query}&page=${page}`);
        const body = (await res.json()) as {
          meta: { total: number; currentPage: number };
          data: { address: string }[];
        };
        const expected = await client.query(
          `select address from "${schema}".token where ${where} order by chain_id, address limit 1000 offset ${(page - 1) * 1000}`,
          params,
        );
        expect({ query, page, status: res.status, total: body.meta.total }).toEqual({
          query,
          page,
          status: 200,
          total,
        });
        expect(body.data.map((t) => t.address.toLowerCase())).toEqual(
          expected.rows.map((r: { address: string }) => r.address),
        );
      }
    }
  } finally {
    await client.end();
  }
});

test("a block rewriting 70,000 pairs, and its reorg, refresh the graph in place", async () => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  const s = `"${schema}"`;
  const block = SEEDED_HEAD_BLOCK + 1n;
  const checkpoint = blockEndCheckpoint(chainId, block, 1_730_000_012);
  try {
    const incremental = (await refreshes("incremental")) ?? 0;
    // USD prices asked for once: their anchors are repriced in the background from then on.
    const weth = HUBS[0]?.address as string;
    const priceAt = async () =>
      (
        (await (await fetch(`${url}/v1/prices/${chainId}/${weth}`)).json()) as {
          blockNumber: number;
        }
      ).blockNumber;
    expect(await priceAt()).toBe(Number(SEEDED_HEAD_BLOCK));
    const repricings = () => metric("shortcuts_repricing_duration_seconds_count", chain);
    expect(await repricings()).toBeUndefined();
    // As the indexer writes a block: rows (the trigger logs each write), then the checkpoint.
    // Ponder's live-query trigger notes changed tables in a table of the writing session.
    await client.query(
      "create temp table if not exists live_query_tables (table_name text primary key)",
    );
    await client.query("begin");
    const updated = await client.query(
      `update ${s}.v2_pair set reserve0 = reserve0 + 1, updated_block = $1
        where (chain_id, address) in (select chain_id, address from ${s}.v2_pair order by address limit $2)`,
      [String(block), REWRITTEN_PAIRS],
    );
    expect(updated.rowCount).toBe(REWRITTEN_PAIRS);
    await client.query(`update ${s}._reorg__v2_pair set checkpoint = $1`, [checkpoint]);
    await client.query(`update ${s}._ponder_checkpoint set latest_checkpoint = $1`, [checkpoint]);
    await client.query("commit");
    await waitUntil(
      "the snapshot reached the new block",
      async () => (await metric("shortcuts_snapshot_block", chain)) === Number(block),
      { timeoutMs: 30_000, output: () => output, process: ponder, tolerateErrors: true },
    );
    // 70,000 of ~430,000 pools changed, more than the prices may trail by: the graph is
    // repriced after the refresh, in many steps, and the prices then reflect the new block.
    await waitUntil("the graph was repriced", async () => (await repricings()) === 1, {
      timeoutMs: 30_000,
      output: () => output,
      process: ponder,
      tolerateErrors: true,
    });
    expect(await metric("shortcuts_repricing_step_seconds_count", chain)).toBeGreaterThan(10);
    expect(await priceAt()).toBe(Number(block));

    // The reorg, as Ponder reverts it: each row back to the version its undo-log entry holds,
    // the entries deleted, the checkpoint left where it is.
    await client.query("begin");
    await client.query("set local session_replication_role = replica");
    const reverted = await client.query(
      `update ${s}.v2_pair p set reserve0 = r.reserve0, updated_block = r.updated_block
         from ${s}._reorg__v2_pair r where r.chain_id = p.chain_id and r.address = p.address`,
    );
    expect(reverted.rowCount).toBe(REWRITTEN_PAIRS);
    await client.query(`delete from ${s}._reorg__v2_pair`);
    await client.query("commit");
    await waitUntil(
      "the snapshot re-read the reverted pairs",
      async () => (await refreshes("incremental")) === incremental + 2,
      { timeoutMs: 30_000, output: () => output, process: ponder, tolerateErrors: true },
    );
    expect(await refreshes("full")).toBe(1);
    expect(await metric("shortcuts_snapshot_pools", chain)).toBe(expectedPools());
    expect(output).not.toContain("routing snapshot refresh failed");
  } finally {
    await client.end();
  }
}, 120_000);
