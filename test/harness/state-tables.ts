/**
 * The tables of an index's current state, for comparing two indexes of one chain row for row:
 * a state start (`START_BLOCK_<id>`) against a full replay, or against another state start.
 */
import { expect } from "vitest";
import { queryRows } from "./ponder-process.js";
import { TEST_DATABASE_URL } from "./service.js";

/** The tables of current state, each with the columns that order it. */
export const STATE_TABLES: Record<string, string[]> = {
  token: ["address"],
  v2_pair: ["address"],
  v3_pool: ["address"],
  v3_tick: ["pool", "tick"],
  v4_pool: ["pool_id"],
  v4_tick: ["pool_id", "tick"],
  aave_reserve: ["a_token"],
  vault: ["address"],
};

/**
 * Columns that record when the index wrote a row (`created_block`, `updated_block`), not state,
 * and a V4 pool's `last_swap_fee`: the fee of its last swap, history a state start does not read.
 */
const NOT_STATE = new Set(["created_block", "updated_block", "last_swap_fee"]);

/** The state rows of `table` in `schema` for `chainId`, without the bookkeeping columns, in key order. */
export async function stateRows(params: { chainId: number; schema: string; table: string }) {
  const order = STATE_TABLES[params.table] ?? [];
  const rows = await queryRows(
    TEST_DATABASE_URL,
    `select * from "${params.schema}"."${params.table}" where chain_id = $1 order by ${order.map((c) => `"${c}"`).join(", ")}`,
    [params.chainId],
  );
  return rows.map((row) =>
    Object.fromEntries(Object.entries(row).filter(([column]) => !NOT_STATE.has(column))),
  );
}

/** Every state table of `schema` equals the one of `expected`, row for row. */
export async function expectSameState(params: {
  chainId: number;
  schema: string;
  expected: string;
}): Promise<void> {
  const { chainId } = params;
  for (const table of Object.keys(STATE_TABLES)) {
    expect({ table, rows: await stateRows({ chainId, schema: params.schema, table }) }).toEqual({
      table,
      rows: await stateRows({ chainId, schema: params.expected, table }),
    });
  }
}
