/**
 * Mainnet scale: the API served by `ponder serve` on a Postgres schema seeded with a state the
 * size of Ethereum mainnet (bench/seed-scale.ts), measured against the bars of DESIGN §7:
 * the routing snapshot's cold build from process start (finished before `/ready` answers 200,
 * and the first request after it not a 503), RSS after the build and again after 10,000 route
 * requests (the second bar met only when every route answered 200; on the benchmark's empty
 * chain they cannot, as their simulations find no token contracts),
 * the refresh after blocks that each change 300 pools (V3 ticks included) and after a reorg of
 * such a block (never a full rebuild), `GET /v1/tokens` pages with filters, and the in-process
 * route search on the same graph (read from the same tables). Where the time and memory go: the
 * served process runs with V8's GC trace, its heap in use is sampled, a block's CPU is split
 * between the main thread and the others, and the graph's share of a heap is weighed.
 *
 * Run: npx tsx bench/scale.ts [--schema scale_bench] [--seed 1] [--skip-seed] [--keep]
 *      [--anvil-port 8610] [--port 42110]
 * Writes bench/results/scale.md. Drops the schema at the end unless --keep.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import pg from "pg";
import { privateKeyToAccount } from "viem/accounts";
import { DEVNET_DEPLOYER_KEY, startAnvil } from "../devnet/anvil.js";
import { mulberry32 } from "../devnet/random.js";
import { purgeSyncCache } from "../devnet/sync-cache.js";
import type { Address } from "../engine/index.js";
import {
  createRoutingGraph,
  findRoute,
  prepareRouteSearch,
  type RoutingGraph,
} from "../engine/index.js";
import packageJson from "../package.json" with { type: "json" };
import { vaultPoolOf } from "../src/api/protocols/erc4626.js";
import { v2PoolOf } from "../src/api/protocols/uniswap-v2.js";
import { type V3TickRow, v3PoolOf } from "../src/api/protocols/uniswap-v3.js";
import { AddressInterner } from "../src/api/snapshot/address-interner.js";
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
} from "./seed-scale.js";

const root = resolve(import.meta.dirname, "..");
const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const CHAIN_ID = 1;
const CHANGED_POOLS_PER_BLOCK = 300;
const BLOCKS = 20;
const ROUTE_REQUESTS = 10_000;
const ROUTE_CONCURRENCY = 4;
const SEARCHES = 2_000;
/**
 * Token pages fetched, spread over the filters, at random pages. The first 60 (what runs before
 * 2026-11-27 fetched in all) are reported apart: ten a filter, the first of each building the
 * filter's page index and most reading pages no request has read yet.
 */
const TOKEN_PAGES = 600;
const FIRST_TOKEN_PAGES = 60;

// The benchmark's own heap is weighed after a full GC (the graph's share of it, in the search phase).
setFlagsFromString("--expose-gc");
const forceGc = runInNewContext("gc") as () => void;

/** This process's heap in use after a full GC, in MB. */
function heapAfterGcMb(): number {
  forceGc();
  forceGc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] as string) : fallback;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

/** One sample of a Prometheus text exposition (labels given as written, in order). */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * CPU time (ms) used so far by the threads of `pid`: its main thread (where JavaScript runs and
 * GC pauses it) and all the others (V8's concurrent GC and compiler helpers, libuv's pool).
 */
function threadCpuMs(pid: number): { main: number; others: number } {
  const used = { main: 0, others: 0 };
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
      // utime and stime, fields 14 and 15 of stat (11 and 12 after the name), in clock ticks.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
      if (task === String(pid)) used.main += ms;
      else used.others += ms;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return used;
}

const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

type Served = { url: string; child: ChildProcess; pid: number; output: () => string };

/**
 * Puts the execution layer on the benchmark's chain as an operator does (`npm run deploy`, from
 * anvil's first dev account) and returns the `EXECUTION_<id>` value it prints: the service
 * refuses routes (503) when the contracts it names are not its own.
 */
function deployExecution(rpcUrl: string): string {
  const out = execFileSync(
    "npm",
    [
      "run",
      "--silent",
      "deploy",
      "--",
      "--rpc-url",
      rpcUrl,
      "--unlocked",
      privateKeyToAccount(DEVNET_DEPLOYER_KEY).address,
    ],
    { cwd: root, encoding: "utf8" },
  );
  const line = new RegExp(`^EXECUTION_${CHAIN_ID}=(.+)$`, "m").exec(out)?.[1];
  if (!line) throw new Error(`npm run deploy printed no EXECUTION_${CHAIN_ID}:\n${out}`);
  return line;
}

/**
 * `npm run serve` on the schema, with V8's GC trace on: the same `ponder serve` with the same
 * heap setting (read from the script), run by node directly since NODE_OPTIONS may not carry
 * `--trace-gc`. Resolves at spawn.
 */
function serve(schema: string, port: number, rpcUrl: string, execution: string): Served {
  let log = "";
  const script = packageJson.scripts.serve;
  if (!script.endsWith(" ponder serve")) throw new Error(`unexpected serve script: ${script}`);
  const nodeOptions = /NODE_OPTIONS=(\S+)/.exec(script)?.[1] ?? "";
  const ponder = join(root, "node_modules", ".bin", "ponder");
  const args = [
    "--trace-gc",
    nodeOptions,
    ponder,
    "serve",
    "--schema",
    schema,
    "--port",
    String(port),
  ];
  const child = spawn(process.execPath, args.filter(Boolean), {
    cwd: root,
    env: {
      ...process.env,
      ...scaleChainEnv(CHAIN_ID, rpcUrl),
      // The execution layer is deployed, but the chain has no token or pool contracts: routes
      // are searched, then refused at simulation (422).
      [`EXECUTION_${CHAIN_ID}`]: execution,
      DATABASE_URL,
      LOG_REQUESTS: "false",
      // The benchmark's requests all come from one address, far beyond a keyless budget.
      KEYLESS_RATE_LIMIT_RPS: "0",
      // The seeded head is dated 2024 (seed-scale.ts) and the benchmark's anvil today: without
      // this every route would be refused as two years stale. Freshness is not measured here.
      [`MAX_LAG_SECONDS_${CHAIN_ID}`]: String(10 * 365 * 24 * 3600),
      PONDER_TELEMETRY_DISABLED: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    pid: child.pid as number,
    output: () => log,
  };
}

/** A major GC as V8's `--trace-gc` prints it, and where in the process's output. */
type MajorGc = {
  /** Offset of its line in the output: it was printed when the output had that length. */
  offset: number;
  heapBeforeMb: number;
  heapAfterMb: number;
  /** The final, atomic pause. */
  pauseMs: number;
  /** Incremental marking on the main thread before the pause, and the wall time it spanned. */
  markingMs: number;
  markingWallMs: number;
};

function majorGcs(output: string): MajorGc[] {
  const line =
    /Mark-Compact(?: \(reduce\))? ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in \d+ steps since start of marking, biggest step [\d.]+ ms, walltime since start of marking ([\d.]+) ms\))?/g;
  return [...output.matchAll(line)].map((m) => ({
    offset: m.index,
    heapBeforeMb: Number(m[1]),
    heapAfterMb: Number(m[2]),
    pauseMs: Number(m[3]),
    markingMs: Number(m[4] ?? 0),
    markingWallMs: Number(m[5] ?? 0),
  }));
}

/**
 * The intervals (bench clock, ms) during which a major GC was marking: each printed between two
 * moments the bench noted the output's length (`marks`, in order), so it ended in that span and
 * its marking began its marking wall time before.
 */
function markingWindows(
  gcs: readonly MajorGc[],
  marks: readonly { at: number; length: number }[],
): { from: number; to: number; gc: MajorGc }[] {
  const windows: { from: number; to: number; gc: MajorGc }[] = [];
  for (const gc of gcs) {
    const after = marks.findIndex((m) => m.length > gc.offset);
    if (after <= 0) continue;
    const printedFrom = (marks[after - 1] as { at: number }).at;
    const printedTo = (marks[after] as { at: number }).at;
    windows.push({ from: printedFrom - gc.markingWallMs, to: printedTo, gc });
  }
  return windows;
}

async function stopServed(served: Served): Promise<void> {
  const exited = new Promise<void>((r) => served.child.once("exit", () => r()));
  process.kill(-served.pid, "SIGTERM");
  await exited;
}

/** Writes one block that changes `count` pools, as the indexer does (undo log included). */
async function writeBlock(
  client: pg.Client,
  schema: string,
  state: ScaleState,
  block: bigint,
  random: () => number,
): Promise<void> {
  const v2 = state.tables.find((t) => t.name === "v2_pair")?.rows ?? [];
  const v3 = (state.tables.find((t) => t.name === "v3_pool")?.rows ?? []).filter(
    (r) => r[9] !== null,
  );
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const s = `"${schema}"`;
  // The table Ponder's live-query trigger notes changed tables in (per session, as Ponder has it).
  await client.query(
    "create temp table if not exists live_query_tables (table_name text primary key)",
  );
  await client.query("begin");
  // Half V2 Syncs, half V3 pools: swaps, a third of them also a mint on two new ticks.
  for (let i = 0; i < CHANGED_POOLS_PER_BLOCK / 2; i++) {
    const pair = pick(v2);
    await client.query(
      `update ${s}.v2_pair set reserve0 = reserve0 + $1, reserve1 = reserve1 - least(reserve1 - 1, $1), updated_block = $2 where chain_id = $3 and address = $4`,
      [String(1 + Math.floor(random() * 1e6)), String(block), CHAIN_ID, pair[1]],
    );
  }
  for (let i = 0; i < CHANGED_POOLS_PER_BLOCK / 2; i++) {
    const pool = pick(v3);
    const spacing = Number(pool[7]);
    const tick = Number(pool[9]);
    await client.query(
      `update ${s}.v3_pool set sqrt_price_x_96 = sqrt_price_x_96 + 1, updated_block = $1 where chain_id = $2 and address = $3`,
      [String(block), CHAIN_ID, pool[1]],
    );
    if (i % 3 === 0) {
      const lower =
        Math.floor(tick / spacing) * spacing - spacing * (1 + Math.floor(random() * 50));
      const upper =
        Math.floor(tick / spacing) * spacing + spacing * (1 + Math.floor(random() * 50));
      const amount = String(1 + Math.floor(random() * 1e12));
      for (const [t, net] of [
        [lower, amount],
        [upper, `-${amount}`],
      ] as const) {
        await client.query(
          `insert into ${s}.v3_tick (chain_id, pool, tick, liquidity_gross, liquidity_net, updated_block) values ($1, $2, $3, $4, $5, $6)
           on conflict (chain_id, pool, tick) do update set liquidity_gross = v3_tick.liquidity_gross + excluded.liquidity_gross, liquidity_net = v3_tick.liquidity_net + excluded.liquidity_net, updated_block = excluded.updated_block`,
          [CHAIN_ID, pool[1], t, amount, net, String(block)],
        );
      }
      await client.query(
        `update ${s}.v3_pool set liquidity = liquidity + $1, updated_block = $2 where chain_id = $3 and address = $4`,
        [amount, String(block), CHAIN_ID, pool[1]],
      );
    }
  }
  // As Ponder ends a block: its undo-log entries get the block's checkpoint, then its own.
  const checkpoint = blockEndCheckpoint(
    CHAIN_ID,
    block,
    1_730_000_000 + Number(block - SEEDED_HEAD_BLOCK) * 12,
  );
  for (const table of ["token", "v2_pair", "v3_pool", "v3_tick", "vault"]) {
    await client.query(
      `update ${s}."_reorg__${table}" set checkpoint = $1 where checkpoint = '${"9".repeat(75)}'`,
      [checkpoint],
    );
  }
  await client.query(
    `update ${s}._ponder_checkpoint set latest_checkpoint = $1 where chain_id = $2`,
    [checkpoint, CHAIN_ID],
  );
  await client.query("commit");
}

/** Reverts every block above `block` as Ponder's reorg does: undo log newest first. */
async function revertAbove(client: pg.Client, schema: string, block: bigint): Promise<number> {
  const s = `"${schema}"`;
  const keys: Record<string, string[]> = {
    token: ["chain_id", "address"],
    v2_pair: ["chain_id", "address"],
    v3_pool: ["chain_id", "address"],
    v3_tick: ["chain_id", "pool", "tick"],
    vault: ["chain_id", "address"],
  };
  const checkpoint = blockEndCheckpoint(CHAIN_ID, block, 0).slice(10);
  let reverted = 0;
  await client.query("begin");
  await client.query("set local session_replication_role = replica");
  for (const [table, key] of Object.entries(keys)) {
    const { rows } = await client.query<Record<string, unknown>>(
      `select * from ${s}."_reorg__${table}" where substring(checkpoint, 11) > $1 order by operation_id desc`,
      [checkpoint],
    );
    for (const row of rows) {
      const { operation_id: _id, operation, checkpoint: _cp, ...values } = row;
      const where = key.map((k, i) => `"${k}" = $${i + 1}`).join(" and ");
      await client.query(
        `delete from ${s}."${table}" where ${where}`,
        key.map((k) => values[k]),
      );
      if (operation !== 0) {
        const columns = Object.keys(values);
        await client.query(
          `insert into ${s}."${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
          Object.values(values),
        );
      }
      reverted++;
    }
    await client.query(`delete from ${s}."_reorg__${table}" where substring(checkpoint, 11) > $1`, [
      checkpoint,
    ]);
  }
  await client.query("commit");
  return reverted;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The same graph the snapshot builds, read straight from the tables (for the search bench). */
async function loadGraph(client: pg.Client, schema: string, weth: Address): Promise<RoutingGraph> {
  const s = `"${schema}"`;
  const addresses = new AddressInterner();
  const graph = createRoutingGraph();
  graph.upsertPool({ kind: "wrap", protocol: "wrapped-native", address: weth });
  const pairs = await client.query(
    `select address, protocol, token0, token1, reserve0::text, reserve1::text, fee, total_supply::text as "totalSupply" from ${s}.v2_pair`,
  );
  for (const r of pairs.rows)
    graph.upsertPool(
      v2PoolOf(
        {
          ...r,
          reserve0: BigInt(r.reserve0),
          reserve1: BigInt(r.reserve1),
          totalSupply: BigInt(r.totalSupply),
        },
        addresses,
      ),
    );
  const ticks = new Map<string, V3TickRow[]>();
  const tickRows = await client.query(
    `select pool, tick, liquidity_net::text as net, liquidity_gross::text as gross from ${s}.v3_tick`,
  );
  for (const r of tickRows.rows) {
    const row = { tick: r.tick, liquidityNet: BigInt(r.net), liquidityGross: BigInt(r.gross) };
    const list = ticks.get(r.pool);
    if (list) list.push(row);
    else ticks.set(r.pool, [row]);
  }
  const pools = await client.query(
    `select address, protocol, token0, token1, fee, tick_spacing as "tickSpacing", sqrt_price_x_96::text as sqrt, tick, liquidity::text from ${s}.v3_pool`,
  );
  for (const r of pools.rows) {
    const pool = v3PoolOf(
      { ...r, sqrtPriceX96: BigInt(r.sqrt), liquidity: BigInt(r.liquidity) },
      ticks.get(r.address) ?? [],
      addresses,
    );
    if (pool) graph.upsertPool(pool);
  }
  const vaults = await client.query(
    `select v.address, v.protocol_slug as "protocolSlug", v.asset, v.total_assets::text as ta, v.total_supply::text as ts, s.decimals as share, a.decimals as asset_decimals
       from ${s}.vault v join ${s}.token s on s.address = v.address join ${s}.token a on a.address = v.asset`,
  );
  for (const r of vaults.rows) {
    graph.upsertPool(
      vaultPoolOf(
        { ...r, totalAssets: BigInt(r.ta), totalSupply: BigInt(r.ts) },
        { share: r.share, asset: r.asset_decimals },
        addresses,
      ),
    );
  }
  return graph;
}

async function main(): Promise<void> {
  const schema = arg("schema", "scale_bench");
  if (!schema.startsWith("scale_")) throw new Error("--schema must start with scale_");
  const seed = Number(arg("seed", "1"));
  const anvilPort = Number(arg("anvil-port", "8610"));
  const port = Number(arg("port", "42110"));
  const lines: string[] = [];
  const note = (line: string) => {
    console.log(line);
    lines.push(line);
  };

  const g0 = performance.now();
  const state = generateScaleState({ seed, chainId: CHAIN_ID, sizes: MAINNET_SIZES });
  console.log(`generated (seed ${seed}) in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
  if (!process.argv.includes("--skip-seed")) {
    await dropScaleSchema(DATABASE_URL, schema);
    const s0 = performance.now();
    await createPonderSchema({
      databaseUrl: DATABASE_URL,
      schema,
      chainId: CHAIN_ID,
      anvilPort,
      httpPort: port,
    });
    await insertScaleState({ databaseUrl: DATABASE_URL, schema, state });
    console.log(`seeded in ${((performance.now() - s0) / 1000).toFixed(1)} s`);
  }
  const rows = Object.fromEntries(state.tables.map((t) => [t.name, t.rows.length]));
  const heap = /--max-old-space-size=(\d+)/.exec(packageJson.scripts.serve)?.[1];

  const anvil = await startAnvil({ port: anvilPort, chainId: CHAIN_ID });
  const execution = deployExecution(anvil.url);
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  type Result = { what: string; bar: string; value: string; met: boolean; load: string };
  const results: Result[] = [];
  const record = (r: Result) => {
    console.log(`${r.what}: ${r.value} (${r.met ? "met" : "not met"}; load ${r.load})`);
    results.push(r);
  };
  let served: Served | undefined;
  try {
    // ── Cold build: from process start to /ready ───────────────────────────────────────────
    const t0 = performance.now();
    served = serve(schema, port, anvil.url, execution);
    const current = served;
    let firstAnswer: number | undefined;
    await waitFor(
      "/ready",
      async () => {
        // Ponder moves to the next port when the one asked for is taken: follow its log.
        const port = /Created HTTP server port=(\d+)/.exec(current.output())?.[1];
        if (port !== undefined) current.url = `http://127.0.0.1:${port}`;
        const r = await fetch(`${current.url}/ready`);
        firstAnswer ??= performance.now() - t0;
        return r.status === 200;
      },
      120_000,
    ).catch((error: unknown) => {
      console.error(current.output());
      throw error;
    });
    const readyMs = performance.now() - t0;
    const firstTokens = await fetch(`${current.url}/v1/tokens?type=base`);
    const firstRoute = await fetch(
      `${current.url}/v1/shortcuts/route?fromAddress=0x${"1".repeat(40)}&tokenIn=${HUBS[1].address}&tokenOut=${HUBS[0].address}&amountIn=1000000000`,
    );
    const metricsText = await (await fetch(`${current.url}/metrics/api`)).text();
    const fullSeconds =
      sample(
        metricsText,
        `shortcuts_snapshot_refresh_duration_seconds_sum{chain_id="${CHAIN_ID}",kind="full"}`,
      ) ?? Number.NaN;
    const graphPools = sample(metricsText, `shortcuts_snapshot_pools{chain_id="${CHAIN_ID}"}`);
    record({
      what: "routing snapshot cold build, from process start",
      bar: "≤ 20 s, before /ready; first request after ready not a 503",
      value: `/ready 200 after ${(readyMs / 1000).toFixed(1)} s from spawn (first HTTP answer of any kind at ${((firstAnswer ?? 0) / 1000).toFixed(1)} s); the build itself ${fullSeconds.toFixed(1)} s; first /v1/tokens after ready ${firstTokens.status}, first route ${firstRoute.status}`,
      met: readyMs <= 20_000 && firstTokens.status === 200 && firstRoute.status !== 503,
      load: load(),
    });
    note(
      `graph: ${graphPools} pools; first route answered ${firstRoute.status}: ${(await firstRoute.text()).slice(0, 200)}`,
    );
    const rssReady = rssMiB(current.pid);
    record({
      what: "RSS of the API process after the build, before the measured requests",
      bar: "≤ 2 GiB",
      value: `${rssReady.toFixed(0)} MiB (heap limit --max-old-space-size=${heap ?? "unset"} MiB)`,
      met: rssReady <= 2048,
      load: load(),
    });

    // The heap in use (Ponder's nodejs_heap_size_used_bytes), every 2 s, by phase: how close
    // the process comes to its heap limit, which an RSS read once does not show.
    let phase = "tokens";
    const heapMaxMiB = new Map<string, number>();
    let heapReading = false;
    const heapSampler = setInterval(() => {
      if (heapReading) return;
      heapReading = true;
      fetch(`${current.url}/metrics`)
        .then((r) => r.text())
        .then((text) => {
          const used = sample(text, "nodejs_heap_size_used_bytes");
          if (used !== undefined)
            heapMaxMiB.set(phase, Math.max(heapMaxMiB.get(phase) ?? 0, used / 2 ** 20));
        })
        .catch(() => {})
        .finally(() => {
          heapReading = false;
        });
    }, 2000);
    heapSampler.unref();
    // ── GET /v1/tokens pages, each a distinct query (no cached answer) ─────────────────────
    const random = mulberry32(seed + 7);
    const weth = HUBS[0].address;
    const filters = [
      { query: "", pages: 550 },
      { query: "type=base&", pages: 150 },
      { query: "type=defi&", pages: 400 },
      { query: "protocolSlug=uniswap-v2&", pages: 400 },
      { query: `underlyingTokens=${weth}&`, pages: 150 },
      { query: "protocolSlug=savings-vaults&", pages: 1 },
    ];
    const tokenTimes = new Map<string, number[]>();
    for (const f of filters) tokenTimes.set(f.query || "(none)", []);
    /** Every page's time, in the order fetched. */
    const tokenOrder: number[] = [];
    for (let i = 0; i < TOKEN_PAGES; i++) {
      const f = filters[i % filters.length] as (typeof filters)[number];
      const page = 1 + Math.floor(random() * f.pages);
      const w0 = performance.now();
      const r = await fetch(`${current.url}/v1/tokens?${f.query}page=${page}&chainId=1`);
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`/v1/tokens?${f.query}page=${page}: ${r.status}`);
      const took = performance.now() - w0;
      tokenTimes.get(f.query || "(none)")?.push(took);
      tokenOrder.push(took);
    }
    const allTokens = [...tokenTimes.values()].flat();
    const firstTokens60 = tokenOrder.slice(0, FIRST_TOKEN_PAGES);
    record({
      what: "`GET /v1/tokens` page of 1,000, filters included (distinct queries)",
      bar: "p50 ≤ 20 ms",
      value: `p50 ${ms(percentile(allTokens, 0.5))}, p90 ${ms(percentile(allTokens, 0.9))} over ${allTokens.length} pages (the first ${FIRST_TOKEN_PAGES}: p50 ${ms(percentile(firstTokens60, 0.5))}); by filter: ${[...tokenTimes].map(([q, t]) => `${q} p50 ${ms(percentile(t, 0.5))}`).join("; ")}`,
      met: percentile(allTokens, 0.5) <= 20,
      load: load(),
    });

    phase = "blocks";
    // ── Blocks of 300 changed pools, then a reorg of the last one ──────────────────────────
    const refreshSum = async () => {
      const text = await (await fetch(`${current.url}/metrics/api`)).text();
      const refresh = (series: string, kind = "incremental") =>
        sample(
          text,
          `shortcuts_snapshot_refresh_${series}{chain_id="${CHAIN_ID}",kind="${kind}"}`,
        ) ?? 0;
      return {
        sum: refresh("duration_seconds_sum"),
        count: refresh("duration_seconds_count"),
        fullCount: refresh("duration_seconds_count", "full"),
        block: sample(text, `shortcuts_snapshot_block{chain_id="${CHAIN_ID}"}`) ?? 0,
        cpu: refresh("cpu_seconds_sum"),
        gc: refresh("gc_seconds_sum"),
      };
    };
    const blockRandom = mulberry32(seed + 11);
    const refreshMs: number[] = [];
    /** Per block: the process's CPU and the main thread's GC pauses during its refresh. */
    const refreshCpuMs: number[] = [];
    const refreshGcMs: number[] = [];
    let before = await refreshSum();
    /** Per block: CPU ms of the main thread and the others while it was written and refreshed. */
    const threadCpu: { main: number; others: number }[] = [];
    /** Per block: from its write to its refresh seen (bench clock), and the output's length. */
    const blockSpans: { from: number; to: number }[] = [];
    const marks = [{ at: performance.now(), length: current.output().length }];
    for (let b = 1; b <= BLOCKS; b++) {
      const block = SEEDED_HEAD_BLOCK + BigInt(b);
      const threads0 = threadCpuMs(current.pid);
      const written = performance.now();
      await writeBlock(db, schema, state, block, blockRandom);
      await waitFor(
        `snapshot at block ${block}`,
        async () => (await refreshSum()).block === Number(block),
        30_000,
      );
      const after = await refreshSum();
      const refreshes = Math.max(1, after.count - before.count);
      refreshMs.push(((after.sum - before.sum) * 1000) / refreshes);
      refreshCpuMs.push(((after.cpu - before.cpu) * 1000) / refreshes);
      refreshGcMs.push(((after.gc - before.gc) * 1000) / refreshes);
      const threads1 = threadCpuMs(current.pid);
      threadCpu.push({
        main: threads1.main - threads0.main,
        others: threads1.others - threads0.others,
      });
      blockSpans.push({ from: written, to: performance.now() });
      marks.push({ at: performance.now(), length: current.output().length });
      before = after;
    }
    const reverted = await revertAbove(db, schema, SEEDED_HEAD_BLOCK + BigInt(BLOCKS - 1));
    // The replacement block at the same height.
    await writeBlock(db, schema, state, SEEDED_HEAD_BLOCK + BigInt(BLOCKS), blockRandom);
    await waitFor(
      "the reorg refresh",
      async () => (await refreshSum()).count > before.count,
      30_000,
    );
    const afterReorg = await refreshSum();
    const reorgMs = ((afterReorg.sum - before.sum) * 1000) / (afterReorg.count - before.count);
    record({
      what: `refresh after a block that changed ${CHANGED_POOLS_PER_BLOCK} pools (${CHANGED_POOLS_PER_BLOCK / 2} V2, ${CHANGED_POOLS_PER_BLOCK / 2} V3 of which ${CHANGED_POOLS_PER_BLOCK / 6} with a mint on 2 ticks)`,
      bar: "≤ 50 ms, off the request path",
      value: `p50 ${ms(percentile(refreshMs, 0.5))}, max ${ms(Math.max(...refreshMs))} over ${BLOCKS} blocks (each: ${refreshMs.map((x) => x.toFixed(0)).join(", ")} ms)`,
      met: percentile(refreshMs, 0.5) <= 50 && Math.max(...refreshMs) <= 50,
      load: load(),
    });
    note(
      `where each block's refresh went (wall / the process's CPU / main-thread GC pauses, ms): ${refreshMs.map((wall, i) => `${wall.toFixed(0)}/${(refreshCpuMs[i] ?? 0).toFixed(0)}/${(refreshGcMs[i] ?? 0).toFixed(0)}`).join(", ")}; GC pauses ${ms(refreshGcMs.reduce((a, b) => a + b, 0))} of ${ms(refreshMs.reduce((a, b) => a + b, 0))} in all`,
    );
    const worst = refreshMs.indexOf(Math.max(...refreshMs));
    const typical = refreshMs.indexOf(percentile(refreshMs, 0.5));
    const threadsOf = (i: number) =>
      `main thread ${threadCpu[i]?.main.toFixed(0)}, other threads ${threadCpu[i]?.others.toFixed(0)}`;
    note(
      `the API process's CPU by thread (ms, counted from /proc at 10 ms, from the block's write to its refresh seen), the slowest block (${worst + 1}): ${threadsOf(worst)}; the median block (${typical + 1}): ${threadsOf(typical)}`,
    );
    // Major GCs whose marking overlapped a block's refresh. V8 marks a heap this size (~1 GB
    // live) incrementally: steps on the main thread, between which JavaScript runs, and helper
    // threads beside it. Those steps are not pauses the process's GC observer reports.
    await new Promise((r) => setTimeout(r, 3000));
    marks.push({ at: performance.now(), length: current.output().length });
    const windows = markingWindows(majorGcs(current.output()), marks);
    const duringGc = blockSpans.flatMap((span, i) =>
      windows.some((w) => w.from <= span.to && w.to >= span.from) ? [i] : [],
    );
    const outside = refreshMs.filter((_, i) => !duringGc.includes(i));
    note(
      `major GCs whose marking could overlap the blocks (V8's --trace-gc; a cycle is placed between the two moments the benchmark saw its line printed, less its marking's wall time): ${windows.length === 0 ? "none" : windows.map((w) => `${w.gc.heapBeforeMb.toFixed(0)} → ${w.gc.heapAfterMb.toFixed(0)} MB, ${w.gc.markingMs.toFixed(0)} ms of marking on the main thread over ${w.gc.markingWallMs.toFixed(0)} ms, final pause ${w.gc.pauseMs.toFixed(0)} ms`).join("; ")}; blocks whose refresh could overlap one: ${duringGc.length === 0 ? "none" : duringGc.map((i) => `${i + 1} (${(refreshMs[i] as number).toFixed(0)} ms)`).join(", ")}; the other blocks' refresh: max ${outside.length === 0 ? "-" : ms(Math.max(...outside))}`,
    );
    // The repricing that follows refreshes, in the background, in steps.
    const metricsAfter = await (await fetch(`${current.url}/metrics/api`)).text();
    const series = (name: string, le?: number) =>
      sample(
        metricsAfter,
        `${name}{${le === undefined ? "" : `le="${le}",`}chain_id="${CHAIN_ID}"}`,
      ) ?? 0;
    const repricings = series("shortcuts_repricing_duration_seconds_count");
    const repricingS = series("shortcuts_repricing_duration_seconds_sum");
    const steps = series("shortcuts_repricing_step_seconds_count");
    const longestStep = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1].find(
      (le) => series("shortcuts_repricing_step_seconds_bucket", le) === steps,
    );
    note(
      `repricing after the blocks, in the background: ${repricings} runs, ${repricings > 0 ? (repricingS / repricings).toFixed(2) : "-"} s of wall time each, ${steps} steps in all, the longest ≤ ${longestStep === undefined ? "> 100" : longestStep * 1000} ms (what a request may wait behind it)`,
    );
    record({
      what: `reorg: the last block reverted (${reverted} undo-log entries) and replaced at the same height`,
      bar: "no full rebuild",
      value: `refresh ${ms(reorgMs)}; full builds ${afterReorg.fullCount} (the start-up one)`,
      met: afterReorg.fullCount === 1,
      load: load(),
    });

    phase = "routes";
    // ── 10,000 route requests, then RSS ─────────────────────────────────────────────────────
    const tokens = state.tokens;
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    const statuses = new Map<number, number>();
    let sent = 0;
    const r0 = performance.now();
    /** The API process's RSS, sampled each second while the routes are requested. */
    const rssDuringRoutes: number[] = [];
    const rssSampler = setInterval(() => rssDuringRoutes.push(rssMiB(current.pid)), 1000);
    await Promise.all(
      Array.from({ length: ROUTE_CONCURRENCY }, async () => {
        while (sent < ROUTE_REQUESTS) {
          sent++;
          const tokenIn = random() < 0.4 ? pick(HUBS).address : pick(tokens).address;
          const tokenOut = random() < 0.5 ? pick(HUBS).address : pick(tokens).address;
          const r = await fetch(
            `${current.url}/v1/shortcuts/route?fromAddress=0x${"1".repeat(40)}&tokenIn=${tokenIn}&tokenOut=${tokenOut}&amountIn=${10n ** BigInt(6 + Math.floor(random() * 14))}`,
          );
          await r.arrayBuffer();
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      }),
    )
      .catch((error: unknown) => {
        // The API process stopped answering: what it printed last says why.
        console.error(current.output().slice(-4000));
        console.error(
          `RSS each second during the routes (MiB): ${rssDuringRoutes.map((x) => x.toFixed(0)).join(", ")}; heap in use at most by phase (MiB): ${[...heapMaxMiB].map(([p, mib]) => `${p} ${mib.toFixed(0)}`).join(", ")}`,
        );
        throw error;
      })
      .finally(() => clearInterval(rssSampler));
    const routesS = (performance.now() - r0) / 1000;
    const rss = rssMiB(current.pid);
    // The bar is about routes answered: a run whose route requests failed (the seeded tables
    // have no token contracts on the benchmark's chain, so simulations cannot succeed) measured
    // failures, and is never counted as meeting it.
    const succeeded = statuses.get(200) ?? 0;
    record({
      what: `RSS of the API process after the build and ${ROUTE_REQUESTS.toLocaleString("en-US")} route requests`,
      bar: "≤ 2 GiB, every route answered 200",
      value: `${rss.toFixed(0)} MiB (heap limit --max-old-space-size=${heap ?? "unset"} MiB; routes in ${routesS.toFixed(0)} s, ${succeeded.toLocaleString("en-US")} of ${ROUTE_REQUESTS.toLocaleString("en-US")} answered 200; statuses ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(", ")})`,
      met: rss <= 2048 && succeeded === ROUTE_REQUESTS,
      load: load(),
    });
    clearInterval(heapSampler);
    note(
      `the API process's heap in use at most (Ponder's nodejs_heap_size_used_bytes every 2 s; limit ${heap ?? "unset"} MiB): ${[...heapMaxMiB].map(([p, mib]) => `${p} ${mib.toFixed(0)} MiB`).join(", ")}`,
    );
    const gcs = majorGcs(current.output());
    const p50Of = (values: number[]) => ms(percentile(values, 0.5));
    const markingMs = gcs.map((g) => g.markingMs);
    note(
      `major GCs of the API process from its start to here (V8's --trace-gc): ${
        gcs.length === 0
          ? "none"
          : `${gcs.length}; marking on the main thread per cycle p50 ${p50Of(markingMs)}, max ${ms(Math.max(...markingMs))}, over p50 ${p50Of(gcs.map((g) => g.markingWallMs))} of wall time; final pause p50 ${p50Of(gcs.map((g) => g.pauseMs))}; heap in use after each: ${gcs.map((g) => g.heapAfterMb.toFixed(0)).join(", ")} MB`
      }`,
    );
    await stopServed(current);
    served = undefined;

    // ── The in-process search on the same graph ─────────────────────────────────────────────
    const heapBeforeGraph = heapAfterGcMb();
    const l0 = performance.now();
    const graph = await loadGraph(db, schema, HUBS[0].address as Address);
    const loadS = (performance.now() - l0) / 1000;
    const heapWithGraph = heapAfterGcMb();
    prepareRouteSearch({ graph, weth: HUBS[0].address as Address });
    const heapPriced = heapAfterGcMb();
    note(
      `the graph's share of a heap (this process's heap in use after a full GC): ${heapBeforeGraph.toFixed(0)} MB before loading it, ${heapWithGraph.toFixed(0)} MB with it (+${(heapWithGraph - heapBeforeGraph).toFixed(0)} MB for ${graph.size.toLocaleString("en-US")} pools), ${heapPriced.toFixed(0)} MB once priced for the search (+${(heapPriced - heapWithGraph).toFixed(0)} MB)`,
    );
    const searchRandom = mulberry32(seed + 13);
    const spick = <T>(list: readonly T[]) => list[Math.floor(searchRandom() * list.length)] as T;
    type Query = { tokenIn: Address; tokenOut: Address; amountIn: bigint; hub: boolean };
    const queries: Query[] = [];
    while (queries.length < SEARCHES + 200) {
      const a = searchRandom() < 0.4 ? spick(HUBS) : spick(tokens);
      const b = searchRandom() < 0.5 ? spick(HUBS) : spick(tokens);
      if (a.address === b.address) continue;
      const usd = Math.exp(Math.log(10) + searchRandom() * (Math.log(5e6) - Math.log(10)));
      const units = usd / a.usd;
      const amountIn =
        BigInt(Math.max(1, Math.floor(units * 10 ** Math.min(a.decimals, 12)))) *
        10n ** BigInt(Math.max(0, a.decimals - 12));
      const hub = HUBS.some((h) => h.address === a.address || h.address === b.address);
      queries.push({
        tokenIn: a.address as Address,
        tokenOut: b.address as Address,
        amountIn,
        hub,
      });
    }
    const search = (q: Query) =>
      findRoute({
        graph,
        tokenIn: q.tokenIn,
        tokenOut: q.tokenOut,
        amountIn: q.amountIn,
        gasPriceWei: 20_000_000_000n,
        weth: HUBS[0].address as Address,
      });
    for (const q of queries.slice(0, 200)) search(q);
    const wall: number[] = [];
    const hubWall: number[] = [];
    const outcomes = new Map<string, number>();
    for (const q of queries.slice(200)) {
      const w0 = performance.now();
      const result = search(q);
      const w = performance.now() - w0;
      wall.push(w);
      if (q.hub) hubWall.push(w);
      const key = result.ok ? `${result.quote.legs.length} leg(s)` : result.reason;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    const degrees = HUBS.map(
      (h) => `${h.symbol} ${graph.degreeFrom(h.address as Address).toLocaleString("en-US")}`,
    ).join(", ");
    record({
      what: `route search, in process, on that graph (${SEARCHES.toLocaleString("en-US")} searches, ≤ 3 hops, ≤ 4 splits)`,
      bar: "p50 ≤ 3 ms, p99 ≤ 15 ms",
      value: `p50 ${ms(percentile(wall, 0.5))}, p90 ${ms(percentile(wall, 0.9))}, p99 ${ms(percentile(wall, 0.99))}, max ${ms(Math.max(...wall))}; with a hub token (${hubWall.length}): p50 ${ms(percentile(hubWall, 0.5))}, p99 ${ms(percentile(hubWall, 0.99))}`,
      met: percentile(wall, 0.5) <= 3 && percentile(wall, 0.99) <= 15,
      load: load(),
    });
    note(
      `search graph: ${graph.size.toLocaleString("en-US")} pools loaded in ${loadS.toFixed(1)} s; pools per hub: ${degrees}; outcomes ${[...outcomes].map(([k, v]) => `${k}: ${v}`).join(", ")}`,
    );
  } finally {
    if (served) await stopServed(served).catch(() => {});
    await db.end();
    await anvil.stop();
    await purgeSyncCache(DATABASE_URL, CHAIN_ID);
    if (!process.argv.includes("--keep")) await dropScaleSchema(DATABASE_URL, schema);
  }

  const text = [
    "# Mainnet scale",
    "",
    `Run on ${new Date().toISOString().slice(0, 10)} with \`npx tsx bench/scale.ts --schema ${schema} --seed ${seed}\` (Node ${process.version}, ${cpus().length} cores, shared with other work: the load average \`uptime\` reports, 1 / 5 / 15 min, is given next to each result).`,
    `Seeded state (bench/seed-scale.ts, seed ${seed}): ${Object.entries(rows)
      .map(([t, n]) => `${t} ${n.toLocaleString("en-US")}`)
      .join(", ")}; pools per hub ${Object.entries(state.hubPools)
      .map(([h, n]) => `${h} ${n.toLocaleString("en-US")}`)
      .join(
        ", ",
      )}; initialized ticks per V3 pool: median ${state.ticks.median}, busiest ${state.ticks.busiest}, ${state.tables.find((t) => t.name === "v3_tick")?.rows.length.toLocaleString("en-US")} in all.`,
    `Served by \`ponder serve --schema ${schema}\` as \`npm run serve\` runs it (\`${packageJson.scripts.serve}\`), with node's \`--trace-gc\`.`,
    "",
    "| what | bar | measured | met | load |",
    "|---|---|---|---|---|",
    ...results.map(
      (r) => `| ${r.what} | ${r.bar} | ${r.value} | ${r.met ? "yes" : "**no**"} | ${r.load} |`,
    ),
    "",
    ...lines.map((l) => `- ${l}`),
    "",
  ].join("\n");
  writeFileSync(join(root, "bench", "results", "scale.md"), text);
  console.log(text);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
