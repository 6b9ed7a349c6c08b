/**
 * The endpoints Ponder serves itself, before the API app is asked (DESIGN §3), described so
 * the document covers everything a client or an operator can call.
 */
import { z } from "zod";
import { describeEndpoint, errorResponse } from "./registry.js";

describeEndpoint({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tag: "operations",
  summary: "Liveness",
  description: "200 as soon as the HTTP server runs.",
  served: "ponder",
  responses: { 200: { description: "The process is up.", contentType: "text/plain" } },
});

describeEndpoint({
  method: "get",
  path: "/ready",
  operationId: "getReady",
  tag: "operations",
  summary: "Readiness",
  description:
    "200 once the historical backfill is complete; point a load balancer's health check here.",
  served: "ponder",
  responses: {
    200: { description: "The backfill is complete.", contentType: "text/plain" },
    503: { description: "Historical indexing is not complete.", contentType: "text/plain" },
  },
});

describeEndpoint({
  method: "get",
  path: "/status",
  operationId: "getStatus",
  tag: "operations",
  summary: "Indexed block per chain",
  served: "ponder",
  responses: {
    200: {
      description: "The last indexed block of each chain, by chain name.",
      schema: z.record(
        z.string(),
        z.object({
          id: z.number().int(),
          block: z.object({ number: z.number().int(), timestamp: z.number().int() }),
        }),
      ),
    },
  },
});

describeEndpoint({
  method: "get",
  path: "/metrics",
  operationId: "getPonderMetrics",
  tag: "operations",
  summary: "Ponder's Prometheus metrics",
  description:
    "Indexing progress, database and RPC use, Node.js process. The API's own metrics are on `/metrics/api`.",
  served: "ponder",
  responses: {
    200: { description: "Prometheus text exposition format.", contentType: "text/plain" },
  },
});

const graphqlResult = z.object({
  data: z.unknown().optional(),
  errors: z.array(z.unknown()).optional(),
});

describeEndpoint({
  method: "post",
  path: "/graphql",
  operationId: "queryGraphql",
  tag: "analytics",
  summary: "GraphQL over the indexed tables",
  description:
    "Ponder's GraphQL API over `ponder.schema.ts` (GET serves the GraphiQL page). SQL over HTTP for `@ponder/client` is served under `/sql/*` (on Postgres; on the embedded PGlite database only with `ANALYTICS_SQL=on`).",
  body: {
    schema: z.object({
      query: z.string(),
      variables: z.record(z.string(), z.unknown()).optional(),
      operationName: z.string().optional(),
    }),
  },
  responses: {
    200: { description: "The GraphQL result; errors are in `errors`.", schema: graphqlResult },
    // Ponder answers a query that does not parse or validate with a 200 and `errors`.
    400: errorResponse(
      "The body is not a JSON GraphQL request (`Content-Type: application/json`).",
    ),
    413: errorResponse("The request body is larger than ANALYTICS_MAX_BODY_BYTES."),
    503: errorResponse(
      "ANALYTICS_POOL_SIZE GraphQL requests are running already (on Postgres, as many as its own connections); retry shortly.",
      {
        "Retry-After": {
          description: "Seconds to wait before retrying.",
          schema: { type: "string", pattern: "^[0-9]+$" },
          required: true,
        },
      },
    ),
  },
});
