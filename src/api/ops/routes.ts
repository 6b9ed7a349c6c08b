import { Hono } from "hono";
import { describeEndpoint } from "../openapi/registry.js";
import { renderMetrics } from "./metrics.js";

describeEndpoint({
  method: "get",
  path: "/metrics/api",
  operationId: "getApiMetrics",
  tag: "operations",
  summary: "The API's Prometheus metrics",
  description:
    "Requests by route and status, latency histograms, route search and simulation times, simulation failures, rate limiting, and per chain the indexed block, the routing snapshot's block, the chain head and the lag in blocks and in seconds. Ponder's own metrics are on `/metrics`.",
  responses: {
    200: { description: "Prometheus text exposition format.", contentType: "text/plain" },
  },
});

/** `GET /metrics/api`, beside Ponder's `/metrics` (which the API cannot add to). */
export const opsRoutes = new Hono().get("/metrics/api", async (c) => {
  const { contentType, body } = await renderMetrics();
  return c.body(body, 200, { "Content-Type": contentType });
});
