import { and, count, eq, gt, inArray } from "ponder";
import type { Address, V3Pool } from "../../../engine/index.js";
import { v3Pool, v3Tick } from "../../protocols/uniswap-v3/tables.js";
import type { AddressInterner } from "../snapshot/address-interner.js";
import { lower, rowsByKey } from "../snapshot/reader.js";
import { initializedTicks, type TickRow } from "../snapshot/ticks.js";
import { type TickTable, ticksForRefresh, withTicks } from "./concentrated-liquidity.js";
import type { IndexedSource } from "./types.js";

export type V3PoolRow = {
  address: string;
  /** `uniswap-v3` or one of its forks' slugs. */
  protocol: string;
  token0: string;
  token1: string;
  fee: number;
  tickSpacing: number;
  sqrtPriceX96: bigint;
  tick: number | null;
  liquidity: bigint;
};

export type V3TickRow = TickRow;

/**
 * An indexed pool and its ticks as the routing engine's pool, or undefined while it is not
 * initialized (no price yet). Pure (the scale benchmark reads rows itself).
 */
export function v3PoolOf(
  row: V3PoolRow,
  ticks: readonly V3TickRow[],
  addresses: AddressInterner,
): V3Pool | undefined {
  if (row.tick === null || row.sqrtPriceX96 === 0n) return undefined;
  return {
    kind: "v3",
    protocol: row.protocol,
    address: row.address.toLowerCase() as Address,
    token0: addresses.of(row.token0),
    token1: addresses.of(row.token1),
    feePpm: row.fee,
    tickSpacing: row.tickSpacing,
    sqrtPriceX96: row.sqrtPriceX96,
    tick: row.tick,
    liquidity: row.liquidity,
    ticks: initializedTicks(ticks),
  };
}

const columns = {
  address: v3Pool.address,
  protocol: v3Pool.protocol,
  token0: v3Pool.token0,
  token1: v3Pool.token1,
  fee: v3Pool.fee,
  tickSpacing: v3Pool.tickSpacing,
  sqrtPriceX96: v3Pool.sqrtPriceX96,
  tick: v3Pool.tick,
  liquidity: v3Pool.liquidity,
};

const tickTable: TickTable = {
  table: v3Tick,
  chainId: v3Tick.chainId,
  pool: v3Tick.pool,
  tick: v3Tick.tick,
  liquidityNet: v3Tick.liquidityNet,
  liquidityGross: v3Tick.liquidityGross,
};

/** Uniswap V3's and its forks' pools (`v3_pool`) and their ticks (`v3_tick`). */
export const uniswapV3Source: IndexedSource = {
  undoLogs: { v3_pool: "address", v3_tick: "pool" },

  async load({ reader, chainId, since, reread, graph, addresses }) {
    // One query at a time: a transaction is one connection.
    const pools = await reader
      .select(columns)
      .from(v3Pool)
      .where(and(eq(v3Pool.chainId, chainId), gt(v3Pool.updatedBlock, since)));
    const tickPools =
      since < 0n
        ? []
        : await reader
            .selectDistinct({ pool: v3Tick.pool })
            .from(v3Tick)
            .where(and(eq(v3Tick.chainId, chainId), gt(v3Tick.updatedBlock, since)));
    // A pool whose ticks changed needs its whole tick list again; its own row may not have changed.
    const poolRows = new Map(pools.map((p) => [lower(p.address), p]));
    const rereadPools = new Set([...reread("v3_pool"), ...reread("v3_tick")]);
    const missing = [...new Set([...tickPools.map((t) => lower(t.pool)), ...rereadPools])].filter(
      (a) => !poolRows.has(a),
    );
    const extra = await rowsByKey(missing, (slice) =>
      reader
        .select(columns)
        .from(v3Pool)
        .where(and(eq(v3Pool.chainId, chainId), inArray(v3Pool.address, slice))),
    );
    for (const p of extra) poolRows.set(lower(p.address), p);
    for (const address of rereadPools) if (!poolRows.has(address)) graph.removePool(address);
    const ticksOf = await ticksForRefresh({
      ...{ reader, ticks: tickTable, chainId, since, graph, pools: poolRows.keys() },
      ticksChanged: new Set([...tickPools.map((t) => lower(t.pool)), ...rereadPools]),
    });
    for (const [address, p] of poolRows) {
      const pool = withTicks(v3PoolOf(p, [], addresses), ticksOf(address));
      // Not initialized (yet, or again after a reorg reverted its Initialize).
      if (pool) graph.upsertPool(pool);
      else graph.removePool(address);
    }
  },

  async poolCount(db, protocol) {
    return (
      (await db.select({ n: count() }).from(v3Pool).where(eq(v3Pool.protocol, protocol.slug)))[0]
        ?.n ?? 0
    );
  },
};
