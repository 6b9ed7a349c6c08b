/**
 * How many analysts' requests run at once. On Postgres GraphQL has a pool of its own, and a
 * request beyond its size would only wait for a connection; on PGlite every query runs on the
 * service's own thread, so many slow GraphQL queries at once would starve `/v1` and the
 * indexer. A request that finds every slot taken is refused at once (503) rather than queued, so a burst
 * never builds a backlog the pool would then work through.
 */
import type { MiddlewareHandler } from "hono";
import { errorBody } from "../errors.js";

export type ConcurrencyGateParameters = {
  /** Requests that may run at once (at least 1). */
  max: number;
  /** What the refused requests are, for the 503's message (e.g. "GraphQL queries"). */
  what: string;
};

/** Runs at most `max` requests through the next handlers at once; answers 503 beyond. */
export function concurrencyGate({ max, what }: ConcurrencyGateParameters): MiddlewareHandler {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be at least 1, got ${max}`);
  let running = 0;
  return async (c, next) => {
    if (running >= max) {
      c.header("Retry-After", "1");
      return c.json(errorBody(503, `All ${max} slots for ${what} are busy: retry shortly.`), 503);
    }
    running += 1;
    try {
      await next();
    } finally {
      running -= 1;
    }
  };
}
