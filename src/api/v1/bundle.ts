import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { MAX_BUNDLE_ACTIONS } from "../../../engine/index.js";
import { l1FeeParameters } from "../chain/l1-fee.js";
import type { ApiSources } from "../database.js";
import { ApiError } from "../errors.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { parseQuery } from "../query.js";
import { addressParam, deadlineParam, positiveIntParam } from "../schemas.js";
import { planBundle } from "../shortcuts/plan-bundle.js";
import { chainContext } from "./route.js";
import { bundleAnswerSchema, bundleBodySchema } from "./shortcuts-schemas.js";

/** Largest bundle body accepted, in bytes. */
export const MAX_BUNDLE_BODY_BYTES = 256 * 1024;

/**
 * Deepest nesting of arrays and objects accepted in a bundle body (real bundles stay under 10).
 * The compiler walks arguments recursively; 256 KiB of `[` would otherwise overflow the stack.
 */
export const MAX_BUNDLE_BODY_DEPTH = 64;

/** Whether `value` nests arrays and objects deeper than `limit`; iterative, for any depth. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

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
  slippage: z
    .string()
    .refine((v) => /^[0-9]+$/.test(v) && Number(v) <= 10_000, {
      message: "expected basis points: a whole number from 0 to 10000",
    })
    .transform(Number)
    .optional()
    .meta({
      description:
        "Slippage of the bundle's output checks, in basis points of the simulated amounts (default 300).",
    }),
  deadline: deadlineParam.optional().meta({
    description:
      "Unix time (seconds) after which the transaction reverts; default the simulated block's timestamp + 1200.",
  }),
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
      `The query or an action is malformed (the message names \`actions[i].args.field\`), the bundle has more than ${MAX_BUNDLE_ACTIONS} actions, or the body nests deeper than ${MAX_BUNDLE_BODY_DEPTH} levels.`,
    ),
    404: errorResponse("A route action names a token no indexed pool or vault holds."),
    413: errorResponse(`The body is larger than ${MAX_BUNDLE_BODY_BYTES} bytes.`),
    422: errorResponse(
      "An action has no route or its simulation reverted; the message names the action.",
    ),
    503: errorResponse("The index is not caught up, or the chain's RPC node does not answer."),
  },
});

/** `POST /v1/shortcuts/bundle` on the served chains' routing graphs. */
export function bundleRoutes(sources: Pick<ApiSources, "chains" | "snapshots">) {
  return new Hono().post(
    "/bundle",
    bodyLimit({
      maxSize: MAX_BUNDLE_BODY_BYTES,
      onError: () => {
        throw new ApiError(413, `The request body is larger than ${MAX_BUNDLE_BODY_BYTES} bytes.`);
      },
    }),
    async (c) => {
      // Read the body before anything can refuse the request: an unread body makes the Node
      // adapter drop the connection, resetting a client's next request on it.
      const text = await c.req.text();
      const q = parseQuery(c.req.url, bundleQuerySchema);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ApiError(
          400,
          "The request body is not valid JSON: send a JSON array of actions.",
        );
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
      if (nestsDeeperThan(body, MAX_BUNDLE_BODY_DEPTH)) {
        throw new ApiError(
          400,
          `The request body nests arrays and objects deeper than ${MAX_BUNDLE_BODY_DEPTH} levels.`,
        );
      }
      const ctx = await chainContext(sources, q.chainId);
      const l1Fee = await l1FeeParameters(ctx.chain, ctx.client, ctx.graph.blockNumber);
      const answer = await planBundle(
        { ...ctx, l1Fee },
        {
          fromAddress: q.fromAddress,
          receiver: q.receiver,
          spender: q.spender ?? q.fromAddress,
          routingStrategy: q.routingStrategy,
          actions: body,
          slippage: q.slippage,
          deadline: q.deadline,
        },
      );
      return c.json(answer);
    },
  );
}
