import { index, onchainTable, primaryKey, relations } from "ponder";

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

/** A Uniswap V2 pair: reserves from `Sync`, LP supply from mint/burn `Transfer`s. */
export const v2Pair = onchainTable(
  "v2_pair",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    factory: t.hex().notNull(),
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

/** A Uniswap V3 pool: price, current tick and in-range liquidity as the pool holds them. */
export const v3Pool = onchainTable(
  "v3_pool",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    factory: t.hex().notNull(),
    token0: t.hex().notNull(),
    token1: t.hex().notNull(),
    /** Fee in millionths (500, 3000, 10000). */
    fee: t.integer().notNull(),
    tickSpacing: t.integer().notNull(),
    /** Zero until `Initialize`. */
    sqrtPriceX96: t.bigint().notNull(),
    /** Null until `Initialize`. */
    tick: t.integer(),
    liquidity: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.address] }),
    updatedIdx: index().on(table.updatedBlock),
  }),
);

/** One initialized (or formerly initialized) tick of a V3 pool, as `ticks(tick)` reports it. */
export const v3Tick = onchainTable(
  "v3_tick",
  (t) => ({
    chainId: t.integer().notNull(),
    pool: t.hex().notNull(),
    tick: t.integer().notNull(),
    liquidityGross: t.bigint().notNull(),
    /** Signed: added when the price crosses the tick upwards, subtracted downwards. */
    liquidityNet: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.pool, table.tick] }),
    poolIdx: index().on(table.chainId, table.pool),
    updatedIdx: index().on(table.updatedBlock),
  }),
);

/**
 * An ERC4626 vault. Totals: read once when the vault is first seen, then moved by each
 * `Deposit`/`Withdraw`'s amounts; near the head also re-read from the vault (src/erc4626.ts).
 */
export const vault = onchainTable(
  "vault",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    protocolSlug: t.text().notNull(),
    asset: t.hex().notNull(),
    totalAssets: t.bigint().notNull(),
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

export const v3PoolRelations = relations(v3Pool, ({ one, many }) => ({
  token0Token: one(token, {
    fields: [v3Pool.chainId, v3Pool.token0],
    references: [token.chainId, token.address],
  }),
  token1Token: one(token, {
    fields: [v3Pool.chainId, v3Pool.token1],
    references: [token.chainId, token.address],
  }),
  ticks: many(v3Tick),
}));

export const v3TickRelations = relations(v3Tick, ({ one }) => ({
  poolRow: one(v3Pool, {
    fields: [v3Tick.chainId, v3Tick.pool],
    references: [v3Pool.chainId, v3Pool.address],
  }),
}));
