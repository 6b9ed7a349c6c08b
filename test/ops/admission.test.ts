/**
 * The admission of routes and bundles: at most `concurrency` run at once, the next ones wait in
 * arrival order, and one that finds the wait full, or waits longer than `maxWaitMs`, is a 503
 * with Retry-After. A slot comes back when its request ends, answered or failed.
 */
import { Hono } from "hono";
import { describe, expect, test } from "vitest";
import { admission, yieldWhileBehind } from "../../src/api/ops/admission.js";
import { type ChainLag, metrics } from "../../src/api/ops/metrics.js";

/** A handler whose requests each wait until the test lets them finish, in the order they began. */
function heldHandler(maxWaitMs = 60_000) {
  const held: { id: string; finish: () => void }[] = [];
  const app = new Hono();
  const gate = admission({
    concurrency: 2,
    concurrencyWhileBehind: 1,
    maxWaiting: 2,
    maxWaitMs,
    what: "routes",
  });
  app.use("/r", gate.gate);
  app.get("/r", async (c) => {
    const id = c.req.query("id") ?? "";
    await new Promise<void>((finish) => held.push({ id, finish }));
    if (c.req.query("fail") === "1") throw new Error("the route failed");
    return c.json({ id });
  });
  app.onError((_, c) => c.json({ failed: true }, 500));
  return {
    app,
    yieldTo: gate.yieldTo,
    /** The ids of the requests running now, in the order they began. */
    running: () => held.map((h) => h.id),
    /** Lets the oldest running request finish. */
    finish: () => held.shift()?.finish(),
  };
}

/** Lets every ready callback run (bounded), so that admitted requests reach the handler. */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("admission of routes and bundles", () => {
  test("two run, two wait and start in arrival order as slots free (a failed request frees its slot too); a fifth is a 503 at once", async () => {
    const h = heldHandler();
    const a = h.app.request("/r?id=a&fail=1");
    const b = h.app.request("/r?id=b");
    const c = h.app.request("/r?id=c");
    const d = h.app.request("/r?id=d");
    await settle();
    expect(h.running()).toEqual(["a", "b"]);
    expect(await metrics.admissionWaiting.get()).toMatchObject({ values: [{ value: 2 }] });

    const refusedBefore = (await metrics.admissionRefused.get()).values[0]?.value ?? 0;
    const refused = await h.app.request("/r?id=e");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message:
        "The service is at capacity for routes: 2 run at once and 2 wait (at most 2, each at most 60000 ms). Retry shortly.",
      details: { concurrency: 2, waiting: 2, maxWaiting: 2, maxWaitMs: 60_000 },
    });
    expect((await metrics.admissionRefused.get()).values[0]?.value).toBe(refusedBefore + 1);

    // `a` fails: its slot goes to `c`, the first to wait.
    h.finish();
    expect((await a).status).toBe(500);
    await settle();
    expect(h.running()).toEqual(["b", "c"]);
    h.finish();
    expect(await (await b).json()).toEqual({ id: "b" });
    await settle();
    expect(h.running()).toEqual(["c", "d"]);
    expect(await metrics.admissionWaiting.get()).toMatchObject({ values: [{ value: 0 }] });
    h.finish();
    h.finish();
    expect([await (await c).json(), await (await d).json()]).toEqual([{ id: "c" }, { id: "d" }]);

    // Every slot is free again: two run at once without waiting.
    const f = h.app.request("/r?id=f");
    const g = h.app.request("/r?id=g");
    await settle();
    expect(h.running()).toEqual(["f", "g"]);
    h.finish();
    h.finish();
    expect([(await f).status, (await g).status]).toEqual([200, 200]);
  });

  test("a request that waits longer than maxWaitMs is a 503 and leaves the wait; the next one waits again", async () => {
    const h = heldHandler(100);
    const a = h.app.request("/r?id=a");
    const b = h.app.request("/r?id=b");
    await settle();
    const started = Date.now();
    const late = await h.app.request("/r?id=c");
    expect(Date.now() - started).toBeGreaterThanOrEqual(99);
    expect(late.status).toBe(503);
    expect(await late.json()).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message:
        "The service is at capacity for routes: 2 run at once and 0 wait (at most 2, each at most 100 ms). Retry shortly.",
      details: { concurrency: 2, waiting: 0, maxWaiting: 2, maxWaitMs: 100 },
    });
    expect(h.running()).toEqual(["a", "b"]);

    const d = h.app.request("/r?id=d");
    await settle();
    h.finish();
    await settle();
    // `c` left the wait when it was refused: the freed slot goes to `d`.
    expect(h.running()).toEqual(["b", "d"]);
    h.finish();
    h.finish();
    expect([(await a).status, (await b).status, (await d).status]).toEqual([200, 200, 200]);
  });

  test("while the index is behind only one runs: freed slots stay free until it has caught up, then the waiting requests start together", async () => {
    const h = heldHandler();
    h.yieldTo(true);
    expect(await metrics.admissionYielding.get()).toMatchObject({ values: [{ value: 1 }] });
    const a = h.app.request("/r?id=a");
    const b = h.app.request("/r?id=b");
    const c = h.app.request("/r?id=c");
    await settle();
    expect(h.running()).toEqual(["a"]);
    const refused = await h.app.request("/r?id=d");
    expect(await refused.json()).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message:
        "The service is at capacity for routes: 1 run at once while the index catches up with the chain and 2 wait (at most 2, each at most 60000 ms). Retry shortly.",
      details: { concurrency: 1, waiting: 2, maxWaiting: 2, maxWaitMs: 60_000 },
    });
    h.finish();
    expect((await a).status).toBe(200);
    await settle();
    expect(h.running()).toEqual(["b"]);
    // Caught up: both slots at once, the second to the request still waiting.
    h.yieldTo(false);
    await settle();
    expect(h.running()).toEqual(["b", "c"]);
    expect(await metrics.admissionYielding.get()).toMatchObject({ values: [{ value: 0 }] });
    h.finish();
    h.finish();
    expect([(await b).status, (await c).status]).toEqual([200, 200]);
  });

  test("the watch yields while a chain's routing data is lagBlocks or more behind, not when its head cannot be read, and opens the gate when stopped", async () => {
    const lagOf = (chainId: number, lagBlocks: bigint): ChainLag => ({
      chainId,
      indexedBlock: 100n,
      snapshotBlock: 100n,
      headBlock: 100n + lagBlocks,
      lagBlocks,
      lagSeconds: lagBlocks,
    });
    // Each check of the watch reads the next of these.
    const answers: (() => Promise<ChainLag[]>)[] = [
      async () => [lagOf(1, 0n), lagOf(2, 2n)],
      async () => [lagOf(1, 0n), lagOf(2, 3n)],
      async () => {
        throw new Error("the RPC did not answer");
      },
      async () => [lagOf(1, 4n)],
    ];
    const told: boolean[] = [];
    const checked = new Promise<void>((resolve) => {
      const stop = yieldWhileBehind({
        admission: {
          gate: async (_, next) => next(),
          active: () => 1,
          yieldTo: (behind) => {
            told.push(behind);
            if (told.length === answers.length) {
              stop();
              resolve();
            }
          },
        },
        chainLags: () => (answers[told.length] as () => Promise<ChainLag[]>)(),
        lagBlocks: 3,
        everyMs: 1,
      });
    });
    await checked;
    // The four checks, then the stop.
    expect(told).toEqual([false, true, false, true, false]);
  });

  test("the watch reads no head while no request runs or waits, and yields once one does while the index is behind", async () => {
    const gate = admission({
      concurrency: 2,
      concurrencyWhileBehind: 1,
      maxWaiting: 2,
      maxWaitMs: 60_000,
      what: "routes",
    });
    const app = new Hono();
    app.use("/r", gate.gate);
    app.get("/r", async (c) => {
      await new Promise<void>((finish) => held.push(finish));
      return c.json({});
    });
    const held: (() => void)[] = [];
    let reads = 0;
    const told: boolean[] = [];
    const stop = yieldWhileBehind({
      admission: {
        ...gate,
        yieldTo: (behind) => {
          told.push(behind);
          gate.yieldTo(behind);
        },
      },
      chainLags: async () => {
        reads += 1;
        return [
          {
            chainId: 1,
            indexedBlock: 100n,
            snapshotBlock: 100n,
            headBlock: 110n,
            lagBlocks: 10n,
            lagSeconds: 10n,
          },
        ];
      },
      lagBlocks: 3,
      everyMs: 1,
    });
    // Idle: ten checks and more, not one read, never behind.
    while (told.length < 10) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(reads).toBe(0);
    expect(told.every((behind) => !behind)).toBe(true);
    // A request in flight: the lag is read, and the gate yields.
    const first = app.request("/r");
    await settle();
    while (!told.at(-1)) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(reads).toBeGreaterThan(0);
    expect(gate.active()).toBe(1);
    held.shift()?.();
    expect((await first).status).toBe(200);
    stop();
  });

  test("a concurrency below 1 is refused when the service is set up", () => {
    const settings = { concurrency: 2, concurrencyWhileBehind: 1, maxWaiting: 1, maxWaitMs: 1 };
    expect(() => admission({ ...settings, concurrency: 0, what: "routes" })).toThrow(
      "concurrency must be at least 1, got 0",
    );
    expect(() => admission({ ...settings, concurrencyWhileBehind: 0, what: "routes" })).toThrow(
      "concurrencyWhileBehind must be at least 1, got 0",
    );
  });
});
