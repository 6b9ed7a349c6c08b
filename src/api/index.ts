import { db } from "ponder:api";
import schema from "ponder:schema";
import { Hono } from "hono";
import { Redis } from "ioredis";
import { client, graphql } from "ponder";
import { servedChains } from "../../chains.js";
import { config as readSettings } from "../../config.js";
import packageJson from "../../package.json";
import { rpcClient } from "./chain/clients.js";
import {
  clientError,
  databaseUnavailable,
  errorBody,
  handleError,
  handleNotFound,
} from "./errors.js";
import { describeMiddleware, errorResponse } from "./openapi/registry.js";
import { openApiRoutes } from "./openapi/routes.js";
import { loadKeyRing, requireApiKey } from "./ops/auth.js";
import type { OpsEnv } from "./ops/context.js";
import { requestDeadline } from "./ops/deadline.js";
import { createFreshness } from "./ops/freshness.js";
import { errorFields, log } from "./ops/log.js";
import { snapshotBlockOf, watchChainLag } from "./ops/metrics.js";
import { createMemoryRateLimiter, createRedisRateLimiter, rateLimit } from "./ops/rate-limit.js";
import { requestContext } from "./ops/request-context.js";
import { opsRoutes } from "./ops/routes.js";
import { installGracefulShutdown } from "./ops/shutdown.js";
import { indexedBlocks, requireIndexReady } from "./readiness.js";
import { buildSnapshots } from "./snapshot/snapshot.js";
import { bundle } from "./v1/bundle.js";
import { projects } from "./v1/projects.js";
import { shortcuts } from "./v1/route.js";
import { standards } from "./v1/standards.js";
import { tokens } from "./v1/tokens.js";
import { wallet } from "./v1/wallet.js";

// ── Configuration (README.md lists every variable) ─────────────────────────────────────────
const config = readSettings();
const keys = loadKeyRing({
  apiKeys: config.apiKeys,
  keysFile: config.apiKeysFile,
  defaults: config.rateLimit,
});
const limiter = (() => {
  const local = createMemoryRateLimiter();
  if (!config.redis) return local;
  const redis = new Redis(config.redis.url, {
    commandTimeout: config.redis.timeoutMs,
    // Fail fast while disconnected: the check falls back to this replica's own budget.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  let lastError = 0;
  redis.on("error", (error) => {
    if (Date.now() - lastError < 10_000) return;
    lastError = Date.now();
    log("warn", "Redis connection error", errorFields(error));
  });
  return createRedisRateLimiter({ redis, prefix: config.redis.prefix, fallback: local });
})();
const freshness = createFreshness({
  maxLagBlocks: config.maxLagBlocks,
  headCacheMs: config.chainHeadCacheMs,
  indexedBlocks,
  headBlock: async (chainName) => {
    const chain = servedChains().find((c) => c.name === chainName);
    if (!chain) throw new Error(`no RPC client for chain ${chainName}`);
    return await rpcClient(chain).getBlockNumber({ cacheTime: 0 });
  },
  snapshotBlock: snapshotBlockOf,
});
watchChainLag(() => freshness.chainLags());
installGracefulShutdown({ timeoutMs: config.shutdownTimeoutMs });

// Every chain's routing graph is loaded before this module finishes, and Ponder starts the
// server (and `/ready`) only after: no request ever meets a graph that is still loading.
await buildSnapshots();

/** Longest a `/v1` request may take before it is answered with a 503. */
const REQUEST_DEADLINE_MS = 10_000;

const app = new Hono<OpsEnv>();

// ── Every request: id, in-flight tracking, metrics, access log ─────────────────────────────
app.use("*", requestContext({ logRequests: config.logRequests }));
describeMiddleware({
  name: "requestContext",
  paths: ["/*"],
  headers: {
    "X-Request-Id": {
      description: "The request's id (the caller's own `X-Request-Id` when it sent a plain one).",
      required: true,
    },
  },
  responses: {
    500: errorResponse("A bug: `details.requestId` finds the log line."),
    503: errorResponse("The service is shutting down; retry (another replica answers)."),
  },
});

// A request the database or the node leaves hanging gets a 503 instead of no answer.
app.use("/v1/*", requestDeadline({ timeoutMs: REQUEST_DEADLINE_MS }));

// ── API keys and rate limits (DESIGN §5): /v1, GraphQL and SQL; open when no keys exist ────
const isPublic = (path: string) =>
  path === "/v1/openapi.json" || /^\/v1\/projects\/[^/]+\/logo\.svg$/.test(path);
for (const path of ["/v1/*", "/graphql", "/sql/*"]) {
  app.use(path, requireApiKey({ keys, isPublic }), rateLimit({ limiter }));
}
if (keys.size > 0) {
  const guarded = {
    paths: ["/v1/*", "/graphql"],
    except: ["/v1/openapi.json", "/v1/projects/{id}/logo.svg"],
  };
  describeMiddleware({
    name: "apiKey",
    ...guarded,
    bearerAuth: true,
    responses: { 401: errorResponse("The API key is missing, malformed or unknown.") },
  });
  describeMiddleware({
    name: "rateLimit",
    ...guarded,
    responses: {
      429: errorResponse("The API key's rate limit is exhausted.", {
        "Retry-After": {
          description: "Seconds until the key may make its next request.",
          schema: { type: "string", pattern: "^[0-9]+$" },
          required: true,
        },
      }),
    },
  });
}

// Analysts: GraphQL and SQL over HTTP on the indexed tables, as Ponder provides them.
app.use("/graphql", graphql({ db, schema }));
app.use("/sql/*", client({ db, schema }));

// ── Readiness and freshness ────────────────────────────────────────────────────────────────
app.use("/v1/tokens", requireIndexReady);
app.use("/v1/projects", requireIndexReady);
// Readiness first: while the backfill runs, "still backfilling" says more than a lag in blocks.
app.use("/v1/shortcuts/*", requireIndexReady);
describeMiddleware({
  name: "indexReady",
  paths: ["/v1/tokens", "/v1/projects", "/v1/shortcuts/*"],
  responses: { 503: errorResponse("The indexer has not caught up with the chain yet.") },
});
app.use("/v1/shortcuts/*", freshness.guard);
describeMiddleware({
  name: "freshness",
  paths: ["/v1/shortcuts/*"],
  responses: {
    503: errorResponse(
      `The routing data lags the chain head by more than MAX_LAG_BLOCKS (${config.maxLagBlocks}) blocks, or the chain's RPC does not answer.`,
    ),
  },
});

// ── Endpoints ──────────────────────────────────────────────────────────────────────────────
app.route("/", opsRoutes);
app.route(
  "/",
  openApiRoutes({
    info: {
      title: "DeFi shortcuts API",
      version: packageJson.version,
      description:
        "Tokens, protocols and projects of a chain indexed by this service, and (as they land) routes and bundles returned as unsigned transactions. Errors are JSON `{ statusCode, error, message, details? }`. When the operator configures API keys, `/v1` endpoints need `Authorization: Bearer <key>`.",
    },
  }),
);
app.route("/v1/tokens", tokens);
app.route("/v1/standards", standards);
app.route("/v1/projects", projects);
// ── /v1/shortcuts endpoints mount here ─────────────────────────────────────────────────────
app.route("/v1/shortcuts", shortcuts);
app.route("/v1/shortcuts", bundle);
// ───────────────────────────────────────────────────────────────────────────────────────────
// Reads only the chain (no index): neither readiness nor freshness applies.
app.route("/v1/wallet", wallet);

// Ponder answers its own paths (/health, /ready, /status, /metrics) before this app is asked.
app.all("*", handleNotFound);
app.notFound(handleNotFound);
app.onError((error, c) => {
  const answer = clientError(error) ?? databaseUnavailable(error);
  if (answer) return handleError(answer, c);
  const requestId = c.get("requestId");
  log("error", "unhandled error", { requestId, ...errorFields(error) });
  return c.json(
    errorBody(500, "Internal error; the request was not processed.", { requestId }),
    500,
  );
});

export default app;
