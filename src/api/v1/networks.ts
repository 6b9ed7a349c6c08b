import { Hono } from "hono";
import { z } from "zod";
import type { ChainSetup } from "../../../engine/index.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { chainState, type LagLimits } from "../ops/freshness.js";
import type { ChainLag } from "../ops/metrics.js";
import { parseQuery } from "../query.js";
import { positiveIntParam } from "../schemas.js";

/** A served chain (the SDK's `ConnectedNetwork`), with how far the index is behind its head. */
export const networkSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  isConnected: z.boolean().meta({
    description:
      "Whether the chain's RPC answered for its head just now (also false before the indexer's first block of the chain).",
  }),
  indexedBlock: z.number().int().nullable().meta({
    description:
      "The last block the indexer has processed; null before it has recorded one (early in a backfill).",
  }),
  snapshotBlock: z
    .number()
    .int()
    .nullable()
    .meta({ description: "The block the routing graph reflects; null until it is loaded." }),
  headBlock: z
    .number()
    .int()
    .nullable()
    .meta({ description: "The chain's head block; null when its RPC did not answer." }),
  lagBlocks: z.number().int().nullable().meta({
    description:
      "Blocks between the head and the routing graph (or the index, before the graph is loaded); null when unknown.",
  }),
  lagSeconds: z.number().int().nullable().meta({
    description:
      "The same lag in seconds of chain time: the head's timestamp minus that of the routing graph's block (or the index's); null when unknown.",
  }),
  maxLagSeconds: z.number().meta({
    description:
      "The chain's limit: with a larger `lagSeconds`, `/v1/shortcuts/*` answer 503 (MAX_LAG_SECONDS, MAX_LAG_SECONDS_<chainId>).",
  }),
  maxLagBlocks: z.number().int().nullable().meta({
    description: "A further limit in blocks on `lagBlocks` (MAX_LAG_BLOCKS); null when not set.",
  }),
  historyFromBlock: z.number().int().meta({
    description:
      "The index's start: the history tables (swaps, liquidity and vault events, aggregates) are complete from this block on. The state of the pools before it was read, not replayed (START_BLOCK_<id>).",
  }),
});

const networksQuery = z.object({
  chainId: positiveIntParam("a chain id").optional().meta({ description: "Only this chain." }),
  name: z
    .string()
    .optional()
    .meta({
      description: "Only chains whose name or title is this (any case).",
      examples: ["devnet"],
    }),
});

describeEndpoint({
  method: "get",
  path: "/v1/networks",
  operationId: "listNetworks",
  tag: "catalogue",
  summary: "The indexed chains, with their heads and lag",
  description:
    "Every chain this service indexes, whether its RPC answers, how far the index and the routing graph are behind its head (in blocks and in seconds), and the lag beyond which `/v1/shortcuts/*` answer 503. Answered during a backfill too.",
  query: networksQuery,
  responses: {
    200: { description: "The chains, filtered by the query.", schema: z.array(networkSchema) },
    400: errorResponse("A query parameter is invalid or unknown."),
  },
});

/**
 * `GET /v1/networks`: the served chains with their lag (the freshness check's `chainLags`), or
 * only their head while the indexer has not recorded a block of the chain yet.
 */
export function networksRoutes(
  sources: { chains: readonly ChainSetup[] },
  freshness: {
    chainLags: (chainId: number) => Promise<ChainLag[]>;
    headBlock: (chainName: string) => Promise<bigint>;
    limits: (chainId: number) => LagLimits;
  },
) {
  return new Hono().get("/", async (c) => {
    const q = parseQuery(c.req.url, networksQuery);
    const name = q.name?.toLowerCase();
    const chains = sources.chains.filter(
      (chain) =>
        (q.chainId === undefined || chain.id === q.chainId) &&
        (name === undefined ||
          chain.name.toLowerCase() === name ||
          chain.title.toLowerCase() === name),
    );
    const number = (value: bigint | undefined) => (value === undefined ? null : Number(value));
    const answers = await Promise.all(
      chains.map(async (chain) => {
        // A chain whose RPC does not answer is listed as not connected, not an error.
        const { lag, head } = await chainState(freshness, chain);
        const limits = freshness.limits(chain.id);
        return {
          id: chain.id,
          name: chain.title,
          isConnected: head !== undefined,
          indexedBlock: number(lag?.indexedBlock),
          snapshotBlock: number(lag?.snapshotBlock),
          headBlock: number(head),
          lagBlocks: number(lag?.lagBlocks),
          lagSeconds: number(lag?.lagSeconds),
          maxLagSeconds: limits.maxLagSeconds,
          maxLagBlocks: limits.maxLagBlocks ?? null,
          historyFromBlock: chain.startBlock,
        };
      }),
    );
    return c.json(answers);
  });
}
