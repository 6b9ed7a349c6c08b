/**
 * History for analysts, written by every pool and vault protocol's handlers through
 * `src/analytics/record.ts`: one row per swap, liquidity change and vault deposit or withdrawal,
 * and aggregates kept as the events arrive (per pool per hour and per day, per token per day).
 *
 * Units, exact throughout:
 * - token amounts are raw integers (wei of the token), as the events carry them;
 * - USD is a fixed-point integer of 10^-18 USD (`…Usd` columns: 1 USD = 10^18), each value
 *   truncated towards zero once, where it is computed (so a sum of values is exact, and a test
 *   can assert any of them to the wei of a dollar);
 * - a token's USD price is USD × 10^18 for one whole token (10^decimals of its units);
 * - a pool's price is token1 per token0 in raw units as a Q128 fixed-point integer
 *   (`price × 2^128`, truncated): exactly `sqrtPriceX96² / 2^64` for a V3 pool,
 *   `reserve1 × 2^128 / reserve0` for a V2 pair (0 while it holds no token0);
 * - periods are keyed by their start in unix seconds (UTC hours and days).
 */
import { index, onchainTable, type PgColumnsBuilders, primaryKey } from "ponder";

/**
 * One swap: amounts as the pool sees them (positive into the pool, negative out of it). A
 * Balancer V2 swap (`recordMultiTokenSwap`: its pool may hold more than two tokens) is between
 * the two tokens it exchanged, ordered by address; the vault's event names no sender or
 * recipient, so both are the transaction's sender, and its `price` is the swap's own.
 */
export const swap = onchainTable(
  "swap",
  (t) => ({
    chainId: t.integer().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    protocolSlug: t.text().notNull(),
    pool: t.hex().notNull(),
    token0: t.hex().notNull(),
    token1: t.hex().notNull(),
    /** Who called the pool (a router, usually). */
    sender: t.hex().notNull(),
    /** Who received the output. */
    recipient: t.hex().notNull(),
    amount0: t.bigint().notNull(),
    amount1: t.bigint().notNull(),
    /** USD value at the prices of this block (see `recordPoolEvent`); 0 when neither side has a price. */
    amountUsd: t.bigint().notNull(),
    /** `amountUsd` × the pool's fee. */
    feesUsd: t.bigint().notNull(),
    /**
     * The pool's price after the swap (Q128, token1 per token0); for a Balancer V2 swap, what it
     * exchanged of token1 per token0, fees included.
     */
    price: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.txHash, table.logIndex] }),
    poolIdx: index().on(table.chainId, table.pool, table.blockNumber),
    blockIdx: index().on(table.blockNumber),
    // What an account was paid, newest first (`/v1/wallet/balances`): an index range.
    recipientIdx: index().on(table.chainId, table.recipient, table.blockNumber),
  }),
);

/**
 * One liquidity change: `mint` and `burn` (a V2 pair's LP mint and burn, a V3 position's),
 * `collect` (a V3 position's tokens leaving the pool). Amounts are positive token amounts.
 */
export const liquidityEvent = onchainTable(
  "liquidity_event",
  (t) => ({
    chainId: t.integer().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    protocolSlug: t.text().notNull(),
    pool: t.hex().notNull(),
    kind: t.text().$type<"mint" | "burn" | "collect">().notNull(),
    /** The caller: V2 `sender`, a V3 mint's `sender`; a V3 burn's or collect's position owner. */
    sender: t.hex().notNull(),
    /** The V3 position's owner; null for V2. */
    owner: t.hex(),
    /** Who received the tokens: a V2 burn's `to`, a V3 collect's `recipient`; else null. */
    recipient: t.hex(),
    amount0: t.bigint().notNull(),
    amount1: t.bigint().notNull(),
    /** V3 liquidity units added or removed; null for V2 and collects. */
    liquidity: t.bigint(),
    tickLower: t.integer(),
    tickUpper: t.integer(),
    /** Both amounts at the prices of this block (unpriced sides count 0). */
    amountUsd: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.txHash, table.logIndex] }),
    poolIdx: index().on(table.chainId, table.pool, table.blockNumber),
    blockIdx: index().on(table.blockNumber),
  }),
);

/** One ERC4626 `Deposit` or `Withdraw`. */
export const vaultEvent = onchainTable(
  "vault_event",
  (t) => ({
    chainId: t.integer().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    vault: t.hex().notNull(),
    asset: t.hex().notNull(),
    kind: t.text().$type<"deposit" | "withdraw">().notNull(),
    sender: t.hex().notNull(),
    /** The shares' owner (minted to on deposit, burned from on withdraw). */
    owner: t.hex().notNull(),
    /** Who received the assets of a withdrawal; null for a deposit. */
    receiver: t.hex(),
    assets: t.bigint().notNull(),
    shares: t.bigint().notNull(),
    /** `assets` at the asset's USD price of this block; null when the asset has none. */
    assetsUsd: t.bigint(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.txHash, table.logIndex] }),
    vaultIdx: index().on(table.chainId, table.vault, table.blockNumber),
    blockIdx: index().on(table.blockNumber),
    // Shares deposited for an account and assets withdrawn to it (`/v1/wallet/balances`).
    ownerIdx: index().on(table.chainId, table.owner, table.blockNumber),
    receiverIdx: index().on(table.chainId, table.receiver, table.blockNumber),
  }),
);

/**
 * A pool's current analytic state, every protocol alike: the tokens it holds (a V2 pair's
 * reserves; a V3 pool's mints, swaps, flash fees in and collects out), its price, and running
 * totals.
 */
export const poolMarket = onchainTable(
  "pool_market",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    protocolSlug: t.text().notNull(),
    token0: t.hex().notNull(),
    token1: t.hex().notNull(),
    /** Null when the token's decimals are unknown (not in the catalogue): its side is unpriced. */
    decimals0: t.integer(),
    decimals1: t.integer(),
    /** Swap fee in millionths. */
    fee: t.integer().notNull(),
    balance0: t.bigint().notNull(),
    balance1: t.bigint().notNull(),
    price: t.bigint().notNull(),
    volumeToken0: t.bigint().notNull(),
    volumeToken1: t.bigint().notNull(),
    volumeUsd: t.bigint().notNull(),
    feesUsd: t.bigint().notNull(),
    swapCount: t.integer().notNull(),
    createdBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.address] }),
    updatedIdx: index().on(table.updatedBlock),
  }),
);

/**
 * A token's current USD price and what all indexed pools hold of it. Stablecoins are $1 (their
 * `priceUsd` is 10^18 always); WETH is priced by WETH/stablecoin pools, every other token by
 * pools against WETH or a stablecoin, each only while the pool holds at least
 * `MIN_PRICING_LIQUIDITY_USD` of that priced side (src/analytics/pricing.ts).
 */
export const tokenMarket = onchainTable(
  "token_market",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    /** Null until a pool prices it. */
    priceUsd: t.bigint(),
    /** The pool whose state set `priceUsd`. */
    pricedBy: t.hex(),
    /** Raw amount held by all indexed pools. */
    totalValueLocked: t.bigint().notNull(),
    volume: t.bigint().notNull(),
    volumeUsd: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.address] }),
    updatedIdx: index().on(table.updatedBlock),
  }),
);

/** The chain's native currency in USD (from WETH/stablecoin pools; WETH's `tokenMarket` price). */
export const nativePrice = onchainTable("native_price", (t) => ({
  chainId: t.integer().primaryKey(),
  priceUsd: t.bigint().notNull(),
  pricedBy: t.hex().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/** Columns of a pool's hour and day rows. */
const poolPeriodColumns = (t: PgColumnsBuilders) => ({
  chainId: t.integer().notNull(),
  pool: t.hex().notNull(),
  /** Start of the period, unix seconds (UTC). */
  periodStart: t.integer().notNull(),
  protocolSlug: t.text().notNull(),
  token0: t.hex().notNull(),
  token1: t.hex().notNull(),
  /** Pool price (Q128, token1 per token0) at the period's first event, its extremes and after its last. */
  open: t.bigint().notNull(),
  high: t.bigint().notNull(),
  low: t.bigint().notNull(),
  close: t.bigint().notNull(),
  volumeToken0: t.bigint().notNull(),
  volumeToken1: t.bigint().notNull(),
  volumeUsd: t.bigint().notNull(),
  feesUsd: t.bigint().notNull(),
  swapCount: t.integer().notNull(),
  /** What the pool holds after the period's last event, and its USD value at that event's prices. */
  tvlToken0: t.bigint().notNull(),
  tvlToken1: t.bigint().notNull(),
  tvlUsd: t.bigint().notNull(),
  updatedBlock: t.bigint().notNull(),
});

/** Per pool per UTC hour, from the pool's events in that hour. */
export const poolHour = onchainTable("pool_hour", poolPeriodColumns, (table) => ({
  pk: primaryKey({ columns: [table.chainId, table.pool, table.periodStart] }),
  periodIdx: index().on(table.chainId, table.periodStart),
}));

/** Per pool per UTC day, from the pool's events in that day. */
export const poolDay = onchainTable("pool_day", poolPeriodColumns, (table) => ({
  pk: primaryKey({ columns: [table.chainId, table.pool, table.periodStart] }),
  periodIdx: index().on(table.chainId, table.periodStart),
}));

/**
 * Per token per UTC day, from the events of the pools holding it: swap volume (a swap's
 * `amountUsd` counts in full for both its tokens), what all pools hold at the day's last event,
 * and the USD price at the day's first event, its extremes and after its last (null until priced).
 */
export const tokenDay = onchainTable(
  "token_day",
  (t) => ({
    chainId: t.integer().notNull(),
    token: t.hex().notNull(),
    periodStart: t.integer().notNull(),
    volume: t.bigint().notNull(),
    volumeUsd: t.bigint().notNull(),
    swapCount: t.integer().notNull(),
    totalValueLocked: t.bigint().notNull(),
    tvlUsd: t.bigint().notNull(),
    openUsd: t.bigint(),
    highUsd: t.bigint(),
    lowUsd: t.bigint(),
    closeUsd: t.bigint(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.token, table.periodStart] }),
    periodIdx: index().on(table.chainId, table.periodStart),
  }),
);
