/**
 * The analysts' endpoints (`/sql/*`, `/graphql`) cannot stop the service: heavy SQL holds only
 * the analysts' own connections and is cancelled at the statement timeout while `/health` and
 * `/v1` answer; client mistakes are 400s; malformed or closed live queries give their slot
 * back; large bodies are refused before they are read; and on the embedded PGlite database,
 * where a query cannot be cancelled, SQL over HTTP is off unless turned on.
 */
import pg from "pg";
import { maxUint256, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { devnetActors } from "../harness/actors.js";
import { waitUntil } from "../harness/ponder-process.js";
import { type ServiceInstance, startService, TEST_DATABASE_URL } from "../harness/service.js";

/** The `sql` query parameter as `@ponder/client` sends it (superjson of `{ sql, params }`). */
const sqlParameter = (sql: string, params: unknown[] = []) =>
  encodeURIComponent(JSON.stringify({ json: { sql, params } }));

/** A response's status and body (JSON when it parses, else the text). */
async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

const badRequest = (message: string, details?: Record<string, unknown>) => ({
  statusCode: 400,
  error: "Bad Request",
  message,
  ...(details ? { details } : {}),
});

/**
 * 45 tokens to the sixth power: billions of rows, minutes of work without a timeout. Each
 * request's text differs (`i`), so no server-side cache answers two of them with one run.
 */
const heavy = (i: number) =>
  `select count(*) from token a, token b, token c, token d, token e, token f where a.decimals >= -${i}`;

describe("analysts' endpoints on Postgres", () => {
  let service: ServiceInstance;
  let monitor: pg.Client;
  const get = async (path: string) => answer(await fetch(`${service.url}${path}`));
  const sqlDb = (sql: string, params?: unknown[]) =>
    get(`/sql/db?sql=${sqlParameter(sql, params)}`);

  beforeAll(async () => {
    service = await startService({
      database: "postgres",
      env: {
        ANALYTICS_STATEMENT_TIMEOUT_MS: "5000",
        ANALYTICS_POOL_SIZE: "2",
        ANALYTICS_MAX_ROWS: "1000",
        ANALYTICS_MAX_BODY_BYTES: "4096",
        ANALYTICS_MAX_LIVE_QUERIES: "2",
        // The suite's own burst of requests is not what the keyless rate limit is tested on.
        KEYLESS_RATE_LIMIT_RPS: "0",
      },
    });
    monitor = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await monitor.connect();
  }, 180_000);

  afterAll(async () => {
    await monitor?.end();
    await service?.stop();
  });

  /**
   * The statements the analysts' connections of this service are running now (the cursor's
   * DECLARE or FETCH; another service on the same database is not counted).
   */
  const heavyRunning = async () =>
    (
      await monitor.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where state = 'active' and backend_type = 'client backend' and application_name = $1`,
        [`${service.schema}_analytics`],
      )
    ).rows[0]?.n;

  test("ten heavy queries: two run until the statement timeout, eight are refused at once, and /health and /v1 answer meanwhile", async () => {
    const running = [sqlDb(heavy(1)), sqlDb(heavy(2))];
    await waitUntil("two heavy analyst queries run", async () => (await heavyRunning()) === 2, {
      timeoutMs: 30_000,
      output: service.output,
    });
    // Eight more while both run: each is told at once that the analysts' connections are busy.
    const refused = [];
    for (let i = 3; i <= 10; i++) refused.push(await sqlDb(heavy(i)));

    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    const tokens = await get("/v1/tokens");
    expect([tokens.status, (tokens.body as { meta: { total: number } }).meta.total]).toEqual([
      200, 45,
    ]);

    const timedOut = {
      status: 422,
      body: {
        statusCode: 422,
        error: "Unprocessable Entity",
        message:
          "The query ran longer than 5000 ms and was cancelled; narrow it (a WHERE on an indexed column, a LIMIT).",
      },
    };
    const busy = {
      status: 503,
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message: "All 2 connections for SQL over HTTP are busy; retry shortly.",
      },
    };
    expect(refused).toEqual(Array(8).fill(busy));
    expect(await Promise.all(running)).toEqual([timedOut, timedOut]);
    expect(await heavyRunning()).toBe(0);
  }, 60_000);

  test("answers @ponder/client's queries by GET and POST, read through a cursor", async () => {
    const count = {
      status: 200,
      body: {
        command: "SELECT",
        rowCount: 1,
        rows: [{ count: "45" }],
        fields: [{ name: "count", dataTypeID: 20 }],
      },
    };
    expect(await sqlDb("select count(*) from token where decimals >= $1", [0])).toEqual(count);
    const posted = await fetch(
      `${service.url}/sql/db?sql=${sqlParameter("select count(*) from token")}`,
      { method: "POST" },
    );
    expect(await answer(posted)).toEqual(count);
  });

  test("client mistakes are 400s naming what was wrong; too many rows is a 422", async () => {
    expect(await get("/sql/db")).toEqual({
      status: 400,
      body: badRequest(
        'Missing the "sql" query parameter: the query as @ponder/client sends it, superjson of { sql, params }.',
      ),
    });
    expect(await get("/sql/db?sql=select%201")).toEqual({
      status: 400,
      body: badRequest('The "sql" query parameter is not JSON.'),
    });
    expect(await get(`/sql/db?sql=${encodeURIComponent('{"json":{"sql":1}}')}`)).toEqual({
      status: 400,
      body: badRequest(
        'The "sql" query parameter must be superjson of { sql, params } (sql: text of at most 5000 characters, params: an array); sql is not.',
      ),
    });
    expect(await sqlDb("selec 1")).toEqual({
      status: 400,
      body: badRequest(
        "The query is not allowed: it does not parse as SQL. Only a single SELECT is served.",
      ),
    });
    expect(await sqlDb("COMMENT ON TABLE token IS 'x'")).toEqual({
      status: 400,
      body: badRequest(
        "The query is not allowed: Comment statements are not served. Only a single SELECT is served.",
      ),
    });
    expect(await sqlDb("select pg_sleep(10)")).toEqual({
      status: 400,
      body: badRequest(
        "The query is not allowed: Function call not supported. Only a single SELECT is served.",
      ),
    });
    expect(await sqlDb("select nope from token")).toEqual({
      status: 400,
      body: badRequest('The database refused the query: column "nope" does not exist.', {
        sqlstate: "42703",
      }),
    });
    expect(await sqlDb("select a.address from token a, token b")).toEqual({
      status: 422,
      body: {
        statusCode: 422,
        error: "Unprocessable Entity",
        message:
          "The query returns more than 1000 rows; add a LIMIT (and page with OFFSET or a WHERE).",
      },
    });
  });

  test("malformed live queries take no slot, and a closed stream gives its slot back", async () => {
    const live = async (sql: string) => {
      const controller = new AbortController();
      const res = await fetch(`${service.url}/sql/live?sql=${sqlParameter(sql)}`, {
        signal: controller.signal,
      });
      return { res, close: () => controller.abort() };
    };
    for (let i = 0; i < 3; i++) {
      expect(await get("/sql/live?sql=select%201")).toEqual({
        status: 400,
        body: badRequest('The "sql" query parameter is not JSON.'),
      });
    }
    expect(await answer((await live("COMMENT ON TABLE token IS 'x'")).res)).toEqual({
      status: 400,
      body: badRequest(
        "The query is not allowed: Comment statements are not served. Only a single SELECT is served.",
      ),
    });

    const first = await live("select count(*) from swap");
    const second = await live("select count(*) from token");
    expect([first.res.status, second.res.status]).toEqual([200, 200]);
    expect(first.res.headers.get("content-type")).toBe("text/event-stream");
    expect(await answer((await live("select count(*) from swap")).res)).toEqual({
      status: 503,
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message: "2 live queries are open, the most this service holds; retry later.",
      },
    });

    first.close();
    let third: Awaited<ReturnType<typeof live>> | undefined;
    await waitUntil(
      "a closed live query's slot is free again",
      async () => {
        const attempt = await live("select count(*) from swap");
        if (attempt.res.status === 200) third = attempt;
        else await attempt.res.text();
        return third !== undefined;
      },
      { timeoutMs: 10_000, output: service.output },
    );
    second.close();
    third?.close();
  });

  test("a live query streams its new result once the indexer writes", async () => {
    const count = "select count(*) as n from swap";
    const before = (await sqlDb(count)).body as { rows: { n: string }[] };
    const n = BigInt(before.rows[0]?.n ?? "-1");
    const controller = new AbortController();
    const res = await fetch(`${service.url}/sql/live?sql=${sqlParameter(count)}`, {
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();

    // One V2 swap: the indexer writes a `swap` row and Ponder notifies the live queries.
    const a = await devnetActors(service);
    const me = a.deployer.account.address;
    const usdc = a.token("USDC");
    const router = service.deployment.uniswapV2.router02;
    const send = async (hash: Promise<`0x${string}`>) =>
      expect((await a.client.waitForTransactionReceipt({ hash: await hash })).status).toBe(
        "success",
      );
    await send(
      a.deployer.writeContract({
        address: usdc,
        abi: DevTokenAbi,
        functionName: "mint",
        args: [me, parseUnits("1000", 6)],
      }),
    );
    await send(
      a.deployer.writeContract({
        address: usdc,
        abi: DevTokenAbi,
        functionName: "approve",
        args: [router, maxUint256],
      }),
    );
    await send(
      a.deployer.writeContract({
        address: router,
        abi: UniswapV2Router02Abi,
        functionName: "swapExactTokensForTokens",
        args: [parseUnits("1000", 6), 0n, [usdc, service.deployment.weth], me, maxUint256],
      }),
    );

    let text = "";
    while (!text.includes("\n\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const data = /^data: (.*)$/m.exec(text)?.[1];
    expect(JSON.parse(data ?? "null")).toEqual({
      command: "SELECT",
      rowCount: 1,
      rows: [{ n: String(n + 1n) }],
      fields: [{ name: "n", dataTypeID: 20 }],
    });
  });

  test("/graphql refuses a body over the limit with 413, declared or streamed", async () => {
    const query = "{ tokens(limit: 1) { totalCount } }";
    const tooLarge = {
      status: 413,
      body: {
        statusCode: 413,
        error: "Payload Too Large",
        message: "The request body is larger than 4096 bytes, the most accepted here.",
      },
    };
    const big = JSON.stringify({ query, variables: { pad: "x".repeat(5000) } });
    const declared = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: big,
    });
    expect(await answer(declared)).toEqual(tooLarge);

    const chunks = [big.slice(0, 3000), big.slice(3000)];
    const streamed = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(chunk));
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(await answer(streamed)).toEqual(tooLarge);

    const small = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query }),
    });
    expect(await answer(small)).toEqual({
      status: 200,
      body: { data: { tokens: { totalCount: 45 } } },
    });
  });
  test("GraphQL reads through connections of its own, cancelled at the statement timeout while /v1 answers", async () => {
    const schema = service.schema as string;
    const graphql = (query: string) =>
      fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query }),
      }).then(answer);
    // A lock held on one table keeps any read of it waiting: only the statement timeout ends it.
    const locker = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await locker.connect();
    try {
      await locker.query("begin");
      await locker.query(`lock table "${schema}".pool_day in access exclusive mode`);
      const held = graphql("{ poolDays(limit: 1) { totalCount } }");
      const waiting = async () =>
        (
          await monitor.query<{ application_name: string; query: string }>(
            `select application_name, query from pg_stat_activity
              where wait_event_type = 'Lock' and pid <> pg_backend_pid() and query like '%pool_day%'
                and application_name like $1`,
            [`${schema}\\_%`],
          )
        ).rows;
      await waitUntil(
        "the GraphQL query waits for the lock",
        async () => (await waiting()).length > 0,
        {
          timeoutMs: 10_000,
          output: service.output,
        },
      );
      // Its statements (the page and its total) wait on GraphQL's own connections, not on the
      // read-only pool /v1 reads through.
      expect([...new Set((await waiting()).map((row) => row.application_name))]).toEqual([
        `${schema}_graphql`,
      ]);
      const tokens = await get("/v1/tokens");
      expect([tokens.status, (tokens.body as { meta: { total: number } }).meta.total]).toEqual([
        200, 45,
      ]);
      expect(await held).toEqual({
        status: 200,
        body: {
          data: null,
          errors: [
            {
              message:
                "The query ran longer than 5000 ms and was cancelled; narrow it (a where on an indexed column, a smaller limit).",
              locations: [{ line: 1, column: 3 }],
              path: ["poolDays"],
            },
          ],
        },
      });
      expect(await waiting()).toEqual([]);
    } finally {
      await locker.query("rollback").catch(() => {});
      await locker.end();
    }
  }, 60_000);
});

describe("analysts' endpoints on PGlite", () => {
  test("SQL over HTTP is off by default: a heavy query is refused at once and /health answers", async () => {
    const service = await startService({ database: "pglite", env: { ANALYTICS_SQL: "" } });
    try {
      const off = {
        status: 404,
        body: {
          statusCode: 404,
          error: "Not Found",
          message:
            "SQL over HTTP is off on the embedded PGlite database, where a query runs on the service's own thread and cannot be cancelled; set ANALYTICS_SQL=on to serve it anyway, or index into Postgres (DATABASE_URL).",
        },
      };
      const heavy = sqlParameter(
        "select count(*) from token a, token b, token c, token d, token e where a.decimals >= 0",
      );
      expect(await answer(await fetch(`${service.url}/sql/db?sql=${heavy}`))).toEqual(off);
      expect(await answer(await fetch(`${service.url}/sql/live?sql=${heavy}`))).toEqual(off);
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
      const graphql = await fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ tokens(limit: 1) { totalCount } }" }),
      });
      expect(await answer(graphql)).toEqual({
        status: 200,
        body: { data: { tokens: { totalCount: 45 } } },
      });
    } finally {
      await service.stop();
    }
  }, 180_000);

  test("turned on, it runs one SELECT in a read-only transaction: COMMENT ON is refused", async () => {
    const service = await startService({ database: "pglite", env: { ANALYTICS_SQL: "on" } });
    try {
      const sqlDb = async (sql: string) =>
        answer(await fetch(`${service.url}/sql/db?sql=${sqlParameter(sql)}`));
      expect(await sqlDb("COMMENT ON TABLE token IS 'x'")).toEqual({
        status: 400,
        body: badRequest(
          "The query is not allowed: Comment statements are not served. Only a single SELECT is served.",
        ),
      });
      expect(await sqlDb("select count(*)::int as n from token")).toEqual({
        status: 200,
        body: {
          command: "SELECT",
          rowCount: 1,
          rows: [{ n: 45 }],
          fields: [{ name: "n", dataTypeID: 23 }],
        },
      });
    } finally {
      await service.stop();
    }
  }, 180_000);
});
