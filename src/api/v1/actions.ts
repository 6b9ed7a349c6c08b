import { Hono } from "hono";
import { z } from "zod";
import { describeActions, protocols } from "../../../engine/index.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { parseQuery } from "../query.js";
import { knownProtocol } from "./known-protocol.js";

/** A bundle action as the client SDK's `ActionData` reads it. */
export const actionDataSchema = z.object({
  protocol: z.string().meta({ description: "The protocol slug a bundle names it by." }),
  action: z.string(),
  name: z.string(),
  inputs: z
    .record(
      z.string(),
      z.object({
        type: z.string().meta({
          description:
            "`address`, `amount` (wei, or an output reference), `bps`, `string`, `unknown`…; `[]` marks an array.",
        }),
        description: z.string(),
        optional: z.boolean(),
      }),
    )
    .meta({
      description: "Argument name → its type, what to pass, and whether it may be left out.",
    }),
});

const noQuery = z.object({});

describeEndpoint({
  method: "get",
  path: "/v1/actions",
  operationId: "listActions",
  tag: "catalogue",
  summary: "Every bundle action with its arguments",
  description:
    "The actions `POST /v1/shortcuts/bundle` accepts, from the registry `/v1/standards` reads, each argument typed.",
  query: noQuery,
  responses: {
    200: { description: "Every action of every protocol.", schema: z.array(actionDataSchema) },
    400: errorResponse("The endpoint takes no query parameters and one was given."),
  },
});

describeEndpoint({
  method: "get",
  path: "/v1/actions/{slug}",
  operationId: "listProtocolActions",
  tag: "catalogue",
  summary: "One protocol's bundle actions",
  params: z.object({
    slug: z.string().meta({ description: "The protocol's slug.", examples: ["uniswap-v2"] }),
  }),
  query: noQuery,
  responses: {
    200: { description: "The protocol's actions.", schema: z.array(actionDataSchema) },
    400: errorResponse("The endpoint takes no query parameters and one was given."),
    404: errorResponse("No protocol has this slug; the message lists the known ones."),
  },
});

/** `GET /v1/actions` and `/v1/actions/{slug}`. */
export function actionsRoutes() {
  return new Hono()
    .get("/", (c) => {
      parseQuery(c.req.url, noQuery);
      return c.json(protocols.flatMap(describeActions));
    })
    .get("/:slug", (c) => {
      parseQuery(c.req.url, noQuery);
      return c.json(describeActions(knownProtocol(c.req.param("slug"))));
    });
}
