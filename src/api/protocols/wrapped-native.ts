import { count, inArray } from "ponder";
import type { Address } from "../../../engine/index.js";
import { token } from "../../tokens/tables.js";
import { lower } from "../snapshot/reader.js";
import type { IndexedSource } from "./types.js";

/** The chain's wrapped native token (WETH): one configured contract, no table of its own. */
export const wrappedNativeSource: IndexedSource = {
  undoLogs: {},

  seed(graph, chain) {
    if (chain.weth)
      graph.upsertPool({ kind: "wrap", protocol: "wrapped-native", address: lower(chain.weth) });
  },

  async poolCount(db, _protocol, chains) {
    // One wrapper contract per chain, counted once the indexer has seen it.
    const wrappers = chains.flatMap((c) => (c.weth ? [lower(c.weth) as Address] : []));
    if (wrappers.length === 0) return 0;
    return (
      (await db.select({ n: count() }).from(token).where(inArray(token.address, wrappers)))[0]?.n ??
      0
    );
  },
};
