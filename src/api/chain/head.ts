/**
 * The chain head as this process last read it, per chain. The freshness guard reads the head
 * before every `/v1/shortcuts/*` request (at most once per `CHAIN_HEAD_CACHE_MS`, shared by the
 * requests in between); a route's simulation then starts from that block instead of asking the
 * node a second time.
 */
const heads = new Map<number, { block: bigint; at: number }>();

/** Records `block` as the head of `chainId`, read at `at` (ms; default now). */
export function recordChainHead(params: { chainId: number; block: bigint; at?: number }): void {
  heads.set(params.chainId, { block: params.block, at: params.at ?? Date.now() });
}

/** The head of `chainId` if it was read within `maxAgeMs`, else undefined. */
export function recentChainHead(params: {
  chainId: number;
  maxAgeMs: number;
  now?: number;
}): bigint | undefined {
  const known = heads.get(params.chainId);
  if (!known) return undefined;
  return (params.now ?? Date.now()) - known.at <= params.maxAgeMs ? known.block : undefined;
}
