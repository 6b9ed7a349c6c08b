/**
 * The in-memory routing graph of every indexed chain, built from the indexed tables at start-up
 * and kept current by reading only the rows updated since the block last seen, so that a
 * request never scans the tables. Each graph knows the block it reflects.
 *
 * Reorgs: Ponder reverts the rows written in reorged blocks without moving its checkpoint back
 * (it only writes the checkpoint when it indexes a block), and the replacement blocks can reach
 * the same height or beyond, so neither the checkpoint nor `updatedBlock` shows that rows went
 * back. Ponder's undo log does: for every row written in a block not yet final it keeps one entry
 * per write, numbered in write order from one sequence, in `_reorg__<table>`; a reorg deletes the
 * newest entries, finality the oldest. A snapshot remembers the newest entry when it loaded: once
 * that entry is gone the snapshot may hold reverted rows and is rebuilt. Entries newer than the
 * last refresh say from which block on rows were written, replacement blocks included.
 */
import { db } from "ponder:api";
import { token, v2Pair, v3Pool, v3Tick, vault } from "ponder:schema";
import { and, asc, eq, gt, inArray, sql } from "ponder";
import { type ChainSetup, servedChains } from "../../../protocols/chains";
import { setSnapshotBlock } from "../ops/metrics";
import { indexedBlocks } from "../readiness";
import { RoutingGraph } from "./graph";
import { prepareRouteSearch } from "./search";
import type { Address, V3Tick } from "./types";

/** How often the snapshot reads new rows (ms). */
const REFRESH_INTERVAL_MS = Number(process.env.SNAPSHOT_REFRESH_MS ?? 200);

type ChainSnapshot = {
  chain: ChainSetup;
  graph: RoutingGraph;
  lastBlock: bigint;
  /** Newest undo-log entry before the last refresh read rows: later ones are not applied yet. */
  seenOperation: number;
  /** Newest undo-log entry after the last refresh read rows: gone means rows were reverted. */
  keptOperation: number | undefined;
  /** Counts the refreshes that changed the graph (part of `snapshotVersion`). */
  updates: number;
};

const snapshots = new Map<number, ChainSnapshot>();
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

/** The ticks of `pools`, or of every pool of the chain (`"all"`, a full load: no list to bind). */
async function loadTicks(
  chainId: number,
  pools: Address[] | "all",
): Promise<Map<string, V3Tick[]>> {
  const byPool = new Map<string, V3Tick[]>();
  if (pools !== "all") {
    for (const pool of pools) byPool.set(pool, []);
    if (pools.length === 0) return byPool;
  }
  const select = () =>
    db
      .select({
        pool: v3Tick.pool,
        tick: v3Tick.tick,
        liquidityNet: v3Tick.liquidityNet,
        gross: v3Tick.liquidityGross,
      })
      .from(v3Tick);
  const rows =
    pools === "all"
      ? await select()
          .where(eq(v3Tick.chainId, chainId))
          .orderBy(asc(v3Tick.pool), asc(v3Tick.tick))
      : (
          await Promise.all(
            slices(pools).map((slice) =>
              select()
                .where(and(eq(v3Tick.chainId, chainId), inArray(v3Tick.pool, slice)))
                .orderBy(asc(v3Tick.pool), asc(v3Tick.tick)),
            ),
          )
        ).flat();
  for (const r of rows) {
    if (!byPool.has(lower(r.pool))) byPool.set(lower(r.pool), []);
    if (r.gross === 0n) continue; // uninitialized again after every position left it
    byPool.get(lower(r.pool))?.push({ tick: r.tick, liquidityNet: r.liquidityNet });
  }
  return byPool;
}

/** Applies every row updated after `since` (all rows when since is -1) to the graph. */
async function applyUpdates(s: ChainSnapshot, since: bigint): Promise<void> {
  const chainId = s.chain.id;
  const [pairs, pools, tickPools, vaults] = await Promise.all([
    db
      .select()
      .from(v2Pair)
      .where(and(eq(v2Pair.chainId, chainId), gt(v2Pair.updatedBlock, since))),
    db
      .select()
      .from(v3Pool)
      .where(and(eq(v3Pool.chainId, chainId), gt(v3Pool.updatedBlock, since))),
    db
      .selectDistinct({ pool: v3Tick.pool })
      .from(v3Tick)
      .where(and(eq(v3Tick.chainId, chainId), gt(v3Tick.updatedBlock, since))),
    db
      .select()
      .from(vault)
      .where(and(eq(vault.chainId, chainId), gt(vault.updatedBlock, since))),
  ]);
  for (const p of pairs) {
    s.graph.upsertPool({
      kind: "v2",
      protocol: "uniswap-v2",
      address: lower(p.address),
      token0: lower(p.token0),
      token1: lower(p.token1),
      reserve0: p.reserve0,
      reserve1: p.reserve1,
      feePpm: p.fee,
    });
  }
  // A pool whose ticks changed needs its whole tick list again; its own row may not have changed.
  const poolRows = new Map(pools.map((p) => [lower(p.address), p]));
  const missing = tickPools.map((t) => lower(t.pool)).filter((a) => !poolRows.has(a));
  for (const slice of slices(missing)) {
    const extra = await db
      .select()
      .from(v3Pool)
      .where(and(eq(v3Pool.chainId, chainId), inArray(v3Pool.address, slice)));
    for (const p of extra) poolRows.set(lower(p.address), p);
  }
  const ticks = await loadTicks(chainId, since < 0n ? "all" : [...poolRows.keys()]);
  for (const [address, p] of poolRows) {
    if (p.tick === null || p.sqrtPriceX96 === 0n) continue; // not initialized yet
    s.graph.upsertPool({
      kind: "v3",
      protocol: "uniswap-v3",
      address,
      token0: lower(p.token0),
      token1: lower(p.token1),
      feePpm: p.fee,
      tickSpacing: p.tickSpacing,
      sqrtPriceX96: p.sqrtPriceX96,
      tick: p.tick,
      liquidity: p.liquidity,
      ticks: ticks.get(address) ?? [],
    });
  }
  if (vaults.length > 0) {
    const decimals = await db
      .select({ address: token.address, decimals: token.decimals })
      .from(token)
      .where(
        and(
          eq(token.chainId, chainId),
          inArray(token.address, [...new Set(vaults.flatMap((v) => [v.address, v.asset]))]),
        ),
      );
    const decimalsOf = new Map(decimals.map((d) => [lower(d.address), d.decimals]));
    for (const v of vaults) {
      // OpenZeppelin's ERC4626: share decimals = asset decimals + _decimalsOffset().
      const offset =
        (decimalsOf.get(lower(v.address)) ?? 0) - (decimalsOf.get(lower(v.asset)) ?? 0);
      s.graph.upsertPool({
        kind: "erc4626",
        protocol: v.protocolSlug,
        address: lower(v.address),
        asset: lower(v.asset),
        totalAssets: v.totalAssets,
        totalSupply: v.totalSupply,
        decimalsOffset: Math.max(0, offset),
      });
    }
  }
}

function newSnapshot(chain: ChainSetup): ChainSnapshot {
  const graph = new RoutingGraph();
  if (chain.weth)
    graph.upsertPool({ kind: "wrap", protocol: "wrapped-native", address: lower(chain.weth) });
  return { chain, graph, lastBlock: -1n, seenOperation: 0, keptOperation: undefined, updates: 0 };
}

/** Ponder's undo-log tables of the tables the snapshot reads (`_reorg__` + table name). */
const UNDO_LOG = ["token", "v2_pair", "v3_pool", "v3_tick", "vault"].map((t) => `"_reorg__${t}"`);
/** Where a checkpoint holds its block number (after 10 digits of timestamp, 16 of chain id). */
const CHECKPOINT_BLOCK = "substring(checkpoint, 27, 16)::numeric";

/** The newest entry of the undo log (0 when it is empty). */
async function newestOperation(): Promise<number> {
  const union = UNDO_LOG.map((t) => `select max(operation_id) as id from ${t}`).join(" union all ");
  const result = await db.execute(sql.raw(`select max(id) as id from (${union}) as newest`));
  const row = (result as unknown as { rows: { id: number | string | null }[] }).rows[0];
  return Number(row?.id ?? 0);
}

/**
 * Whether the entry `kept` is still in the undo log, and the lowest block of the chain's entries
 * newer than `seen` (undefined when there are none).
 */
async function undoLogSince(
  chainId: number,
  kept: number | undefined,
  seen: number,
): Promise<{ kept: boolean; firstBlock: bigint | undefined }> {
  const keptUnion = UNDO_LOG.map(
    (t) => `select operation_id from ${t} where operation_id = ${kept ?? 0}`,
  ).join(" union all ");
  const newUnion = UNDO_LOG.map(
    (t) =>
      `select ${CHECKPOINT_BLOCK} as block from ${t} where operation_id > ${seen} and substring(checkpoint, 11, 16)::numeric = ${chainId}`,
  ).join(" union all ");
  const result = await db.execute(
    sql.raw(
      `select (select count(*) from (${keptUnion}) as k) as kept, (select min(block) from (${newUnion}) as n) as first_block`,
    ),
  );
  const row = (
    result as unknown as {
      rows: { kept: number | string; first_block: number | string | null }[];
    }
  ).rows[0];
  return {
    kept: kept === undefined || Number(row?.kept ?? 0) > 0,
    firstBlock:
      row?.first_block === null || row?.first_block === undefined
        ? undefined
        : BigInt(row.first_block),
  };
}

/** Reads what changed since the last refresh, for every chain; one refresh at a time. */
export function refreshSnapshots(): Promise<void> {
  refreshing ??= (async () => {
    try {
      const chains = new Map(servedChains().map((c) => [c.id, c]));
      for (const progress of await indexedBlocks()) {
        const chain = chains.get(progress.chainId);
        if (!chain) continue;
        let s = snapshots.get(chain.id);
        const seen = await newestOperation();
        const undo = s ? await undoLogSince(chain.id, s.keptOperation, s.seenOperation) : undefined;
        // The index moved backwards, or rows the snapshot read were reverted (a reorg): start over.
        if (!s || !undo || progress.indexedBlock < s.lastBlock || !undo.kept) {
          s = { ...newSnapshot(chain), updates: (s?.updates ?? 0) + 1 };
          await applyUpdates(s, -1n);
        } else if (undo.firstBlock !== undefined && undo.firstBlock <= s.lastBlock) {
          // Blocks that replaced reorged ones wrote rows at or below the block last seen.
          await applyUpdates(s, undo.firstBlock - 1n);
          s.updates++;
        } else if (progress.indexedBlock > s.lastBlock) {
          await applyUpdates(s, s.lastBlock);
          s.updates++;
        } else {
          continue;
        }
        s.seenOperation = seen;
        // The log shrank while rows were read: a reorg may have reverted some midway, so the
        // next refresh starts over (-1 is never an entry).
        const kept = await newestOperation();
        s.keptOperation = kept < seen ? -1 : kept || undefined;
        s.lastBlock = progress.indexedBlock;
        s.graph.blockNumber = progress.indexedBlock;
        // Reprice here, off the request path (the first search after many changes would).
        if (chain.weth) prepareRouteSearch({ graph: s.graph, weth: lower(chain.weth) });
        snapshots.set(chain.id, s);
        setSnapshotBlock(chain.id, progress.indexedBlock);
        for (const listener of listeners) listener(chain.id, progress.indexedBlock);
      }
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
  }, REFRESH_INTERVAL_MS);
  timer.unref();
}

/** The routing graph of a chain, loading it on first use; undefined for an unindexed chain. */
export async function routingGraph(chainId: number): Promise<RoutingGraph | undefined> {
  startSnapshotRefresh();
  if (!snapshots.has(chainId)) await refreshSnapshots();
  return snapshots.get(chainId)?.graph;
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
