/**
 * The API app, assembled from what it needs (AppDeps): the service wires it in
 * src/api/index.ts; a test builds one over its own database.
 */
import { Hono, type MiddlewareHandler } from "hono";
import type { ShortcutsAdmission } from "../../config.js";
import { analyticsBodyLimit } from "./analytics/body-limit.js";
import { concurrencyGate } from "./analytics/concurrency-gate.js";
import type { ApiSources } from "./database.js";
import {
  clientError,
  databaseUnavailable,
  errorBody,
  handleError,
  handleNotFound,
} from "./errors.js";
import { describeMiddleware, errorResponse } from "./openapi/registry.js";
import { openApiRoutes } from "./openapi/routes.js";
import { type KeyRing, requireApiKey } from "./ops/auth.js";
import type { OpsEnv } from "./ops/context.js";
import { requestDeadline } from "./ops/deadline.js";
import type { LagLimits } from "./ops/freshness.js";
import { errorFields, log } from "./ops/log.js";
import { type ChainLag, metrics } from "./ops/metrics.js";
import { overviewRoutes, requestTotals } from "./ops/overview.js";
import { type RateLimiter, type RateLimitParameters, rateLimit } from "./ops/rate-limit.js";
import { requestContext } from "./ops/request-context.js";
import { opsRoutes } from "./ops/routes.js";
import { cachedTopPools } from "./ops/top-pools.js";
import { actionsRoutes } from "./v1/actions.js";
import { balancesRoutes } from "./v1/balances.js";
import { bundleRoutes } from "./v1/bundle.js";
import { networksRoutes } from "./v1/networks.js";
import { pricesRoutes } from "./v1/prices.js";
import { projectsRoutes } from "./v1/projects.js";
import { protocolsRoutes } from "./v1/protocols.js";
import { routeRoutes } from "./v1/route.js";
import { standardsRoutes } from "./v1/standards.js";
import { tokensRoutes } from "./v1/tokens.js";
import { walletRoutes } from "./v1/wallet.js";

/** The freshness 503's description in the OpenAPI document: each served chain's limits. */
function lagLimitsDescription(
  chains: readonly { id: number }[],
  limits: (chainId: number) => LagLimits,
): string {
  const perChain = chains
    .map((chain) => {
      const { maxLagSeconds, maxLagBlocks } = limits(chain.id);
      const blocks = maxLagBlocks === undefined ? "" : ` or ${maxLagBlocks} blocks`;
      return `${maxLagSeconds} s${blocks} on chain ${chain.id}`;
    })
    .join(", ");
  return `The routing data lags the chain head by more than its limit (here: ${perChain || "no chain served"}): seconds of chain time, the head's timestamp minus that of the data's block (MAX_LAG_SECONDS, MAX_LAG_SECONDS_<chainId>), and blocks when MAX_LAG_BLOCKS is set. \`details\` gives the lag in both and the limits: \`chainId\`, \`block\`, \`headBlock\`, \`lagBlocks\`, \`lagSeconds\`, \`maxLagSeconds\`, \`maxLagBlocks\` (null when unset). Also when the chain's RPC does not answer (\`details\`: \`chainId\`).`;
}

export type AppDeps = {
  /** The tables, the served chains and the routing graphs the endpoints read. */
  sources: ApiSources;
  /** API keys (none: the API is open) and the limiter of their rate limits. */
  keys: KeyRing;
  limiter: RateLimiter;
  /** With no keys configured: each client address's budget (KEYLESS_RATE_LIMIT_*). */
  keyless?: RateLimitParameters["keyless"];
  /** Answers 503 until the index has caught up with the chain. */
  requireIndexReady: MiddlewareHandler;
  /** Whether the index has caught up with the chain (what `requireIndexReady` checks). */
  caughtUp: () => Promise<boolean>;
  /**
   * Answers 503 on `/v1/shortcuts/*` while the routing data lags, and reports each chain's lag
   * for `/v1/networks` (createFreshness).
   */
  freshness: {
    guard: MiddlewareHandler;
    chainLags: (chainId: number) => Promise<ChainLag[]>;
    /** The chain's head, from its RPC (cached briefly; rejects when the RPC does not answer). */
    headBlock: (chainName: string) => Promise<bigint>;
    /** A chain's lag limits, which `/v1/networks` and the OpenAPI document state. */
    limits: (chainId: number) => LagLimits;
  };
  /**
   * The admission of routes and bundles (ops/admission.ts) and its settings, which the OpenAPI
   * document states. Unset: no limit.
   */
  shortcuts?: { gate: MiddlewareHandler; settings: ShortcutsAdmission };
  /** LOG_REQUESTS: one access-log line per request. */
  logRequests: boolean;
  /** The version the OpenAPI document states. */
  version: string;
  /**
   * GraphQL (`/graphql`) and SQL over HTTP (`/sql/*`) over the tables, and the longest request
   * body they read.
   */
  analytics?: {
    graphql: MiddlewareHandler;
    sql: MiddlewareHandler;
    maxBodyBytes: number;
    /** GraphQL requests run at once (on Postgres, the connections of its own pool). */
    graphqlConcurrency: number;
  };
};

/**
 * A GraphQL request is posted as JSON. Ponder's GraphQL handler turns every answer of its
 * server into a 200, so the server's own refusal of another body (a 415 without a body) would
 * reach the client as an empty 200: it is refused here with a 400 that says what to send.
 */
const graphqlTakesJson: MiddlewareHandler = async (c, next) => {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (c.req.method !== "POST" || type === "application/json") return next();
  return c.json(
    errorBody(
      400,
      'POST /graphql takes a JSON body: send `Content-Type: application/json` and `{ "query": "…", "variables"?: {…} }`.',
    ),
    400,
  );
};

/** Longest a `/v1` request may take before it is answered with a 503. */
const REQUEST_DEADLINE_MS = 10_000;

/**
 * The API as a Hono app built from its parts: every request's id, deadline, keys and limits,
 * readiness and freshness, the `/v1` endpoints over `sources`, and one error handler. Nothing
 * here connects or starts anything (src/api/index.ts does, for the service), so a test can
 * answer requests with `app.request()`.
 */
export function createApp(deps: AppDeps): Hono<OpsEnv> {
  const { keys, limiter, freshness } = deps;
  const app = new Hono<OpsEnv>();

  // ── Every request: id, in-flight tracking, metrics, access log ─────────────────────────────
  app.use("*", requestContext({ logRequests: deps.logRequests }));
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
  // Without keys, every client address has a budget of its own on what a key would guard.
  const keyless = keys.size === 0 ? deps.keyless : undefined;
  for (const path of ["/v1/*", "/graphql", "/sql/*"]) {
    app.use(path, requireApiKey({ keys, isPublic }), rateLimit({ limiter, keyless, isPublic }));
  }
  if (keyless && keyless.limit.rps > 0) {
    describeMiddleware({
      name: "rateLimit",
      paths: ["/v1/*", "/graphql"],
      except: ["/v1/openapi.json", "/v1/projects/{id}/logo.svg"],
      responses: {
        429: errorResponse(
          "The client's rate limit (per address, without an API key) is exhausted.",
          {
            "Retry-After": {
              description: "Seconds until the client may make its next request.",
              schema: { type: "string", pattern: "^[0-9]+$" },
              required: true,
            },
          },
        ),
      },
    });
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

  // Analysts: GraphQL and SQL over HTTP on the indexed tables, behind a body cap (413).
  if (deps.analytics) {
    const limit = analyticsBodyLimit({ maxBytes: deps.analytics.maxBodyBytes });
    const gate = concurrencyGate({
      max: deps.analytics.graphqlConcurrency,
      what: "GraphQL queries",
    });
    app.use("/graphql", limit, graphqlTakesJson, gate, deps.analytics.graphql);
    app.use("/sql/*", limit, deps.analytics.sql);
  }

  // ── Readiness and freshness ────────────────────────────────────────────────────────────────
  app.use("/v1/tokens", deps.requireIndexReady);
  app.use("/v1/projects", deps.requireIndexReady);
  app.use("/v1/prices/*", deps.requireIndexReady);
  app.use("/v1/wallet/balances", deps.requireIndexReady);
  // Readiness first: while the backfill runs, "still backfilling" says more than a lag in blocks.
  app.use("/v1/shortcuts/*", deps.requireIndexReady);
  describeMiddleware({
    name: "indexReady",
    paths: ["/v1/tokens", "/v1/projects", "/v1/prices/*", "/v1/wallet/balances", "/v1/shortcuts/*"],
    responses: { 503: errorResponse("The indexer has not caught up with the chain yet.") },
  });
  // Then a slot: the freshness is checked when the request runs, not when it arrived.
  if (deps.shortcuts) {
    const { gate, settings } = deps.shortcuts;
    app.use("/v1/shortcuts/*", gate);
    describeMiddleware({
      name: "admission",
      paths: ["/v1/shortcuts/*"],
      responses: {
        503: errorResponse(
          `Every slot for routes and bundles is busy (${settings.concurrency} run at once; ${settings.concurrencyWhileBehind} while the routing data is ${settings.yieldLagBlocks} or more blocks behind the chain, so that the index catches up) and the request could not wait: ${settings.maxWaiting} were already waiting, or no slot freed within ${settings.maxWaitMs} ms. \`details\`: \`concurrency\` (the slots at that moment), \`waiting\`, \`maxWaiting\`, \`maxWaitMs\`.`,
          {
            // Not required: the path's other 503s (freshness, a node that failed) go without.
            "Retry-After": {
              description: "Seconds after which to retry (on this refusal).",
              schema: { type: "string", pattern: "^[0-9]+$" },
              required: false,
            },
          },
        ),
      },
    });
  }
  app.use("/v1/shortcuts/*", freshness.guard);
  describeMiddleware({
    name: "freshness",
    paths: ["/v1/shortcuts/*"],
    responses: {
      503: errorResponse(lagLimitsDescription(deps.sources.chains, freshness.limits)),
    },
  });

  // ── Endpoints ──────────────────────────────────────────────────────────────────────────────
  app.route("/", opsRoutes);
  // The front page: open, as /metrics is; what it shows is operational, not indexed data.
  app.route(
    "/",
    overviewRoutes({
      chains: deps.sources.chains,
      chainLags: freshness.chainLags,
      headBlock: freshness.headBlock,
      caughtUp: deps.caughtUp,
      requestTotals: async () => requestTotals((await metrics.requests.get()).values),
      topPools: cachedTopPools(deps.sources),
    }),
  );
  app.route(
    "/",
    openApiRoutes({
      info: {
        title: "DeFi shortcuts API",
        version: deps.version,
        description:
          "Tokens, protocols and projects of a chain indexed by this service, and (as they land) routes and bundles returned as unsigned transactions. Errors are JSON `{ statusCode, error, message, details? }`. When the operator configures API keys, `/v1` endpoints need `Authorization: Bearer <key>`.",
      },
    }),
  );
  app.route("/v1/tokens", tokensRoutes(deps.sources));
  app.route("/v1/standards", standardsRoutes(deps.sources));
  app.route("/v1/projects", projectsRoutes(deps.sources));
  app.route("/v1/protocols", protocolsRoutes(deps.sources));
  app.route("/v1/actions", actionsRoutes());
  app.route("/v1/prices", pricesRoutes(deps.sources));
  // Answered during a backfill too: it says how far the index has come.
  app.route("/v1/networks", networksRoutes(deps.sources, freshness));
  app.route("/v1/shortcuts", routeRoutes(deps.sources));
  app.route("/v1/shortcuts", bundleRoutes(deps.sources));
  // Reads only the chain (no index): neither readiness nor freshness applies.
  app.route("/v1/wallet", walletRoutes(deps.sources));
  // Reads the catalogue, then the chain.
  app.route("/v1/wallet", balancesRoutes(deps.sources));

  // Ponder answers its own paths (/health, /ready, /status, /metrics) before this app is asked.
  app.all("*", handleNotFound);
  app.notFound(handleNotFound);
  app.onError((error, c) => {
    const answer = clientError(error) ?? databaseUnavailable(error);
    const requestId = c.get("requestId");
    if (answer) {
      // A node or database that failed: the client hears "retry shortly", the operator why.
      if (answer.statusCode >= 500 && error.cause !== undefined) {
        log("warn", "unavailable", {
          requestId,
          status: answer.statusCode,
          message: answer.message,
          ...errorFields(error.cause),
        });
      }
      return handleError(answer, c);
    }
    log("error", "unhandled error", { requestId, ...errorFields(error) });
    return c.json(
      errorBody(500, "Internal error; the request was not processed.", { requestId }),
      500,
    );
  });

  return app;
}
