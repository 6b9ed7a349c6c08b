import { index, onchainTable, primaryKey } from "ponder";

/**
 * Every token seen in a pool or as a vault asset or share, plus each chain's native currency.
 * `type` is `base` (swappable) or `defi` (a position token: an LP token or a vault share).
 */
export const token = onchainTable(
  "token",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    name: t.text().notNull(),
    symbol: t.text().notNull(),
    decimals: t.integer().notNull(),
    type: t.text().$type<"base" | "defi">().notNull(),
    protocolSlug: t.text(),
    underlyingTokens: t.hex().array().notNull(),
    /** The contract to deposit into (vault, pair), for position tokens. */
    primaryAddress: t.hex(),
    createdBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.address] }),
    updatedIdx: index().on(table.updatedBlock),
    // The catalogue's filters (GET /v1/tokens): each matches through an index at mainnet size.
    protocolIdx: index().on(table.protocolSlug),
    primaryIdx: index().on(table.primaryAddress),
    underlyingIdx: index().using("gin", table.underlyingTokens),
  }),
);
