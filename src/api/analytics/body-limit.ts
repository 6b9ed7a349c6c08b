/**
 * The request-body cap of the analysts' endpoints: GraphQL's server reads whatever it is sent
 * into memory before it looks at it (a 480 MB body was read and answered 200).
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { errorBody } from "../errors.js";

export type AnalyticsBodyLimitParameters = {
  /** Longest body read, in bytes (declared by Content-Length or counted as it streams). */
  maxBytes: number;
};

/** Answers 413 (DESIGN §5 error body) to a body over `maxBytes`, before any of it is parsed. */
export function analyticsBodyLimit({ maxBytes }: AnalyticsBodyLimitParameters): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      c.json(
        errorBody(
          413,
          `The request body is larger than ${maxBytes} bytes, the most accepted here.`,
        ),
        413,
      ),
  });
}
