/**
 * Where analysts' SQL (`/sql/*`) runs: apart from the connections `/v1` and the routing
 * snapshot read through, in a read-only transaction, under a statement timeout, and through a
 * cursor that stops after a row cap instead of buffering whatever the query returns.
 */
import pg from "pg";
import { ApiError } from "../errors.js";

/** One client query as `@ponder/client` sends it: SQL with `$n` placeholders and their values. */
export type AnalystQuery = { sql: string; params: unknown[] };

/** The answer's shape `@ponder/client` reads (node-postgres' result, object rows). */
export type AnalystResult = {
  command: "SELECT";
  rowCount: number;
  rows: Record<string, unknown>[];
  fields: { name: string; dataTypeID: number }[];
};

/** Runs analysts' queries and says when the indexer has written (for `/sql/live`). */
export type SqlExecutor = {
  /**
   * Runs one statement (already validated as a single SELECT) in a read-only transaction.
   * Rejects with an ApiError: 400 when the database refuses the SQL, 422 when it runs past the
   * timeout or returns more than the row cap, 503 when every analyst connection is busy (at
   * once, unless `queue`: then after waiting its turn for as long as a statement may run).
   */
  run(query: AnalystQuery, options?: { queue?: boolean }): Promise<AnalystResult>;
  /** Calls `listener` after each write of the indexer; returns its removal. */
  onIndexed(listener: () => void): () => void;
  /** Ends the connections. */
  close(): Promise<void>;
};

export type AnalystLimits = {
  /** How long one statement may run before the database cancels it. */
  statementTimeoutMs: number;
  /** A query returning more rows is refused. */
  maxRows: number;
};

/**
 * The cursor every query is read through. DECLARE accepts nothing but a query, so whatever
 * the validator lets through, no other kind of statement can run.
 */
const CURSOR = "analyst_rows";

/** Postgres SQLSTATE of a statement cancelled by `statement_timeout`. */
const QUERY_CANCELED = "57014";
/** SQLSTATE classes that mean the client's SQL is at fault (syntax, data, read-only, …). */
const CLIENT_SQLSTATE = /^(22|25|0A|42|2B|21|54)/;

/** `name` quoted as a Postgres identifier. */
export const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Timestamps, dates and intervals stay the text Postgres sends (as Ponder's own drizzle session
 * returns them), so an analyst reads the same value whichever endpoint served it.
 */
const RAW_TYPES = new Set([1082, 1114, 1184, 1186, 1115, 1182, 1185, 1187, 1231]);
const types = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    RAW_TYPES.has(oid) ? (value: string) => value : pg.types.getTypeParser(oid, format),
};

/** The failure of an analyst's statement as the client should see it. */
export function analystError(error: unknown, limits: AnalystLimits): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string") return undefined;
  if (code === QUERY_CANCELED) {
    return new ApiError(
      422,
      `The query ran longer than ${limits.statementTimeoutMs} ms and was cancelled; narrow it (a WHERE on an indexed column, a LIMIT).`,
    );
  }
  if (CLIENT_SQLSTATE.test(code) && error instanceof Error) {
    return new ApiError(400, `The database refused the query: ${error.message}.`, {
      sqlstate: code,
    });
  }
  return undefined;
}

function rowCapError(maxRows: number): ApiError {
  return new ApiError(
    422,
    `The query returns more than ${maxRows} rows; add a LIMIT (and page with OFFSET or a WHERE).`,
  );
}

/** What the cursor fetch answers, as the result `@ponder/client` reads. */
function toResult(
  fetched: { rows: Record<string, unknown>[]; fields: { name: string; dataTypeID: number }[] },
  maxRows: number,
): AnalystResult {
  if (fetched.rows.length > maxRows) throw rowCapError(maxRows);
  return {
    command: "SELECT",
    rowCount: fetched.rows.length,
    rows: fetched.rows,
    fields: fetched.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
  };
}

export type CreatePostgresSqlExecutorParameters = AnalystLimits & {
  /** How Ponder connects (its pool configuration, without its size). */
  connection: pg.PoolConfig;
  /** The schema the indexed tables live in: unqualified names resolve there. */
  schema: string;
  /** Connections of the analysts' pool. */
  poolSize: number;
  /** Ponder's live-query channel (`<schema>_live_query`). */
  channel: string;
};

/**
 * Analysts' SQL over Postgres, on a pool of its own: however slow the queries, they hold at
 * most `poolSize` connections, never the ones `/v1` reads through, and each statement is
 * cancelled by the server after `statementTimeoutMs`.
 */
export function createPostgresSqlExecutor(
  params: CreatePostgresSqlExecutorParameters,
): SqlExecutor {
  const { schema, maxRows } = params;
  const pool = new pg.Pool({
    ...params.connection,
    max: params.poolSize,
    application_name: `${schema}_analytics`,
    // Sent at connection start: in force before the first statement, and not something a
    // query could unset (SET is not a query the cursor accepts).
    statement_timeout: params.statementTimeoutMs,
    // A queued caller (a live query's re-run) waits at most one statement's time.
    connectionTimeoutMillis: params.statementTimeoutMs,
  });
  // An idle client's error (the server restarting) must not crash the process.
  pool.on("error", () => {});

  let inFlight = 0;
  const listeners = new Set<() => void>();
  // One connection, outside the pool, listens to Ponder's notifications while any live query
  // is open; lost, it is opened again a second later.
  let listener: pg.Client | undefined;
  let listening = false;
  let closed = false;
  const listen = async () => {
    if (closed) return;
    const client = new pg.Client({ ...params.connection, application_name: `${schema}_live` });
    let lost = false;
    const reconnect = () => {
      if (lost) return;
      lost = true;
      client.end().catch(() => {});
      if (listener === client) listener = undefined;
      setTimeout(listen, 1000).unref();
    };
    client.on("notification", () => {
      for (const l of listeners) l();
    });
    client.on("error", reconnect);
    try {
      await client.connect();
      await client.query(`LISTEN ${identifier(params.channel)}`);
      listener = client;
    } catch {
      reconnect();
    }
  };

  return {
    async run(query, options) {
      const busy = new ApiError(
        503,
        `All ${params.poolSize} connections for SQL over HTTP are busy; retry shortly.`,
      );
      // A request finding every connection busy is told so at once: queueing it behind heavy
      // queries would only hold its socket and memory for nothing.
      if (inFlight >= params.poolSize && !options?.queue) throw busy;
      inFlight++;
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch {
        inFlight--;
        throw busy;
      }
      let broken = false;
      try {
        // Unqualified names resolve to the indexed tables; a lock held by the indexer's DDL
        // fails the query at once instead of queueing it.
        await client.query(
          `BEGIN READ ONLY; SET LOCAL search_path TO ${identifier(schema)}; SET LOCAL lock_timeout = '500ms'`,
        );
        // The extended protocol even without parameters: one statement per message, so a
        // second statement after a `;` is refused (node-postgres' types lack `queryMode`).
        const declare = {
          text: `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${query.sql}`,
          values: query.params,
          types,
          queryMode: "extended",
        };
        await client.query(declare);
        const fetched = await client.query({ text: `FETCH ${maxRows + 1} FROM ${CURSOR}`, types });
        return toResult(fetched, maxRows);
      } catch (error) {
        const answer = analystError(error, params);
        if (answer) throw answer;
        broken = true;
        throw error;
      } finally {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        client.release(broken);
        inFlight--;
      }
    },
    onIndexed(l) {
      if (!listening) {
        listening = true;
        void listen();
      }
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}

/** The parts of Ponder's PGlite instance the executor uses. */
export type PgliteLike = {
  transaction<T>(
    callback: (tx: {
      query<R>(
        sql: string,
        params?: unknown[],
        options?: { parsers?: Record<number, (value: string) => unknown> },
      ): Promise<{ rows: R[]; fields: { name: string; dataTypeID: number }[] }>;
    }) => Promise<T>,
  ): Promise<T | undefined>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
};

export type CreatePgliteSqlExecutorParameters = AnalystLimits & {
  pglite: PgliteLike;
  channel: string;
};

/**
 * Analysts' SQL on the embedded PGlite database, when the operator turns it on
 * (`ANALYTICS_SQL=on`). PGlite runs on the process's own thread and ignores
 * `statement_timeout`: a slow query there stops the API and the indexer until it ends. The
 * read-only transaction, the single-SELECT cursor and the row cap still hold.
 */
export function createPgliteSqlExecutor(params: CreatePgliteSqlExecutorParameters): SqlExecutor {
  const { pglite, maxRows } = params;
  const parsers = Object.fromEntries([...RAW_TYPES].map((oid) => [oid, (v: string) => v]));
  const listeners = new Set<() => void>();
  let unlisten: Promise<() => Promise<void>> | undefined;
  return {
    async run(query) {
      try {
        const fetched = await pglite.transaction(async (tx) => {
          await tx.query("SET TRANSACTION READ ONLY");
          await tx.query(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${query.sql}`, query.params);
          return await tx.query<Record<string, unknown>>(
            `FETCH ${maxRows + 1} FROM ${CURSOR}`,
            [],
            { parsers },
          );
        });
        if (!fetched) throw new Error("PGlite rolled the analyst's transaction back");
        return toResult(fetched, maxRows);
      } catch (error) {
        throw analystError(error, params) ?? error;
      }
    },
    onIndexed(l) {
      unlisten ??= pglite.listen(params.channel, () => {
        for (const each of listeners) each();
      });
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async close() {
      await (await unlisten)?.();
    },
  };
}
