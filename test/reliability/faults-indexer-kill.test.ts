/**
 * Fault: the indexer is killed with SIGKILL in the middle of its backfill and started again
 * on the same Postgres schema. Ponder's crash recovery lets the new instance take the schema
 * over once the dead one's lock has expired (its heartbeat stops; Ponder waits out the 25 s
 * timeout), and resumes from the checkpoint the dead one committed. It must end with tables
 * identical, row by row and column by column, to a clean full index of the same chain.
 *
 * Measured numbers are printed as one `faults:indexer-kill` JSON line (bench/results/faults.md).
 */
import { randomBytes } from "node:crypto";
import { getTableName, isTable } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runActivity } from "../../devnet/activity.js";
import { mineSwapBursts } from "../../devnet/swap-bursts.js";
import { purgeSyncCache } from "../../devnet/sync-cache.js";
import * as schema from "../../ponder.schema.js";
import {
  checkpointBlock,
  type DevnetChain,
  dropSchema,
  type PonderProcess,
  queryRows,
  spawnPonder,
  startDevnetChain,
  waitForBlock,
  waitUntil,
} from "../harness/ponder-process.js";
import { TEST_DATABASE_URL } from "../harness/service.js";

/** V2 swaps in the history: enough for a backfill of several seconds to kill in the middle. */
const SWAPS = Number(process.env.FAULTS_KILL_SWAPS ?? 24_000);

const chainId = 900_000 + Math.floor(Math.random() * 90_000);
const suffix = `${process.pid}_${randomBytes(3).toString("hex")}`;
const RESUMED = `faults_kill_${suffix}`;
const CLEAN = `faults_clean_${suffix}`;
/** Every table of the schema, by name (the schema gathers them from several modules). */
const tables = Object.values(schema)
  .filter((t) => isTable(t))
  .map((t) => getTableName(t))
  .sort();

let chain: DevnetChain;
const processes: PonderProcess[] = [];
let head: bigint;
/** Blocks holding the swap bursts: the dense part of the backfill, where the kill lands. */
let bursts: { from: bigint; to: bigint };
let swaps = 0;
let historySeconds = 0;

beforeAll(async () => {
  await purgeSyncCache(TEST_DATABASE_URL, chainId);
  chain = await startDevnetChain({ chainId });
  const started = performance.now();
  // Varied events around the bursts: V3 swaps, mints and burns, vault deposits, redeems, yield.
  const rpcUrl = chain.anvil.url;
  await runActivity({ rpcUrl, deployment: chain.deployment, steps: 25, intervalMs: 0, seed: 7 });
  const before = await blockNumber(rpcUrl);
  swaps = await mineSwapBursts({ rpcUrl, deployment: chain.deployment, swaps: SWAPS });
  bursts = { from: before + 1n, to: await blockNumber(rpcUrl) };
  await runActivity({ rpcUrl, deployment: chain.deployment, steps: 25, intervalMs: 0, seed: 8 });
  historySeconds = (performance.now() - started) / 1000;
  head = await blockNumber(rpcUrl);
}, 300_000);

afterAll(async () => {
  for (const p of processes) await p.stop();
  await chain?.stop();
  for (const s of [RESUMED, CLEAN]) await dropSchema(TEST_DATABASE_URL, s);
  await purgeSyncCache(TEST_DATABASE_URL, chainId);
});

async function blockNumber(rpcUrl: string): Promise<bigint> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
  });
  return BigInt(((await res.json()) as { result: string }).result);
}

async function start(schemaName: string): Promise<PonderProcess> {
  const p = await spawnPonder({
    command: "start",
    chain,
    databaseUrl: TEST_DATABASE_URL,
    schema: schemaName,
    logLevel: "info",
  });
  processes.push(p);
  return p;
}

/** `ponder_indexing_completed_events` of a running instance: events it indexed itself. */
async function completedEvents(p: PonderProcess): Promise<number> {
  const text = await (await fetch(`${p.url}/metrics`)).text();
  return text
    .split("\n")
    .filter((l) => l.startsWith("ponder_indexing_completed_events"))
    .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
}

const query = <T extends pg.QueryResultRow>(sql: string, values: unknown[] = []) =>
  queryRows<T>(TEST_DATABASE_URL, sql, values);

async function isReady(schemaName: string): Promise<boolean> {
  const rows = await query<{ is_ready: number }>(
    `select (value->>'is_ready')::int as is_ready from "${schemaName}"."_ponder_meta" where key = 'app'`,
  );
  return rows[0]?.is_ready === 1;
}

/** Every row of `table` in `schemaName`, all columns, in one total order. */
async function rowsOf(schemaName: string, table: string) {
  const columns = await query<{ column_name: string }>(
    `select column_name from information_schema.columns
      where table_schema = $1 and table_name = $2 order by ordinal_position`,
    [schemaName, table],
  );
  const names = columns.map((c) => `"${c.column_name}"`);
  const rows = await query(
    `select ${names.join(", ")} from "${schemaName}"."${table}" order by ${names.join(", ")}`,
  );
  return { columns: columns.map((c) => c.column_name), rows };
}

describe("the indexer SIGKILLed mid-backfill", () => {
  test("resumes from its checkpoint and ends identical to a clean full index", async () => {
    const first = await start(RESUMED);
    const spawnedAt = performance.now();
    // Part-way: the checkpoint has entered the bursts and not left them. Batches of bursts take
    // a few hundred ms to index, so the checkpoint is polled on one open connection.
    const poller = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await poller.connect();
    try {
      await waitUntil(
        "the backfill never reached the bursts",
        async () => {
          const block = await checkpointBlock(poller, RESUMED);
          if (block >= bursts.to) throw new Error(`the backfill passed the bursts (${block})`);
          return block >= bursts.from;
        },
        { timeoutMs: 120_000, output: first.output, process: first.process, pollMs: 5 },
      );
      first.process.kill("SIGKILL");
      await first.exited;
    } finally {
      await poller.end();
    }
    const killedAfterMs = performance.now() - spawnedAt;
    const killedAt = await checkpointBlock(TEST_DATABASE_URL, RESUMED);
    expect({ signal: first.process.signalCode, ready: await isReady(RESUMED) }).toEqual({
      signal: "SIGKILL",
      ready: false,
    });
    expect(killedAt).toBeGreaterThanOrEqual(bursts.from);
    expect(killedAt).toBeLessThan(bursts.to);

    const restartedAt = performance.now();
    const second = await start(RESUMED);
    await waitForBlock(second, {
      databaseUrl: TEST_DATABASE_URL,
      schema: RESUMED,
      block: head,
      timeoutMs: 180_000,
    });
    const resumeMs = performance.now() - restartedAt;
    // It took its own schema over and resumed, rather than starting again.
    expect(second.output()).toContain("Detected crash recovery");
    expect(second.output()).toContain(
      `Started backfill indexing chain=devnet block_range=[${killedAt},`,
    );
    const resumedEvents = await completedEvents(second);
    await second.stop();

    const cleanStarted = performance.now();
    const clean = await start(CLEAN);
    await waitForBlock(clean, {
      databaseUrl: TEST_DATABASE_URL,
      schema: CLEAN,
      block: head,
      timeoutMs: 180_000,
    });
    const cleanMs = performance.now() - cleanStarted;
    const cleanEvents = await completedEvents(clean);
    await clean.stop();
    expect(resumedEvents).toBeLessThan(cleanEvents);

    expect(tables).toEqual([
      "aave_event",
      "aave_reserve",
      "balancer_v2_pool",
      "liquidity_event",
      "native_price",
      "pool_day",
      "pool_hour",
      "pool_market",
      "swap",
      "token",
      "token_day",
      "token_market",
      "v2_pair",
      "v3_pool",
      "v3_tick",
      "v4_pool",
      "v4_tick",
      "vault",
      "vault_event",
    ]);
    const compared: Record<string, number> = {};
    for (const table of tables) {
      const [resumed, full] = [await rowsOf(RESUMED, table), await rowsOf(CLEAN, table)];
      expect(full.rows.length).toBeGreaterThan(0);
      expect({ table, ...resumed }).toEqual({ table, ...full });
      compared[table] = full.rows.length;
    }

    console.log(
      `faults:indexer-kill ${JSON.stringify({
        swaps,
        headBlock: Number(head),
        historySeconds: Math.round(historySeconds),
        killedAfterMs: Math.round(killedAfterMs),
        burstBlocks: [Number(bursts.from), Number(bursts.to)],
        checkpointAtKill: Number(killedAt),
        restartToHeadMs: Math.round(resumeMs),
        cleanToHeadMs: Math.round(cleanMs),
        eventsIndexedByResumed: resumedEvents,
        eventsIndexedByClean: cleanEvents,
        rowsCompared: compared,
      })}`,
    );
  }, 600_000);
});
