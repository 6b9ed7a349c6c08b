import { db, publicClients } from "ponder:api";
import { createMiddleware } from "hono/factory";
import { sql } from "ponder";
import type { PublicClient } from "viem";
import { ApiError } from "./errors.js";

/** Ponder's checkpoint: timestamp (10 digits), chain id (16), block number (16), … */
const TIMESTAMP_DIGITS = 10;
const BLOCK_NUMBER_OFFSET = TIMESTAMP_DIGITS + 16;
const BLOCK_NUMBER_DIGITS = 16;

export type ChainProgress = {
  chainName: string;
  chainId: number;
  indexedBlock: bigint;
  /** The indexed block's timestamp (seconds), which the checkpoint carries too. */
  indexedTimestamp: bigint;
};

/** The last block the indexer has fully processed, per chain, with its timestamp. */
export async function indexedBlocks(): Promise<ChainProgress[]> {
  const result = await db.execute(
    sql`select chain_name, chain_id, latest_checkpoint from _ponder_checkpoint order by chain_id`,
  );
  const rows = (
    result as unknown as {
      rows: { chain_name: string; chain_id: string | number; latest_checkpoint: string }[];
    }
  ).rows;
  return rows.map((r) => ({
    chainName: r.chain_name,
    chainId: Number(r.chain_id),
    indexedBlock: BigInt(
      r.latest_checkpoint.slice(BLOCK_NUMBER_OFFSET, BLOCK_NUMBER_OFFSET + BLOCK_NUMBER_DIGITS),
    ),
    indexedTimestamp: BigInt(r.latest_checkpoint.slice(0, TIMESTAMP_DIGITS)),
  }));
}

async function backfillDone(): Promise<boolean> {
  const result = await db.execute(
    sql`select (value->>'is_ready')::int as is_ready from _ponder_meta where key = 'app'`,
  );
  return (result as unknown as { rows: { is_ready: number }[] }).rows[0]?.is_ready === 1;
}

let caughtUp = false;
/** Per chain, the head when the backfill was first seen complete: the block to reach. */
let targets: Map<string, bigint> | undefined;

/**
 * Whether the index reflects the chain: Ponder's backfill is done and every chain has been
 * indexed up to the head seen when the backfill was first seen complete (the newest blocks are
 * indexed live after the backfill, so "ready" alone can still miss them). The target is fixed
 * once read: a chain that keeps producing blocks would otherwise never let an indexer that
 * trails it by a block count as caught up. Once true it stays true; lag afterwards is a
 * freshness matter, not readiness.
 */
export async function indexCaughtUp(): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (caughtUp) return { ok: true };
  if (!(await backfillDone())) {
    return {
      ok: false,
      reason: "The indexer is still backfilling; indexed data is incomplete. Retry shortly.",
    };
  }
  const clients = publicClients as unknown as Record<string, PublicClient>;
  const progress = await indexedBlocks();
  if (!targets) {
    const heads = new Map<string, bigint>();
    for (const chain of progress) {
      const client = clients[chain.chainName];
      if (client) heads.set(chain.chainName, await client.getBlockNumber({ cacheTime: 0 }));
    }
    targets = heads;
  }
  for (const chain of progress) {
    const target = targets.get(chain.chainName);
    if (target !== undefined && chain.indexedBlock < target) {
      return {
        ok: false,
        reason: `The indexer is catching up on chain ${chain.chainId}: indexed block ${chain.indexedBlock}, chain head ${target}. Retry shortly.`,
      };
    }
  }
  caughtUp = true;
  return { ok: true };
}

// Watch from start-up, so that readiness is known before the first request and is not lost to
// a chain that keeps moving while requests come in.
const watch = setInterval(() => {
  indexCaughtUp()
    .then((status) => {
      if (status.ok) clearInterval(watch);
    })
    .catch(() => {});
}, 250);
watch.unref();

/** Answers 503 until the index has caught up with the chain: before that it is incomplete. */
export const requireIndexReady = createMiddleware(async (_c, next) => {
  const status = await indexCaughtUp();
  if (!status.ok) throw new ApiError(503, status.reason);
  await next();
});
