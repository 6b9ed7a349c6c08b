/**
 * GraphQL over the indexed tables, as Ponder serves it (its schema, its resolvers, its limits on
 * an operation's size), but on Postgres through a pool of the analysts' own: at most
 * `poolSize` connections, each in read-only mode with the analysts' statement timeout, apart
 * from Ponder's read-only pool, which `/v1` and the routing snapshot read through. On PGlite,
 * where every query runs on the service's own thread and no pool exists, Ponder's middleware
 * serves it as it is (the concurrency gate in front bounds how many run at once).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import { drizzle } from "drizzle-orm/node-postgres";
import { GraphQLError, type GraphQLSchema } from "graphql";
import { createYoga, maskError } from "graphql-yoga";
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import pg from "pg";
import { graphql as ponderGraphql } from "ponder";
import { identifier } from "./sql-executor.js";

/** Postgres SQLSTATE of a statement cancelled by `statement_timeout`. */
const QUERY_CANCELED = "57014";

/**
 * Ponder's own limits on one operation (its `graphql()` defaults, which are Apollo's): kept so
 * a query accepted by Ponder's GraphQL is accepted here, and one refused there is refused here.
 */
const MAX_OPERATION_TOKENS = 1000;
const MAX_OPERATION_DEPTH = 100;
const MAX_OPERATION_ALIASES = 30;

/** The query builder Ponder's resolvers read through: the drizzle database, raw or wrapped. */
type ResolverQueryBuilder = {
  raw: unknown;
  wrap: (...args: unknown[]) => Promise<unknown>;
};

/** The two functions of Ponder's GraphQL module the server is built from. */
type PonderGraphqlModule = {
  buildGraphQLSchema(params: { schema: unknown }): GraphQLSchema;
  buildDataLoaderCache(qb: ResolverQueryBuilder): unknown;
};

/**
 * A module of Ponder's build by its path under `dist/esm/` (Ponder's package exports only its
 * entry; the GraphQL schema builder is not part of it). Looked up where Node would look for the
 * package itself.
 */
async function ponderModule<T>(path: string): Promise<T> {
  const require = createRequire(import.meta.url);
  for (const nodeModules of require.resolve.paths("ponder") ?? []) {
    const file = join(nodeModules, "ponder", "dist", "esm", path);
    if (existsSync(file)) return (await import(pathToFileURL(file).href)) as T;
  }
  throw new Error(`Ponder's ${path} was not found beside the installed ponder package`);
}

export type PostgresGraphqlParameters = {
  /** Ponder's drizzle schema (`ponder:schema`). */
  schema: Record<string, unknown>;
  /** How Ponder connects (its pool configuration, without its size). */
  connection: pg.PoolConfig;
  /** The Postgres schema the indexed tables live in. */
  databaseSchema: string;
  /** Connections of GraphQL's pool. */
  poolSize: number;
  /** How long one statement may run before the database cancels it. */
  statementTimeoutMs: number;
};

export type AnalystGraphql = {
  handler: MiddlewareHandler;
  /** Ends GraphQL's own connections (none on PGlite). */
  close(): Promise<void>;
};

/** The Postgres error code behind a resolver's error, if any. */
function sqlstateOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current =
      (current as { originalError?: unknown; cause?: unknown }).originalError ??
      (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** GraphQL on Postgres, through its own pool (see the module's comment). */
export async function createPostgresGraphql(
  params: PostgresGraphqlParameters,
): Promise<AnalystGraphql> {
  const { buildGraphQLSchema, buildDataLoaderCache } =
    await ponderModule<PonderGraphqlModule>("graphql/index.js");
  const { graphiQLHtml } = await ponderModule<{ graphiQLHtml: string }>("graphql/graphiql.html.js");

  const pool = new pg.Pool({
    ...params.connection,
    max: params.poolSize,
    application_name: `${params.databaseSchema}_graphql`,
    // Sent at connection start: unqualified names resolve to the indexed tables, every
    // transaction is read-only, and the server cancels a statement after the timeout.
    options: `-c search_path=${identifier(params.databaseSchema)} -c default_transaction_read_only=on`,
    statement_timeout: params.statementTimeoutMs,
    connectionTimeoutMillis: params.statementTimeoutMs,
  });
  // An idle client's error (the server restarting) must not crash the process.
  pool.on("error", () => {});

  const db = drizzle(pool, { schema: params.schema, casing: "snake_case" });
  // What Ponder's resolvers call: `raw` for built queries, `wrap(fn)` or `wrap(options, fn)`.
  const qb: ResolverQueryBuilder = {
    raw: db,
    wrap: async (...args: unknown[]) => {
      const run = args[args.length - 1] as (database: typeof db) => unknown;
      return await run(db);
    },
  };

  const timedOut = `The query ran longer than ${params.statementTimeoutMs} ms and was cancelled; narrow it (a where on an indexed column, a smaller limit).`;
  const yoga = createYoga({
    graphqlEndpoint: "*",
    schema: buildGraphQLSchema({ schema: params.schema }),
    context: () => ({ qb, getDataLoader: buildDataLoaderCache(qb) }),
    maskedErrors: {
      maskError: (error, message, isDev) => {
        if (sqlstateOf(error) === QUERY_CANCELED) {
          // The field that failed stays named (its place in the query and its path).
          const located = error instanceof GraphQLError ? error : undefined;
          return new GraphQLError(timedOut, {
            nodes: located?.nodes,
            source: located?.source,
            positions: located?.positions,
            path: located?.path,
          });
        }
        // As Ponder's GraphQL: other errors are masked only in production.
        if (process.env.NODE_ENV === "production") return maskError(error, message, isDev);
        return error instanceof Error ? error : new GraphQLError(String(error));
      },
    },
    logging: false,
    graphiql: false,
    parserAndValidationCache: false,
    plugins: [
      maxTokensPlugin({ n: MAX_OPERATION_TOKENS }),
      maxDepthPlugin({ n: MAX_OPERATION_DEPTH, ignoreIntrospection: false }),
      maxAliasesPlugin({ n: MAX_OPERATION_ALIASES, allowList: [] }),
    ],
  });

  const handler = createMiddleware(async (c) => {
    if (c.req.method === "GET") return c.html(graphiQLHtml);
    const response = await yoga.handle(c.req.raw);
    // Errors are in the body's `errors`, answered 200 as Ponder's GraphQL answers them.
    if (response.status === 200) return response;
    return new Response(response.body, { status: 200, headers: new Headers(response.headers) });
  });
  return { handler, close: () => pool.end() };
}

/** GraphQL on PGlite: Ponder's own middleware (it reads Ponder's database, not `db`). */
export function pgliteGraphql(schema: Record<string, unknown>): AnalystGraphql {
  return {
    handler: ponderGraphql({ db: undefined as never, schema: schema as never }),
    close: async () => {},
  };
}
