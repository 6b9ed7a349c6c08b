/**
 * The analysts' SQL executor over the database Ponder indexes into, chosen by its kind:
 * Postgres gets a pool of its own; PGlite gets none unless the operator turns SQL on.
 */
import type pg from "pg";
import type { Config } from "../../../config.js";
import { type AnalystGraphql, createPostgresGraphql, pgliteGraphql } from "./graphql.js";
import {
  createPgliteSqlExecutor,
  createPostgresSqlExecutor,
  type PgliteLike,
  type SqlExecutor,
} from "./sql-executor.js";

/**
 * What Ponder (0.16, pinned) leaves on `globalThis` for its own API middleware: how it connects,
 * the schema it indexes into, and the PGlite instance. Read here because `ponder:api` exposes
 * only the drizzle database over the shared read-only pool.
 */
type PonderGlobals = {
  PONDER_PRE_BUILD?: {
    databaseConfig: { kind: "postgres"; poolConfig: pg.PoolConfig } | { kind: string };
  };
  PONDER_NAMESPACE_BUILD?: { schema: string };
  PONDER_DATABASE?: { driver: { dialect: "pglite"; instance: PgliteLike } | { dialect: string } };
};

export type AnalystSqlSetup = {
  /** Undefined when SQL over HTTP is off. */
  executor: SqlExecutor | undefined;
  /** Why it is off and how to turn it on (the 404's message). */
  disabledMessage: string;
};

/** The message `/sql/*` answers with while SQL over HTTP is off. */
export const SQL_OFF_ON_PGLITE =
  "SQL over HTTP is off on the embedded PGlite database, where a query runs on the service's own thread and cannot be cancelled; set ANALYTICS_SQL=on to serve it anyway, or index into Postgres (DATABASE_URL).";
export const SQL_OFF =
  "SQL over HTTP is off on this service (ANALYTICS_SQL=off); GraphQL is served at /graphql.";

/** The parts of the running Ponder process the analysts' endpoints connect through. */
function ponderParts() {
  const ponder = globalThis as PonderGlobals;
  const databaseConfig = ponder.PONDER_PRE_BUILD?.databaseConfig;
  const schema = ponder.PONDER_NAMESPACE_BUILD?.schema;
  const driver = ponder.PONDER_DATABASE?.driver;
  if (!databaseConfig || !schema || !driver) {
    throw new Error("The analysts' endpoints need the database of a running Ponder process");
  }
  return { databaseConfig, schema, driver };
}

/**
 * GraphQL for the running Ponder process: on Postgres through a pool of its own with the
 * analysts' statement timeout; on PGlite, Ponder's own middleware.
 */
export async function analystGraphql(
  settings: Config["analytics"],
  tables: Record<string, unknown>,
): Promise<AnalystGraphql> {
  const { databaseConfig, schema } = ponderParts();
  if (!("poolConfig" in databaseConfig)) return pgliteGraphql(tables);
  const { max: _ponderMax, ...connection } = databaseConfig.poolConfig;
  return await createPostgresGraphql({
    schema: tables,
    connection,
    databaseSchema: schema,
    poolSize: settings.poolSize,
    statementTimeoutMs: settings.statementTimeoutMs,
  });
}

/** The executor for the running Ponder process, as `settings` (ANALYTICS_*) ask. */
export function analystSqlSetup(settings: Config["analytics"]): AnalystSqlSetup {
  const { databaseConfig, schema, driver } = ponderParts();
  const channel = `${schema}_live_query`;
  const limits = { statementTimeoutMs: settings.statementTimeoutMs, maxRows: settings.maxRows };

  if ("poolConfig" in databaseConfig) {
    if (settings.sql === false) return { executor: undefined, disabledMessage: SQL_OFF };
    // Ponder's pool size is its own; the analysts' pool has `poolSize` connections.
    const { max: _ponderMax, ...connection } = databaseConfig.poolConfig;
    return {
      executor: createPostgresSqlExecutor({
        connection,
        schema,
        poolSize: settings.poolSize,
        channel,
        ...limits,
      }),
      disabledMessage: SQL_OFF,
    };
  }
  if (settings.sql !== true || !("instance" in driver)) {
    return { executor: undefined, disabledMessage: SQL_OFF_ON_PGLITE };
  }
  return {
    executor: createPgliteSqlExecutor({ pglite: driver.instance, channel, ...limits }),
    disabledMessage: SQL_OFF_ON_PGLITE,
  };
}
