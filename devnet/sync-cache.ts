/**
 * Ponder keeps fetched logs, blocks and eth_call results in the `ponder_sync` schema, keyed by
 * chain id and block number, and reuses them across runs. A restarted devnet is a new chain
 * with the same id and the same block numbers, so its cache must go with it.
 */
import pg from "pg";

/** Deletes every `ponder_sync` row of `chainId` in the Postgres database at `databaseUrl`. */
export async function purgeSyncCache(databaseUrl: string, chainId: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `select table_name from information_schema.columns
        where table_schema = 'ponder_sync' and column_name = 'chain_id'`,
    );
    for (const { table_name } of rows) {
      await client.query(`delete from ponder_sync."${table_name}" where chain_id = $1`, [chainId]);
    }
  } finally {
    await client.end();
  }
}
