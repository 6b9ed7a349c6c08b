/**
 * The gate in front of GraphQL: at most `max` requests run at once, the next is a 503 at once
 * (not queued), and a slot comes back when its request ends, answered or failed.
 */
import { Hono } from "hono";
import { describe, expect, test } from "vitest";
import { concurrencyGate } from "../../src/api/analytics/concurrency-gate.js";

/** A handler whose requests each wait until the test lets them finish. */
function heldHandler() {
  const waiting: (() => void)[] = [];
  let started = 0;
  const app = new Hono();
  app.use("/q", concurrencyGate({ max: 2, what: "GraphQL queries" }));
  app.post("/q", async (c) => {
    started += 1;
    const fail = c.req.query("fail") === "1";
    await new Promise<void>((resolve) => waiting.push(resolve));
    if (fail) throw new Error("the query failed");
    return c.json({ ok: true });
  });
  app.onError((_, c) => c.json({ failed: true }, 500));
  return {
    app,
    started: () => started,
    /** Lets the oldest held request finish. */
    release: () => waiting.shift()?.(),
  };
}

/** Waits (bounded) until `count` requests have reached the handler. */
async function untilStarted(started: () => number, count: number): Promise<void> {
  for (let i = 0; i < 1_000 && started() < count; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(started()).toBe(count);
}

describe("concurrencyGate", () => {
  test("two run, the third is a 503 at once with Retry-After; a slot frees when a request ends, answered or failed", async () => {
    const h = heldHandler();
    const first = h.app.request("/q", { method: "POST" });
    const second = h.app.request("/q?fail=1", { method: "POST" });
    await untilStarted(h.started, 2);

    const refused = await h.app.request("/q", { method: "POST" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message: "All 2 slots for GraphQL queries are busy: retry shortly.",
    });
    expect(h.started()).toBe(2);

    // The failing request ends: its slot is free again.
    h.release();
    h.release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(500);
    const third = h.app.request("/q", { method: "POST" });
    const fourth = h.app.request("/q", { method: "POST" });
    await untilStarted(h.started, 4);
    h.release();
    h.release();
    expect([(await third).status, (await fourth).status]).toEqual([200, 200]);
  });

  test("a maximum below 1 is refused when the service is set up", () => {
    expect(() => concurrencyGate({ max: 0, what: "GraphQL queries" })).toThrow(
      "max must be at least 1, got 0",
    );
  });
});
