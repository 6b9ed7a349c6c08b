import type { SQL } from "drizzle-orm";
import { count, eq, inArray, sql } from "ponder";
import type { Address, V2Pool } from "../../../engine/index.js";
import { v2Pair } from "../../protocols/uniswap-v2/tables.js";
import type { AddressInterner } from "../snapshot/address-interner.js";
import { lower, type Reader, rowsByKey, rowsOf } from "../snapshot/reader.js";
import type { IndexedSource } from "./types.js";

export type V2PairRow = {
  address: string;
  /** `uniswap-v2` or a fork's slug. */
  protocol: string;
  token0: string;
  token1: string;
  reserve0: bigint;
  reserve1: bigint;
  fee: number;
  totalSupply: bigint;
};

/** An indexed pair as the routing engine's pool. Pure (the scale benchmark reads rows itself). */
export function v2PoolOf(row: V2PairRow, addresses: AddressInterner): V2Pool {
  return {
    kind: "v2",
    protocol: row.protocol,
    address: row.address.toLowerCase() as Address,
    token0: addresses.of(row.token0),
    token1: addresses.of(row.token1),
    reserve0: row.reserve0,
    reserve1: row.reserve1,
    feePpm: row.fee,
    totalSupply: row.totalSupply,
  };
}

/**
 * The pairs of `chainId` that `where` selects, read raw (every pair at start-up: 400,000 on
 * mainnet, where a query builder's per-value mapping costs), the amounts as text.
 */
async function readPairs(reader: Reader, chainId: number, where: SQL): Promise<V2PairRow[]> {
  const rows = await rowsOf<Record<keyof V2PairRow, string | number>>(
    reader,
    sql`select address, protocol, token0, token1, reserve0::text as reserve0, reserve1::text as reserve1, fee, total_supply::text as "totalSupply" from ${v2Pair} where chain_id = ${chainId} and ${where}`,
  );
  return rows.map((r) => ({
    address: String(r.address),
    protocol: String(r.protocol),
    token0: String(r.token0),
    token1: String(r.token1),
    reserve0: BigInt(r.reserve0),
    reserve1: BigInt(r.reserve1),
    fee: Number(r.fee),
    totalSupply: BigInt(r.totalSupply),
  }));
}

/** Uniswap V2 pairs and its forks' (`v2_pair`). */
export const uniswapV2Source: IndexedSource = {
  undoLogs: { v2_pair: "address" },

  async load({ reader, chainId, since, reread, graph, addresses }) {
    const pairs = await readPairs(reader, chainId, sql`updated_block > ${String(since)}::numeric`);
    // Reverted pairs: their current row, or none (created in a reorged block).
    const reverted = [...reread("v2_pair")];
    const now = await rowsByKey(reverted, (slice) =>
      readPairs(reader, chainId, inArray(v2Pair.address, slice)),
    );
    for (const p of [...pairs, ...now]) graph.upsertPool(v2PoolOf(p, addresses));
    const found = new Set(now.map((p) => lower(p.address)));
    for (const address of reverted) if (!found.has(address)) graph.removePool(address);
  },

  async poolCount(db, protocol) {
    return (
      (await db.select({ n: count() }).from(v2Pair).where(eq(v2Pair.protocol, protocol.slug)))[0]
        ?.n ?? 0
    );
  },
};
