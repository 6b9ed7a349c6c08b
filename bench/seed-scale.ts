/**
 * Seeds a Postgres schema with an indexed state the size of Ethereum mainnet, written straight
 * into the tables the indexer owns, in the format its handlers write (src/*.ts): lowercase hex,
 * V2 LP tokens as `defi` tokens of `uniswap-v2`, vault shares as `defi` tokens of their vault's
 * protocol, V3 ticks as `ticks(tick)` reports them, `updated_block` on every row.
 *
 * The schema itself (tables, undo logs, triggers, Ponder's own tables) is made by Ponder:
 * `ponder start` runs once against an empty anvil of the same chain id until `/ready`, then
 * stops. The rows go in with `INSERT … SELECT FROM unnest(…)`: one array per column, so a batch
 * of any size binds one parameter per column. Triggers are off while seeding (the undo log and
 * live queries are for blocks the indexer writes), and Ponder's checkpoint is moved to the
 * seeded head block, as after a backfill that ended there.
 *
 * Shape (deterministic from the seed): five hubs (WETH, USDC, USDT, DAI, WBTC, at their mainnet
 * addresses) each in 10,000+ pools; tail tokens with Zipf-like popularity; V2 pairs and V3 pools
 * with heavy-tailed liquidity; V3 tick counts heavy-tailed (most pools a few initialized ticks,
 * the busiest over 1,000); a few hundred ERC4626 vaults on hubs and tail tokens.
 *
 * Run: npx tsx bench/seed-scale.ts --schema scale_main [--seed 1] [--chain-id 1] [--rpc-port 8601]
 *      npx tsx bench/seed-scale.ts --schema scale_main --drop
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import pg from "pg";
import { startAnvil } from "../devnet/anvil.js";
import { mulberry32 } from "../devnet/random.js";
import { purgeSyncCache } from "../devnet/sync-cache.js";
import { getSqrtRatioAtTick, MAX_TICK, MIN_TICK } from "../engine/index.js";

const root = resolve(import.meta.dirname, "..");

export type ScaleSizes = {
  v2Pairs: number;
  v3Pools: number;
  /** Base tokens (LP tokens and vault shares come on top). */
  tokens: number;
  vaults: number;
};

export const MAINNET_SIZES: ScaleSizes = {
  v2Pairs: 400_000,
  v3Pools: 30_000,
  tokens: 150_000,
  vaults: 300,
};

/** The block the seeded state is at (Ponder's checkpoint); rows were written at or before it. */
export const SEEDED_HEAD_BLOCK = 21_000_000n;

export const HUBS = [
  {
    symbol: "WETH",
    address: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
    decimals: 18,
    usd: 3000,
  },
  { symbol: "USDC", address: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", decimals: 6, usd: 1 },
  { symbol: "USDT", address: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 6, usd: 1 },
  { symbol: "DAI", address: "0x6b175474e89094c44da98b954eedeac495271d0f", decimals: 18, usd: 1 },
  {
    symbol: "WBTC",
    address: "0x2260fac5e5542a773aa44fbe1e8b8f2f15e7d3c7",
    decimals: 8,
    usd: 60_000,
  },
] as const;

const V2_FACTORY = "0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f";
const V3_FACTORY = "0x1f98431c8ad98523631ae4a59f267346ea31f984";
const NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
const TICK_SPACING: Record<number, number> = { 100: 1, 500: 10, 3000: 60, 10000: 200 };
/** Rows per INSERT: each column is one array parameter, so this bounds memory, not binds. */
const BATCH_ROWS = 20_000;

export type SeededToken = { address: string; decimals: number; usd: number };

/** Columns of one table, in the order of `columns`, one array of text values per column. */
type Table = { name: string; columns: string[]; types: string[]; rows: (string | null)[][] };

export type ScaleState = {
  chainId: number;
  tokens: SeededToken[];
  tables: Table[];
  /** Pools per hub symbol (V2 + V3). */
  hubPools: Record<string, number>;
  ticks: { total: number; busiest: number; median: number };
};

/** A deterministic address from a salt (not a real contract, but shaped like one). */
function addressOf(kind: number, i: number): string {
  const x = (Math.imul(i + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, "0");
  return `0x${kind.toString(16).padStart(2, "0")}${x}${(i + 1).toString(16).padStart(30, "0")}`;
}

/** A table from its columns as `name:type` words, in the order the rows hold them. */
function tableOf(name: string, spec: string, rows: (string | null)[][]): Table {
  const columns = spec.split(" ").map((c) => c.split(":") as [string, string]);
  return { name, columns: columns.map(([c]) => c), types: columns.map(([, t]) => t), rows };
}

/** Generates the whole state in memory (deterministic from `seed`). */
export function generateScaleState(params: {
  seed: number;
  chainId: number;
  sizes: ScaleSizes;
}): ScaleState {
  const { chainId, sizes } = params;
  const random = mulberry32(params.seed);
  const logUniform = (min: number, max: number) =>
    Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min)));
  const blockBetween = (from: bigint, to: bigint) =>
    from + BigInt(Math.floor(random() * Number(to - from + 1n)));
  const head = SEEDED_HEAD_BLOCK;

  const hubs: SeededToken[] = HUBS.map((h) => ({ ...h }));
  const tail: SeededToken[] = Array.from({ length: sizes.tokens - hubs.length }, (_, i) => ({
    address: addressOf(0xb0, i),
    decimals: [6, 8, 9, 18, 18, 18][Math.floor(random() * 6)] as number,
    usd: logUniform(1e-6, 5_000),
  }));
  // Zipf-like popularity: token i of the tail is picked with weight ~ 1/(i+10).
  const zipf = () => {
    const n = tail.length;
    const i = Math.floor(10 * ((n / 10 + 1) ** random() - 1));
    return tail[Math.min(n - 1, i)] as SeededToken;
  };
  const hubShares = (weights: number[]) => () => {
    let r = random();
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] as number;
      if (r < 0) return hubs[i] as SeededToken;
    }
    return undefined; // a tail partner
  };
  const v2Partner = hubShares([0.6, 0.1, 0.08, 0.04, 0.035]);
  const v3Partner = hubShares([0.45, 0.2, 0.12, 0.08, 0.07]);
  const hubPools: Record<string, number> = Object.fromEntries(HUBS.map((h) => [h.symbol, 0]));
  const countHub = (t: SeededToken) => {
    const hub = HUBS.find((h) => h.address === t.address);
    if (hub) hubPools[hub.symbol] = (hubPools[hub.symbol] ?? 0) + 1;
  };
  const rawAmount = (t: SeededToken, usd: number): bigint => {
    const units = usd / t.usd;
    const scaled = units * 10 ** Math.min(t.decimals, 12);
    return BigInt(Math.max(1, Math.floor(scaled))) * 10n ** BigInt(Math.max(0, t.decimals - 12));
  };
  const ordered = (a: SeededToken, b: SeededToken) => (a.address < b.address ? [a, b] : [b, a]);
  /**
   * Two distinct tokens for a new pool whose `key` (of the ordered pair) is not taken yet: a
   * factory holds one V2 pair per token pair and one V3 pool per pair and fee, as on chain.
   */
  const pairOf = (
    partnerOf: () => SeededToken | undefined,
    taken: Set<string>,
    key: (t0: SeededToken, t1: SeededToken) => string,
  ): [SeededToken, SeededToken] => {
    for (;;) {
      const a = zipf();
      const b = partnerOf() ?? zipf();
      if (a === b) continue;
      const pair = ordered(a, b) as [SeededToken, SeededToken];
      const k = key(...pair);
      if (taken.has(k)) continue;
      taken.add(k);
      return pair;
    }
  };
  const v2Taken = new Set<string>();
  const v3Taken = new Set<string>();

  const tokenRows: (string | null)[][] = [];
  const tokenRow = (
    address: string,
    name: string,
    symbol: string,
    decimals: number,
    position: { slug: string; underlying: string[]; primary: string } | undefined,
    created: bigint,
  ) =>
    tokenRows.push([
      String(chainId),
      address,
      name,
      symbol,
      String(decimals),
      position ? "defi" : "base",
      position?.slug ?? null,
      `{${(position?.underlying ?? []).join(",")}}`,
      position?.primary ?? null,
      String(created),
      String(created),
    ]);
  tokenRow(NATIVE, "Ether", "ETH", 18, undefined, 0n);
  for (const [i, h] of HUBS.entries())
    tokenRow(h.address, h.symbol, h.symbol, h.decimals, undefined, BigInt(i));
  for (const [i, t] of tail.entries())
    tokenRow(
      t.address,
      `Token ${i}`,
      `T${i}`,
      t.decimals,
      undefined,
      blockBetween(5_000_000n, head),
    );

  const v2Rows: (string | null)[][] = [];
  for (let i = 0; i < sizes.v2Pairs; i++) {
    const [t0, t1] = pairOf(v2Partner, v2Taken, (a, b) => a.address + b.address);
    countHub(t0);
    countHub(t1);
    const address = addressOf(0xc2, i);
    const tvl = logUniform(10, 5e7);
    const created = blockBetween(10_000_835n, head);
    const updated = blockBetween(created, head);
    const reserve0 = rawAmount(t0, tvl / 2);
    const reserve1 = rawAmount(t1, tvl / 2);
    v2Rows.push([
      String(chainId),
      address,
      V2_FACTORY,
      "uniswap-v2",
      t0.address,
      t1.address,
      String(reserve0),
      String(reserve1),
      "3000",
      String(BigInt(Math.floor(Math.sqrt(Number(reserve0) * Number(reserve1))) + 1)),
      String(created),
      String(updated),
    ]);
    tokenRow(
      address,
      "Uniswap V2",
      "UNI-V2",
      18,
      {
        slug: "uniswap-v2",
        underlying: [t0.address, t1.address],
        primary: address,
      },
      created,
    );
  }

  // The ten hub pairs, each in the four fee tiers: the first 40 V3 pools.
  const hubPairs = hubs.flatMap((a, i) =>
    hubs.slice(i + 1).map((b) => ordered(a, b) as [SeededToken, SeededToken]),
  );
  const v3Rows: (string | null)[][] = [];
  const tickRows: (string | null)[][] = [];
  const tickCounts: number[] = [];
  for (let i = 0; i < sizes.v3Pools; i++) {
    // The first pools are the hub pairs in every fee tier: the busiest pools of the chain.
    const hubPair = i < 40;
    const fee = hubPair
      ? ([100, 500, 3000, 10000][i % 4] as number)
      : ([100, 500, 3000, 3000, 10000][Math.floor(random() * 5)] as number);
    const keyOf = (a: SeededToken, b: SeededToken) => `${a.address}${b.address}${fee}`;
    const hubTokens = hubPairs[i >> 2] as [SeededToken, SeededToken];
    if (hubPair) v3Taken.add(keyOf(...hubTokens));
    const [t0, t1] = hubPair ? hubTokens : pairOf(v3Partner, v3Taken, keyOf);
    countHub(t0);
    countHub(t1);
    const spacing = TICK_SPACING[fee] as number;
    const address = addressOf(0xc3, i);
    const created = blockBetween(12_369_621n, head);
    const updated = blockBetween(created, head);
    const base = [
      String(chainId),
      address,
      V3_FACTORY,
      "uniswap-v3",
      t0.address,
      t1.address,
      String(fee),
      String(spacing),
    ];
    if (!hubPair && random() < 0.01) {
      // Created but never initialized, as some pools are.
      v3Rows.push([...base, "0", null, "0", String(created), String(created)]);
      continue;
    }
    const price =
      (t0.usd / t1.usd) * 10 ** (t1.decimals - t0.decimals) * (1 + (random() - 0.5) * 0.004);
    const tick = Math.max(
      MIN_TICK + spacing,
      Math.min(MAX_TICK - spacing, Math.floor(Math.log(price) / Math.log(1.0001))),
    );
    const sqrtLow = getSqrtRatioAtTick(tick);
    const sqrtHigh = getSqrtRatioAtTick(tick + 1);
    const sqrtPriceX96 =
      sqrtLow + ((sqrtHigh - sqrtLow) * BigInt(Math.floor(random() * 1000))) / 1000n;
    // Heavy-tailed initialized tick count: Pareto(α = 1) from 2, capped at 3,000; hub pools 1,000+.
    const wanted = hubPair
      ? 1_000 + Math.floor(random() * 2_000)
      : Math.min(3_000, Math.floor(2 / (1 - random() * 0.9995)));
    const tvl = hubPair ? logUniform(1e7, 5e8) : logUniform(100, 5e7);
    const totalL = (Number(rawAmount(t1, tvl / 2)) / Math.sqrt(price)) * 0.5;
    const net = new Map<number, bigint>();
    const gross = new Map<number, bigint>();
    const center = Math.floor(tick / spacing) * spacing;
    const bound = Math.floor(MAX_TICK / spacing) * spacing;
    let liquidity = 0n;
    const positions = Math.max(1, Math.ceil(wanted / 2));
    const width = Math.max(4, Math.ceil(positions * 1.5));
    for (let p = 0; p < positions; p++) {
      let lower = Math.max(-bound, center - (1 + Math.floor(random() * width)) * spacing);
      let upper = Math.min(bound, center + (1 + Math.floor(random() * width)) * spacing);
      // Some positions lie wholly on one side of the price.
      if (random() < 0.3) {
        const shift = (1 + Math.floor(random() * width)) * spacing * (random() < 0.5 ? -1 : 1);
        lower = Math.max(-bound, lower + shift);
        upper = Math.min(bound, upper + shift);
        if (upper <= lower) upper = Math.min(bound, lower + spacing);
      }
      if (upper <= lower) continue;
      const l = BigInt(Math.max(1, Math.floor((totalL / positions) * (0.2 + random() * 1.6))));
      net.set(lower, (net.get(lower) ?? 0n) + l);
      net.set(upper, (net.get(upper) ?? 0n) - l);
      gross.set(lower, (gross.get(lower) ?? 0n) + l);
      gross.set(upper, (gross.get(upper) ?? 0n) + l);
      if (lower <= tick && tick < upper) liquidity += l;
    }
    for (const [t, n] of net) {
      tickRows.push([
        String(chainId),
        address,
        String(t),
        String(gross.get(t) ?? 0n),
        String(n),
        String(blockBetween(created, updated)),
      ]);
    }
    tickCounts.push(net.size);
    v3Rows.push([
      ...base,
      String(sqrtPriceX96),
      String(tick),
      String(liquidity),
      String(created),
      String(updated),
    ]);
  }

  const vaultRows: (string | null)[][] = [];
  for (let i = 0; i < sizes.vaults; i++) {
    const asset = i < hubs.length * 4 ? (hubs[i % hubs.length] as SeededToken) : zipf();
    const address = addressOf(0xd0, i);
    const slug = i % 2 === 0 ? "savings-vaults" : "yield-vaults";
    const totalAssets = rawAmount(asset, logUniform(1e4, 1e9));
    const totalSupply = (totalAssets * BigInt(900 + Math.floor(random() * 100))) / 1000n;
    const created = blockBetween(15_000_000n, head);
    vaultRows.push([
      String(chainId),
      address,
      slug,
      asset.address,
      String(totalAssets),
      String(totalSupply),
      String(created),
      String(blockBetween(created, head)),
    ]);
    tokenRow(
      address,
      `Vault ${i}`,
      `v${i}`,
      asset.decimals,
      { slug, underlying: [asset.address], primary: address },
      created,
    );
  }

  const sortedTicks = [...tickCounts].sort((a, b) => a - b);
  return {
    chainId,
    tokens: [...hubs, ...tail],
    hubPools,
    ticks: {
      total: tickRows.length,
      busiest: sortedTicks.at(-1) ?? 0,
      median: sortedTicks[Math.floor(sortedTicks.length / 2)] ?? 0,
    },
    tables: [
      tableOf(
        "token",
        "chain_id:int address:text name:text symbol:text decimals:int type:text protocol_slug:text underlying_tokens:text primary_address:text created_block:numeric updated_block:numeric",
        tokenRows,
      ),
      tableOf(
        "v2_pair",
        "chain_id:int address:text factory:text protocol:text token0:text token1:text reserve0:numeric reserve1:numeric fee:int total_supply:numeric created_block:numeric updated_block:numeric",
        v2Rows,
      ),
      tableOf(
        "v3_pool",
        "chain_id:int address:text factory:text protocol:text token0:text token1:text fee:int tick_spacing:int sqrt_price_x_96:numeric tick:int liquidity:numeric created_block:numeric updated_block:numeric",
        v3Rows,
      ),
      tableOf(
        "v3_tick",
        "chain_id:int pool:text tick:int liquidity_gross:numeric liquidity_net:numeric updated_block:numeric",
        tickRows,
      ),
      tableOf(
        "vault",
        "chain_id:int address:text protocol_slug:text asset:text total_assets:numeric total_supply:numeric created_block:numeric updated_block:numeric",
        vaultRows,
      ),
    ],
  };
}

/** Ponder's checkpoint of the end of `block`: timestamp, chain id, block, then all nines. */
export function blockEndCheckpoint(chainId: number, block: bigint, timestamp: number): string {
  return `${String(timestamp).padStart(10, "0")}${String(chainId).padStart(16, "0")}${String(block).padStart(16, "0")}${"9".repeat(33)}`;
}

/** The environment that makes this project's config index (or serve) the seeded chain. */
export function scaleChainEnv(chainId: number, rpcUrl: string): Record<string, string> {
  const [weth, usdc, usdt, dai] = HUBS;
  return {
    DEVNET: "false",
    PONDER_TELEMETRY_DISABLED: "true",
    [`PONDER_RPC_URL_${chainId}`]: rpcUrl,
    [`START_BLOCK_${chainId}`]: "0",
    [`UNISWAP_V2_FACTORY_${chainId}`]: V2_FACTORY,
    [`UNISWAP_V3_FACTORY_${chainId}`]: V3_FACTORY,
    [`WETH_${chainId}`]: weth.address,
    [`STABLECOINS_${chainId}`]: [usdc.address, usdt.address, dai.address].join(","),
  };
}

/**
 * Makes `schema` as Ponder makes it: `ponder start` on an empty anvil of `chainId` until
 * `/ready`, then stopped. Needs the anvil port and an HTTP port.
 */
export async function createPonderSchema(params: {
  databaseUrl: string;
  schema: string;
  chainId: number;
  anvilPort: number;
  httpPort: number;
}): Promise<void> {
  const anvil = await startAnvil({ port: params.anvilPort, chainId: params.chainId });
  try {
    let log = "";
    const child = spawn(
      resolve(root, "node_modules/.bin/ponder"),
      [
        "start",
        "--schema",
        params.schema,
        "--port",
        String(params.httpPort),
        "--log-level",
        "warn",
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          ...scaleChainEnv(params.chainId, anvil.url),
          DATABASE_URL: params.databaseUrl,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    const deadline = Date.now() + 90_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${params.httpPort}/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) break;
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`ponder start did not become ready; output:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill("SIGTERM");
    await exited;
  } finally {
    await anvil.stop();
    await purgeSyncCache(params.databaseUrl, params.chainId);
  }
}

/** Inserts the state's rows into `schema` (triggers off) and moves the checkpoint to the head. */
/** Inserts one table's rows, a batch per statement, on `client`. */
async function insertTable(client: pg.Client, schema: string, table: Table): Promise<void> {
  const columns = table.columns.map((c) => `"${c}"`).join(", ");
  const arrays = table.types.map((t, i) => `$${i + 1}::${t}[]`).join(", ");
  // unnest flattens a text[][]: the underlying tokens travel as array literals and are cast.
  const select = table.columns
    .map((c, i) => (c === "underlying_tokens" ? `u${i}::text[]` : `u${i}`))
    .join(", ");
  const aliases = table.columns.map((_, i) => `u${i}`).join(", ");
  const text = `insert into "${schema}"."${table.name}" (${columns}) select ${select} from unnest(${arrays}) as t(${aliases}) on conflict do nothing`;
  for (let at = 0; at < table.rows.length; at += BATCH_ROWS) {
    const batch = table.rows.slice(at, at + BATCH_ROWS);
    await client.query(
      text,
      table.columns.map((_, i) => batch.map((row) => row[i] ?? null)),
    );
  }
}

/**
 * Inserts the state's rows into `schema` (triggers off) and moves the checkpoint to the head.
 * Two connections: the token table on one, the pools on the other (about equal work).
 */
export async function insertScaleState(params: {
  databaseUrl: string;
  schema: string;
  state: ScaleState;
  onTable?: (name: string, rows: number, ms: number) => void;
}): Promise<void> {
  const { schema, state } = params;
  const groups = [
    state.tables.filter((t) => t.name === "token"),
    state.tables.filter((t) => t.name !== "token"),
  ];
  await Promise.all(
    groups.map(async (tables) => {
      const client = new pg.Client({ connectionString: params.databaseUrl });
      await client.connect();
      try {
        // No undo-log entries, no live-query notifications: these rows are finalized history.
        await client.query("set session_replication_role = replica");
        for (const table of tables) {
          const started = performance.now();
          await insertTable(client, schema, table);
          params.onTable?.(table.name, table.rows.length, performance.now() - started);
          // As autovacuum leaves a table of finalized history: statistics, hint bits and the
          // visibility map current. Without it the first read of every page after the seed
          // also writes it, which a served database that has been running does not do.
          await client.query(`vacuum (analyze) "${schema}"."${table.name}"`);
        }
      } finally {
        await client.end();
      }
    }),
  );
  const client = new pg.Client({ connectionString: params.databaseUrl });
  await client.connect();
  try {
    const checkpoint = blockEndCheckpoint(state.chainId, SEEDED_HEAD_BLOCK, 1_730_000_000);
    await client.query(
      `update "${schema}"."_ponder_checkpoint" set safe_checkpoint = $1, latest_checkpoint = $1, finalized_checkpoint = $1 where chain_id = $2`,
      [checkpoint, state.chainId],
    );
  } finally {
    await client.end();
  }
}

/** Drops a seeded schema. */
export async function dropScaleSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  const schema = arg("schema");
  if (!schema?.startsWith("scale_")) throw new Error("--schema scale_<name> is required");
  if (process.argv.includes("--drop")) {
    await dropScaleSchema(databaseUrl, schema);
    console.log(`dropped ${schema}`);
    return;
  }
  const seed = Number(arg("seed") ?? 1);
  const chainId = Number(arg("chain-id") ?? 1);
  const started = performance.now();
  console.log(`seed ${seed}, chain ${chainId}, schema ${schema}`);
  await dropScaleSchema(databaseUrl, schema);
  await createPonderSchema({
    databaseUrl,
    schema,
    chainId,
    anvilPort: Number(arg("rpc-port") ?? 8601),
    httpPort: Number(arg("http-port") ?? 42101),
  });
  console.log(
    `schema made by ponder start in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const g0 = performance.now();
  const state = generateScaleState({ seed, chainId, sizes: MAINNET_SIZES });
  console.log(
    `generated in ${((performance.now() - g0) / 1000).toFixed(1)} s: hub pools ${JSON.stringify(state.hubPools)}; ticks ${JSON.stringify(state.ticks)}`,
  );
  await insertScaleState({
    databaseUrl,
    schema,
    state,
    onTable: (name, rows, ms) =>
      console.log(`${name}: ${rows} rows in ${(ms / 1000).toFixed(1)} s`),
  });
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
