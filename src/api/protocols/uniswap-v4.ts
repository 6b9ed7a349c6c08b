import { and, count, eq, gt, inArray } from "ponder";
import type { Address, V4Pool } from "../../../engine/index.js";
import { uniswapV4Admission } from "../../../engine/index.js";
import { v4Pool, v4Tick } from "../../protocols/uniswap-v4/tables.js";
import type { AddressInterner } from "../snapshot/address-interner.js";
import { lower, rowsByKey } from "../snapshot/reader.js";
import { initializedTicks, type TickRow } from "../snapshot/ticks.js";
import { type TickTable, ticksForRefresh, withTicks } from "./concentrated-liquidity.js";
import type { IndexedSource } from "./types.js";

export type V4PoolRow = {
  poolId: string;
  poolManager: string;
  token0: string;
  token1: string;
  fee: number;
  tickSpacing: number;
  hooks: string;
  protocolFee: number;
  lastSwapFee: number | null;
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
};

/**
 * An indexed V4 pool and its ticks as the routing engine's pool, or undefined when the graph
 * leaves it out: a hook that may change swaps' amounts and is not in `allowedHooks`. Pure (the
 * scale benchmark reads rows itself).
 */
export function v4PoolOf(
  row: V4PoolRow,
  ticks: readonly TickRow[],
  addresses: AddressInterner,
  allowedHooks: readonly Address[],
): V4Pool | undefined {
  const hooks = lower(row.hooks);
  const admission = uniswapV4Admission({ hooks, keyFee: row.fee }, allowedHooks);
  if (admission === "excluded") return undefined;
  return {
    kind: "v4",
    protocol: "uniswap-v4",
    address: lower(row.poolId),
    poolManager: lower(row.poolManager),
    token0: addresses.of(row.token0),
    token1: addresses.of(row.token1),
    // A dynamic fee is set by the hook for each swap: the last swap's stands in for it (an
    // allow-listed pool's quote comes from the simulation anyway).
    feePpm: admission === "exact" ? row.fee : (row.lastSwapFee ?? 0),
    keyFee: row.fee,
    protocolFee: admission === "exact" ? row.protocolFee : 0,
    tickSpacing: row.tickSpacing,
    hooks,
    admission,
    sqrtPriceX96: row.sqrtPriceX96,
    tick: row.tick,
    liquidity: row.liquidity,
    ticks: initializedTicks(ticks),
  };
}

const columns = {
  poolId: v4Pool.poolId,
  poolManager: v4Pool.poolManager,
  token0: v4Pool.token0,
  token1: v4Pool.token1,
  fee: v4Pool.fee,
  tickSpacing: v4Pool.tickSpacing,
  hooks: v4Pool.hooks,
  protocolFee: v4Pool.protocolFee,
  lastSwapFee: v4Pool.lastSwapFee,
  sqrtPriceX96: v4Pool.sqrtPriceX96,
  tick: v4Pool.tick,
  liquidity: v4Pool.liquidity,
};

const tickTable: TickTable = {
  table: v4Tick,
  chainId: v4Tick.chainId,
  pool: v4Tick.poolId,
  tick: v4Tick.tick,
  liquidityNet: v4Tick.liquidityNet,
  liquidityGross: v4Tick.liquidityGross,
};

/** Uniswap V4 pools (`v4_pool`) and their ticks (`v4_tick`), keyed by PoolId. */
export const uniswapV4Source: IndexedSource = {
  undoLogs: { v4_pool: "pool_id", v4_tick: "pool_id" },

  async load({ reader, chainId, chain, since, reread, graph, addresses }) {
    const allowedHooks = chain.uniswapV4?.allowedHooks ?? [];
    // One query at a time: a transaction is one connection.
    const pools = await reader
      .select(columns)
      .from(v4Pool)
      .where(and(eq(v4Pool.chainId, chainId), gt(v4Pool.updatedBlock, since)));
    const tickPools =
      since < 0n
        ? []
        : await reader
            .selectDistinct({ poolId: v4Tick.poolId })
            .from(v4Tick)
            .where(and(eq(v4Tick.chainId, chainId), gt(v4Tick.updatedBlock, since)));
    // A pool whose ticks changed needs its whole tick list again; its own row may not have changed.
    const poolRows = new Map(pools.map((p) => [lower(p.poolId), p]));
    const rereadPools = new Set([...reread("v4_pool"), ...reread("v4_tick")]);
    const missing = [...new Set([...tickPools.map((t) => lower(t.poolId)), ...rereadPools])].filter(
      (id) => !poolRows.has(id),
    );
    const extra = await rowsByKey(missing, (slice) =>
      reader
        .select(columns)
        .from(v4Pool)
        .where(and(eq(v4Pool.chainId, chainId), inArray(v4Pool.poolId, slice))),
    );
    for (const p of extra) poolRows.set(lower(p.poolId), p);
    for (const id of rereadPools) if (!poolRows.has(id)) graph.removePool(id);
    const ticksOf = await ticksForRefresh({
      ...{ reader, ticks: tickTable, chainId, since, graph, pools: poolRows.keys() },
      ticksChanged: new Set([...tickPools.map((t) => lower(t.poolId)), ...rereadPools]),
    });
    for (const [id, p] of poolRows) {
      const pool = withTicks(v4PoolOf(p, [], addresses, allowedHooks), ticksOf(id));
      if (pool) graph.upsertPool(pool);
      else graph.removePool(id);
    }
  },

  async poolCount(db) {
    return (await db.select({ n: count() }).from(v4Pool))[0]?.n ?? 0;
  },
};
