/**
 * The tick tables of the concentrated-liquidity pools (Uniswap V3 and V4), read back for the
 * routing snapshot. Both sources index ticks in the same shape and differ only in the table and
 * the column that names a tick's pool (a pool address in V3, a PoolId in V4).
 */
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import { and, eq, inArray } from "ponder";
import type { Address, RoutingGraph, V3Tick } from "../../../engine/index.js";
import { lower, type Reader, slices } from "../snapshot/reader.js";
import { initializedTicks, type TickRow } from "../snapshot/ticks.js";

/** A protocol's tick table and the columns the snapshot reads of it. */
export type TickTable = {
  table: PgTable;
  chainId: AnyPgColumn<{ data: number; notNull: true }>;
  /** The tick's pool: the key the source's pools go by in the graph. */
  pool: AnyPgColumn<{ data: string; notNull: true }>;
  tick: AnyPgColumn<{ data: number; notNull: true }>;
  liquidityNet: AnyPgColumn<{ data: bigint; notNull: true }>;
  liquidityGross: AnyPgColumn<{ data: bigint; notNull: true }>;
};

export type LoadTicksParameters = {
  reader: Reader;
  ticks: TickTable;
  chainId: number;
  /** The pools whose ticks to read, or `"all"`: every pool of the chain (a full load, no list to bind). */
  pools: readonly Address[] | "all";
};

/** The tick rows of `pools`, by pool (lowercase, as the graph keys them). */
export async function loadTicks({
  reader,
  ticks,
  chainId,
  pools,
}: LoadTicksParameters): Promise<Map<string, TickRow[]>> {
  const byPool = new Map<string, TickRow[]>();
  if (pools !== "all" && pools.length === 0) return byPool;
  const select = () =>
    reader
      .select({
        pool: ticks.pool,
        tick: ticks.tick,
        liquidityNet: ticks.liquidityNet,
        liquidityGross: ticks.liquidityGross,
      })
      .from(ticks.table);
  const batches =
    pools === "all"
      ? [await select().where(eq(ticks.chainId, chainId))]
      : await Promise.all(
          slices(pools).map((slice) =>
            select().where(and(eq(ticks.chainId, chainId), inArray(ticks.pool, slice))),
          ),
        );
  for (const rows of batches) {
    for (const r of rows) {
      const key = lower(r.pool);
      const list = byPool.get(key);
      if (list) list.push(r);
      else byPool.set(key, [r]);
    }
  }
  return byPool;
}

/**
 * The ticks of the pools a refresh upserts (`pools`, every pool of the chain on a full load,
 * `since` < 0), by pool. A swap moves a pool's price and liquidity, not its ticks, so a pool keeps
 * the tick list the graph holds unless a tick row of it was written since the last refresh or a
 * reorg touched it (`ticksChanged`), or the graph does not hold it yet; only those are read,
 * rather than a busy pool's thousands of ticks for each swap.
 */
export async function ticksForRefresh(params: {
  reader: Reader;
  ticks: TickTable;
  chainId: number;
  since: bigint;
  graph: RoutingGraph;
  pools: Iterable<string>;
  ticksChanged: ReadonlySet<string>;
}): Promise<(pool: string) => V3Tick[]> {
  const { reader, ticks, chainId, graph } = params;
  const held = new Map<string, V3Tick[]>();
  const read: Address[] = [];
  if (params.since >= 0n) {
    for (const key of params.pools) {
      const pool = params.ticksChanged.has(key) ? undefined : graph.pool(key as Address);
      if (pool?.kind === "v3" || pool?.kind === "v4") held.set(key, pool.ticks);
      else read.push(key as Address);
    }
  }
  const rows = await loadTicks({ reader, ticks, chainId, pools: params.since < 0n ? "all" : read });
  return (pool) => held.get(pool) ?? initializedTicks(rows.get(pool) ?? []);
}

/** `pool` (undefined while not initialized) with `ticks` as its tick list. */
export function withTicks<P extends { ticks: V3Tick[] }>(
  pool: P | undefined,
  ticks: V3Tick[],
): P | undefined {
  return pool && { ...pool, ticks };
}
