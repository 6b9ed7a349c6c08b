import { count, eq } from "ponder";
import { type Address, zeroAddress } from "viem";
import {
  type BalancerV2Pool,
  balancerV2PoolOf,
  type ComposableStablePoolState,
  rateAtSwap,
} from "../../../engine/index.js";
import { balancerV2Pool } from "../../protocols/balancer-v2/tables.js";
import type { AddressInterner } from "../snapshot/address-interner.js";
import type { IndexedSource } from "./types.js";

export type BalancerV2PoolRow = typeof balancerV2Pool.$inferSelect;

/**
 * The amp at `timestamp`: moving linearly from its start to its end value during an update,
 * the end value after it (`_getAmplificationParameter`).
 */
export function ampAt(row: BalancerV2PoolRow, timestamp: bigint): bigint {
  const { ampStartValue: start, ampEndValue: end, ampStartTime: t0, ampEndTime: t1 } = row;
  if (timestamp >= t1) return end;
  // Rounded down either way, as the pool does.
  return end > start
    ? start + ((end - start) * (timestamp - t0)) / (t1 - t0)
    : start - ((start - end) * (timestamp - t0)) / (t1 - t0);
}

/**
 * An indexed pool as the routing engine's pool, as a swap at `timestamp` sees it: a stable
 * pool's rates are its cached ones until a cache expires, then its providers' (`rateAtSwap`),
 * and its amp where an update has moved it. Pure (the tests read pools the same way).
 */
export function balancerV2PoolOfRow(
  row: BalancerV2PoolRow,
  timestamp: bigint,
  addresses: AddressInterner,
): BalancerV2Pool {
  const tokens = row.tokens.map((t) => addresses.of(t));
  const base = { address: row.address, poolId: row.poolId, vault: row.vault } as const;
  if (row.poolType === "weighted") {
    return balancerV2PoolOf({
      ...base,
      type: "weighted",
      state: {
        tokens,
        balances: row.balances,
        scalingFactors: row.scalingFactors,
        normalizedWeights: row.normalizedWeights,
        swapFeePercentage: row.swapFeePercentage,
        actualSupply: row.actualSupply,
      },
    });
  }
  const hasRateProvider = row.rateProviders.map((p) => p.toLowerCase() !== zeroAddress);
  const state: ComposableStablePoolState = {
    address: row.address,
    tokens,
    bptIndex: row.bptIndex,
    balances: row.balances,
    decimalScalingFactors: row.scalingFactors,
    tokenRates: row.cachedRates.map((rate, i) =>
      hasRateProvider[i]
        ? rateAtSwap({
            cache: {
              rate,
              oldRate: row.oldRates[i] ?? rate,
              duration: 0n,
              expires: row.rateExpires[i] ?? 0n,
            },
            providerRate: row.providerRates[i] ?? rate,
            timestamp,
          })
        : rate,
    ),
    oldRates: row.oldRates,
    hasRateProvider,
    exemptFromYieldProtocolFee: row.exemptFromYieldProtocolFee,
    amp: ampAt(row, timestamp),
    swapFeePercentage: row.swapFeePercentage,
    totalSupply: row.totalSupply,
    protocolFees: {
      lastJoinExitAmp: row.lastJoinExitAmp,
      lastPostJoinExitInvariant: row.lastPostJoinExitInvariant,
      swapFeePercentage: row.protocolSwapFeePercentage,
      yieldFeePercentage: row.protocolYieldFeePercentage,
    },
  };
  return balancerV2PoolOf({ ...base, type: "composable-stable", state });
}

/**
 * Balancer V2 pools (`balancer_v2_pool`), keyed by pool address. Every refresh reads them all
 * again: a stable pool's rates and amp depend on the time of the swap (a rate cache expiring,
 * an amp update under way), which moves with every block whether or not a row changed.
 */
export const balancerV2Source: IndexedSource = {
  undoLogs: { balancer_v2_pool: "address" },

  async load({ reader, chainId, timestamp, reread, graph, addresses }) {
    const rows = await reader
      .select()
      .from(balancerV2Pool)
      .where(eq(balancerV2Pool.chainId, chainId));
    const present = new Set<Address>();
    // The swap lands in a later block than the indexed one: one second on at least.
    for (const row of rows) {
      const pool = balancerV2PoolOfRow(row, timestamp + 1n, addresses);
      present.add(pool.address);
      graph.upsertPool(pool);
    }
    for (const address of reread("balancer_v2_pool")) {
      if (!present.has(address)) graph.removePool(address);
    }
  },

  async poolCount(db) {
    return (await db.select({ n: count() }).from(balancerV2Pool))[0]?.n ?? 0;
  },
};
