/**
 * Indexed rows (ponder.schema.ts) as the routing engine's pools. Pure: the snapshot feeds it
 * rows read through Ponder, the scale benchmark rows read straight from Postgres.
 *
 * A mainnet-sized graph holds ~800,000 token references in its pools but only ~150,000 distinct
 * tokens: `AddressInterner` makes every pool share one string per address instead of holding
 * the copy each row arrived with. (Pool addresses are unique to their pool and are not interned.)
 */
import type { Address, V2Pool, V3Pool, V3Tick, VaultPool } from "../../../engine/routing/types.js";

/** One string per distinct address (lowercased), shared by every pool that names it. */
export class AddressInterner {
  private readonly seen = new Map<string, Address>();

  of(address: string): Address {
    const hit = this.seen.get(address);
    if (hit !== undefined) return hit;
    const lower = address.toLowerCase() as Address;
    const known = this.seen.get(lower) ?? lower;
    this.seen.set(lower, known);
    this.seen.set(address, known);
    return known;
  }
}

export type V2PairRow = {
  address: string;
  token0: string;
  token1: string;
  reserve0: bigint;
  reserve1: bigint;
  fee: number;
};

export function v2PoolOf(row: V2PairRow, addresses: AddressInterner): V2Pool {
  return {
    kind: "v2",
    protocol: "uniswap-v2",
    address: row.address.toLowerCase() as Address,
    token0: addresses.of(row.token0),
    token1: addresses.of(row.token1),
    reserve0: row.reserve0,
    reserve1: row.reserve1,
    feePpm: row.fee,
  };
}

export type V3PoolRow = {
  address: string;
  token0: string;
  token1: string;
  fee: number;
  tickSpacing: number;
  sqrtPriceX96: bigint;
  tick: number | null;
  liquidity: bigint;
};

export type V3TickRow = { tick: number; liquidityNet: bigint; liquidityGross: bigint };

/** The pool, or undefined while it is not initialized (no price yet). */
export function v3PoolOf(
  row: V3PoolRow,
  ticks: readonly V3TickRow[],
  addresses: AddressInterner,
): V3Pool | undefined {
  if (row.tick === null || row.sqrtPriceX96 === 0n) return undefined;
  return {
    kind: "v3",
    protocol: "uniswap-v3",
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

/** Ticks ascending, without those every position has left (liquidityGross back to 0). */
export function initializedTicks(rows: readonly V3TickRow[]): V3Tick[] {
  const out: V3Tick[] = [];
  for (const r of rows)
    if (r.liquidityGross !== 0n) out.push({ tick: r.tick, liquidityNet: r.liquidityNet });
  return out.sort((a, b) => a.tick - b.tick);
}

export type VaultRow = {
  address: string;
  protocolSlug: string;
  asset: string;
  totalAssets: bigint;
  totalSupply: bigint;
};

export function vaultPoolOf(
  row: VaultRow,
  decimals: { share: number | undefined; asset: number | undefined },
  addresses: AddressInterner,
): VaultPool {
  // OpenZeppelin's ERC4626: share decimals = asset decimals + _decimalsOffset().
  const offset = (decimals.share ?? 0) - (decimals.asset ?? 0);
  return {
    kind: "erc4626",
    protocol: row.protocolSlug,
    address: addresses.of(row.address),
    asset: addresses.of(row.asset),
    totalAssets: row.totalAssets,
    totalSupply: row.totalSupply,
    decimalsOffset: Math.max(0, offset),
  };
}
