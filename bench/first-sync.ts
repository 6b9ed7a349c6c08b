/**
 * First sync of a real chain with many pools, two ways on the same chain: the state start
 * (`START_BLOCK_<id>` at the head: pools discovered from the factories' events, their state read
 * in batched calls at the block before) and the full replay (`START_BLOCK_<id>=1`).
 *
 *   npx tsx bench/first-sync.ts [--v2-pairs 10000] [--v3-pools 1000] [--v3-ticks 50]
 *                               [--v3-fee-100 0] [--v4-pools 100] [--v4-ticks 10] [--tokens 3000]
 *                               [--call-gas-cap 50000000] [--chain-id 31802] [--anvil-port N]
 *
 * The chain: anvil with the devnet world and the extra pools of bench/first-sync-world.ts, on a
 * chain id of its own. Each run is `ponder start` as an operator runs it on a real chain
 * (`PONDER_RPC_URL_<id>` through a metering proxy, bench/rpc-meter.ts; the contracts from the
 * environment; `DEVNET=false`; Postgres at `DATABASE_URL`, a schema of its own), timed from spawn
 * to `/ready` answering 200 and to `/status` at the head. Between the runs and at the end this
 * chain's rows in `ponder_sync` are deleted, so neither run reads the other's cache.
 *
 * Prints Markdown: the chain, the two runs side by side (time, requests and bytes by method,
 * database size), the rows of each table in both (the run fails if they differ), the costs per
 * pool and token, and Ethereum mainnet priced with them. bench/results/first-sync.md keeps the
 * recorded runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { decodeFunctionData, type Hex, multicall3Abi, toFunctionSelector, zeroHash } from "viem";
import { startAnvil } from "../devnet/anvil.js";
import { purgeSyncCache } from "../devnet/sync-cache.js";
import { MULTICALL3_ADDRESS, multicall3TryAggregateAbi } from "../engine/index.js";
import { bitmapReaderRanges } from "../src/state-start/bitmap-reader.js";
import { freePort } from "../test/harness/net.js";
import { cpuSeconds, peakRssMiB, stopChild } from "./child-process.js";
import { type FirstSyncWorld, seedFirstSyncWorld } from "./first-sync-world.js";
import { type MethodUse, type RpcMeter, startRpcMeter } from "./rpc-meter.js";

const root = resolve(import.meta.dirname, "..");
/** The tables both runs must fill alike. */
const COMPARED_TABLES = [
  "v2_pair",
  "v3_pool",
  "v3_tick",
  "v4_pool",
  "v4_tick",
  "aave_reserve",
  "token",
] as const;
/** What a batched read's first call says about whose state it reads. */
const READ_OF_SELECTOR = new Map<string, string>([
  [toFunctionSelector("getReserves()"), "V2"],
  [toFunctionSelector("totalSupply()"), "V2"],
  [toFunctionSelector("slot0()"), "V3"],
  [toFunctionSelector("liquidity()"), "V3"],
  [toFunctionSelector("balanceOf(address)"), "V3"],
  [toFunctionSelector("tickBitmap(int16)"), "V3"],
  [toFunctionSelector("ticks(int24)"), "V3"],
  [toFunctionSelector("extsload(bytes32[])"), "V4"],
]);
const STATE_START_LINE =
  /state start read (\d+) pools and (\d+) tokens at block (\d+) in ([\d.]+) s/;

const { values } = parseArgs({
  options: {
    "v2-pairs": { type: "string", default: "10000" },
    "v3-pools": { type: "string", default: "1000" },
    "v3-ticks": { type: "string", default: "50" },
    "v3-fee-100": { type: "string", default: "0" },
    "v4-pools": { type: "string", default: "100" },
    "v4-ticks": { type: "string", default: "10" },
    tokens: { type: "string", default: "3000" },
    "call-gas-cap": { type: "string", default: "50000000" },
    "chain-id": { type: "string", default: "31802" },
    "anvil-port": { type: "string" },
    "timeout-minutes": { type: "string", default: "60" },
  },
});
const chainId = Number(values["chain-id"]);
const sizes = {
  tokens: Number(values.tokens),
  v2Pairs: Number(values["v2-pairs"]),
  v3Pools: Number(values["v3-pools"]),
  v3TicksPerPool: Number(values["v3-ticks"]),
  v3Fee100Pools: Number(values["v3-fee-100"]),
  v4Pools: Number(values["v4-pools"]),
  v4TicksPerPool: Number(values["v4-ticks"]),
};
const timeoutMs = Number(values["timeout-minutes"]) * 60_000;
const databaseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const runTag = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

type Run = {
  label: string;
  startBlock: number;
  schema: string;
  readySeconds: number;
  headSeconds: number;
  /** The state start's own line: pools, tokens, block, seconds. */
  stateStart?: { pools: number; tokens: number; block: number; seconds: number };
  usage: Map<string, MethodUse>;
  schemaBytes: number;
  syncCacheBytes: number;
  rows: Map<string, number>;
  ponderCpuSeconds: number;
  /** The Ponder process's peak resident memory, MiB. */
  ponderPeakRssMiB: number;
  /** Calls inside the Multicall3 batches, by the meter's name for them. */
  calls: Map<string, number>;
};

/**
 * The meter's name for a request: `eth_call`s told apart by what they read (a Multicall3 batch
 * by its first call's protocol, a tick bitmap reader's by its first range's, another deployless
 * call, a single call). A batch's calls, and a bitmap reader's words, are counted into `calls` by
 * that name.
 */
const requestLabel =
  (calls: Map<string, number>) =>
  ({ method, params }: { method: string; params: unknown }): string => {
    if (method !== "eth_call") return method;
    const [tx] = params as [{ to?: string; data?: Hex; input?: Hex } | undefined];
    const data = tx?.data ?? tx?.input;
    const ranges = !tx?.to && data ? bitmapReaderRanges(data) : undefined;
    if (ranges) {
      const name = `eth_call deployless ${ranges[0]?.bitmapSlot === zeroHash ? "V3" : "V4"} tick bitmaps`;
      calls.set(name, (calls.get(name) ?? 0) + ranges.reduce((sum, r) => sum + r.words, 0));
      return name;
    }
    if (!tx?.to) return "eth_call deployless (token metadata, vault totals)";
    if (tx.to.toLowerCase() !== MULTICALL3_ADDRESS.toLowerCase() || !data) return "eth_call single";
    try {
      // The state start's `tryAggregate(requireSuccess, calls)`, or an `aggregate3(calls)`.
      const { functionName, args } = decodeFunctionData({
        abi: [...multicall3Abi, ...multicall3TryAggregateAbi],
        data,
      });
      const batch = (functionName === "tryAggregate" ? args?.[1] : args?.[0]) as
        | readonly { callData: Hex }[]
        | undefined;
      const first = batch?.[0]?.callData.slice(0, 10) ?? "";
      const name = `eth_call Multicall3 ${READ_OF_SELECTOR.get(first) ?? "other"} state`;
      calls.set(name, (calls.get(name) ?? 0) + (batch?.length ?? 0));
      return name;
    } catch {
      return "eth_call Multicall3 other";
    }
  };

/** The environment of `ponder start` on this chain as a real one, from `world`'s addresses. */
function chainEnv(world: FirstSyncWorld, rpcUrl: string, startBlock: number, dir: string) {
  const d = world.deployment;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    [`PONDER_RPC_URL_${chainId}`]: rpcUrl,
    DEVNET: "false",
    DATABASE_URL: databaseUrl,
    [`START_BLOCK_${chainId}`]: String(startBlock),
    START_BLOCK_PIN_FILE: join(dir, "start-blocks.json"),
    [`UNISWAP_V2_FACTORY_${chainId}`]: d.uniswapV2.factory,
    [`UNISWAP_V3_FACTORY_${chainId}`]: d.uniswapV3.factory,
    [`WETH_${chainId}`]: d.weth,
    [`STABLECOINS_${chainId}`]: d.tokens
      .filter((t) => ["USDC", "USDT", "DAI"].includes(t.symbol))
      .map((t) => t.address)
      .join(","),
    [`VAULTS_${chainId}`]: d.vaults.map((v) => `${v.protocolSlug}:${v.address}`).join(","),
    PONDER_TELEMETRY_DISABLED: "true",
    // As `npm run indexer` runs it.
    NODE_OPTIONS: "--max-old-space-size=3072",
  };
  if (d.uniswapV4) env[`UNISWAP_V4_POOL_MANAGER_${chainId}`] = d.uniswapV4.poolManager;
  if (d.aaveV3) {
    env[`AAVE_V3_POOL_${chainId}`] = d.aaveV3.pool;
    env[`AAVE_V3_POOL_ADDRESSES_PROVIDER_${chainId}`] = d.aaveV3.poolAddressesProvider;
    env[`AAVE_V3_POOL_CONFIGURATOR_${chainId}`] = d.aaveV3.poolConfigurator;
  }
  for (const key of ["RPC_URL", "DEVNET_DEPLOYMENT", "DATABASE_SCHEMA"]) delete env[key];
  return env;
}

/** One `ponder start` from an empty schema to the head; the schema is kept for the comparison. */
async function syncOnce(params: {
  label: string;
  world: FirstSyncWorld;
  anvilUrl: string;
  head: number;
  startBlock: number;
  dir: string;
  track: (child: ChildProcess, meter: RpcMeter) => void;
}): Promise<Run> {
  const { label, head, startBlock } = params;
  const schema = `firstsync_${runTag}_${startBlock === 1 ? "replay" : "state"}`;
  await purgeSyncCache(databaseUrl, chainId);
  const calls = new Map<string, number>();
  const meter = await startRpcMeter({ target: params.anvilUrl, label: requestLabel(calls) });
  const port = await freePort();
  const logFile = join(params.dir, `${schema}.log`);
  const log = createWriteStream(logFile);
  const started = Date.now();
  const ponder = spawn(
    join(root, "node_modules/.bin/ponder"),
    ["start", "--port", String(port), "--schema", schema],
    {
      cwd: root,
      env: chainEnv(params.world, meter.url, startBlock, params.dir),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  params.track(ponder, meter);
  let stateStart: Run["stateStart"];
  const onOutput = (d: Buffer) => {
    log.write(d);
    if (process.env.BENCH_LOG) process.stderr.write(d);
    const m = STATE_START_LINE.exec(d.toString());
    if (m) {
      stateStart = {
        pools: Number(m[1]),
        tokens: Number(m[2]),
        block: Number(m[3]),
        seconds: Number(m[4]),
      };
    }
  };
  ponder.stdout?.on("data", onOutput);
  ponder.stderr?.on("data", onOutput);
  const base = `http://127.0.0.1:${port}`;
  let readyAt = 0;
  let headAt = 0;
  while (!headAt) {
    if (ponder.exitCode !== null || ponder.signalCode !== null) {
      const tail = readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
      throw new Error(`${label}: ponder exited (${ponder.exitCode}) before the head:\n${tail}`);
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${label}: not at the head after ${values["timeout-minutes"]} minutes`);
    }
    if (!readyAt) {
      const ok = await fetch(`${base}/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) readyAt = Date.now();
    } else {
      const status = (await fetch(`${base}/status`)
        .then((r) => r.json())
        .catch(() => ({}))) as Record<string, { id: number; block: { number: number } }>;
      const at = Object.values(status).find((c) => c.id === chainId)?.block.number ?? 0;
      if (at >= head) headAt = Date.now();
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const ponderCpuSeconds = cpuSeconds(ponder.pid);
  const ponderPeakRssMiB = peakRssMiB(ponder.pid);
  await stopChild(ponder);
  log.end();
  const usage = meter.usage();
  await meter.close();
  const measured = await measureSchema(schema);
  return {
    label,
    startBlock,
    schema,
    readySeconds: (readyAt - started) / 1000,
    headSeconds: (headAt - started) / 1000,
    stateStart,
    usage,
    ...measured,
    ponderCpuSeconds,
    ponderPeakRssMiB,
    calls,
  };
}

/** The schema's size, its compared tables' rows, and this chain's row data in `ponder_sync`. */
async function measureSchema(
  schema: string,
): Promise<Pick<Run, "schemaBytes" | "syncCacheBytes" | "rows">> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const size = await db.query<{ bytes: string }>(
      `select coalesce(sum(pg_total_relation_size(format('%I.%I', schemaname, tablename))), 0)
         as bytes from pg_tables where schemaname = $1`,
      [schema],
    );
    const rows = new Map<string, number>();
    for (const table of COMPARED_TABLES) {
      const { rows: r } = await db.query<{ n: string }>(
        `select count(*) as n from "${schema}"."${table}"`,
      );
      rows.set(table, Number(r[0]?.n));
    }
    const sync = await db.query<{ table_name: string }>(
      `select table_name from information_schema.columns
        where table_schema = 'ponder_sync' and column_name = 'chain_id'`,
    );
    let syncCacheBytes = 0;
    for (const { table_name } of sync.rows) {
      const { rows: r } = await db.query<{ bytes: string | null }>(
        `select sum(pg_column_size(t.*)) as bytes from ponder_sync."${table_name}" t
          where chain_id = $1`,
        [chainId],
      );
      syncCacheBytes += Number(r[0]?.bytes ?? 0);
    }
    return { schemaBytes: Number(size.rows[0]?.bytes), rows, syncCacheBytes };
  } finally {
    await db.end();
  }
}

const total = (usage: Map<string, MethodUse>, match: (method: string) => boolean) => {
  let requests = 0;
  let bytes = 0;
  for (const [method, use] of usage) {
    if (!match(method)) continue;
    requests += use.requests;
    bytes += use.bytes;
  }
  return { requests, bytes };
};
const mb = (bytes: number) => (bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 0);
const gb = (bytes: number) => (bytes / 1e9).toFixed(1);
const hours = (seconds: number) =>
  seconds < 5_400 ? `${(seconds / 60).toFixed(0)} min` : `${(seconds / 3_600).toFixed(1)} h`;

/**
 * Ethereum mainnet, from bench/results/mainnet-backfill.md's public counts (V4: an assumption,
 * no public count was recorded).
 */
const MAINNET = {
  v2Pairs: 400_000,
  v3Pools: 40_000,
  v4Pools: 30_000,
  tokens: { low: 150_000, high: 400_000 },
  /** Blocks since the V2 factory's deployment (10.0 M to ≈ 26.4 M). */
  discoveryBlocks: 16_400_000,
  /** A provider's `eth_getLogs` block-range cap (2,000–10,000 blocks is usual). */
  logRange: 10_000,
  /**
   * Creation logs read from the deployment blocks: Ponder's discovery of the V2 and V3 factories'
   * children, and the state start's own reading of the V2, V3 and V4 creations (discover.ts).
   */
  discoverySources: 5,
  /** A mainnet block with full transactions (mainnet-backfill.md: ~100–250 KB of JSON). */
  blockBytes: 150_000,
};

function printReport(world: FirstSyncWorld, head: number, state: Run, replay: Run): void {
  const runs = [state, replay];
  console.log(
    `\n| chain | V2 pairs | V3 pools | V3 ticks | V4 pools | V4 ticks | Aave reserves | tokens | head block | seeded in |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  const r = state.rows;
  console.log(
    `| ${chainId} | ${r.get("v2_pair")} | ${r.get("v3_pool")} | ${r.get("v3_tick")} | ${r.get("v4_pool")} | ${r.get("v4_tick")} | ${r.get("aave_reserve")} | ${r.get("token")} | ${head} | ${world.seconds.toFixed(0)} s (${world.blocks} blocks) |`,
  );

  console.log(`\n| | ${runs.map((x) => `${x.label} (START_BLOCK=${x.startBlock})`).join(" | ")} |`);
  console.log("|---|---:|---:|");
  const row = (name: string, f: (x: Run) => string) =>
    console.log(`| ${name} | ${runs.map(f).join(" | ")} |`);
  row("spawn → `/ready` 200", (x) => `${x.readySeconds.toFixed(1)} s`);
  row("spawn → `/status` at the head", (x) => `${x.headSeconds.toFixed(1)} s`);
  row("state start's own line", (x) =>
    x.stateStart
      ? `${x.stateStart.pools} pools, ${x.stateStart.tokens} tokens at block ${x.stateStart.block} in ${x.stateStart.seconds} s`
      : "–",
  );
  row("Ponder CPU to the head", (x) => `${x.ponderCpuSeconds.toFixed(0)} s`);
  row("Ponder's peak RSS", (x) => `${x.ponderPeakRssMiB.toFixed(0)} MiB`);
  const methods = [...new Set(runs.flatMap((x) => [...x.usage.keys()]))].sort();
  for (const method of methods) {
    row(`\`${method}\` requests (MB answered)`, (x) => {
      const use = x.usage.get(method);
      return use ? `${use.requests} (${mb(use.bytes)})` : "–";
    });
  }
  row("**all requests (MB answered)**", (x) => {
    const t = total(x.usage, () => true);
    return `**${t.requests} (${mb(t.bytes)})**`;
  });
  row("schema size (tables and indexes)", (x) => `${mb(x.schemaBytes)} MB`);
  row("`ponder_sync` rows of the chain (row data)", (x) => `${mb(x.syncCacheBytes)} MB`);

  console.log(`\n| table | ${runs.map((x) => x.label).join(" | ")} |`);
  console.log("|---|---:|---:|");
  for (const table of COMPARED_TABLES) row(table, (x) => String(x.rows.get(table)));

  // Per pool and token, from the state start: its batched reads by protocol, its token reads,
  // its discovery (logs, and a block per block holding a creation).
  const u = state.usage;
  const per = (methods: string[], count: number) => {
    const sum = (of: (method: string) => number) => methods.reduce((s, m) => s + of(m), 0);
    return {
      requests: sum((m) => u.get(m)?.requests ?? 0) / count,
      bytes: sum((m) => u.get(m)?.bytes ?? 0) / count,
      calls: sum((m) => state.calls.get(m) ?? 0) / count,
    };
  };
  // A protocol's batched reads and its bitmap reader's requests (words counted as calls).
  const reads = (protocol: string) => [
    `eth_call Multicall3 ${protocol} state`,
    `eth_call deployless ${protocol} tick bitmaps`,
  ];
  const v2 = per(reads("V2"), r.get("v2_pair") ?? 1);
  const v3 = per(reads("V3"), r.get("v3_pool") ?? 1);
  const v4 = per(reads("V4"), r.get("v4_pool") ?? 1);
  // Per token read: the tokens the state start's pools named (V2 LP tokens are constants, no read).
  const token = per(
    ["eth_call deployless (token metadata, vault totals)"],
    state.stateStart?.tokens || 1,
  );
  const blocks = u.get("eth_getBlockByNumber") ?? { requests: 0, bytes: 0, logs: 0 };
  const pools = (state.stateStart?.pools ?? 1) || 1;
  const readSecondsPerPool = (state.stateStart?.seconds ?? 0) / pools;
  // Ponder's CPU over the whole run, per pool: what the node's pace cannot shorten.
  const cpuSecondsPerPool = state.ponderCpuSeconds / pools;
  console.log(
    "\n| state start, per | requests | calls batched (or bitmap words read) | bytes answered |",
  );
  console.log("|---|---:|---:|---:|");
  console.log(
    `| V2 pair | ${v2.requests.toFixed(4)} | ${v2.calls.toFixed(1)} | ${v2.bytes.toFixed(0)} |`,
  );
  console.log(
    `| V3 pool | ${v3.requests.toFixed(3)} | ${v3.calls.toFixed(1)} | ${v3.bytes.toFixed(0)} |`,
  );
  console.log(
    `| V4 pool | ${v4.requests.toFixed(3)} | ${v4.calls.toFixed(1)} | ${v4.bytes.toFixed(0)} |`,
  );
  console.log(`| token | ${token.requests.toFixed(3)} | – | ${token.bytes.toFixed(0)} |`);
  console.log(
    `| block fetched (${blocks.requests} in all: blocks after the start with a matched log) | ${(blocks.requests / pools).toFixed(4)} | – | ${(blocks.bytes / Math.max(1, blocks.requests)).toFixed(0)} |`,
  );
  const rowBytes = state.schemaBytes / [...r.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\nstate start: ${(readSecondsPerPool * 1000).toFixed(2)} ms per pool at this node's pace (its reads and writes: ${state.stateStart?.seconds ?? "?"} s for ${pools} pools); schema ${rowBytes.toFixed(0)} B per row of the compared tables`,
  );

  // Mainnet: requests of the state start scaled by pool and token; discovery's logs by range.
  // No block is fetched for a creation before the start (discover.ts): only the blocks of the
  // events after it, as many as on this chain.
  const m = MAINNET;
  const readRequests = m.v2Pairs * v2.requests + m.v3Pools * v3.requests + m.v4Pools * v4.requests;
  const logRequests = (m.discoverySources * m.discoveryBlocks) / m.logRange;
  const blockRequests = blocks.requests;
  const localSeconds = (m.v2Pairs + m.v3Pools + m.v4Pools) * cpuSecondsPerPool;
  const ticksPerV3 = (r.get("v3_tick") ?? 0) / (r.get("v3_pool") ?? 1);
  console.log(
    "\n| mainnet (tokens low–high) | requests | at 100 req/s | at 500 req/s | download |",
  );
  console.log("|---|---:|---:|---:|---:|");
  for (const [name, tokens, reads] of [
    ["low, as measured", m.tokens.low, readRequests],
    ["high, as measured", m.tokens.high, readRequests],
  ] as const) {
    const requests = reads + tokens * token.requests + logRequests + blockRequests;
    const bytes =
      m.v2Pairs * v2.bytes +
      m.v3Pools * v3.bytes +
      m.v4Pools * v4.bytes +
      tokens * token.bytes +
      blockRequests * m.blockBytes;
    console.log(
      `| ${name}: ${tokens} tokens | ${requests.toFixed(0)} (${reads.toFixed(0)} state reads, ${(tokens * token.requests).toFixed(0)} token reads, ${logRequests.toFixed(0)} log ranges, ${blockRequests} blocks) | ${hours(requests / 100 + localSeconds)} | ${hours(requests / 500 + localSeconds)} | ${gb(bytes)} GB |`,
    );
  }
  const rowsMainnet =
    m.v2Pairs + m.v3Pools * (1 + ticksPerV3) + m.v4Pools * 11 + m.tokens.high + m.v2Pairs;
  console.log(
    `\nlocal work (Ponder's CPU, ${(cpuSecondsPerPool * 1000).toFixed(1)} ms a pool): ${hours(localSeconds)}; schema ≈ ${gb(rowsMainnet * rowBytes)} GB at ${rowBytes.toFixed(0)} B a row (${ticksPerV3.toFixed(0)} ticks a V3 pool, 10 a V4 pool)`,
  );
}

const head0 = load();
const anvilPort = values["anvil-port"]
  ? Number(values["anvil-port"])
  : 48_000 + (process.pid % 1_000);
const anvil = await startAnvil({ port: anvilPort, chainId, baseFee: 0n });
const dir = mkdtempSync(join(tmpdir(), "first-sync-"));
const live: { child?: ChildProcess; meter?: RpcMeter } = {};
const schemas: string[] = [];
try {
  const world = await seedFirstSyncWorld({
    rpcUrl: anvil.url,
    sizes,
    callGasCap: BigInt(values["call-gas-cap"]),
    log: (line) => console.error(line),
  });
  const headHex = (await (
    await fetch(anvil.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
    })
  ).json()) as { result: Hex };
  const head = Number(BigInt(headHex.result));
  console.error(`seeded in ${world.seconds.toFixed(0)} s; head block ${head}`);
  const runs: Run[] = [];
  for (const [label, startBlock] of [
    ["state start", head],
    ["full replay", 1],
  ] as const) {
    schemas.push(`firstsync_${runTag}_${startBlock === 1 ? "replay" : "state"}`);
    const run = await syncOnce({
      label,
      world,
      anvilUrl: anvil.url,
      head,
      startBlock,
      dir,
      track: (child, meter) => {
        live.child = child;
        live.meter = meter;
      },
    });
    console.error(
      `${label}: /ready in ${run.readySeconds.toFixed(1)} s, head in ${run.headSeconds.toFixed(1)} s`,
    );
    runs.push(run);
  }
  const [state, replay] = runs as [Run, Run];
  console.log(
    `\n\`npx tsx bench/first-sync.ts ${process.argv.slice(2).join(" ")}\`; load average (1/5/15 min) before ${head0}, after ${load()}`,
  );
  printReport(world, head, state, replay);
  const differ = COMPARED_TABLES.filter((t) => state.rows.get(t) !== replay.rows.get(t));
  if (differ.length > 0) {
    throw new Error(
      `the two indexes differ in ${differ.map((t) => `${t} (state start ${state.rows.get(t)}, replay ${replay.rows.get(t)})`).join(", ")}`,
    );
  }
} finally {
  if (live.child) await stopChild(live.child);
  await live.meter?.close().catch(() => {});
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  for (const schema of schemas) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.end();
  await purgeSyncCache(databaseUrl, chainId);
}
