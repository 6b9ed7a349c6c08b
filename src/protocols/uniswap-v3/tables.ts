import { index, onchainTable, primaryKey, relations } from "ponder";
import { token } from "../../tokens/tables.js";

/**
 * A Uniswap V3 pool, or a pool of one of its forks: price, current tick and in-range liquidity as
 * the pool holds them.
 */
export const v3Pool = onchainTable(
  "v3_pool",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    /** The protocol whose factory created it: `uniswap-v3` or one of its forks' slugs. */
    protocol: t.text().notNull(),
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

/** A tick of a V3 pool, as `ticks(tick)` reports it (a cleared tick stays at zero, handlers.ts). */
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
