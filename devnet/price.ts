import { parseUnits } from "viem";

type Priced = { decimals: number; usdPrice: number };

const Q96 = 2 ** 96;

/**
 * The V3 `sqrtPriceX96` at which `token0` and `token1` trade at their reference USD prices
 * (price = raw token1 per raw token0). Float precision is plenty for seeding a devnet.
 */
export function sqrtPriceX96FromPrice(token0: Priced, token1: Priced): bigint {
  const price =
    (token0.usdPrice * 10 ** token1.decimals) / (token1.usdPrice * 10 ** token0.decimals);
  return BigInt(Math.floor(Math.sqrt(price) * Q96));
}

/** The tick at (or just below) a `sqrtPriceX96`, approximately; used only to centre positions. */
export function tickFromSqrtPriceX96(sqrtPriceX96: bigint): number {
  const sqrt = Number(sqrtPriceX96) / Q96;
  return Math.floor(Math.log(sqrt * sqrt) / Math.log(1.0001));
}

/** Raw amount of a token worth `usd` at its reference price. */
export function amountForUsd(token: Priced, usd: number): bigint {
  const units = usd / token.usdPrice;
  return parseUnits(units.toFixed(Math.min(token.decimals, 6)), token.decimals);
}
