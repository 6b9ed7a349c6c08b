import { Hono } from "hono";
import { z } from "zod";
import type { ChainSetup, Protocol } from "../../../engine/index.js";
import { protocols } from "../../../engine/index.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { parseQuery } from "../query.js";
import { positiveIntParam } from "../schemas.js";
import { knownProtocol } from "./known-protocol.js";

const chainSchema = z.object({ id: z.number().int(), name: z.string() });

/** A protocol as the client SDK's `ProtocolData` reads it. */
export const protocolDataSchema = z.object({
  project: z.string().meta({ description: "The project's id in `/v1/projects` (its slug)." }),
  slug: z.string(),
  name: z.string().nullable().meta({ description: "Null for the built-in `core`." }),
  description: z.string().nullable(),
  url: z.string().nullable(),
  logosUri: z.array(z.string()).nullable(),
  chains: z.array(chainSchema).meta({ description: "The indexed chains it is usable on." }),
});

const protocolsQuery = z.object({
  chainId: positiveIntParam("a chain id")
    .optional()
    .meta({ description: "Only protocols usable on this chain." }),
  slug: z
    .string()
    .optional()
    .meta({ description: "Only this protocol.", examples: ["uniswap-v3"] }),
});

describeEndpoint({
  method: "get",
  path: "/v1/protocols",
  operationId: "listProtocols",
  tag: "catalogue",
  summary: "Protocols, optionally by slug or chain",
  description:
    "Every protocol of the registry with its project metadata and the chains it is usable on.",
  query: protocolsQuery,
  responses: {
    200: { description: "The protocols the query selects.", schema: z.array(protocolDataSchema) },
    400: errorResponse("A query parameter is invalid or unknown."),
    404: errorResponse("No protocol has this slug; the message lists the known ones."),
  },
});

function protocolData(
  protocol: Protocol,
  chains: readonly ChainSetup[],
  origin: string,
): z.output<typeof protocolDataSchema> {
  const info = protocol.project;
  return {
    project: protocol.slug,
    slug: protocol.slug,
    name: info?.title ?? null,
    description: info?.description ?? null,
    url: protocol.url === "" ? null : protocol.url,
    logosUri: info ? [`${origin}/v1/projects/${protocol.slug}/logo.svg`] : null,
    chains: chains.filter((c) => protocol.supports(c)).map((c) => ({ id: c.id, name: c.title })),
  };
}

/** `GET /v1/protocols` for the served `chains`. */
export function protocolsRoutes(sources: { chains: readonly ChainSetup[] }) {
  return new Hono().get("/", (c) => {
    const q = parseQuery(c.req.url, protocolsQuery);
    if (q.slug !== undefined) knownProtocol(q.slug);
    const origin = new URL(c.req.url).origin;
    return c.json(
      protocols
        .filter((p) => q.slug === undefined || p.slug === q.slug)
        .map((p) => protocolData(p, sources.chains, origin))
        .filter((p) => q.chainId === undefined || p.chains.some((chain) => chain.id === q.chainId)),
    );
  });
}
