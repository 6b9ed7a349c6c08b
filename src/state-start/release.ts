/**
 * Ponder's indexing cache during a state start, which is one event however large the chain.
 */

import type { Context } from "ponder:registry";
import { token } from "ponder:schema";
import { sql } from "ponder";

/**
 * Writes the rows Ponder's indexing cache holds and empties it. Within one event (the state read
 * is one) the cache keeps every row written until the event ends, and at mainnet's size (millions
 * of pairs, pools, ticks and tokens) that outgrows the heap; a raw write through `context.db.sql`
 * flushes the cache, marks it incomplete and clears it (Ponder 0.16's indexing store). This write
 * changes no row. A state read calls it after each group (`readGroups`, groups.ts), so it holds
 * one group's rows at a time; rows written before are then found in the database, not in memory.
 */
export async function releaseIndexingCache(context: Context): Promise<void> {
  await context.db.sql
    .update(token)
    .set({ updatedBlock: sql`${token.updatedBlock}` })
    .where(sql`false`);
}
