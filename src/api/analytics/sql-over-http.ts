/**
 * SQL over HTTP (`/sql/db`, `/sql/live`) as `@ponder/client` speaks it, in place of Ponder's
 * own middleware: that one runs the queries on the connections `/v1` reads through (on PGlite,
 * outside any transaction), answers client mistakes with 500, and counts a live query before
 * validating it, so malformed requests use up the live-query slots for good.
 */
import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { streamSSE } from "hono/streaming";
import superjson from "superjson";
import { z } from "zod";
import { ApiError } from "../errors.js";
import { parseSQLQuery, validateAllowableSQLQuery } from "./ponder-sql-parse.js";
import type { AnalystQuery, AnalystResult, SqlExecutor } from "./sql-executor.js";

export type SqlOverHttpParameters = {
  /** Where queries run; undefined when SQL over HTTP is off (every `/sql/*` answers 404). */
  executor: SqlExecutor | undefined;
  /** The 404's message when it is off: why, and the setting that turns it on. */
  disabledMessage: string;
  /** Open `/sql/live` streams at once (503 beyond). */
  maxLiveQueries: number;
  /** Whether the backfill is complete: live queries follow only live indexing. */
  isReady: () => Promise<boolean>;
};

/** The longest SQL text accepted (Ponder's parser refuses longer ones too). */
const MAX_SQL_LENGTH = 5_000;

const queryShape = z.object({
  sql: z.string().min(1).max(MAX_SQL_LENGTH),
  params: z.array(z.unknown()).default([]),
});

/** JSON that also carries `bigint`s (PGlite parses `int8` to them), as decimal strings. */
const toJson = (value: unknown) =>
  JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v));

const digest = (result: AnalystResult) =>
  createHash("sha256").update(toJson(result.rows)).digest("hex");

/** The client's query from `?sql=` (superjson of `{ sql, params }`), validated; 400 otherwise. */
async function readQuery(c: Context): Promise<AnalystQuery> {
  const text = c.req.query("sql");
  if (text === undefined) {
    throw new ApiError(
      400,
      'Missing the "sql" query parameter: the query as @ponder/client sends it, superjson of { sql, params }.',
    );
  }
  let decoded: unknown;
  try {
    decoded = superjson.parse(text);
  } catch {
    throw new ApiError(400, 'The "sql" query parameter is not JSON.');
  }
  const parsed = queryShape.safeParse(decoded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "sql";
    throw new ApiError(
      400,
      `The "sql" query parameter must be superjson of { sql, params } (sql: text of at most ${MAX_SQL_LENGTH} characters, params: an array); ${field} is not.`,
    );
  }
  const query = parsed.data;
  try {
    const root = await parseSQLQuery(query.sql);
    const kind = Object.keys(root)[0];
    if (kind !== "SelectStmt") {
      throw new Error(`${kind?.replace(/Stmt$/, "") ?? "this"} statements are not served`);
    }
    await validateAllowableSQLQuery(query.sql);
  } catch (error) {
    const reason =
      error instanceof Error && error.message !== "[object Object]"
        ? error.message
        : "it does not parse as SQL";
    throw new ApiError(400, `The query is not allowed: ${reason}. Only a single SELECT is served.`);
  }
  return query;
}

/**
 * The `/sql/*` middleware. Every failure is an ApiError for the app's error handler: 400 for
 * the client's mistakes, 422 for a query over the time or row limits, 503 while busy.
 */
export function sqlOverHttp(params: SqlOverHttpParameters): MiddlewareHandler {
  const { executor } = params;
  let liveQueries = 0;

  return async (c, next) => {
    const path = c.req.path;
    if (path !== "/sql/db" && path !== "/sql/live") return await next();
    if (!executor) throw new ApiError(404, params.disabledMessage);

    if (path === "/sql/db") {
      const result = await executor.run(await readQuery(c));
      return c.body(toJson(result), 200, { "Content-Type": "application/json" });
    }

    if (!(await params.isReady())) {
      throw new ApiError(503, "Live queries are served once the backfill is complete.");
    }
    const query = await readQuery(c);
    if (liveQueries >= params.maxLiveQueries) {
      throw new ApiError(
        503,
        `${params.maxLiveQueries} live queries are open, the most this service holds; retry later.`,
      );
    }
    // Counted from here until the stream ends, whichever way it ends: released exactly once.
    liveQueries++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      liveQueries--;
    };
    let hash: string;
    try {
      hash = digest(await executor.run(query));
    } catch (error) {
      release();
      throw error;
    }
    return streamSSE(
      c,
      async (stream) => {
        let indexed = false;
        let wake: (() => void) | undefined;
        const stopListening = executor.onIndexed(() => {
          indexed = true;
          wake?.();
        });
        stream.onAbort(() => wake?.());
        try {
          while (!stream.aborted && !stream.closed) {
            if (!indexed) {
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              wake = undefined;
              continue;
            }
            indexed = false;
            // A re-run waits its turn: live queries share the analysts' connections.
            const result = await executor.run(query, { queue: true });
            const next = digest(result);
            if (next === hash) continue;
            hash = next;
            await stream.writeSSE({ data: toJson(result) });
          }
        } finally {
          stopListening();
          release();
        }
      },
      // A re-run that fails (over the time or row limit now) ends the stream.
      async () => {
        release();
      },
    );
  };
}
