/**
 * What a state start (`START_BLOCK_<id>`) must equal: a full replay of the same chain at the same
 * head, row for row in the tables of current state and answer for answer on the endpoints that
 * read them. Columns that record when the index wrote a row (`created_block`, `updated_block`)
 * are not state, and a V4 pool's `last_swap_fee` is the fee of its last swap, history the state
 * start does not read. A Balancer V2 pool's `amp` and `provider_rates` are what the pool answered
 * at its last read (`updated_block`: an event of the pool, the rate refresh, or the state
 * start's block), so they move with time between reads (an amp update under way, a provider's
 * rate): an index equals the replay when each pool's last read in both came after they last
 * moved, as the rate refresh from the head on makes it for pools with rate providers. A tick
 * every position has left keeps its row at zero in an index that followed the event (the
 * handlers update rather than delete it), and has none in one that read the chain after it: the
 * ticks compared are the initialized ones, `liquidity_gross` not zero.
 */
import { expect } from "vitest";
import { queryRows } from "./ponder-process.js";

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
  balancer_v2_pool: ["address"],
};
const NOT_STATE = new Set(["created_block", "updated_block", "last_swap_fee"]);
/** Tables whose rows at zero are not state: ticks no position references. */
const CLEARED_AT_ZERO = new Set(["v3_tick", "v4_tick"]);

/** Where an index's tables are: a schema of a Postgres database, for one chain. */
export type IndexTables = { databaseUrl: string; schema: string; chainId: number };

/** The state rows of `table`, without the bookkeeping columns, in key order. */
export async function stateRows(
  index: IndexTables,
  table: string,
): Promise<Record<string, unknown>[]> {
  const order = STATE_TABLES[table] ?? [];
  const rows = await queryRows(
    index.databaseUrl,
    `select * from "${index.schema}"."${table}" where chain_id = $1${CLEARED_AT_ZERO.has(table) ? " and liquidity_gross <> 0" : ""} order by ${order.map((c) => `"${c}"`).join(", ")}`,
    [index.chainId],
  );
  return rows.map((row) =>
    Object.fromEntries(Object.entries(row).filter(([column]) => !NOT_STATE.has(column))),
  );
}

/**
 * Every state table of each of `starts` equals the one of `replay`, row for row; the replay's
 * rows are returned, by table, for the caller to check what they hold.
 */
export async function expectSameState(params: {
  databaseUrl: string;
  chainId: number;
  replay: string;
  starts: readonly { name: string; schema: string }[];
}): Promise<Record<string, Record<string, unknown>[]>> {
  const { databaseUrl, chainId } = params;
  const replayed: Record<string, Record<string, unknown>[]> = {};
  for (const table of Object.keys(STATE_TABLES)) {
    const expected = await stateRows({ databaseUrl, chainId, schema: params.replay }, table);
    replayed[table] = expected;
    for (const { name, schema } of params.starts) {
      const rows = await stateRows({ databaseUrl, chainId, schema }, table);
      expect({ index: name, table, rows }).toEqual({ index: name, table, rows: expected });
    }
  }
  return replayed;
}

/** What an answer says of the state: a route's transaction carries a deadline from the clock. */
async function answerOf(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url);
  const body = (await res.json()) as Record<string, unknown>;
  if (!url.includes("/v1/shortcuts/route?")) return { status: res.status, body };
  const { amountOut, route, priceImpact } = body;
  return { status: res.status, body: { amountOut, route, priceImpact } };
}

/**
 * Each of `paths` answers the same on every one of `starts` as on `replay` (a 200 there); the
 * replay's answers are returned, by path.
 */
export async function expectSameAnswers(params: {
  replay: string;
  starts: readonly { name: string; url: string }[];
  paths: readonly string[];
}): Promise<Record<string, unknown>> {
  const replayed: Record<string, unknown> = {};
  for (const path of params.paths) {
    const expected = await answerOf(`${params.replay}${path}`);
    expect({ path, status: expected.status }).toEqual({ path, status: 200 });
    replayed[path] = expected.body;
    for (const { name, url } of params.starts) {
      expect({ index: name, path, ...(await answerOf(`${url}${path}`)) }).toEqual({
        index: name,
        path,
        ...expected,
      });
    }
  }
  return replayed;
}

/** A route's query: `amountIn` of `tokenIn` into `tokenOut` through the router. */
export function routePath(params: {
  chainId: number;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint | string;
}): string {
  const sender = "0x1111111111111111111111111111111111111111";
  return `/v1/shortcuts/route?${new URLSearchParams({
    chainId: String(params.chainId),
    fromAddress: sender,
    receiver: sender,
    tokenIn: params.tokenIn,
    tokenOut: params.tokenOut,
    amountIn: String(params.amountIn),
    routingStrategy: "router",
  })}`;
}
