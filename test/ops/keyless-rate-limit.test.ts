/**
 * An open service (no API keys) behind a proxy it trusts: every client address has its own
 * small budget on `/v1`, read from `X-Forwarded-For` because the peer (127.0.0.1) is listed in
 * TRUSTED_PROXIES; the front page, health checks, metrics and the OpenAPI document stay
 * unlimited, and the public metrics name no client.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ServiceInstance, startService } from "../harness/service.js";
import { sample } from "./prometheus.js";

let service: ServiceInstance;

beforeAll(async () => {
  service = await startService({
    database: "pglite",
    env: {
      KEYLESS_RATE_LIMIT_RPS: "0.5",
      KEYLESS_RATE_LIMIT_BURST: "3",
      TRUSTED_PROXIES: "127.0.0.1,::1",
    },
  });
});

afterAll(async () => {
  // Fails listing any answer (the 429s included) the OpenAPI document does not describe.
  await service?.stop();
});

const asClient = (client: string | undefined, path = "/v1/standards") =>
  fetch(`${service.url}${path}`, {
    headers: client === undefined ? {} : { "x-forwarded-for": client },
  });

describe("keyless clients behind a trusted proxy", () => {
  test("each client gets its burst, then 429 with Retry-After and the error body; others go on", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await asClient("198.51.100.1")).status);
    const limited = await asClient("198.51.100.1");
    expect([
      statuses,
      limited.status,
      limited.headers.get("retry-after"),
      await limited.json(),
    ]).toEqual([
      [200, 200, 200],
      429,
      // 0.5 requests per second: the next one is due 2 s after the first.
      "2",
      {
        statusCode: 429,
        error: "Too Many Requests",
        message:
          "Rate limit exceeded: a client without an API key may make 0.5 requests per second with bursts of 3. Retry in 2 s.",
        details: { rps: 0.5, burst: 3, retryAfterSeconds: 2 },
      },
    ]);
    // Another client behind the same proxy, and the proxy's own requests, have budgets of their own.
    expect((await asClient("198.51.100.2")).status).toBe(200);
    expect((await asClient(undefined)).status).toBe(200);
    // GraphQL is limited with /v1.
    const graphql = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.1" },
      body: JSON.stringify({ query: "{ tokens(limit: 1) { totalCount } }" }),
    });
    expect([graphql.status, graphql.headers.get("retry-after")]).toEqual([429, "2"]);
  });

  test("the front page, health, metrics and the OpenAPI document are not limited", async () => {
    for (const path of ["/", "/overview.json", "/health", "/metrics/api", "/v1/openapi.json"]) {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await asClient("198.51.100.1", path)).status);
      expect({ path, statuses }).toEqual({ path, statuses: [200, 200, 200, 200, 200] });
    }
  });

  test("/metrics/api counts keyless 429s without naming a client; the document describes the 429", async () => {
    const text = await (await fetch(`${service.url}/metrics/api`)).text();
    expect(sample(text, "shortcuts_rate_limited_total", { caller: "keyless" })).toBe(2);
    expect(text.includes("198.51.100")).toBe(false);
    const doc = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    expect(doc.paths["/v1/tokens"]?.get?.responses["429"]?.description).toBe(
      "The client's rate limit (per address, without an API key) is exhausted.",
    );
    expect(doc.paths["/v1/openapi.json"]?.get?.responses["429"]).toBeUndefined();
  });
});
