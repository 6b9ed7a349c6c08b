import { Hono } from "hono";
import { z } from "zod";
import type { ChainSetup, Protocol } from "../../../engine/index.js";
import { findProtocol, protocols } from "../../../engine/index.js";
import type { ApiDatabase, ApiSources } from "../database.js";
import { ApiError } from "../errors.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { indexedSources } from "../protocols/registry.js";
import { parseQuery } from "../query.js";

/** The protocol's pools in the index, read by its pool source. */
async function poolCount(
  protocol: Protocol,
  db: ApiDatabase,
  chains: readonly ChainSetup[],
): Promise<number> {
  if (!protocol.poolSource) return 0;
  return indexedSources[protocol.poolSource].poolCount(db, protocol, chains);
}

/** A project entry (SPEC 2.4) as served. */
export const projectEntrySchema = z.object({
  title: z.string(),
  id: z.string(),
  chainIds: z.string().meta({ description: "Comma-separated chain ids." }),
  logo: z.string().meta({ description: "URL of the project's logo, served by this API." }),
  url: z.string(),
  description: z.string(),
  twitter: z.string(),
  category: z.string(),
  poolCount: z.number().int().meta({ description: "Pools of the project in the index." }),
  protocol: z.string(),
});

/** Project entries (SPEC 2.4) for every protocol that is a project (all but `core`). */
async function projectEntry(
  protocol: Protocol,
  origin: string,
  sources: Pick<ApiSources, "db" | "chains">,
): Promise<z.output<typeof projectEntrySchema>> {
  const info = protocol.project;
  if (!info) throw new Error(`${protocol.slug} is not a project`);
  const chainIds = sources.chains
    .filter((chain) => protocol.supports(chain))
    .map((chain) => chain.id);
  return {
    title: info.title,
    id: protocol.slug,
    chainIds: chainIds.join(","),
    logo: `${origin}/v1/projects/${protocol.slug}/logo.svg`,
    url: info.url,
    description: info.description,
    twitter: info.twitter,
    category: info.category,
    poolCount: await poolCount(protocol, sources.db, sources.chains),
    protocol: protocol.slug,
  };
}

/** A small self-served logo (initials on a disc) so the listing works without internet. */
export function logoSvg(title: string): string {
  const initials = title
    .split(/\s+/)
    .map((w) => w[0] ?? "")
    .join("")
    .slice(0, 3)
    .toUpperCase();
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="#1f2937"/><text x="32" y="40" font-family="sans-serif" font-size="22" font-weight="bold" fill="#fff" text-anchor="middle">${initials}</text></svg>`;
}

const noQuery = z.object({});

describeEndpoint({
  method: "get",
  path: "/v1/projects",
  operationId: "listProjects",
  tag: "catalogue",
  summary: "List projects with metadata and pool counts",
  description: "Every protocol that is a project, with its pool count from the index (SPEC 2.4).",
  query: noQuery,
  responses: {
    200: { description: "Every project.", schema: z.array(projectEntrySchema) },
    400: errorResponse("The endpoint takes no query parameters and one was given."),
  },
});

describeEndpoint({
  method: "get",
  path: "/v1/projects/{id}/logo.svg",
  operationId: "getProjectLogo",
  tag: "catalogue",
  summary: "A project's logo",
  description: "Served without an API key: image URLs cannot carry an Authorization header.",
  params: z.object({
    id: z.string().meta({ description: "The project's id.", examples: ["uniswap-v2"] }),
  }),
  responses: {
    200: { description: "The logo.", contentType: "image/svg+xml" },
    404: errorResponse("No project has this id."),
  },
});

/** `GET /v1/projects` and the projects' logos, counting pools in `db`. */
export function projectsRoutes(sources: Pick<ApiSources, "db" | "chains">) {
  return new Hono()
    .get("/", async (c) => {
      parseQuery(c.req.url, noQuery);
      const origin = new URL(c.req.url).origin;
      return c.json(
        await Promise.all(
          protocols.filter((p) => p.project).map((p) => projectEntry(p, origin, sources)),
        ),
      );
    })
    .get("/:id/logo.svg", (c) => {
      const protocol = findProtocol(c.req.param("id"));
      if (!protocol?.project) throw new ApiError(404, `Unknown project \`${c.req.param("id")}\`.`);
      return c.body(logoSvg(protocol.project.title), 200, {
        "content-type": "image/svg+xml",
        "cache-control": "public, max-age=86400",
      });
    });
}
