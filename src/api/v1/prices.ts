import { Hono } from "hono";
import { and, eq, inArray } from "ponder";
import { type Address, formatUnits } from "viem";
import { z } from "zod";
import type { ChainSetup } from "../../../engine/index.js";
import { displayAddress, usdSpotPrices } from "../../../engine/index.js";
import { token } from "../../tokens/tables.js";
import type { ApiSources } from "../database.js";
import { ApiError } from "../errors.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { parseQuery } from "../query.js";
import { addressParam } from "../schemas.js";
import { loadedGraph } from "./route.js";

/** Dollars of depth behind a price at which its confidence reaches 1. */
const CONFIDENT_DEPTH_USD = 1_000_000;

/** PRICE_SCALE (10^36) as a number of decimals. */
const PRICE_DECIMALS = 36;

/** Most tokens one `GET /v1/prices/{chainId}` prices. */
const MAX_PRICED_TOKENS = 100;

/** A token's USD price (the client SDK's `PriceData`), with the block it reflects. */
export const priceDataSchema = z.object({
  chainId: z.number().int(),
  address: z.string(),
  decimals: z
    .number()
    .int()
    .nullable()
    .meta({ description: "Null for a token not in the catalogue." }),
  symbol: z.string().nullable().meta({ description: "Null for a token not in the catalogue." }),
  price: z.number().nullable().meta({
    description:
      "USD per whole token at the pools' mid prices, through the deepest connection to a USD stablecoin (each taken at one dollar); a pool token no swap reaches (a Balancer weighted pool's BPT) at its share of the pool's balances, each at its own price; null when no indexed pool connects the token to one.",
  }),
  confidence: z.number().meta({
    description:
      "From 0 to 1: the dollars the shallowest pool on the price's path holds on its input side (for a token priced at its share of a pool's balances: those balances' value, or less when a balance's own price has less behind it), over $1,000,000 (at most 1; a stablecoin itself is 1; 0 when unpriced).",
  }),
  blockNumber: z.number().int().meta({
    description:
      "The indexed block the price reflects: the routing graph's, or on a graph of 100 pools or more up to 1% of its pools' changes before it (prices are recomputed ahead of that in the background).",
  }),
  timestamp: z.number().int().meta({ description: "That block's timestamp (unix seconds)." }),
});

type PriceData = z.output<typeof priceDataSchema>;

const chainIdParam = z.object({
  chainId: z.string().meta({ description: "An indexed chain's id.", examples: ["1"] }),
});

describeEndpoint({
  method: "get",
  path: "/v1/prices/{chainId}/{address}",
  operationId: "getPrice",
  tag: "catalogue",
  summary: "A token's USD price from the indexed pools",
  description:
    "The same spot prices a route's price impact uses, read from the routing graph: the block and timestamp they reflect, and a confidence from the liquidity behind them.",
  params: chainIdParam.extend({
    address: z.string().meta({ description: "The token (0xeeee…eeee for the native currency)." }),
  }),
  responses: {
    200: { description: "The token's price (null when unpriced).", schema: priceDataSchema },
    400: errorResponse("The address is malformed."),
    404: errorResponse("The chain is not indexed here, or the token is not in its catalogue."),
    503: errorResponse("The chain's routing graph is not loaded yet."),
  },
});

const pricesQuery = z.object({
  addresses: z
    .array(addressParam)
    .min(1, { error: "give at least one address" })
    .max(MAX_PRICED_TOKENS, { error: `at most ${MAX_PRICED_TOKENS} addresses` })
    .meta({ description: "The tokens to price (repeat the parameter, or `addresses[]=`)." }),
});

describeEndpoint({
  method: "get",
  path: "/v1/prices/{chainId}",
  operationId: "listPrices",
  tag: "catalogue",
  summary: "USD prices of several tokens",
  description:
    "One entry per requested address, in the request's order; an unpriced token, or one not in the catalogue, has `price: null` rather than an error.",
  params: chainIdParam,
  query: pricesQuery,
  responses: {
    200: { description: "The prices.", schema: z.array(priceDataSchema) },
    400: errorResponse("An address is malformed, or none or too many were given."),
    404: errorResponse("The chain is not indexed here."),
    503: errorResponse("The chain's routing graph is not loaded yet."),
  },
});

function indexedChain(chains: readonly ChainSetup[], raw: string): ChainSetup {
  const chain = /^[0-9]{1,16}$/.test(raw) ? chains.find((c) => c.id === Number(raw)) : undefined;
  if (!chain) {
    throw new ApiError(
      404,
      `Chain \`${raw}\` is not indexed here; indexed chains: ${chains.map((c) => c.id).join(", ")}.`,
    );
  }
  return chain;
}

/**
 * The chain's USD prices at its routing graph's block: the graph loaded, each stablecoin the
 * catalogue knows taken at one dollar per whole token.
 */
export async function usdPriceBook(
  sources: Pick<ApiSources, "db" | "snapshots">,
  chain: ChainSetup,
) {
  const graph = await loadedGraph(sources, chain);
  const stablecoins = chain.stablecoins.map((a) => a.toLowerCase() as Address);
  const anchors =
    stablecoins.length === 0
      ? []
      : await sources.db
          .select({ address: token.address, decimals: token.decimals })
          .from(token)
          .where(and(eq(token.chainId, chain.id), inArray(token.address, stablecoins)));
  const spot = usdSpotPrices({
    graph,
    stablecoins: anchors.map((r) => ({
      address: r.address.toLowerCase() as Address,
      decimals: r.decimals,
    })),
  });
  return {
    blockNumber: Number(spot.blockNumber),
    timestamp: Number(spot.blockTimestamp),
    /** USD per whole token (null: unpriced) and the confidence its depth gives. */
    priceOf(address: Address, decimals: number): { price: number | null; confidence: number } {
      const raw = spot.prices.get(address);
      if (raw === undefined) return { price: null, confidence: 0 };
      const depth = spot.depth.get(address) ?? 0;
      return {
        // Exact to the digit in decimal, then the nearest double.
        price: Number(formatUnits(raw * 10n ** BigInt(decimals), PRICE_DECIMALS)),
        confidence: Math.round(Math.min(1, depth / CONFIDENT_DEPTH_USD) * 1e4) / 1e4,
      };
    },
  };
}

/** The prices of `addresses` (lowercase) on `chain`, in their order. */
async function pricesOf(
  sources: Pick<ApiSources, "db" | "snapshots">,
  chain: ChainSetup,
  addresses: readonly Address[],
): Promise<(PriceData & { known: boolean })[]> {
  const book = await usdPriceBook(sources, chain);
  const rows = await sources.db
    .select({ address: token.address, decimals: token.decimals, symbol: token.symbol })
    .from(token)
    .where(and(eq(token.chainId, chain.id), inArray(token.address, [...new Set(addresses)])));
  const catalogue = new Map(rows.map((r) => [r.address.toLowerCase(), r]));
  return addresses.map((address) => {
    const row = catalogue.get(address);
    return {
      chainId: chain.id,
      address: displayAddress(address),
      decimals: row?.decimals ?? null,
      symbol: row?.symbol ?? null,
      ...(row ? book.priceOf(address, row.decimals) : { price: null, confidence: 0 }),
      blockNumber: book.blockNumber,
      timestamp: book.timestamp,
      known: row !== undefined,
    };
  });
}

/** A query without parameters (one schema: `parseQuery` reads each schema once). */
const noQuery = z.object({});

/** `GET /v1/prices/{chainId}/{address}` and `GET /v1/prices/{chainId}?addresses=…`. */
export function pricesRoutes(sources: Pick<ApiSources, "db" | "chains" | "snapshots">) {
  return new Hono()
    .get("/:chainId/:address", async (c) => {
      parseQuery(c.req.url, noQuery);
      const chain = indexedChain(sources.chains, c.req.param("chainId"));
      const parsed = addressParam.safeParse(c.req.param("address"));
      if (!parsed.success) {
        throw new ApiError(
          400,
          `Path parameter \`address\`: expected an address (0x followed by 40 hex digits), got \`${c.req.param("address")}\`.`,
        );
      }
      const [answer] = await pricesOf(sources, chain, [parsed.data]);
      if (!answer?.known) {
        throw new ApiError(
          404,
          `Unknown token ${displayAddress(parsed.data)} on chain ${chain.id}: it is not in the catalogue.`,
        );
      }
      const { known: _, ...price } = answer;
      return c.json(price);
    })
    .get("/:chainId", async (c) => {
      const q = parseQuery(c.req.url, pricesQuery);
      const chain = indexedChain(sources.chains, c.req.param("chainId"));
      const answers = await pricesOf(sources, chain, q.addresses);
      return c.json(answers.map(({ known: _, ...price }) => price));
    });
}
