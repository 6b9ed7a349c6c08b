import { index, onchainTable, primaryKey } from "ponder";

/**
 * A Balancer V2 pool of a known factory, keyed by its address (its BPT; the vault's pool id
 * begins with it). Per-token arrays follow `tokens`, the vault's order: balances from the
 * vault's events, the rest what the pool answers, read at the block of the event that changed it
 * (and, for pools with rate providers, on the refresh cadence: rates move without events).
 */
export const balancerV2Pool = onchainTable(
  "balancer_v2_pool",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    poolId: t.hex().notNull(),
    vault: t.hex().notNull(),
    factory: t.hex().notNull(),
    /** `weighted` or `composable-stable`. */
    poolType: t.text().notNull(),
    /** Registered tokens (a composable stable pool's BPT among them). */
    tokens: t.hex().array().notNull(),
    /** Cash plus managed, in token units. */
    balances: t.bigint().array().notNull(),
    /**
     * Weighted: `getScalingFactors()` (rates included). Composable stable: 1e18 · 10^(18 −
     * decimals), the BPT's 1e18 (its rates are `cachedRates`/`providerRates`).
     */
    scalingFactors: t.bigint().array().notNull(),
    /** Weighted: `getNormalizedWeights()`; empty for a stable pool. */
    normalizedWeights: t.bigint().array().notNull(),
    /** `getRateProviders()`: the zero address where a token has none. */
    rateProviders: t.hex().array().notNull(),
    swapFeePercentage: t.bigint().notNull(),
    /** The BPT's `totalSupply()` (a stable pool's preminted BPT included). */
    totalSupply: t.bigint().notNull(),
    /** Weighted: `getActualSupply()`; a stable pool's is computed from its state. */
    actualSupply: t.bigint().notNull(),
    // Composable stable pools only (zero or empty for weighted ones).
    bptIndex: t.integer().notNull(),
    /** `getTokenRateCache(token)`: rate, old rate and expiry; 1e18, 1e18, 0 without a provider. */
    cachedRates: t.bigint().array().notNull(),
    oldRates: t.bigint().array().notNull(),
    rateExpires: t.bigint().array().notNull(),
    /** Each provider's `getRate()` at `updatedBlock` (1e18 without one). */
    providerRates: t.bigint().array().notNull(),
    exemptFromYieldProtocolFee: t.boolean().array().notNull(),
    /** `getAmplificationParameter()` at `updatedBlock` (A · 1000), and the update in progress. */
    amp: t.bigint().notNull(),
    ampStartValue: t.bigint().notNull(),
    ampEndValue: t.bigint().notNull(),
    ampStartTime: t.bigint().notNull(),
    ampEndTime: t.bigint().notNull(),
    lastJoinExitAmp: t.bigint().notNull(),
    lastPostJoinExitInvariant: t.bigint().notNull(),
    /**
     * `getProtocolFeePercentageCache(0)`, weighted pools' too: a weighted pool whose protocol is
     * paid a share of swap fees owes it more BPT after every swap, so its actual supply is read
     * again after each.
     */
    protocolSwapFeePercentage: t.bigint().notNull(),
    protocolYieldFeePercentage: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.address] }),
    updatedIdx: index().on(table.updatedBlock),
  }),
);
