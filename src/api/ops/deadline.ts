import { createMiddleware } from "hono/factory";
import { ApiError } from "../errors.js";

/**
 * Answers 503 when a request has not completed within `timeoutMs`. A request waits on the
 * database and the chain's node; when one of them stops answering mid-request (a database
 * restarting, a connection it left open), the request would otherwise hang until the client
 * gives up. The work itself cannot be cancelled: it finishes, or fails, unseen.
 */
export function requestDeadline(params: { timeoutMs: number }) {
  const seconds = params.timeoutMs / 1000;
  return createMiddleware(async (_c, next) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ApiError(
              503,
              `The request did not complete within ${seconds} s: the database or the chain's node is not answering. Retry shortly.`,
            ),
          ),
        params.timeoutMs,
      );
    });
    const work = next();
    // Settled unseen once the deadline has answered.
    work.catch(() => {});
    try {
      await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  });
}
