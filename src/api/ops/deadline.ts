import { AsyncLocalStorage } from "node:async_hooks";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../errors.js";

const deadlines = new AsyncLocalStorage<AbortSignal>();

/**
 * Aborted once the request being answered has met its deadline (its reason: the 503 sent), for
 * work that runs on after the answer and should stop spending the node's time; undefined outside
 * a request.
 */
export function requestSignal(): AbortSignal | undefined {
  return deadlines.getStore();
}

/**
 * Answers 503 when a request has not completed within `timeoutMs`. A request waits on the
 * database and the chain's node; when one of them stops answering mid-request (a database
 * restarting, a connection it left open), the request would otherwise hang until the client
 * gives up. The work itself cannot be cancelled: it finishes, or fails, unseen; what checks
 * `requestSignal()` stops at its next step.
 */
export function requestDeadline(params: { timeoutMs: number }) {
  const seconds = params.timeoutMs / 1000;
  return createMiddleware(async (_c, next) => {
    let timer: NodeJS.Timeout | undefined;
    const abandoned = new AbortController();
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const answer = new ApiError(
          503,
          `The request did not complete within ${seconds} s: the database or the chain's node is not answering. Retry shortly.`,
        );
        reject(answer);
        abandoned.abort(answer);
      }, params.timeoutMs);
    });
    const work = deadlines.run(abandoned.signal, next);
    // Settled unseen once the deadline has answered.
    work.catch(() => {});
    try {
      await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  });
}
