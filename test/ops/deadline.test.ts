import { Hono } from "hono";
import { describe, expect, test } from "vitest";
import { handleError } from "../../src/api/errors.js";
import { requestDeadline } from "../../src/api/ops/deadline.js";

function appWith(handler: () => Promise<Response> | Response, timeoutMs: number) {
  const app = new Hono();
  app.use("*", requestDeadline({ timeoutMs }));
  app.get("/x", handler);
  app.onError(handleError);
  return app;
}

describe("requestDeadline", () => {
  test("a request that never completes is answered 503 at the deadline", async () => {
    const app = appWith(() => new Promise<Response>(() => {}), 50);
    const res = await app.request("/x");
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 503,
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message:
          "The request did not complete within 0.05 s: the database or the chain's node is not answering. Retry shortly.",
      },
    });
  });

  test("a request that completes in time is answered as it is, errors included", async () => {
    const ok = appWith(() => Response.json({ fine: true }), 5_000);
    const res = await ok.request("/x");
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: { fine: true },
    });
    const failing = appWith(() => {
      throw new Error("boom");
    }, 5_000);
    const failed = await failing.request("/x");
    expect(failed.status).toBe(500);
  });

  test("work that fails after the deadline has answered is not an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    try {
      let rejected: () => void = () => {};
      const lateRejection = new Promise<void>((resolve) => {
        rejected = resolve;
      });
      const app = appWith(
        () =>
          new Promise<Response>((_, reject) =>
            setTimeout(() => {
              reject(new Error("late"));
              rejected();
            }, 100),
          ),
        20,
      );
      expect((await app.request("/x")).status).toBe(503);
      // Node reports a rejection nobody handles once the microtasks after it have run, before
      // the event loop's next check phase: wait for the rejection, then for that phase.
      await lateRejection;
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
    }
  });
});
