/**
 * The operations layer on a running service (PGlite, keys configured, in-memory rate limits):
 * API keys, rate limits, request ids and logs, metrics, the OpenAPI document and the
 * reference page in a real browser.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ensureChromium } from "../harness/chromium.js";
import { recordResponse } from "../harness/contract.js";
import { waitUntil } from "../harness/ponder-process.js";
import { type RpcGate, startRpcGate } from "../harness/rpc-gate.js";
import { type ServiceInstance, startService } from "../harness/service.js";
import { sample } from "./prometheus.js";

const KEY_SUITE = `suite-${randomBytes(16).toString("hex")}`;
const KEY_TIGHT = `tight-${randomBytes(16).toString("hex")}`;
const KEY_ENV = `env-${randomBytes(16).toString("hex")}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const dir = mkdtempSync(join(tmpdir(), "ops-service-"));
let service: ServiceInstance;
let browser: Browser | undefined;
let gate: RpcGate | undefined;
let holdSimulations = false;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${service.url}${path}`, { headers });
  const text = await res.text();
  const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
  return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : text };
}

/** Request log lines the service wrote (one JSON object per line on stdout). */
function requestLogs(): Record<string, unknown>[] {
  return service
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{") && l.includes('"msg":"request"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  const keysFile = join(dir, "keys.json");
  writeFileSync(
    keysFile,
    JSON.stringify({
      keys: [
        { name: "suite", key: KEY_SUITE, rps: 1000, burst: 1000 },
        { name: "tight", key: KEY_TIGHT, rps: 0.2, burst: 2 },
      ],
    }),
  );
  service = await startService({
    database: "pglite",
    // The API's node calls pass a gate that can hold simulations (the API_RPC_TIMEOUT_MS test).
    ponderRpcUrl: async (target) => {
      gate = await startRpcGate({
        target,
        hold: (method) => holdSimulations && method === "eth_simulateV1",
      });
      return gate.url;
    },
    env: {
      API_RPC_TIMEOUT_MS: "1500",
      API_KEYS: KEY_ENV,
      API_KEYS_FILE: keysFile,
      RATE_LIMIT_RPS: "50",
      RATE_LIMIT_BURST: "100",
    },
  });
});

afterAll(async () => {
  try {
    await browser?.close();
    // Fails listing the responses that break the OpenAPI document, after stopping everything.
    await service?.stop();
  } finally {
    gate?.open();
    await gate?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("API keys", () => {
  test("/v1, GraphQL and SQL need a configured key; a missing or unknown one gets a 401", async () => {
    const unauthorized = (message: string) => ({
      statusCode: 401,
      error: "Unauthorized",
      message,
    });
    const missing = await get("/v1/tokens");
    expect([missing.status, missing.headers.get("www-authenticate"), missing.body]).toEqual([
      401,
      'Bearer realm="api"',
      unauthorized("Missing API key: send it as `Authorization: Bearer <key>`."),
    ]);
    const unknown = await get("/v1/standards", bearer(`${KEY_SUITE}x`));
    expect([unknown.status, unknown.body]).toEqual([401, unauthorized("Unknown API key.")]);
    const graphql = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ tokens(limit: 1) { totalCount } }" }),
    });
    expect([graphql.status, await graphql.json()]).toEqual([
      401,
      unauthorized("Missing API key: send it as `Authorization: Bearer <key>`."),
    ]);
    const sql = await get("/sql/db?sql=select%201");
    expect([sql.status, sql.body]).toEqual([
      401,
      unauthorized("Missing API key: send it as `Authorization: Bearer <key>`."),
    ]);

    for (const key of [KEY_SUITE, KEY_ENV]) {
      const tokens = await get("/v1/tokens", bearer(key));
      expect([tokens.status, tokens.body.meta.total]).toEqual([200, 45]);
    }
    const withKey = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(KEY_SUITE) },
      body: JSON.stringify({ query: "{ tokens(limit: 1) { totalCount } }" }),
    });
    expect([withKey.status, await withKey.json()]).toEqual([
      200,
      { data: { tokens: { totalCount: 45 } } },
    ]);
  });

  test("health, readiness, status, metrics, the front page, the docs and logos stay open", async () => {
    for (const path of [
      "/",
      "/overview.json",
      "/overview.js",
      "/health",
      "/ready",
      "/status",
      "/metrics",
      "/metrics/api",
      "/docs",
      "/v1/openapi.json",
      "/v1/projects/uniswap-v2/logo.svg",
    ]) {
      expect({ path, status: (await get(path)).status }).toEqual({ path, status: 200 });
    }
  });
});

describe("request size", () => {
  test("a query just under Node's 16 KiB limit is answered by the API; one over it is a bodiless 431", async () => {
    const long = "a".repeat(15_000);
    const under = await get(`/v1/tokens?chainId=1&protocolSlug=${long}`, bearer(KEY_SUITE));
    expect({ status: under.status, body: under.body }).toEqual({
      status: 200,
      body: {
        data: [],
        meta: { currentPage: 1, lastPage: 1, next: null, perPage: 1000, prev: null, total: 0 },
      },
    });
    // Node refuses it before the API (and its OpenAPI contract) sees it: asked over plain HTTP.
    const over = await new Promise<{ status: number | undefined; body: string }>(
      (resolve, reject) => {
        const req = httpGet(
          `${service.url}/v1/tokens?chainId=1&protocolSlug=${"a".repeat(17_000)}`,
          { headers: bearer(KEY_SUITE) },
          (res) => {
            let body = "";
            res.on("data", (chunk: Buffer) => {
              body += chunk.toString();
            });
            res.on("end", () => resolve({ status: res.statusCode, body }));
          },
        );
        req.on("error", reject);
      },
    );
    expect(over).toEqual({ status: 431, body: "" });
  });
});

describe("a chain node that does not answer", () => {
  test("a simulation unanswered for API_RPC_TIMEOUT_MS is a 503 naming the chain", async () => {
    holdSimulations = true;
    const deployment = service.deployment;
    const usdc = deployment.tokens.find((t) => t.symbol === "USDC")?.address as string;
    const started = Date.now();
    const res = await get(
      `/v1/shortcuts/route?fromAddress=0x00000000000000000000000000000000000a11ce&tokenIn=${usdc}&tokenOut=${deployment.weth}&amountIn=1000000`,
      bearer(KEY_SUITE),
    );
    const elapsed = Date.now() - started;
    holdSimulations = false;
    expect({ status: res.status, body: res.body }).toEqual({
      status: 503,
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message: `The RPC node of chain ${deployment.chainId} did not answer the simulation. Retry shortly.`,
      },
    });
    // At least the timeout; well under the 10 s request deadline, which answers differently.
    expect(elapsed).toBeGreaterThanOrEqual(1500);
    expect(elapsed).toBeLessThan(10_000);
    expect(gate?.held()).toContain("eth_simulateV1");
    // The client hears "retry"; the operator's log says why, under the request's id.
    const requestId = res.headers.get("x-request-id");
    const line = () =>
      service
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{") && l.includes('"msg":"unavailable"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.requestId === requestId);
    await waitUntil("the unavailable log line was not written", async () => !!line(), {
      timeoutMs: 5_000,
      output: service.output,
      pollMs: 20,
    });
    const { time, error, ...rest } = line() as Record<string, unknown> & {
      error: { name: string; message: string; stack: string };
    };
    expect(Date.parse(String(time))).toBeGreaterThan(0);
    expect({ ...rest, error: { name: error.name, message: error.message } }).toEqual({
      level: "warn",
      msg: "unavailable",
      requestId,
      status: 503,
      message: `The RPC node of chain ${deployment.chainId} did not answer the simulation. Retry shortly.`,
      error: {
        name: "SimulationUnavailableError",
        message: "the chain node could not simulate: The request took too long to respond.",
      },
    });
  });
});

describe("rate limits", () => {
  test("a key's burst is served, then 429 with Retry-After; other keys are unaffected", async () => {
    expect((await get("/v1/standards", bearer(KEY_TIGHT))).status).toBe(200);
    expect((await get("/v1/standards", bearer(KEY_TIGHT))).status).toBe(200);
    const limited = await get("/v1/standards", bearer(KEY_TIGHT));
    // 0.2 requests per second: the next one is due 5 s after the first.
    expect([limited.status, limited.headers.get("retry-after"), limited.body]).toEqual([
      429,
      "5",
      {
        statusCode: 429,
        error: "Too Many Requests",
        message:
          "Rate limit exceeded: this API key may make 0.2 requests per second with bursts of 2. Retry in 5 s.",
        details: { rps: 0.2, burst: 2, retryAfterSeconds: 5 },
      },
    ]);
    expect((await get("/v1/standards", bearer(KEY_SUITE))).status).toBe(200);
  });
});

describe("request ids and logs", () => {
  test("every answer carries X-Request-Id; a caller's plain id is kept; one JSON line each", async () => {
    const generated = await get("/v1/standards/uniswap-v3", bearer(KEY_SUITE));
    expect(generated.headers.get("x-request-id")).toMatch(UUID);
    const kept = await get("/v1/standards/nope", {
      ...bearer(KEY_SUITE),
      "x-request-id": "ops-suite-0001",
    });
    expect([kept.status, kept.headers.get("x-request-id")]).toEqual([404, "ops-suite-0001"]);
    const refused = await get("/v1/tokens", { "x-request-id": "ops-suite-0002" });
    expect([refused.status, refused.headers.get("x-request-id")]).toEqual([401, "ops-suite-0002"]);

    // Lines are written as the response goes out: wait until the process's stdout has them.
    await waitUntil(
      "the request log lines of ops-suite-0001 and ops-suite-0002 were not written",
      async () => {
        const ids = requestLogs().map((l) => String(l.requestId));
        return ids.includes("ops-suite-0001") && ids.includes("ops-suite-0002");
      },
      { timeoutMs: 5_000, output: service.output, pollMs: 20 },
    );
    const lines = requestLogs().filter((l) => String(l.requestId).startsWith("ops-suite-"));
    expect(
      lines.map(({ time, durationMs, ...rest }) => {
        expect(Date.parse(String(time))).toBeGreaterThan(0);
        expect(typeof durationMs).toBe("number");
        return rest;
      }),
    ).toEqual([
      {
        level: "info",
        msg: "request",
        requestId: "ops-suite-0001",
        method: "GET",
        path: "/v1/standards/nope",
        route: "/v1/standards/:slug",
        status: 404,
        keyName: "suite",
      },
      {
        level: "info",
        msg: "request",
        requestId: "ops-suite-0002",
        method: "GET",
        path: "/v1/tokens",
        route: "/v1/tokens",
        status: 401,
      },
    ]);
    expect(requestLogs().some((l) => l.requestId === generated.headers.get("x-request-id"))).toBe(
      true,
    );
  });
});

describe("metrics", () => {
  test("/metrics/api counts requests by route and status, with latency, 401s, 429s and chain blocks", async () => {
    const before = (await get("/metrics/api")).body as string;
    for (let i = 0; i < 3; i++) await get("/v1/standards/uniswap-v2", bearer(KEY_SUITE));
    await get("/v1/standards/sushiswap", bearer(KEY_SUITE));
    await get("/v1/projects");
    await get("/v1/nope", bearer(KEY_SUITE));
    const after = (await get("/metrics/api")).body as string;
    const delta = (name: string, labels: Record<string, string>) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    const slug = { method: "GET", route: "/v1/standards/:slug" };
    expect({
      ok: delta("shortcuts_http_requests_total", { ...slug, status: "200" }),
      okLatency: delta("shortcuts_http_request_duration_seconds_count", { ...slug, status: "200" }),
      okUnder10s: delta("shortcuts_http_request_duration_seconds_bucket", {
        ...slug,
        status: "200",
        le: "10",
      }),
      notFound: delta("shortcuts_http_requests_total", { ...slug, status: "404" }),
      unauthorized: delta("shortcuts_http_requests_total", {
        method: "GET",
        route: "/v1/projects",
        status: "401",
      }),
      authFailures: delta("shortcuts_auth_failures_total", { reason: "missing" }),
      unmatched: delta("shortcuts_http_requests_total", {
        method: "GET",
        route: "unmatched",
        status: "404",
      }),
    }).toEqual({
      ok: 3,
      okLatency: 3,
      okUnder10s: 3,
      notFound: 1,
      unauthorized: 1,
      authFailures: 1,
      unmatched: 1,
    });
    // The burst test above spent the tight key's budget once.
    expect(sample(after, "shortcuts_rate_limited_total", { caller: "key" })).toBe(1);
    // Public labels name no key: neither the key nor the name it was given.
    expect(after.includes("tight")).toBe(false);

    const status = (await get("/status")).body as Record<string, { block: { number: number } }>;
    const indexed = Object.values(status)[0]?.block.number;
    const chain = { chain_id: String(service.deployment.chainId) };
    expect({
      indexed: sample(after, "shortcuts_indexed_block", chain),
      head: sample(after, "shortcuts_chain_head_block", chain),
      lag: sample(after, "shortcuts_snapshot_lag_blocks", chain),
    }).toEqual({ indexed, head: indexed, lag: 0 });
    // Ponder's own metrics are where they were.
    expect((await get("/metrics")).body).toContain("ponder_version_info");
  });

  test("API keys appear in no log line, no metric and no error body", async () => {
    const exposed = [
      service.output(),
      (await get("/metrics/api")).body as string,
      (await get("/metrics")).body as string,
      JSON.stringify((await get("/v1/tokens", bearer(`${KEY_SUITE}-wrong`))).body),
    ].join("\n");
    for (const key of [KEY_SUITE, KEY_TIGHT, KEY_ENV]) {
      expect(exposed.includes(key)).toBe(false);
    }
  });
});

describe("OpenAPI document", () => {
  test("covers every endpoint with its responses and errors; /v1 needs the bearer key", async () => {
    const { status, body } = await get("/v1/openapi.json");
    expect(status).toBe(200);
    const doc = body as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            responses: Record<string, unknown>;
            security?: unknown;
            parameters?: { name: string; required: boolean }[];
          }
        >
      >;
    };
    expect(doc.openapi).toBe("3.1.0");
    const operations = Object.entries(doc.paths)
      .filter(([path]) => !path.startsWith("/v1/shortcuts/"))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({
          op: `${method.toUpperCase()} ${path}`,
          responses: Object.keys(op.responses),
          bearer: op.security !== undefined,
        })),
      );
    const guarded = ["401", "429", "500", "503"];
    expect(operations).toEqual([
      { op: "GET /health", responses: ["200"], bearer: false },
      { op: "GET /ready", responses: ["200", "503"], bearer: false },
      { op: "GET /status", responses: ["200"], bearer: false },
      { op: "GET /metrics", responses: ["200"], bearer: false },
      {
        op: "POST /graphql",
        responses: ["200", "400", "401", "413", "429", "500", "503"],
        bearer: true,
      },
      { op: "GET /v1/openapi.json", responses: ["200", "500", "503"], bearer: false },
      { op: "GET /docs", responses: ["200", "500", "503"], bearer: false },
      { op: "GET /", responses: ["200", "500", "503"], bearer: false },
      { op: "GET /overview.json", responses: ["200", "500", "503"], bearer: false },
      { op: "GET /metrics/api", responses: ["200", "500", "503"], bearer: false },
      { op: "GET /v1/actions", responses: ["200", "400", ...guarded], bearer: true },
      {
        op: "GET /v1/actions/{slug}",
        responses: ["200", "400", "401", "404", "429", "500", "503"],
        bearer: true,
      },
      {
        op: "GET /v1/prices/{chainId}/{address}",
        responses: ["200", "400", "401", "404", "429", "500", "503"],
        bearer: true,
      },
      {
        op: "GET /v1/prices/{chainId}",
        responses: ["200", "400", "401", "404", "429", "500", "503"],
        bearer: true,
      },
      { op: "GET /v1/wallet/balances", responses: ["200", "400", ...guarded], bearer: true },
      { op: "GET /v1/networks", responses: ["200", "400", ...guarded], bearer: true },
      { op: "GET /v1/projects", responses: ["200", "400", ...guarded], bearer: true },
      {
        op: "GET /v1/projects/{id}/logo.svg",
        responses: ["200", "404", "500", "503"],
        bearer: false,
      },
      {
        op: "GET /v1/protocols",
        responses: ["200", "400", "401", "404", "429", "500", "503"],
        bearer: true,
      },
      { op: "GET /v1/standards", responses: ["200", "400", ...guarded], bearer: true },
      {
        op: "GET /v1/standards/{slug}",
        responses: ["200", "400", "401", "404", "429", "500", "503"],
        bearer: true,
      },
      { op: "GET /v1/tokens", responses: ["200", "400", ...guarded], bearer: true },
      {
        op: "GET /v1/wallet/approve",
        responses: ["200", "400", "401", "422", "429", "500", "503"],
        bearer: true,
      },
    ]);
    // Whatever lands under /v1/shortcuts carries the freshness 503 and the key requirement.
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.startsWith("/v1/shortcuts/")) continue;
      for (const op of Object.values(methods)) {
        expect({ path, has503: "503" in op.responses, bearer: op.security !== undefined }).toEqual({
          path,
          has503: true,
          bearer: true,
        });
      }
    }
    expect(doc.paths["/v1/tokens"]?.get?.responses["429"]).toEqual({
      description: "The API key's rate limit is exhausted.",
      headers: {
        "X-Request-Id": {
          description:
            "The request's id (the caller's own `X-Request-Id` when it sent a plain one).",
          required: true,
          schema: { type: "string" },
        },
        "Retry-After": {
          description: "Seconds until the key may make its next request.",
          required: true,
          schema: { type: "string", pattern: "^[0-9]+$" },
        },
      },
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    });
    const params = doc.paths["/v1/tokens"]?.get?.parameters ?? [];
    expect(params.map((p) => [p.name, p.required])).toEqual([
      ["chainId", false],
      ["address", false],
      ["protocolSlug", false],
      ["type", false],
      ["primayAddress", false],
      ["primaryAddress", false],
      ["underlyingTokens", false],
      ["page", false],
    ]);
  });
});

describe("reference page", () => {
  test("loads in a browser, lists the endpoints, and a try-it request to /v1/tokens succeeds", async () => {
    browser = await chromium.launch({ executablePath: ensureChromium(), args: ["--no-sandbox"] });
    const page = await browser.newPage();
    const foreign: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(service.url) && !r.url().startsWith("data:")) foreign.push(r.url());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    // What the page receives is checked against the document too.
    page.on("response", async (r) => {
      if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
      const body = await r.text().catch(() => undefined);
      if (body === undefined) return;
      recordResponse({
        method: r.request().method(),
        url: r.url(),
        status: r.status(),
        headers: await r.allHeaders(),
        body,
      });
    });

    await page.goto(`${service.url}/docs`);
    await page.locator(".opblock").first().waitFor();
    const listed = await page
      .locator(".opblock-summary")
      .evaluateAll((els) =>
        els.map(
          (el) =>
            `${el.querySelector(".opblock-summary-method")?.textContent} ${el.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`,
        ),
      );
    expect(listed.filter((op) => !op.includes("/v1/shortcuts/"))).toEqual([
      "GET /v1/actions",
      "GET /v1/actions/{slug}",
      "GET /v1/prices/{chainId}/{address}",
      "GET /v1/prices/{chainId}",
      "GET /v1/networks",
      "GET /v1/projects",
      "GET /v1/projects/{id}/logo.svg",
      "GET /v1/protocols",
      "GET /v1/standards",
      "GET /v1/standards/{slug}",
      "GET /v1/tokens",
      "GET /v1/wallet/balances",
      "GET /v1/wallet/approve",
      "GET /health",
      "GET /ready",
      "GET /status",
      "GET /metrics",
      "GET /v1/openapi.json",
      "GET /docs",
      "GET /",
      "GET /overview.json",
      "GET /metrics/api",
      "POST /graphql",
    ]);

    // Authorize with a key, as a user of a keyed deployment would.
    await page.locator(".auth-wrapper .authorize").click();
    await page.locator(".modal-ux input").fill(KEY_SUITE);
    await page.locator(".modal-ux .auth-btn-wrapper .authorize").click();
    await page.locator(".modal-ux .btn-done").click();

    const operation = page.locator("#operations-catalogue-listTokens");
    await operation.locator(".opblock-summary").click();
    await operation.locator("button.execute").click();
    const status = operation.locator(".live-responses-table .response .response-col_status");
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe("200");
    expect(await operation.locator(".request-url pre").textContent()).toBe(
      `${service.url}/v1/tokens`,
    );
    const shown = await operation
      .locator(".live-responses-table .response-col_description pre")
      .first()
      .textContent();
    const list = JSON.parse(shown ?? "") as { meta: { total: number }; data: { symbol: string }[] };
    expect(list.meta.total).toBe(45);
    expect(list.data.map((t) => t.symbol)).toContain("USDC");
    expect({ foreign, errors }).toEqual({ foreign: [], errors: [] });
  });
});
