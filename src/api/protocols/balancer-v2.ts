import { and, count, eq, gt, inArray } from "ponder";
import { type Address, zeroAddress } from "viem";
import {
  type BalancerV2Pool,
  balancerV2PoolOf,
  type ComposableStablePoolState,
  type RoutingGraph,
  rateAtSwap,
} from "../../../engine/index.js";
import { balancerV2Pool } from "../../protocols/balancer-v2/tables.js";
import type { AddressInterner } from "../snapshot/address-interner.js";
import { lower, rowsByKey } from "../snapshot/reader.js";
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

/** The rows a graph's Balancer V2 pools were built from, and the swap time they were built for. */
type LoadedRows = { rows: Map<Address, BalancerV2PoolRow>; swapTime: bigint };
const loaded = new WeakMap<RoutingGraph, LoadedRows>();

/** Whether a swap at `from` and one at `to` see the row's pool differently (amp or a rate). */
function movesWithTime(row: BalancerV2PoolRow, from: bigint, to: bigint): boolean {
  if (row.poolType === "weighted") return false;
  if (row.ampEndTime > from && ampAt(row, from) !== ampAt(row, to)) return true;
  return row.rateExpires.some(
    (expires, i) =>
      row.rateProviders[i]?.toLowerCase() !== zeroAddress &&
      from <= expires !== to <= expires &&
      row.providerRates[i] !== row.cachedRates[i],
  );
}

/**
 * Balancer V2 pools (`balancer_v2_pool`), keyed by pool address. A refresh reads the rows
 * updated since the last one (and those a reorg may have reverted); the rows it read before are
 * kept, because a stable pool's rates and amp depend on the time of the swap (a rate cache
 * expiring, an amp update under way), which moves with every block whether or not its row
 * changed: those pools are built again from their kept rows when the time changes them.
 */
export const balancerV2Source: IndexedSource = {
  undoLogs: { balancer_v2_pool: "address" },

  async load({ reader, chainId, since, timestamp, reread, graph, addresses }) {
    // The swap lands in a later block than the indexed one: one second on at least.
    const swapTime = timestamp + 1n;
    const before = loaded.get(graph);
    const kept = since >= 0n && before ? before : { rows: new Map(), swapTime };
    const reverted = [...reread("balancer_v2_pool")];
    const read = (where: ReturnType<typeof gt>) =>
      reader
        .select()
        .from(balancerV2Pool)
        .where(and(eq(balancerV2Pool.chainId, chainId), where));
    const rows = [
      ...(await read(gt(balancerV2Pool.updatedBlock, since))),
      ...(await rowsByKey(reverted, (slice) => read(inArray(balancerV2Pool.address, slice)))),
    ];
    const fresh = new Set<Address>();
    for (const row of rows) {
      const address = lower(row.address);
      fresh.add(address);
      kept.rows.set(address, row);
      graph.upsertPool(balancerV2PoolOfRow(row, swapTime, addresses));
    }
    for (const address of reverted) {
      if (fresh.has(address)) continue;
      kept.rows.delete(address);
      graph.removePool(address);
    }
    if (kept.swapTime !== swapTime) {
      for (const [address, row] of kept.rows) {
        if (!fresh.has(address) && movesWithTime(row, kept.swapTime, swapTime)) {
          graph.upsertPool(balancerV2PoolOfRow(row, swapTime, addresses));
        }
      }
    }
    kept.swapTime = swapTime;
    loaded.set(graph, kept);
  },

  async poolCount(db) {
    return (await db.select({ n: count() }).from(balancerV2Pool))[0]?.n ?? 0;
  },
};
