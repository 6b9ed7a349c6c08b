import { createPublicClient, http, type PublicClient } from "viem";
import { config } from "../../../config.js";
import type { ChainSetup } from "../../../engine/index.js";

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
      // One call may take `API_RPC_TIMEOUT_MS`; past the retry the request is answered with a 503.
      transport: http(url, { timeout: config().rpcTimeoutMs, retryCount: 1 }),
    }) as PublicClient;
    clients.set(chain.id, client);
  }
  return client;
}
