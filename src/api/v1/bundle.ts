import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { type BundleAction, MAX_BUNDLE_ACTIONS } from "../bundling/compile";
import { planBundle } from "../bundling/plan-bundle";
import { ApiError } from "../errors";
import { describeEndpoint, errorResponse } from "../openapi/registry";
import { parseQuery } from "../query";
import { indexCaughtUp } from "../readiness";
import { routingGraph } from "../routing/snapshot";
import { addressParam, positiveIntParam } from "../schemas";
import { chainClient, gasPrice, resolveChain, slotFinder } from "./route";
import { bundleAnswerSchema, bundleBodySchema } from "./shortcuts-schemas";

/** Largest bundle body accepted, in bytes. */
export const MAX_BUNDLE_BODY_BYTES = 256 * 1024;

/** The query of `POST /v1/shortcuts/bundle` (SPEC 4.2). */
export const bundleQuerySchema = z.object({
  fromAddress: addressParam,
  chainId: positiveIntParam("a chain id").optional(),
  routingStrategy: z
    .enum(["router", "delegate", "corewallet"], {
      error: "expected one of router, delegate, corewallet",
    })
    .default("router"),
  receiver: addressParam.optional(),
  spender: addressParam.optional(),
});

describeEndpoint({
  method: "post",
  path: "/v1/shortcuts/bundle",
  operationId: "buildBundle",
  tag: "shortcuts",
  summary: "One simulated unsigned transaction from an ordered list of actions",
  description:
    "Compiles the actions (routes, calls, protocol actions; amounts may reference earlier outputs) into one program for the routing strategy, encodes it and simulates it at the latest block.",
  query: bundleQuerySchema,
  body: { schema: bundleBodySchema, required: true },
  responses: {
    200: {
      description: "The bundle as understood, its transaction and what it delivers.",
      schema: bundleAnswerSchema,
    },
    400: errorResponse(
      "The query or an action is malformed; the message names `actions[i].args.field`.",
    ),
    404: errorResponse("A route action names a token no indexed pool or vault holds."),
    413: errorResponse(`The body is larger than ${MAX_BUNDLE_BODY_BYTES} bytes.`),
    422: errorResponse(
      "An action has no route or its simulation reverted; the message names the action.",
    ),
    503: errorResponse("The index is not caught up, or the chain's RPC node does not answer."),
  },
});

export const bundle = new Hono().post(
  "/bundle",
  bodyLimit({
    maxSize: MAX_BUNDLE_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, `The request body is larger than ${MAX_BUNDLE_BODY_BYTES} bytes.`);
    },
  }),
  async (c) => {
    const q = parseQuery(
      c.req.url,
      { scalars: ["fromAddress", "chainId", "routingStrategy", "receiver", "spender"] },
      bundleQuerySchema,
    );
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      throw new ApiError(400, "The request body is not valid JSON: send a JSON array of actions.");
    }
    if (!Array.isArray(body)) {
      throw new ApiError(
        400,
        "The request body must be a JSON array of actions { protocol, action, args }.",
      );
    }
    if (body.length > MAX_BUNDLE_ACTIONS) {
      throw new ApiError(
        400,
        `The bundle has ${body.length} actions; at most ${MAX_BUNDLE_ACTIONS} are accepted.`,
      );
    }
    const chain = resolveChain(q.chainId);
    const ready = await indexCaughtUp();
    if (!ready.ok) throw new ApiError(503, ready.reason);
    const client = chainClient(chain);
    const graph = await routingGraph(chain.id);
    if (!graph)
      throw new ApiError(
        503,
        `The routing graph of chain ${chain.id} is not loaded yet; retry shortly.`,
      );
    const answer = await planBundle(
      {
        chain,
        client,
        graph,
        slots: slotFinder(chain, client),
        gasPriceWei: await gasPrice(chain, client),
      },
      {
        fromAddress: q.fromAddress,
        receiver: q.receiver,
        spender: q.spender ?? q.fromAddress,
        routingStrategy: q.routingStrategy,
        actions: body as BundleAction[],
      },
    );
    return c.json(answer);
  },
);
