import { index, onchainTable, primaryKey } from "ponder";

/**
 * An Aave V3 reserve: its tokens, its risk configuration, and its state as the pool holds it
 * after the last change (`Pool.getReserveData`), with what its aToken holds of the asset.
 */
export const aaveReserve = onchainTable(
  "aave_reserve",
  (t) => ({
    chainId: t.integer().notNull(),
    /** The aToken: the reserve's position token and its key. */
    aToken: t.hex().notNull(),
    /** The Aave Pool (proxy). */
    pool: t.hex().notNull(),
    asset: t.hex().notNull(),
    stableDebtToken: t.hex().notNull(),
    variableDebtToken: t.hex().notNull(),
    interestRateStrategy: t.hex().notNull(),
    decimals: t.integer().notNull(),
    /** Basis points. */
    ltv: t.integer().notNull(),
    liquidationThreshold: t.integer().notNull(),
    /** Basis points above 10000 (10500: a 5% bonus). */
    liquidationBonus: t.integer().notNull(),
    reserveFactor: t.integer().notNull(),
    /** Whole tokens (0: none). */
    supplyCap: t.bigint().notNull(),
    borrowCap: t.bigint().notNull(),
    active: t.boolean().notNull(),
    frozen: t.boolean().notNull(),
    paused: t.boolean().notNull(),
    borrowingEnabled: t.boolean().notNull(),
    /** Ray (1e27). */
    liquidityIndex: t.bigint().notNull(),
    variableBorrowIndex: t.bigint().notNull(),
    /** Ray per year. */
    liquidityRate: t.bigint().notNull(),
    variableBorrowRate: t.bigint().notNull(),
    stableBorrowRate: t.bigint().notNull(),
    /** Unix seconds of the pool's last update of the reserve. */
    lastUpdateTimestamp: t.bigint().notNull(),
    /** Scaled aTokens owed to the treasury, not yet minted. */
    accruedToTreasury: t.bigint().notNull(),
    /** The aToken's scaled total supply. */
    scaledATokenSupply: t.bigint().notNull(),
    /** What the aToken holds of the asset: the most that can be withdrawn or borrowed. */
    availableLiquidity: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.aToken] }),
    assetIdx: index().on(table.chainId, table.pool, table.asset),
    updatedIdx: index().on(table.updatedBlock),
  }),
);

/** One supply, withdrawal, borrow, repayment or liquidation of an Aave V3 pool. */
export const aaveEvent = onchainTable(
  "aave_event",
  (t) => ({
    chainId: t.integer().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    pool: t.hex().notNull(),
    kind: t.text().notNull(),
    /** The reserve's asset (a liquidation's collateral asset). */
    asset: t.hex().notNull(),
    /** Who acted (the supplier, withdrawer, borrower, repayer or liquidator). */
    user: t.hex().notNull(),
    /** Whose position changed (onBehalfOf, or the liquidated account). */
    onBehalfOf: t.hex().notNull(),
    /** Where a withdrawal went. */
    to: t.hex(),
    amount: t.bigint().notNull(),
    /** A liquidation's debt asset and the debt it covered. */
    debtAsset: t.hex(),
    debtToCover: t.bigint(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.txHash, table.logIndex] }),
    userIdx: index().on(table.chainId, table.onBehalfOf),
  }),
);
