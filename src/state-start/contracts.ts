import { type ChainSetup, stateReadBlock } from "../../engine/index.js";
import { perChain } from "../protocols/per-chain.js";

/**
 * The state start: on each chain whose pools predate its start block, one block event at the
 * block before it. Block events run after the block's logs, so it runs once every pool, pair and
 * reserve created up to then is recorded, and before any event of the start block
 * (handlers.ts).
 */
export function stateStartBlocks(chains: readonly ChainSetup[]) {
  return {
    StateStart: {
      chain: perChain(chains, (c) => {
        const block = stateReadBlock(c);
        return block === undefined
          ? undefined
          : { startBlock: block, endBlock: block, interval: 1 };
      }),
    },
  };
}
