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

import { config } from "../../../config.js";
import type { Address, ChainSetup } from "../../../engine/index.js";
import {
  createRoutingGraph,
  prepareRouteSearch,
  priceStaleness,
  type RoutingGraph,
  type SpotPriceStep,
  staleSpotPrices,
} from "../../../engine/index.js";
import type { ApiDatabase, SnapshotSource } from "../database.js";
import {
  gcPauseSeconds,
  recordRepricing,
  recordSnapshotRefresh,
  setSnapshotBlock,
} from "../ops/metrics.js";
import { indexedSources } from "../protocols/registry.js";
import { AddressInterner } from "./address-interner.js";
import { lower, type Reader, rowsOf } from "./reader.js";

/** Where each pool source's pools come from (src/api/protocols/registry.ts). */
const SOURCES = Object.values(indexedSources);

/**
 * The tables the snapshot reads, by the name of their undo log, with their key column: the
 * token catalogue's (share decimals), and each source's.
 */
const UNDO_LOGS: Readonly<Record<string, string>> = Object.assign(
  { token: "address" },
  ...SOURCES.map((source) => source.undoLogs),
);

/** A write the undo log recorded in a block not yet final: a reorg may revert it. */
type LoggedWrite = { id: number; table: string; key: Address; block: bigint };

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

/** Keys of rows the snapshot must re-read (reverted by a reorg), by undo log. */
type KeysToReread = Map<string, Set<Address>>;

/**
 * Applies every row updated after `since` (all rows when since is -1), and the current rows of
 * `reread` (a row gone from its table removes its pool), to the graph: each source its own.
 */
async function applyUpdates(
  reader: Reader,
  s: ChainSnapshot,
  since: bigint,
  timestamp: bigint,
  reread: KeysToReread = new Map(),
): Promise<void> {
  const none: ReadonlySet<Address> = new Set();
  // One source at a time: a transaction is one connection.
  for (const source of SOURCES) {
    await source.load?.({
      reader,
      chainId: s.chain.id,
      chain: s.chain,
      since,
      timestamp,
      reread: (undoLog) => reread.get(undoLog) ?? none,
      graph: s.graph,
      addresses,
    });
  }
}

function newSnapshot(chain: ChainSetup): ChainSnapshot {
  const graph = createRoutingGraph();
  for (const source of SOURCES) source.seed?.(graph, chain);
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

type Checkpoint = {
  chainId: number;
  indexedBlock: bigint;
  /** The indexed block's timestamp (a checkpoint's first 10 digits). */
  indexedTimestamp: bigint;
  finalizedBlock: bigint;
};

/** Ponder's checkpoints: the last block indexed and the last block final, per chain. */
async function checkpoints(reader: Reader): Promise<Checkpoint[]> {
  const rows = await rowsOf<{
    chain_id: number | string;
    latest: string;
    latest_time: string;
    finalized: string;
  }>(
    reader,
    `select chain_id, ${blockOf("latest_checkpoint")} as latest, substring(latest_checkpoint, 1, 10)::numeric as latest_time, ${blockOf("finalized_checkpoint")} as finalized from _ponder_checkpoint`,
  );
  return rows.map((r) => ({
    chainId: Number(r.chain_id),
    indexedBlock: BigInt(r.latest),
    indexedTimestamp: BigInt(r.latest_time),
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
        table: r.t,
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
  await applyUpdates(reader, s, -1n, at.indexedTimestamp);
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
  const reread: KeysToReread = new Map();
  if (!log.kept) {
    // Entries read before are gone: a reorg may have reverted their rows (finality removes
    // only entries of final blocks, which `unfinal` no longer holds).
    for (const w of s.unfinal) {
      if (w.block <= at.finalizedBlock) continue;
      const keys = reread.get(w.table);
      if (keys) keys.add(w.key);
      else reread.set(w.table, new Set([w.key]));
    }
  }
  const firstBlock = log.entries.reduce<bigint | undefined>(
    (min, e) => (min === undefined || e.block < min ? e.block : min),
    undefined,
  );
  // Blocks that replaced reorged ones wrote rows at or below the block last seen.
  const since =
    firstBlock !== undefined && firstBlock <= s.lastBlock ? firstBlock - 1n : s.lastBlock;
  const rereads = reread.size > 0;
  const changed = rereads || since !== s.lastBlock || at.indexedBlock !== s.lastBlock;
  s.finalizedBlock = at.finalizedBlock;
  if (changed) await applyUpdates(reader, s, since, at.indexedTimestamp, reread);
  // After a reorg the entry last read is gone: the newest one still there takes over.
  s.loggedThrough = log.newest;
  s.unfinal = [...s.unfinal, ...log.entries].filter((w) => w.block > at.finalizedBlock);
  if (!changed) return undefined;
  s.updates++;
  return { s, full: false };
}

/** How long one step of a background repricing may hold the thread, in milliseconds. */
const REPRICING_STEP_MS = 4;
/** Edges walked between two looks at the clock (~1 ms). */
const REPRICING_EDGES_PER_LOOK = 500;

/** Graphs being repriced in the background. */
const repricing = new WeakSet<RoutingGraph>();

/**
 * Reprices `graph` in the background once its prices have drifted by half of what a request
 * accepts ({@link priceStaleness}): every anchor set asked of it so far (the search's, price
 * impact's, `/v1/prices`'), in steps of about {@link REPRICING_STEP_MS} ms between which
 * requests and refreshes run, so a request never waits for a whole repricing (over a second on
 * a mainnet-sized graph) and rarely finds prices too old to use. A refresh under way pauses it.
 * A small graph (staleness 0) is priced when asked, as before.
 */
function repriceAhead(chainId: number, graph: RoutingGraph): void {
  const staleness = priceStaleness(graph);
  if (staleness === 0 || repricing.has(graph)) return;
  const runs = staleSpotPrices(graph, Math.floor(staleness / 2));
  if (runs.length === 0) return;
  repricing.add(graph);
  const started = performance.now();
  const steps: number[] = [];
  const step = () => {
    // A refresh goes first: steps run between its reads would only lengthen it.
    if (refreshing) {
      refreshing.finally(() => setImmediate(step)).catch(() => {});
      return;
    }
    const t0 = performance.now();
    let pending = false;
    try {
      while (runs.length > 0 && performance.now() - t0 < REPRICING_STEP_MS) {
        if ((runs[0] as SpotPriceStep).advance(REPRICING_EDGES_PER_LOOK)) runs.shift();
      }
      pending = runs.length > 0;
    } catch (error) {
      console.error("routing graph repricing failed", error);
    }
    steps.push((performance.now() - t0) / 1000);
    if (pending) {
      setImmediate(step);
      return;
    }
    repricing.delete(graph);
    recordRepricing({ chainId, seconds: (performance.now() - started) / 1000, steps });
  };
  setImmediate(step);
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
            const cpu = process.cpuUsage();
            const gc = gcPauseSeconds();
            const result = await refreshChain(tx, chain, at, snapshots.get(chain.id));
            if (!result) continue;
            const { s, full } = result;
            s.lastBlock = at.indexedBlock;
            s.graph.blockNumber = at.indexedBlock;
            s.graph.blockTimestamp = at.indexedTimestamp;
            // Price a new graph before it serves (the first search would); a graph already
            // serving is repriced in the background, in steps, once it drifts.
            if (full && chain.weth) prepareRouteSearch({ graph: s.graph, weth: lower(chain.weth) });
            else repriceAhead(chain.id, s.graph);
            snapshots.set(chain.id, s);
            const used = process.cpuUsage(cpu);
            recordSnapshotRefresh({
              chainId: chain.id,
              full,
              seconds: (performance.now() - started) / 1000,
              cpuSeconds: (used.user + used.system) / 1e6,
              gcSeconds: gcPauseSeconds() - gc,
              pools: s.graph.size,
            });
            setSnapshotBlock(chain.id, at.indexedBlock, at.indexedTimestamp);
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
