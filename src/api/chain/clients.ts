import { createPublicClient, http, type PublicClient } from "viem";
import type { ChainSetup } from "../../../protocols/chains.js";

/** How long one JSON-RPC call may take before the request is answered with a 503. */
const RPC_TIMEOUT_MS = Number(process.env.API_RPC_TIMEOUT_MS ?? 3_000);

const clients = new Map<number, PublicClient>();

/**
 * The API's own client for a chain's RPC node: short timeout, one retry. (Ponder's clients retry
 * with back-off for the indexer's sake, which would hold an API request while the node is down.)
 */
export function rpcClient(chain: ChainSetup): PublicClient {
  let client = clients.get(chain.id);
  if (!client) {
    const url = chain.rpc[0];
    if (!url) throw new Error(`chain ${chain.id} has no RPC URL`);
    client = createPublicClient({
      transport: http(url, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }),
    }) as PublicClient;
    clients.set(chain.id, client);
  }
  return client;
}
