import type { Hash, PublicClient, TransactionReceipt } from "viem";

/**
 * Waits for a transaction's receipt on the devnet. Under heavy load anvil has been seen to leave
 * an automined transaction pending; after `stallMs` without a receipt this asks the node to mine
 * a block (`evm_mine`) and waits again, a few times, before giving up.
 */
export async function devnetReceipt(
  client: PublicClient,
  hash: Hash,
  params: { stallMs?: number; attempts?: number } = {},
): Promise<TransactionReceipt> {
  const stallMs = params.stallMs ?? 10_000;
  const attempts = params.attempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.waitForTransactionReceipt({
        hash,
        pollingInterval: 10,
        timeout: stallMs,
      });
    } catch (error) {
      if (attempt >= attempts) throw error;
      await client
        .request({ method: "evm_mine" as never, params: [] as never })
        .catch(() => undefined);
    }
  }
}
