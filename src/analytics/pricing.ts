/**
 * USD prices inside the indexer, after the Uniswap subgraph's idea, with exact integers:
 *
 * - a stablecoin of the chain (`ChainSetup.stablecoins`) is $1;
 * - WETH (the native currency's USD price) is set by a WETH/stablecoin pool's price whenever
 *   that pool's state changes while it holds at least `MIN_PRICING_LIQUIDITY_USD` of the
 *   stablecoin;
 * - any other token is set by a pool pairing it with WETH (once WETH has a price) or a
 *   stablecoin, whenever that pool's state changes while it holds at least
 *   `MIN_PRICING_LIQUIDITY_USD` of that priced side. A pool between two other tokens prices
 *   nothing (the subgraph's whitelist), and a dust pool cannot set a price.
 *
 * A price is the last such pool's: prices move with trades in liquid pools, never with a read.
 * Pure: no Ponder, no I/O.
 */

/** 10^18: USD and prices are integers of 10^-18 USD. */
export const USD = 10n ** 18n;
/** What a pool must hold of its priced side (in USD) for its price to set the other side's. */
export const MIN_PRICING_LIQUIDITY_USD = 50_000n * USD;
const Q128 = 1n << 128n;

export type PricingAnchors = { weth: string | undefined; stablecoins: ReadonlySet<string> };

/** `amount` raw units of a token of `decimals` at `priceUsd` (per whole token), in 10^-18 USD. */
export function usdValue(amount: bigint, priceUsd: bigint, decimals: number): bigint {
  const abs = amount < 0n ? -amount : amount;
  return (abs * priceUsd) / 10n ** BigInt(decimals);
}

/** A pool's price (token1 per token0, raw units) as Q128, from an exact ratio; 0 when undefined. */
export function priceX128Of(numerator: bigint, denominator: bigint): bigint {
  return denominator === 0n ? 0n : (numerator * Q128) / denominator;
}

/** A V3 or V4 pool's price as the exact ratio `sqrtPriceX96² / 2^192` (token1 per token0). */
export function sqrtPriceRatio(sqrtPriceX96: bigint): { numerator: bigint; denominator: bigint } {
  return { numerator: sqrtPriceX96 * sqrtPriceX96, denominator: 1n << 192n };
}

/** V3: `sqrtPriceX96² / 2^192` as Q128. */
export function priceX128FromSqrt(sqrtPriceX96: bigint): bigint {
  return (sqrtPriceX96 * sqrtPriceX96) >> 64n;
}

export type PoolForPricing = {
  token0: string;
  token1: string;
  decimals0: number | null;
  decimals1: number | null;
  balance0: bigint;
  balance1: bigint;
  /** token1 per token0 in raw units, Q128. */
  price: bigint;
};

/**
 * Which token of the pool gets which price from this pool's state, if any. `priceOf` answers a
 * token's current price (stablecoins included) or null.
 */
export function priceFromPool(
  pool: PoolForPricing,
  anchors: PricingAnchors,
  priceOf: (token: string) => bigint | null,
): { token: string; priceUsd: bigint } | undefined {
  const { decimals0, decimals1, price: priceX128 } = pool;
  if (decimals0 === null || decimals1 === null || priceX128 === 0n) return undefined;
  const isStable = (t: string) => anchors.stablecoins.has(t);
  const isWeth = (t: string) => t === anchors.weth;
  const rank = (t: string) => (isStable(t) ? 2 : isWeth(t) ? 1 : 0);
  const r0 = rank(pool.token0);
  const r1 = rank(pool.token1);
  // The side of higher rank prices the other: stablecoin > WETH > anything else.
  if (r0 === r1) return undefined;
  const side = r0 > r1 ? 0 : 1;
  const known = priceOf(side === 0 ? pool.token0 : pool.token1);
  if (known === null) return undefined;
  const held = side === 0 ? pool.balance0 : pool.balance1;
  if (usdValue(held, known, side === 0 ? decimals0 : decimals1) < MIN_PRICING_LIQUIDITY_USD)
    return undefined;
  const scale0 = 10n ** BigInt(decimals0);
  const scale1 = 10n ** BigInt(decimals1);
  // price0 = price1 × (token1 per token0) × 10^dec0 / 10^dec1, and the converse.
  return side === 1
    ? { token: pool.token0, priceUsd: (priceX128 * known * scale0) / (Q128 * scale1) }
    : { token: pool.token1, priceUsd: (known * Q128 * scale1) / (priceX128 * scale0) };
}

/**
 * A swap's USD value (the subgraph's tracked volume): the mean of both sides' values when both
 * are priced, the priced side's value when one is, else 0.
 */
export function swapUsd(v0: bigint | null, v1: bigint | null): bigint {
  if (v0 !== null && v1 !== null) return (v0 + v1) / 2n;
  return v0 ?? v1 ?? 0n;
}

/** Start of the UTC hour and day of a block timestamp. */
export function periodStarts(timestamp: bigint): { hour: number; day: number } {
  const t = Number(timestamp);
  return { hour: t - (t % 3600), day: t - (t % 86_400) };
}
