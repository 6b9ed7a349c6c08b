import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import { errorBody } from "../errors.js";
import type { OpsEnv } from "./context.js";
import { log } from "./log.js";
import { metrics } from "./metrics.js";
import { enterRequest, isDraining } from "./shutdown.js";

/** A caller's (or load balancer's) request id is kept when it is a plain token. */
const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The route pattern that answers the request, as a bounded metrics label: the first route
 * registered for the request's method (`/v1/standards/:slug`), else the middleware mount that
 * answered (`/graphql`, `/sql/*`), else `unmatched`.
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  const method = c.req.method === "HEAD" ? "GET" : c.req.method;
  const handler = routes.find((r) => r.method === method);
  if (handler) return handler.path;
  const answered = routes[c.req.routeIndex];
  if (answered && answered.path !== "*" && answered.path !== "/*") return answered.path;
  return "unmatched";
}

/**
 * First in the API's chain: gives the request an id (`X-Request-Id`, echoed), refuses it
 * while shutting down, counts it in flight until its response is written, and records the
 * metrics and one JSON access-log line.
 */
export function requestContext(params: { logRequests: boolean }) {
  return createMiddleware<OpsEnv>(async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", requestId);
    if (isDraining()) {
      return c.json(errorBody(503, "The service is shutting down; retry the request."), 503, {
        Connection: "close",
        "Retry-After": "1",
        "X-Request-Id": requestId,
      });
    }
    const started = performance.now();
    const release = enterRequest(c.env?.incoming?.socket);
    metrics.inFlight.inc();
    try {
      await next();
    } finally {
      c.res.headers.set("X-Request-Id", requestId);
      // A body left unread (the request was refused before its handler read it: 413, a bad
      // query, 401, 429, 503) makes the Node adapter destroy the socket just after the answer;
      // a client reusing the connection would see its next request reset. Close it cleanly.
      const incoming = c.env?.incoming;
      if (incoming && !incoming.readableEnded && c.req.method !== "GET" && c.req.method !== "HEAD")
        c.res.headers.set("Connection", "close");
      const seconds = (performance.now() - started) / 1000;
      const labels = {
        method: c.req.method,
        route: routeLabel(c),
        status: String(c.res.status),
      };
      metrics.requests.inc(labels);
      metrics.requestDuration.observe(labels, seconds);
      if (params.logRequests) {
        const key = c.get("apiKey");
        log("info", "request", {
          requestId,
          method: c.req.method,
          path: c.req.path,
          route: labels.route,
          status: c.res.status,
          durationMs: Math.round(seconds * 1e6) / 1e3,
          ...(key ? { keyName: key.name } : {}),
        });
      }
      // In flight until the response is written out, not just built.
      const outgoing = c.env?.outgoing;
      const done = () => {
        metrics.inFlight.dec();
        release();
      };
      if (outgoing && !outgoing.writableFinished) outgoing.once("close", done);
      else done();
    }
  });
}
