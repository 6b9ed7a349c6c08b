import { index, onchainTable, primaryKey, relations } from "ponder";
import { token } from "../../tokens/tables.js";

/**
 * A Uniswap V4 pool: one entry of the chain's pool manager, named by its PoolId (the hash of its
 * key). Price, tick and in-range liquidity as the manager holds them.
 */
export const v4Pool = onchainTable(
  "v4_pool",
  (t) => ({
    chainId: t.integer().notNull(),
    /** The PoolId: keccak256 of the pool key. */
    poolId: t.hex().notNull(),
    poolManager: t.hex().notNull(),
    /** The key's currencies as the manager names them (the zero address for native currency). */
    currency0: t.hex().notNull(),
    currency1: t.hex().notNull(),
    /** The same as catalogue tokens (native currency as 0xeeee…). */
    token0: t.hex().notNull(),
    token1: t.hex().notNull(),
    /** The key's fee: the LP fee in millionths, or 0x800000 for a dynamic-fee pool. */
    fee: t.integer().notNull(),
    tickSpacing: t.integer().notNull(),
    /** The hook contract (the zero address when none); its low 14 bits are its permissions. */
    hooks: t.hex().notNull(),
    /** Protocol fee in millionths: low 12 bits selling currency0, high 12 bits selling currency1. */
    protocolFee: t.integer().notNull(),
    /** The whole fee the last swap paid (LP and protocol), as its `Swap` event reports it. */
    lastSwapFee: t.integer(),
    sqrtPriceX96: t.bigint().notNull(),
    tick: t.integer().notNull(),
    liquidity: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.poolId] }),
    updatedIdx: index().on(table.updatedBlock),
  }),
);

/** A tick of a V4 pool (a cleared tick stays at zero, as in v3_tick). */
export const v4Tick = onchainTable(
  "v4_tick",
  (t) => ({
    chainId: t.integer().notNull(),
    poolId: t.hex().notNull(),
    tick: t.integer().notNull(),
    liquidityGross: t.bigint().notNull(),
    /** Signed: added when the price crosses the tick upwards, subtracted downwards. */
    liquidityNet: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.poolId, table.tick] }),
    poolIdx: index().on(table.chainId, table.poolId),
    updatedIdx: index().on(table.updatedBlock),
  }),
);

export const v4PoolRelations = relations(v4Pool, ({ one, many }) => ({
  token0Token: one(token, {
    fields: [v4Pool.chainId, v4Pool.token0],
    references: [token.chainId, token.address],
  }),
  token1Token: one(token, {
    fields: [v4Pool.chainId, v4Pool.token1],
    references: [token.chainId, token.address],
  }),
  ticks: many(v4Tick),
}));

export const v4TickRelations = relations(v4Tick, ({ one }) => ({
  poolRow: one(v4Pool, {
    fields: [v4Tick.chainId, v4Tick.poolId],
    references: [v4Pool.chainId, v4Pool.poolId],
  }),
}));
