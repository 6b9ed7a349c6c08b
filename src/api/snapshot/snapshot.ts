/**
 * The in-memory routing graph of every indexed chain, built from the indexed tables at start-up
 * (`buildSnapshots`, awaited before the server listens) and kept current by reading only the
 * rows updated since the block last seen, so that a request never scans the tables and never
 * sees a graph still loading. Each graph knows the block it reflects.
 *
 * Every refresh reads in one read-only repeatable-read transaction, so the checkpoint, the undo
 * log and the rows it reads are one consistent state of the database.
 *
 * Reorgs: Ponder reverts the rows written in reorged blocks without moving its checkpoint back
 * (it only writes the checkpoint when it indexes a block), and the replacement blocks can reach
 * the same height or beyond, so neither the checkpoint nor `updatedBlock` shows that rows went
 * back. Ponder's undo log does: for every row written in a block not yet final it keeps one entry
 * per write, numbered in write order from one sequence, in `_reorg__<table>`; a reorg deletes the
 * newest entries, finality the oldest. The snapshot records the key of every entry it reads
 * (until the block is final). When the newest entry it read is gone, rows may have been reverted:
 * it re-reads, by key, the rows of the entries it recorded in blocks not yet final — a reorg
 * never reaches below finality — instead of the whole graph. Entries newer than the last refresh
 * say from which block on rows were written, replacement blocks included.
 */

import { and, eq, gt, inArray, sql } from "ponder";
import { config } from "../../../config.js";
import type { ChainSetup } from "../../../engine/chain-setup.js";
import { RoutingGraph } from "../../../engine/routing/graph.js";
import { prepareRouteSearch } from "../../../engine/routing/search.js";
import type { Address } from "../../../engine/routing/types.js";
import { token, v2Pair, v3Pool, v3Tick, vault } from "../../../ponder.schema.js";
import type { ApiDatabase, SnapshotSource } from "../database.js";
import { recordSnapshotRefresh, setSnapshotBlock } from "../ops/metrics.js";
import {
  AddressInterner,
  type V3TickRow,
  v2PoolOf,
  v3PoolOf,
  vaultPoolOf,
} from "./snapshot-rows.js";

/** The tables the snapshot reads, by the name of their undo log, with their key column. */
const UNDO_LOGS = {
  token: "address",
  v2_pair: "address",
  v3_pool: "address",
  v3_tick: "pool",
  vault: "address",
} as const;
type LoggedTable = keyof typeof UNDO_LOGS;

/** A write the undo log recorded in a block not yet final: a reorg may revert it. */
type LoggedWrite = { id: number; table: LoggedTable; key: Address; block: bigint };

type ChainSnapshot = {
  chain: ChainSetup;
  graph: RoutingGraph;
  lastBlock: bigint;
  /** Ponder's finalized block at the last refresh: no reorg reaches below it. */
  finalizedBlock: bigint;
  /** Newest undo-log entry of the chain read so far (0: none). */
  loggedThrough: number;
  /** The writes of the entries read so far, until their block is final. */
  unfinal: LoggedWrite[];
  /** Counts the refreshes that changed the graph (part of `snapshotVersion`). */
  updates: number;
};

/** What the snapshot reads through: Ponder's read-only database or one transaction of it. */
type Reader = Pick<ApiDatabase, "select" | "selectDistinct" | "execute">;

/**
 * Ponder's types leave `transaction` out of the API's database because the API cannot write,
 * but its read-only connections run read-only transactions, which is all a refresh opens.
 */
type ReadDatabase = ApiDatabase & {
  transaction: <T>(
    run: (tx: Reader) => Promise<T>,
    config: { isolationLevel: "repeatable read"; accessMode: "read only" },
  ) => Promise<T>;
};

/** The database and chains the snapshots are read from (connectSnapshots). */
let source: { db: ReadDatabase; chains: readonly ChainSetup[] } | undefined;

/** Sets where the snapshots are read from: the API's database and the chains it serves. */
export function connectSnapshots(params: { db: ApiDatabase; chains: readonly ChainSetup[] }): void {
  source = { db: params.db as ReadDatabase, chains: params.chains };
}

function connected(): NonNullable<typeof source> {
  if (!source) throw new Error("the routing snapshots are not connected to a database");
  return source;
}

const snapshots = new Map<number, ChainSnapshot>();
/** Per chain, how many times the whole graph was loaded (start-up, or the index went back). */
const fullBuilds = new Map<number, number>();
const addresses = new AddressInterner();
let refreshing: Promise<void> | undefined;
let timer: NodeJS.Timeout | undefined;
const listeners: ((chainId: number, block: bigint) => void)[] = [];

const lower = (a: string) => a.toLowerCase() as Address;

/**
 * Most values one `IN (…)` list binds. Postgres accepts at most 65,535 bind parameters per
 * query; a mainnet-sized list (30,000+ V3 pools) is read in slices of this size.
 */
const MAX_IN_LIST = 10_000;

/** `values` in slices of at most MAX_IN_LIST. */
function slices<T>(values: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < values.length; at += MAX_IN_LIST) {
    out.push(values.slice(at, at + MAX_IN_LIST));
  }
  return out;
}

/** Rows of `raw` SQL (Ponder's node-pg and PGlite drivers both answer `{ rows }`). */
async function rowsOf<T>(reader: Reader, raw: string): Promise<T[]> {
  const result = await reader.execute(sql.raw(raw));
  return (result as unknown as { rows: T[] }).rows;
}

/** The ticks of `pools`, or of every pool of the chain (`"all"`, a full load: no list to bind). */
async function loadTicks(
  reader: Reader,
  chainId: number,
  pools: Address[] | "all",
): Promise<Map<string, V3TickRow[]>> {
  const byPool = new Map<string, V3TickRow[]>();
  if (pools !== "all" && pools.length === 0) return byPool;
  const select = () =>
    reader
      .select({
        pool: v3Tick.pool,
        tick: v3Tick.tick,
        liquidityNet: v3Tick.liquidityNet,
        liquidityGross: v3Tick.liquidityGross,
      })
      .from(v3Tick);
  const batches =
    pools === "all"
      ? [await select().where(eq(v3Tick.chainId, chainId))]
      : await Promise.all(
          slices(pools).map((slice) =>
            select().where(and(eq(v3Tick.chainId, chainId), inArray(v3Tick.pool, slice))),
          ),
        );
  for (const rows of batches) {
    for (const r of rows) {
      const list = byPool.get(r.pool);
      if (list) list.push(r);
      else byPool.set(r.pool, [r]);
    }
  }
  return byPool;
}

/** Rows of `table` whose key is one of `keys`, read in slices. */
async function rowsByKey<T>(keys: readonly Address[], read: (slice: Address[]) => Promise<T[]>) {
  return (await Promise.all(slices(keys).map(read))).flat();
}

/** Rows the snapshot must re-read by key (reverted by a reorg), per table. */
type KeysToReread = Record<LoggedTable, Set<Address>>;

function noKeys(): KeysToReread {
  return {
    token: new Set(),
    v2_pair: new Set(),
    v3_pool: new Set(),
    v3_tick: new Set(),
    vault: new Set(),
  };
}

/**
 * Applies every row updated after `since` (all rows when since is -1), and the current rows of
 * `reread` (a row gone from its table removes its pool), to the graph.
 */
async function applyUpdates(
  reader: Reader,
  s: ChainSnapshot,
  since: bigint,
  reread: KeysToReread = noKeys(),
): Promise<void> {
  const chainId = s.chain.id;
  const pairColumns = {
    address: v2Pair.address,
    token0: v2Pair.token0,
    token1: v2Pair.token1,
    reserve0: v2Pair.reserve0,
    reserve1: v2Pair.reserve1,
    fee: v2Pair.fee,
  };
  const poolColumns = {
    address: v3Pool.address,
    token0: v3Pool.token0,
    token1: v3Pool.token1,
    fee: v3Pool.fee,
    tickSpacing: v3Pool.tickSpacing,
    sqrtPriceX96: v3Pool.sqrtPriceX96,
    tick: v3Pool.tick,
    liquidity: v3Pool.liquidity,
  };
  // One query at a time: a transaction is one connection.
  const pairs = await reader
    .select(pairColumns)
    .from(v2Pair)
    .where(and(eq(v2Pair.chainId, chainId), gt(v2Pair.updatedBlock, since)));
  const pools = await reader
    .select(poolColumns)
    .from(v3Pool)
    .where(and(eq(v3Pool.chainId, chainId), gt(v3Pool.updatedBlock, since)));
  const tickPools =
    since < 0n
      ? []
      : await reader
          .selectDistinct({ pool: v3Tick.pool })
          .from(v3Tick)
          .where(and(eq(v3Tick.chainId, chainId), gt(v3Tick.updatedBlock, since)));
  const vaults = await reader
    .select()
    .from(vault)
    .where(and(eq(vault.chainId, chainId), gt(vault.updatedBlock, since)));

  // Reverted pairs: their current row, or none (created in a reorged block).
  const revertedPairs = [...reread.v2_pair];
  const pairsNow = await rowsByKey(revertedPairs, (slice) =>
    reader
      .select(pairColumns)
      .from(v2Pair)
      .where(and(eq(v2Pair.chainId, chainId), inArray(v2Pair.address, slice))),
  );
  for (const p of [...pairs, ...pairsNow]) s.graph.upsertPool(v2PoolOf(p, addresses));
  const pairsFound = new Set(pairsNow.map((p) => lower(p.address)));
  for (const address of revertedPairs) if (!pairsFound.has(address)) s.graph.removePool(address);

  // A pool whose ticks changed needs its whole tick list again; its own row may not have changed.
  const poolRows = new Map(pools.map((p) => [lower(p.address), p]));
  const rereadPools = new Set([...reread.v3_pool, ...reread.v3_tick]);
  const missing = [...new Set([...tickPools.map((t) => lower(t.pool)), ...rereadPools])].filter(
    (a) => !poolRows.has(a),
  );
  const extra = await rowsByKey(missing, (slice) =>
    reader
      .select(poolColumns)
      .from(v3Pool)
      .where(and(eq(v3Pool.chainId, chainId), inArray(v3Pool.address, slice))),
  );
  for (const p of extra) poolRows.set(lower(p.address), p);
  for (const address of rereadPools) if (!poolRows.has(address)) s.graph.removePool(address);
  const ticks = await loadTicks(reader, chainId, since < 0n ? "all" : [...poolRows.keys()]);
  for (const [address, p] of poolRows) {
    const pool = v3PoolOf(p, ticks.get(address) ?? [], addresses);
    // Not initialized (yet, or again after a reorg reverted its Initialize).
    if (pool) s.graph.upsertPool(pool);
    else s.graph.removePool(address);
  }

  // A vault's row, or its share token's (decimals), reverted: its current row, or none.
  const rereadVaults = [...new Set([...reread.vault, ...reread.token])];
  const vaultsNow = await rowsByKey(rereadVaults, (slice) =>
    reader
      .select()
      .from(vault)
      .where(and(eq(vault.chainId, chainId), inArray(vault.address, slice))),
  );
  const vaultsFound = new Set(vaultsNow.map((v) => lower(v.address)));
  for (const address of reread.vault) if (!vaultsFound.has(address)) s.graph.removePool(address);
  const allVaults = [...vaults, ...vaultsNow];
  if (allVaults.length > 0) {
    const decimals = await rowsByKey(
      [...new Set(allVaults.flatMap((v) => [lower(v.address), lower(v.asset)]))],
      (slice) =>
        reader
          .select({ address: token.address, decimals: token.decimals })
          .from(token)
          .where(and(eq(token.chainId, chainId), inArray(token.address, slice))),
    );
    const decimalsOf = new Map(decimals.map((d) => [lower(d.address), d.decimals]));
    for (const v of allVaults) {
      s.graph.upsertPool(
        vaultPoolOf(
          v,
          { share: decimalsOf.get(lower(v.address)), asset: decimalsOf.get(lower(v.asset)) },
          addresses,
        ),
      );
    }
  }
}

function newSnapshot(chain: ChainSetup): ChainSnapshot {
  const graph = new RoutingGraph();
  if (chain.weth)
    graph.upsertPool({ kind: "wrap", protocol: "wrapped-native", address: lower(chain.weth) });
  return {
    chain,
    graph,
    lastBlock: -1n,
    finalizedBlock: -1n,
    loggedThrough: 0,
    unfinal: [],
    updates: 0,
  };
}

/** Where a checkpoint holds its block number (after 10 digits of timestamp, 16 of chain id). */
const blockOf = (column: string) => `substring(${column}, 27, 16)::numeric`;

type Checkpoint = { chainId: number; indexedBlock: bigint; finalizedBlock: bigint };

/** Ponder's checkpoints: the last block indexed and the last block final, per chain. */
async function checkpoints(reader: Reader): Promise<Checkpoint[]> {
  const rows = await rowsOf<{ chain_id: number | string; latest: string; finalized: string }>(
    reader,
    `select chain_id, ${blockOf("latest_checkpoint")} as latest, ${blockOf("finalized_checkpoint")} as finalized from _ponder_checkpoint`,
  );
  return rows.map((r) => ({
    chainId: Number(r.chain_id),
    indexedBlock: BigInt(r.latest),
    finalizedBlock: BigInt(r.finalized),
  }));
}

/**
 * The chain's undo-log entries newer than `after`, whether entry `after` is still there (always,
 * for 0: nothing read yet), and the newest entry of the chain (0 when it has none).
 */
async function undoLogSince(
  reader: Reader,
  chainId: number,
  after: number,
): Promise<{ kept: boolean; newest: number; entries: LoggedWrite[] }> {
  const tables = Object.entries(UNDO_LOGS);
  const entries = tables
    .map(
      ([table, key]) =>
        `select '${table}' as t, ${key} as key, operation_id as id, ${blockOf("checkpoint")} as block from "_reorg__${table}" where operation_id > ${after} and chain_id = ${chainId}`,
    )
    .join(" union all ");
  const kept = tables
    .map(([table]) => `select 1 from "_reorg__${table}" where operation_id = ${after}`)
    .join(" union all ");
  const newest = tables
    .map(
      ([table]) =>
        `select max(operation_id) as id from "_reorg__${table}" where chain_id = ${chainId}`,
    )
    .join(" union all ");
  const rows = await rowsOf<{ t: string; key: string; id: number | string; block: string }>(
    reader,
    `${entries} union all select 'kept', null, (select count(*) from (${kept}) as k), 0 union all select 'newest', null, (select coalesce(max(id), 0) from (${newest}) as n), 0 order by id`,
  );
  const marker = (name: string) => Number(rows.find((r) => r.t === name)?.id ?? 0);
  return {
    kept: after === 0 || marker("kept") > 0,
    newest: marker("newest"),
    entries: rows
      .filter((r) => r.t in UNDO_LOGS)
      .map((r) => ({
        id: Number(r.id),
        table: r.t as LoggedTable,
        key: lower(r.key),
        block: BigInt(r.block),
      })),
  };
}

/** Loads a chain's whole graph. */
async function buildChain(reader: Reader, chain: ChainSetup, at: Checkpoint) {
  const s = newSnapshot(chain);
  // Entries already in the log were written before the rows read next; a reorg can revert them.
  const log = await undoLogSince(reader, chain.id, 0);
  await applyUpdates(reader, s, -1n);
  s.unfinal = log.entries.filter((e) => e.block > at.finalizedBlock);
  s.loggedThrough = log.newest;
  s.finalizedBlock = at.finalizedBlock;
  fullBuilds.set(chain.id, (fullBuilds.get(chain.id) ?? 0) + 1);
  return s;
}

/**
 * Brings a chain's snapshot up to `at`, in place when it can; returns the snapshot (a new one
 * after a full load) and whether the graph changed.
 */
async function refreshChain(
  reader: Reader,
  chain: ChainSetup,
  at: Checkpoint,
  current: ChainSnapshot | undefined,
): Promise<{ s: ChainSnapshot; full: boolean } | undefined> {
  // The index moved back below a block that was final: no undo log explains that (a new
  // index on the same schema), so start over. Above it, a rollback is a reorg like any other.
  if (!current || at.indexedBlock < current.finalizedBlock) {
    const s = await buildChain(reader, chain, at);
    s.updates = (current?.updates ?? 0) + 1;
    return { s, full: true };
  }
  const s = current;
  const log = await undoLogSince(reader, chain.id, s.loggedThrough);
  const reread = noKeys();
  if (!log.kept) {
    // Entries read before are gone: a reorg may have reverted their rows (finality removes
    // only entries of final blocks, which `unfinal` no longer holds).
    for (const w of s.unfinal) if (w.block > at.finalizedBlock) reread[w.table].add(w.key);
  }
  const firstBlock = log.entries.reduce<bigint | undefined>(
    (min, e) => (min === undefined || e.block < min ? e.block : min),
    undefined,
  );
  // Blocks that replaced reorged ones wrote rows at or below the block last seen.
  const since =
    firstBlock !== undefined && firstBlock <= s.lastBlock ? firstBlock - 1n : s.lastBlock;
  const rereads = Object.values(reread).some((keys) => keys.size > 0);
  const changed = rereads || since !== s.lastBlock || at.indexedBlock !== s.lastBlock;
  s.finalizedBlock = at.finalizedBlock;
  if (changed) await applyUpdates(reader, s, since, reread);
  // After a reorg the entry last read is gone: the newest one still there takes over.
  s.loggedThrough = log.newest;
  s.unfinal = [...s.unfinal, ...log.entries].filter((w) => w.block > at.finalizedBlock);
  if (!changed) return undefined;
  s.updates++;
  return { s, full: false };
}

/** Reads what changed since the last refresh, for every chain; one refresh at a time. */
export function refreshSnapshots(): Promise<void> {
  refreshing ??= (async () => {
    try {
      const { db, chains: served } = connected();
      const chains = new Map(served.map((c) => [c.id, c]));
      await db.transaction(
        async (tx) => {
          for (const at of await checkpoints(tx)) {
            const chain = chains.get(at.chainId);
            if (!chain) continue;
            const started = performance.now();
            const result = await refreshChain(tx, chain, at, snapshots.get(chain.id));
            if (!result) continue;
            const { s, full } = result;
            s.lastBlock = at.indexedBlock;
            s.graph.blockNumber = at.indexedBlock;
            // Reprice here, off the request path (the first search after many changes would).
            if (chain.weth) prepareRouteSearch({ graph: s.graph, weth: lower(chain.weth) });
            snapshots.set(chain.id, s);
            recordSnapshotRefresh({
              chainId: chain.id,
              full,
              seconds: (performance.now() - started) / 1000,
              pools: s.graph.size,
            });
            setSnapshotBlock(chain.id, at.indexedBlock);
            for (const listener of listeners) listener(chain.id, at.indexedBlock);
          }
        },
        { isolationLevel: "repeatable read", accessMode: "read only" },
      );
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

/** Starts the background refresh (idempotent). */
export function startSnapshotRefresh(): void {
  if (timer) return;
  timer = setInterval(() => {
    refreshSnapshots().catch((error: unknown) => {
      console.error("routing snapshot refresh failed", error);
    });
  }, config().snapshotRefreshMs);
  timer.unref();
}

/**
 * Loads every indexed chain's graph, then keeps them current. Awaited before the server
 * listens, so no request (nor `/ready`) is answered before the graphs are whole.
 */
export async function buildSnapshots(): Promise<void> {
  await refreshSnapshots();
  startSnapshotRefresh();
}

/**
 * The routing graph of a chain; undefined for an unindexed chain. A chain that had no
 * checkpoint yet at start-up (a fresh index) is loaded here on first use.
 */
export async function routingGraph(chainId: number): Promise<RoutingGraph | undefined> {
  startSnapshotRefresh();
  if (!snapshots.has(chainId)) await refreshSnapshots();
  return snapshots.get(chainId)?.graph;
}

/** How many times the chain's whole graph was loaded (1 after start-up; reorgs add none). */
export function snapshotFullBuilds(chainId: number): number {
  return fullBuilds.get(chainId) ?? 0;
}

/**
 * Identifies the indexed state the snapshots reflect (every chain's block), or undefined before
 * the first refresh: answers derived from the tables can be cached under it.
 */
export function snapshotVersion(): string | undefined {
  if (snapshots.size === 0) return undefined;
  return [...snapshots.values()].map((s) => `${s.chain.id}:${s.lastBlock}:${s.updates}`).join(",");
}

/** Called with (chainId, block) each time a chain's snapshot advances. */
export function onSnapshotAdvance(listener: (chainId: number, block: bigint) => void): void {
  listeners.push(listener);
}

/** The snapshots as the endpoints read them (the refresh started on first use). */
export const snapshotSource: SnapshotSource = {
  routingGraph,
  snapshotVersion: () => {
    startSnapshotRefresh();
    return snapshotVersion();
  },
};
