import type { Context } from "ponder:registry";
import { indexedChains } from "../../chains.js";

/** Each chain's first block of applied events (chains.ts `startBlock`). */
const startBlocks = new Map(indexedChains().map((c) => [c.id, BigInt(c.startBlock)]));

/**
 * Whether an event at `block` comes before the chain's start: then its handler only records
 * what exists (a pool, a reserve), and the state start (src/state-start/handlers.ts) reads its
 * state at the end of the block before the start. No read at an older block is made, so a
 * recent start needs no archive node.
 */
export function beforeStart(context: Context, block: bigint): boolean {
  return block < (startBlocks.get(context.chain.id) ?? 0n);
}
