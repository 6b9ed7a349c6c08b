/**
 * The front page's pools: per chain, the pools with the most swap volume in USD over the 24
 * hours up to the routing graph's block, with what they hold in USD after their last event and
 * their last days of volume and closing price (the history tables, src/analytics/tables.ts).
 */
import { and, asc, desc, eq, gt, gte, inArray, sql } from "ponder";
import { type Address, getAddress, type Hex } from "viem";
import { poolDay, poolHour, poolMarket } from "../../analytics/tables.js";
import { token } from "../../tokens/tables.js";
import type { ApiSources } from "../database.js";
import { formatAddress } from "../schemas.js";

/** Pools listed per chain. */
const TOP_POOLS = 5;
/** Days of each pool's chart, the current one included. */
const CHART_DAYS = 7;
const DAY = 86_400;
/** USD columns are integers of 10^-18 USD; the page shows dollars. */
const USD = 10n ** 18n;

export type TopPool = {
  chainId: number;
  /**
   * The pool's contract; for a pool that has none of its own (a Uniswap V4 pool, kept in the
   * chain's pool manager), the contract that holds it.
   */
  address: Address;
  /** Only for a pool held in `address` under an id (Uniswap V4's PoolId): that id, lowercase. */
  poolId?: Hex;
  protocolSlug: string;
  token0: Address;
  token1: Address;
  /** `token0/token1` by symbol (the address where the catalogue has none). */
  pair: string;
  volume24hUsd: number;
  /** USD value of what the pool holds, at the prices of its last event; null before one. */
  tvlUsd: number | null;
  /** The chart: one entry per day with events, oldest first; price is token0 in token1. */
  days: { day: number; volumeUsd: number; close: number | null }[];
};

/** Whole dollars (and cents) of a 10^-18 USD integer, as a number for display. */
const dollars = (value: bigint) => Number((value * 100n) / USD) / 100;

/**
 * A Q128 raw-unit price (token1 per token0) as whole token1 per whole token0; null while the
 * pool has no price or a token's decimals are unknown.
 */
function humanPrice(q128: bigint, decimals0: number | null, decimals1: number | null) {
  if (q128 === 0n || decimals0 === null || decimals1 === null) return null;
  return (Number(q128) / 2 ** 128) * 10 ** (decimals0 - decimals1);
}

/**
 * The top pools of `chainId` by volume over the 24 hours before `now` (unix seconds): hour rows
 * whose period started after `now − 24 h`, so the window is 24 to 25 hours of whole hours.
 */
export async function topPools(
  sources: Pick<ApiSources, "db" | "chains">,
  chainId: number,
  now: number,
): Promise<TopPool[]> {
  const { db } = sources;
  const poolManager = sources.chains.find((c) => c.id === chainId)?.uniswapV4?.poolManager;
  const volume = sql<string>`sum(${poolHour.volumeUsd})`;
  const top = await db
    .select({ pool: poolHour.pool, volume })
    .from(poolHour)
    .where(and(eq(poolHour.chainId, chainId), gt(poolHour.periodStart, now - DAY)))
    .groupBy(poolHour.pool)
    .having(gt(volume, "0"))
    .orderBy(desc(volume), asc(poolHour.pool))
    .limit(TOP_POOLS);
  if (top.length === 0) return [];
  const addresses = top.map((t) => t.pool);
  const today = now - (now % DAY);
  const [markets, days] = await Promise.all([
    db
      .select()
      .from(poolMarket)
      .where(and(eq(poolMarket.chainId, chainId), inArray(poolMarket.address, addresses))),
    db
      .select()
      .from(poolDay)
      .where(
        and(
          eq(poolDay.chainId, chainId),
          inArray(poolDay.pool, addresses),
          gte(poolDay.periodStart, today - (CHART_DAYS - 1) * DAY),
        ),
      )
      .orderBy(asc(poolDay.periodStart)),
  ]);
  const tokenAddresses = [...new Set(markets.flatMap((m) => [m.token0, m.token1]))];
  const symbols = new Map(
    (
      await db
        .select({ address: token.address, symbol: token.symbol })
        .from(token)
        .where(and(eq(token.chainId, chainId), inArray(token.address, tokenAddresses)))
    ).map((t) => [t.address.toLowerCase(), t.symbol]),
  );
  const symbolOf = (a: Address) => symbols.get(a.toLowerCase()) || formatAddress(a);
  return top.flatMap(({ pool, volume: poolVolume }) => {
    const market = markets.find((m) => m.address.toLowerCase() === pool.toLowerCase());
    if (!market) return [];
    // The history tables key a V4 pool by its 32-byte PoolId, not by a 20-byte address.
    const held =
      pool.length === 42
        ? { address: getAddress(pool) }
        : poolManager && /^0x[0-9a-fA-F]{64}$/.test(pool)
          ? { address: poolManager, poolId: pool.toLowerCase() as Hex }
          : undefined;
    if (!held) return [];
    const own = days.filter((d) => d.pool.toLowerCase() === pool.toLowerCase());
    const last = own.at(-1);
    return [
      {
        chainId,
        ...held,
        protocolSlug: market.protocolSlug,
        token0: formatAddress(market.token0) as Address,
        token1: formatAddress(market.token1) as Address,
        pair: `${symbolOf(market.token0)}/${symbolOf(market.token1)}`,
        volume24hUsd: dollars(BigInt(poolVolume)),
        tvlUsd: last ? dollars(last.tvlUsd) : null,
        days: own.map((d) => ({
          day: d.periodStart,
          volumeUsd: dollars(d.volumeUsd),
          close: humanPrice(d.close, market.decimals0, market.decimals1),
        })),
      },
    ];
  });
}

/**
 * `topPools` at each chain's routing graph block (its timestamp as "now"; the wall clock before
 * a graph is loaded), read again only when that block changes.
 */
export function cachedTopPools(sources: Pick<ApiSources, "db" | "chains" | "snapshots">) {
  const cache = new Map<number, { now: number; pools: Promise<TopPool[]> }>();
  return async (chainId: number): Promise<TopPool[]> => {
    const graph = await sources.snapshots.routingGraph(chainId);
    const now =
      graph && graph.blockTimestamp > 0n
        ? Number(graph.blockTimestamp)
        : Math.floor(Date.now() / 1000);
    const hit = cache.get(chainId);
    if (hit && hit.now === now) return hit.pools;
    const pools = topPools(sources, chainId, now);
    cache.set(chainId, { now, pools });
    pools.catch(() => cache.delete(chainId));
    return pools;
  };
}
