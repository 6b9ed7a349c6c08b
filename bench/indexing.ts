/**
 * Indexing throughput: builds a devnet history of at least `--events` indexed events, then times
 * a cold `ponder start` backfill of it.
 *
 *   npm run bench:indexing -- [--events 100000] [--database pglite|postgres] [--mix real|sync]
 *                             [--extra-pairs N] [--anvil-port N] [--port N] [--chain-id N]
 *
 * `--mix real` (the default): the event mix of a real chain, one transaction per block and a few
 * to a few dozen events each (devnet/history-bursts.ts). `--mix sync`: V2 swaps only, 300 per
 * transaction, each a `Sync` (devnet/swap-bursts.ts; the earliest recorded rows).
 * `--extra-pairs N`: N more V2 pairs created by the factory (between placeholder addresses,
 * without liquidity), so that above Ponder's `factoryAddressCountThreshold` (1,000 children) the
 * pairs' events are asked for by topic alone, as on mainnet.
 *
 * Prints a Markdown row, then one per event kind (count, events/s over the backfill, time in the
 * indexing functions), then Ponder's JSON-RPC requests by method and its extract and transform
 * phase timings, and what the node answered by method (requests, bytes, logs; through a metering
 * proxy, bench/rpc-meter.ts); bench/results/indexing.md keeps the recorded runs.
 *
 * Ports default to ones the OS reports free; pass them where other work binds fixed ports. The
 * chain gets its own id (default 31_799), so that with Postgres its rows in Ponder's shared
 * `ponder_sync` cache are its own, and are deleted afterwards with the bench's schema.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createPublicClient, createWalletClient, http, numberToHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { UniswapV2FactoryAbi } from "../abis/UniswapV2Factory.js";
import { DEVNET_DEPLOYER_KEY, startAnvil } from "../devnet/anvil.js";
import { writeDeployment } from "../devnet/deployment.js";
import { mineHistoryBursts } from "../devnet/history-bursts.js";
import { mineSwapBursts } from "../devnet/swap-bursts.js";
import { purgeSyncCache } from "../devnet/sync-cache.js";
import { chainOf, deployWorld } from "../devnet/world.js";
import { freePort } from "../test/harness/net.js";
import { cpuSeconds, stopChild } from "./child-process.js";
import { type RpcMeter, startRpcMeter } from "./rpc-meter.js";

const root = resolve(import.meta.dirname, "..");
const SWAPS_PER_TX = Number(process.env.SWAPS_PER_TX ?? 300);

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "100000" },
    database: { type: "string", default: "pglite" },
    mix: { type: "string", default: "real" },
    "extra-pairs": { type: "string", default: "0" },
    "anvil-port": { type: "string" },
    port: { type: "string" },
    "chain-id": { type: "string", default: "31799" },
  },
});
const chainId = Number(values["chain-id"]);
const targetEvents = Number(values.events);
if (values.mix !== "real" && values.mix !== "sync") throw new Error("--mix is real or sync");

// Base fee 0: blocks full of bursts would otherwise compound it past what any account can pay.
const anvil = await startAnvil({
  port: values["anvil-port"] ? Number(values["anvil-port"]) : await freePort(),
  chainId,
  baseFee: 0n,
});
const dir = mkdtempSync(join(tmpdir(), "bench-indexing-"));
const schema = `bench_${process.pid}`;
const databaseUrl =
  values.database === "postgres"
    ? (process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test")
    : undefined;
let ponder: ChildProcess | undefined;
let meter: RpcMeter | undefined;
try {
  const deployment = await deployWorld({ rpcUrl: anvil.url });
  // Before the history: every range the indexer reads is above the threshold.
  const extraPairs = Number(values["extra-pairs"]);
  if (extraPairs > 0) {
    // Pairs of placeholder addresses: the factory checks only that the two differ.
    const wallet = createWalletClient({
      account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
      chain: await chainOf(anvil.url),
      transport: http(anvil.url),
    });
    let last: `0x${string}` | undefined;
    for (let i = 0; i < extraPairs; i++) {
      last = await wallet.writeContract({
        address: deployment.uniswapV2.factory,
        abi: UniswapV2FactoryAbi,
        functionName: "createPair",
        args: [
          numberToHex(0xf0000000n + 2n * BigInt(i) + 1n, { size: 20 }),
          numberToHex(0xf0000000n + 2n * BigInt(i) + 2n, { size: 20 }),
        ],
        gas: 3_000_000n,
      });
    }
    if (last) {
      await createPublicClient({ transport: http(anvil.url) }).waitForTransactionReceipt({
        hash: last,
      });
    }
    console.error(`created ${extraPairs} more V2 pairs`);
  }
  const genStart = Date.now();
  const generated =
    values.mix === "sync"
      ? await mineSwapBursts({
          rpcUrl: anvil.url,
          deployment,
          swaps: targetEvents,
          swapsPerTx: SWAPS_PER_TX,
        })
      : (await mineHistoryBursts({ rpcUrl: anvil.url, deployment, events: targetEvents })).events;
  const client = createPublicClient({ transport: http(anvil.url) });
  const head = await client.getBlockNumber({ cacheTime: 0 });
  console.error(
    `generated ~${generated} events (${values.mix}) in ${((Date.now() - genStart) / 1000).toFixed(1)} s; head block ${head}`,
  );

  meter = await startRpcMeter({ target: anvil.url });
  const deploymentFile = join(dir, "deployment.json");
  writeDeployment(deployment, deploymentFile);
  const port = values.port ? Number(values.port) : await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RPC_URL: meter.url,
    DEVNET_DEPLOYMENT: deploymentFile,
    PONDER_PGLITE_DIR: join(dir, "pglite"),
    PONDER_TELEMETRY_DISABLED: "true",
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const started = Date.now();
  ponder = spawn(
    join(root, "node_modules/.bin/ponder"),
    ["start", "--port", String(port), "--schema", schema],
    {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let backfillStarted = 0;
  ponder.stdout?.on("data", (d: Buffer) => {
    if (process.env.BENCH_LOG) process.stderr.write(d);
    if (!backfillStarted && d.toString().includes("Started backfill indexing"))
      backfillStarted = Date.now();
  });
  // Sums a metric's samples by one label (Ponder labels indexing metrics `event`, RPC ones
  // `method`, phase timings `step`).
  const byLabel = (text: string, name: string, label = "event"): Map<string, number> => {
    const out = new Map<string, number>();
    const pattern = new RegExp(`${label}="([^"]*)"`);
    for (const line of text.split("\n")) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      const key = pattern.exec(line)?.[1] ?? "";
      out.set(key, (out.get(key) ?? 0) + Number(line.split(" ").pop()));
    }
    return out;
  };
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (ponder.exitCode !== null) throw new Error("ponder exited");
    await new Promise((r) => setTimeout(r, 100));
  }
  const ready = Date.now();
  const metricsText = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const completed = byLabel(metricsText, "ponder_indexing_completed_events");
  const handlerMs = byLabel(metricsText, "ponder_indexing_function_duration_sum");
  const rpcCount = byLabel(metricsText, "ponder_rpc_request_duration_count", "method");
  const rpcMs = byLabel(metricsText, "ponder_rpc_request_duration_sum", "method");
  const extractMs = byLabel(metricsText, "ponder_historical_extract_duration", "step");
  const transformMs = byLabel(metricsText, "ponder_historical_transform_duration", "step");
  const events = [...completed.values()].reduce((a, b) => a + b, 0);
  if (process.env.BENCH_METRICS) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    console.error(
      text
        .split("\n")
        .filter((l) => /_sum|_count|total/.test(l) && !l.startsWith("#"))
        .join("\n"),
    );
  }
  const cpu = { ponder: cpuSeconds(ponder.pid), anvil: cpuSeconds(anvil.process.pid) };
  await stopChild(ponder);
  const sizes = databaseUrl ? await postgresSizes(databaseUrl) : undefined;
  const backfillSeconds = (ready - (backfillStarted || started)) / 1000;
  console.log(
    `| ${new Date().toISOString().slice(0, 10)} | ${values.database} | ${values.mix} | ${Number(head)} | ${events} | ${backfillSeconds.toFixed(1)} | ${(events / backfillSeconds).toFixed(0)} | ${((ready - started) / 1000).toFixed(1)} |`,
  );
  // Per kind: events/s is the kind's count over the whole backfill (its share of the measured
  // rate); handler time is what its indexing functions took in total.
  console.log("\n| event | events at ready | events/s (over the backfill) | handler time (s) |");
  console.log("|---|---:|---:|---:|");
  for (const [event, count] of [...completed].sort((a, b) => b[1] - a[1])) {
    if (count === 0) continue;
    const ms = handlerMs.get(event) ?? 0;
    console.log(
      `| \`${event}\` | ${count} | ${(count / backfillSeconds).toFixed(0)} | ${(ms / 1000).toFixed(2)} |`,
    );
  }
  // Requests from spawn to `/ready`: the backfill's, plus the build's few (head, finalized block).
  console.log("\n| JSON-RPC method | requests | total time in requests (s) |");
  console.log("|---|---:|---:|");
  for (const [method, count] of [...rpcCount].sort((a, b) => b[1] - a[1])) {
    console.log(`| \`${method}\` | ${count} | ${((rpcMs.get(method) ?? 0) / 1000).toFixed(2)} |`);
  }
  // What the node answered, through the meter: from spawn to `/ready`, and on until it stopped.
  console.log("\n| JSON-RPC method (node side) | requests | bytes answered | logs |");
  console.log("|---|---:|---:|---:|");
  for (const [method, use] of [...meter.usage()].sort((a, b) => b[1].bytes - a[1].bytes)) {
    console.log(`| \`${method}\` | ${use.requests} | ${use.bytes} | ${use.logs || ""} |`);
  }
  // Ponder's own phase timings (ms, summed over its concurrent steps).
  const phases = (m: Map<string, number>) =>
    [...m].map(([step, ms]) => `${step} ${(ms / 1000).toFixed(2)} s`).join(", ");
  console.log(`\nextract: ${phases(extractMs)}\ntransform: ${phases(transformMs)}`);
  console.log(
    `CPU from spawn to /ready: ponder ${cpu.ponder.toFixed(1)} s; anvil over the whole run (generation included) ${cpu.anvil.toFixed(1)} s`,
  );
  if (sizes) {
    console.log(
      "\n| table | rows | bytes (pg_total_relation_size) | bytes per row | row data (avg pg_column_size) |",
    );
    console.log("|---|---:|---:|---:|---:|");
    for (const t of sizes) {
      const perRow = t.rows > 0 ? (t.bytes / t.rows).toFixed(0) : "–";
      console.log(`| ${t.table} | ${t.rows} | ${t.bytes} | ${perRow} | ${t.rowData.toFixed(0)} |`);
    }
  }
} finally {
  if (ponder) await stopChild(ponder);
  await meter?.close();
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
  if (databaseUrl) {
    const { default: pg } = await import("pg");
    const pgClient = new pg.Client({ connectionString: databaseUrl });
    await pgClient.connect();
    await pgClient.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pgClient.end();
    await purgeSyncCache(databaseUrl, chainId);
  }
}

/**
 * Rows and on-disk bytes of the bench's tables (the app schema: Ponder keeps one row per pool,
 * pair, tick, token and vault, plus its reorg tables) and of this chain's rows in `ponder_sync`
 * (every fetched log, block and RPC result; shared by all chains, so each table's bytes are
 * scaled to this chain's share of its rows, dead ones of earlier runs counted until vacuumed).
 */
async function postgresSizes(
  url: string,
): Promise<{ table: string; rows: number; bytes: number; rowData: number }[]> {
  const { default: pg } = await import("pg");
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const out: { table: string; rows: number; bytes: number; rowData: number }[] = [];
    const app = await db.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = $1 order by 1`,
      [schema],
    );
    for (const { table_name } of app.rows) {
      const name = `"${schema}"."${table_name}"`;
      const { rows } = await db.query<{ rows: string; bytes: string; data: string | null }>(
        `select count(*) as rows, pg_total_relation_size('${name}') as bytes,
                avg(pg_column_size(t.*)) as data from ${name} t`,
      );
      out.push({
        table: table_name,
        rows: Number(rows[0]?.rows),
        bytes: Number(rows[0]?.bytes),
        rowData: Number(rows[0]?.data ?? 0),
      });
    }
    const sync = await db.query<{ table_name: string }>(
      `select table_name from information_schema.columns
        where table_schema = 'ponder_sync' and column_name = 'chain_id' order by 1`,
    );
    for (const { table_name } of sync.rows) {
      const name = `ponder_sync."${table_name}"`;
      const { rows } = await db.query<{ mine: string; all: string; bytes: string; data: string }>(
        `select (select count(*) from ${name} where chain_id = $1) as mine,
                greatest((select count(*) from ${name}),
                         (select n_live_tup + n_dead_tup from pg_stat_user_tables
                           where schemaname = 'ponder_sync' and relname = $2)) as all,
                pg_total_relation_size('${name}') as bytes,
                (select avg(pg_column_size(t.*)) from ${name} t where chain_id = $1) as data`,
        [chainId, table_name],
      );
      const mine = Number(rows[0]?.mine);
      const all = Number(rows[0]?.all);
      if (mine === 0) continue;
      out.push({
        table: `ponder_sync.${table_name} (this chain's share)`,
        rows: mine,
        bytes: Math.round((Number(rows[0]?.bytes) * mine) / all),
        rowData: Number(rows[0]?.data),
      });
    }
    return out;
  } finally {
    await db.end();
  }
}
