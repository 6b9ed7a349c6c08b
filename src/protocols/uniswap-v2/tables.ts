import { index, onchainTable, primaryKey, relations } from "ponder";
import { token } from "../../tokens/tables.js";

/**
 * A Uniswap V2 pair, or a fork's: reserves from `Sync`, LP supply from its mints and burns
 * (`Transfer`s from and to the zero address).
 */
export const v2Pair = onchainTable(
  "v2_pair",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    factory: t.hex().notNull(),
    /** The protocol whose factory created it: `uniswap-v2` or one of its forks' slugs. */
    protocol: t.text().notNull(),
    token0: t.hex().notNull(),
    token1: t.hex().notNull(),
    reserve0: t.bigint().notNull(),
    reserve1: t.bigint().notNull(),
    /** Swap fee in millionths of the input (3000 = 0.3%), as V3 counts fees. */
    fee: t.integer().notNull(),
    totalSupply: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.address] }),
    updatedIdx: index().on(table.updatedBlock),
  }),
);

export const v2PairRelations = relations(v2Pair, ({ one }) => ({
  token0Token: one(token, {
    fields: [v2Pair.chainId, v2Pair.token0],
    references: [token.chainId, token.address],
  }),
  token1Token: one(token, {
    fields: [v2Pair.chainId, v2Pair.token1],
    references: [token.chainId, token.address],
  }),
}));
