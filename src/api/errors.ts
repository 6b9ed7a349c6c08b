import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** The JSON body of every non-2xx answer. */
export type ErrorBody = {
  statusCode: number;
  error: string;
  message: string;
  details?: Record<string, unknown>;
};

/** An error meant for the client: its status, one clear sentence, and optional details. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly statusCode: ContentfulStatusCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return errorBody(this.statusCode, this.message, this.details);
  }
}

export function errorBody(
  statusCode: number,
  message: string,
  details?: Record<string, unknown>,
): ErrorBody {
  return {
    statusCode,
    error: REASONS[statusCode] ?? "Error",
    message,
    ...(details ? { details } : {}),
  };
}

/** Hono `onError`: client errors as they are, anything else as an opaque 500 (logged). */
export function handleError(error: Error, c: Context): Response {
  if (error instanceof ApiError) return c.json(error.toBody(), error.statusCode);
  console.error(error);
  return c.json(errorBody(500, "Internal error; the request was not processed."), 500);
}

export function handleNotFound(c: Context): Response {
  return c.json(errorBody(404, `No route for ${c.req.method} ${c.req.path}.`), 404);
}
