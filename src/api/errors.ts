import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { EngineError, type EngineErrorType } from "../../engine/index.js";

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

/**
 * The status each failure of the core answers with: the one place where core errors meet HTTP.
 * Keyed by the classes' names, so a new class fails to compile until it is given a status.
 */
export const ENGINE_ERROR_STATUS = {
  InvalidArgumentError: 400,
  MissingArgumentError: 400,
  UnknownActionError: 400,
  UnknownPoolError: 400,
  UnsupportedOnChainError: 400,
  UnknownTokenError: 404,
  NoRouteError: 422,
  InsufficientLiquidityError: 422,
  UnsupportedByStrategyError: 422,
  InputNotSimulatableError: 422,
  SimulationRevertedError: 422,
  QuoteNotDeliveredError: 422,
  UnsafePositionError: 422,
  ChainUnavailableError: 503,
  ExecutionNotDeployedError: 503,
  // The engine's own assembly is wrong: the service's fault, never the client's.
  UnknownPoolKindError: 500,
  PoolKindConflictError: 500,
  DuplicateProtocolError: 500,
  ForeignGraphError: 500,
} as const satisfies Record<EngineErrorType["name"], ContentfulStatusCode>;

/** A core failure as the client sees it: its status, its message and its details. */
export function engineApiError(error: EngineError): ApiError {
  return new ApiError(ENGINE_ERROR_STATUS[error.name], error.message, error.details);
}

/** Postgres SQLSTATEs of a lost or refused connection: class 08 and the server shutting down. */
const CONNECTION_SQLSTATE = /^(08...|57P0[123])$/;
/** Socket errors of a database that is down or restarting. */
const CONNECTION_ERRNO = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"]);
/** What node-postgres and its pool throw when the server goes away or never answers. */
const CONNECTION_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * The 503 for an error that says the database cannot be reached (down, restarting, refusing
 * connections), looking through `cause`s; undefined for any other error.
 */
export function databaseUnavailable(error: unknown): ApiError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    const lost =
      (typeof code === "string" &&
        (CONNECTION_SQLSTATE.test(code) || CONNECTION_ERRNO.has(code))) ||
      CONNECTION_MESSAGE.test(e.message);
    if (lost) {
      return new ApiError(
        503,
        "The database is unreachable, so the request cannot be answered. Retry shortly.",
      );
    }
  }
  return undefined;
}

/** The answer meant for the client that `error` carries (an ApiError or a core failure), if any. */
export function clientError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineError) return engineApiError(error);
  return undefined;
}

/** Hono `onError`: client errors as they are, anything else as an opaque 500 (logged). */
export function handleError(error: Error, c: Context): Response {
  const client = clientError(error);
  if (client) return c.json(client.toBody(), client.statusCode);
  console.error(error);
  return c.json(errorBody(500, "Internal error; the request was not processed."), 500);
}

export function handleNotFound(c: Context): Response {
  return c.json(errorBody(404, `No route for ${c.req.method} ${c.req.path}.`), 404);
}
