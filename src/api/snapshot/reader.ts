/**
 * How the routing snapshot reads the indexed tables: through Ponder's read-only database or one
 * read-only transaction of it, with lists of keys bound in slices Postgres accepts.
 */
import type { SQL } from "drizzle-orm";
import { sql } from "ponder";
import type { Address } from "../../../engine/index.js";
import type { ApiDatabase } from "../database.js";

/** What the snapshot reads through: Ponder's read-only database or one transaction of it. */
export type Reader = Pick<ApiDatabase, "select" | "selectDistinct" | "execute">;

export const lower = (a: string) => a.toLowerCase() as Address;

/**
 * Most values one `IN (…)` list binds. Postgres accepts at most 65,535 bind parameters per
 * query; a mainnet-sized list (30,000+ V3 pools) is read in slices of this size.
 */
const MAX_IN_LIST = 10_000;

/** `values` in slices of at most MAX_IN_LIST. */
export function slices<T>(values: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < values.length; at += MAX_IN_LIST) {
    out.push(values.slice(at, at + MAX_IN_LIST));
  }
  return out;
}

/**
 * Rows of a query, raw SQL or a `sql` template (Ponder's node-pg and PGlite drivers both answer
 * `{ rows }`), as the driver gives them: no mapping per column, which a full load of hundreds of
 * thousands of rows would pay for every value.
 */
export async function rowsOf<T>(reader: Reader, query: string | SQL): Promise<T[]> {
  const result = await reader.execute(typeof query === "string" ? sql.raw(query) : query);
  return (result as unknown as { rows: T[] }).rows;
}

/** The rows whose key is one of `keys`, read in slices. */
export async function rowsByKey<T>(
  keys: readonly Address[],
  read: (slice: Address[]) => Promise<T[]>,
): Promise<T[]> {
  return (await Promise.all(slices(keys).map(read))).flat();
}
