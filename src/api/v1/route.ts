import { Hono } from "hono";
import type { PublicClient } from "viem";
import type { ChainSetup, RoutingGraph } from "../../../engine/index.js";
import { rpcClient } from "../chain/clients.js";
import { l1FeeParameters } from "../chain/l1-fee.js";
import { TokenSlotFinder } from "../chain/slots.js";
import type { ApiSources } from "../database.js";
import { ApiError } from "../errors.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { planRoute } from "../shortcuts/plan-route.js";
import { parseRouteQuery, routeQuerySchema } from "./route-query.js";
import { routeAnswerSchema } from "./shortcuts-schemas.js";

const slotFinders = new Map<number, TokenSlotFinder>();
const gasPrices = new Map<number, { value: bigint; at: number }>();
/** Gas price is re-read at most this often (ms). */
const GAS_PRICE_TTL_MS = 2_000;

/**
 * The chain a request targets: `chainId`, else chain 1 when it is indexed (SPEC's default), else
 * the only indexed chain (a devnet-only service answers without `chainId`).
 */
export function resolveChain(
  chains: readonly ChainSetup[],
  chainId: number | undefined,
): ChainSetup {
  const known = chains.map((c) => c.id).join(", ");
  if (chainId !== undefined) {
    const chain = chains.find((c) => c.id === chainId);
    if (!chain)
      throw new ApiError(
        400,
        `Query parameter \`chainId\`: chain ${chainId} is not indexed here; indexed chains: ${known}.`,
      );
    return chain;
  }
  const chain = chains.find((c) => c.id === 1) ?? (chains.length === 1 ? chains[0] : undefined);
  if (!chain)
    throw new ApiError(
      400,
      `Query parameter \`chainId\` is required: chain 1 is not indexed here; indexed chains: ${known}.`,
    );
  return chain;
}

export function chainClient(chain: ChainSetup): PublicClient {
  return rpcClient(chain);
}

export function slotFinder(chain: ChainSetup, client: PublicClient): TokenSlotFinder {
  let finder = slotFinders.get(chain.id);
  if (!finder) {
    finder = new TokenSlotFinder(client);
    slotFinders.set(chain.id, finder);
  }
  return finder;
}

export async function gasPrice(chain: ChainSetup, client: PublicClient): Promise<bigint> {
  const cached = gasPrices.get(chain.id);
  if (cached && Date.now() - cached.at < GAS_PRICE_TTL_MS) return cached.value;
  try {
    const value = await client.getGasPrice();
    gasPrices.set(chain.id, { value, at: Date.now() });
    return value;
  } catch {
    throw new ApiError(503, `The RPC node of chain ${chain.id} is unreachable; try again shortly.`);
  }
}

describeEndpoint({
  method: "get",
  path: "/v1/shortcuts/route",
  operationId: "getRoute",
  tag: "shortcuts",
  summary: "Best route from tokenIn to tokenOut, as one simulated unsigned transaction",
  description:
    "Searches the indexed pools and vaults for the best path or split (net of gas), builds the transaction of the routing strategy and simulates it at the latest block.",
  query: routeQuerySchema,
  responses: {
    200: {
      description: "The route, its transaction and what the simulation delivered.",
      schema: routeAnswerSchema,
      headers: { Deprecation: { description: "`true` when the deprecated `toEOA` was used." } },
    },
    400: errorResponse(
      "A query parameter is malformed, missing, repeated or unknown; the message names it.",
    ),
    404: errorResponse("tokenIn or tokenOut is in no indexed pool or vault."),
    422: errorResponse(
      "No route, not enough liquidity for amountIn, or the simulation reverted (decoded).",
    ),
    503: errorResponse("The index is not caught up, or the chain's RPC node does not answer."),
  },
});

/**
 * What planning on a chain needs: the chain a request names, its RPC client and token slot
 * finder, its routing graph and its gas price.
 * @throws ApiError 400 for a chain not served, 503 while its graph is not loaded.
 */
/** The chain's routing graph, or a 503 while it is not loaded. */
export async function loadedGraph(
  sources: Pick<ApiSources, "snapshots">,
  chain: ChainSetup,
): Promise<RoutingGraph> {
  const graph = await sources.snapshots.routingGraph(chain.id);
  if (!graph)
    throw new ApiError(
      503,
      `The routing graph of chain ${chain.id} is not loaded yet; retry shortly.`,
    );
  return graph;
}

export async function chainContext(
  sources: Pick<ApiSources, "chains" | "snapshots">,
  chainId: number | undefined,
) {
  const chain = resolveChain(sources.chains, chainId);
  const client = chainClient(chain);
  const graph = await loadedGraph(sources, chain);
  return {
    chain,
    client,
    graph,
    slots: slotFinder(chain, client),
    gasPriceWei: await gasPrice(chain, client),
  };
}

/** `GET /v1/shortcuts/route` on the served chains' routing graphs. */
export function routeRoutes(sources: Pick<ApiSources, "chains" | "snapshots">) {
  return new Hono().get("/route", async (c) => {
    const req = parseRouteQuery(c.req.url);
    const ctx = await chainContext(sources, req.chainId);
    const stablecoins = ctx.chain.stablecoins.map((a) => a.toLowerCase() as `0x${string}`);
    const l1Fee = await l1FeeParameters(ctx.chain, ctx.client, ctx.graph.blockNumber);
    const answer = await planRoute({ ...ctx, stablecoins, l1Fee }, req);
    if (req.usedToEOA) {
      c.header("Deprecation", "true");
      c.header("Link", '</docs>; rel="deprecation"; title="toEOA is replaced by receiver"');
    }
    return c.json(answer);
  });
}
