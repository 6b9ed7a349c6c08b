import { count, eq } from "ponder";
import type { AaveReservePool } from "../../../engine/index.js";
import { aaveReserve } from "../../protocols/aave-v3/tables.js";
import type { AddressInterner } from "../snapshot/address-interner.js";
import { lower } from "../snapshot/reader.js";
import type { IndexedSource } from "./types.js";

export type AaveReserveRow = typeof aaveReserve.$inferSelect;

/** What a reserve pool is made of: an indexed row's fields, or the same read from the chain. */
export type AaveReserveFields = Pick<
  AaveReserveRow,
  | "aToken"
  | "pool"
  | "asset"
  | "variableDebtToken"
  | "stableDebtToken"
  | "liquidityIndex"
  | "liquidityRate"
  | "lastUpdateTimestamp"
  | "availableLiquidity"
  | "supplyCap"
  | "decimals"
  | "scaledATokenSupply"
  | "accruedToTreasury"
  | "active"
  | "frozen"
  | "paused"
>;

/**
 * An indexed reserve as the routing engine's pool, its quotes accruing interest to `timestamp`.
 * Pure (the tests read reserves from the chain into the same fields).
 */
export function aaveReservePoolOf(
  row: AaveReserveFields,
  timestamp: bigint,
  addresses: AddressInterner,
): AaveReservePool {
  return {
    kind: "aave-v3",
    protocol: "aave-v3",
    address: addresses.of(row.aToken),
    pool: lower(row.pool),
    asset: addresses.of(row.asset),
    debtTokens: [lower(row.variableDebtToken), lower(row.stableDebtToken)],
    liquidityIndex: row.liquidityIndex,
    liquidityRate: row.liquidityRate,
    lastUpdateTimestamp: row.lastUpdateTimestamp,
    accrueTo: timestamp,
    availableLiquidity: row.availableLiquidity,
    supplyCap: row.supplyCap * 10n ** BigInt(row.decimals),
    scaledSupplied: row.scaledATokenSupply + row.accruedToTreasury,
    active: row.active,
    frozen: row.frozen,
    paused: row.paused,
  };
}

/**
 * Aave V3 reserves (`aave_reserve`), keyed by aToken. Every refresh reads them all again (a
 * chain has a few dozen): their quotes accrue interest to the head's timestamp, which moves with
 * every block whether or not a reserve changed.
 */
export const aaveV3Source: IndexedSource = {
  undoLogs: { aave_reserve: "a_token" },

  async load({ reader, chainId, timestamp, reread, graph, addresses }) {
    const rows = await reader.select().from(aaveReserve).where(eq(aaveReserve.chainId, chainId));
    const present = new Set<string>();
    for (const row of rows) {
      const pool = aaveReservePoolOf(row, timestamp, addresses);
      present.add(pool.address);
      graph.upsertPool(pool);
    }
    for (const aToken of reread("aave_reserve")) if (!present.has(aToken)) graph.removePool(aToken);
  },

  async poolCount(db) {
    return (await db.select({ n: count() }).from(aaveReserve))[0]?.n ?? 0;
  },
};
