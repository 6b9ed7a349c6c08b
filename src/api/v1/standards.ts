import { Hono } from "hono";
import { z } from "zod";
import type { ChainSetup, Protocol } from "../../../engine/index.js";
import { protocols } from "../../../engine/index.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { parseQuery } from "../query.js";
import { knownProtocol } from "./known-protocol.js";

/** A protocol standard entry (SPEC 2.3) as served. */
export const standardEntrySchema = z.object({
  protocol: z.object({ slug: z.string(), url: z.string() }),
  forks: z.array(z.object({ slug: z.string(), url: z.string() })),
  methods: z.array(
    z.object({
      method: z.string(),
      name: z.string(),
      functionNames: z.array(z.string()),
      supportedChains: z.array(z.object({ id: z.number().int(), name: z.string() })),
      inputs: z.record(z.string(), z.string()).meta({ description: "Input name → what to pass." }),
      outputs: z
        .record(z.string(), z.string())
        .meta({ description: "Output name → what later actions can reference." }),
    }),
  ),
});

/** A protocol standard entry (SPEC 2.3), generated from the protocol registry. */
export function standardEntry(
  protocol: Protocol,
  chains: readonly ChainSetup[],
): z.output<typeof standardEntrySchema> {
  const supportedChains = chains
    .filter((chain) => protocol.supports(chain))
    .map((chain) => ({ id: chain.id, name: chain.title }));
  return {
    protocol: { slug: protocol.slug, url: protocol.url },
    forks: protocol.forks,
    methods: protocol.methods.map((m) => ({
      method: m.method,
      name: m.name,
      functionNames: m.functionNames,
      supportedChains,
      inputs: m.inputs,
      outputs: m.outputs,
    })),
  };
}

const noQuery = z.object({});

const noQueryError = errorResponse("The endpoint takes no query parameters and one was given.");

describeEndpoint({
  method: "get",
  path: "/v1/standards",
  operationId: "listStandards",
  tag: "catalogue",
  summary: "List protocols with their bundle methods",
  description: "Every protocol of the registry with the methods a bundle can use (SPEC 2.3).",
  query: noQuery,
  responses: {
    200: { description: "Every protocol.", schema: z.array(standardEntrySchema) },
    400: noQueryError,
  },
});

describeEndpoint({
  method: "get",
  path: "/v1/standards/{slug}",
  operationId: "getStandard",
  tag: "catalogue",
  summary: "One protocol with its bundle methods",
  params: z.object({
    slug: z.string().meta({ description: "The protocol's slug.", examples: ["uniswap-v2"] }),
  }),
  query: noQuery,
  responses: {
    200: { description: "The protocol.", schema: standardEntrySchema },
    400: noQueryError,
    404: errorResponse("No protocol has this slug; the message lists the known ones."),
  },
});

/** `GET /v1/standards` and `/v1/standards/{slug}` for the served `chains`. */
export function standardsRoutes(sources: { chains: readonly ChainSetup[] }) {
  return new Hono()
    .get("/", (c) => {
      parseQuery(c.req.url, noQuery);
      return c.json(protocols.map((p) => standardEntry(p, sources.chains)));
    })
    .get("/:slug", (c) => {
      parseQuery(c.req.url, noQuery);
      return c.json(standardEntry(knownProtocol(c.req.param("slug")), sources.chains));
    });
}
