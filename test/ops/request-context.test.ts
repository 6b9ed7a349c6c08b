import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { errorBody } from "../../src/api/errors.js";
import type { OpsEnv } from "../../src/api/ops/context.js";
import { setLogSink } from "../../src/api/ops/log.js";
import { metrics } from "../../src/api/ops/metrics.js";
import { requestContext } from "../../src/api/ops/request-context.js";
import { requestsInFlight } from "../../src/api/ops/shutdown.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let lines: Record<string, unknown>[] = [];
let restore: ReturnType<typeof setLogSink>;
beforeEach(() => {
  lines = [];
  restore = setLogSink((line) => lines.push(JSON.parse(line)));
});
afterEach(() => {
  setLogSink(restore);
});

function app() {
  const standards = new Hono().get("/:slug", (c) =>
    c.req.param("slug") === "nope"
      ? c.json(errorBody(404, "Unknown protocol `nope`."), 404)
      : c.json({ slug: c.req.param("slug") }),
  );
  return new Hono<OpsEnv>()
    .use("*", requestContext({ logRequests: true }))
    .use("/v1/*", async (c, next) => {
      c.set("apiKey", { name: "acme", rps: 1, burst: 1 });
      await next();
    })
    .route("/v1/standards", standards)
    .all("*", (c) => c.json(errorBody(404, `No route for ${c.req.method} ${c.req.path}.`), 404));
}

async function requestCount(labels: { method: string; route: string; status: string }) {
  const values = (await metrics.requests.get()).values;
  return (
    values.find(
      (v) =>
        v.labels.method === labels.method &&
        v.labels.route === labels.route &&
        v.labels.status === labels.status,
    )?.value ?? 0
  );
}

describe("request context", () => {
  test("gives each request an id, sent back in X-Request-Id and logged with the route", async () => {
    const res = await app().request("/v1/standards/uniswap-v2");
    expect(res.status).toBe(200);
    const id = res.headers.get("x-request-id") ?? "";
    expect(id).toMatch(UUID);
    expect(lines).toHaveLength(1);
    const { time, durationMs, ...line } = lines[0] ?? {};
    expect(typeof time).toBe("string");
    expect(typeof durationMs).toBe("number");
    expect(line).toEqual({
      level: "info",
      msg: "request",
      requestId: id,
      method: "GET",
      path: "/v1/standards/uniswap-v2",
      route: "/v1/standards/:slug",
      status: 200,
      keyName: "acme",
    });
    expect(requestsInFlight()).toBe(0);
  });

  test("keeps a caller's plain request id and replaces any other", async () => {
    const kept = await app().request("/v1/standards/x", {
      headers: { "x-request-id": "lb-7f3a.0001:edge" },
    });
    expect(kept.headers.get("x-request-id")).toBe("lb-7f3a.0001:edge");
    for (const bad of ["has space", "x".repeat(129), "semi;colon"]) {
      const replaced = await app().request("/v1/standards/x", { headers: { "x-request-id": bad } });
      expect(replaced.headers.get("x-request-id")).toMatch(UUID);
    }
  });

  test("counts requests by method, route pattern and status; unknown paths as unmatched", async () => {
    const ok = { method: "GET", route: "/v1/standards/:slug", status: "200" };
    const missing = { method: "GET", route: "/v1/standards/:slug", status: "404" };
    const unmatched = { method: "POST", route: "unmatched", status: "404" };
    const before = [
      await requestCount(ok),
      await requestCount(missing),
      await requestCount(unmatched),
    ];
    await app().request("/v1/standards/a");
    await app().request("/v1/standards/b");
    await app().request("/v1/standards/nope");
    await app().request("/v1/anything/else", { method: "POST" });
    expect([
      await requestCount(ok),
      await requestCount(missing),
      await requestCount(unmatched),
    ]).toEqual([(before[0] ?? 0) + 2, (before[1] ?? 0) + 1, (before[2] ?? 0) + 1]);
    expect(lines.map((l) => [l.path, l.route, l.status])).toEqual([
      ["/v1/standards/a", "/v1/standards/:slug", 200],
      ["/v1/standards/b", "/v1/standards/:slug", 200],
      ["/v1/standards/nope", "/v1/standards/:slug", 404],
      ["/v1/anything/else", "unmatched", 404],
    ]);
  });
});
