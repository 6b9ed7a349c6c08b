/**
 * What every Balancer V2 pool does around its math (`BasePool`, `ScalingHelpers`): amounts are
 * upscaled to 18 decimals (times the token's rate, where it has one) before the math, and
 * downscaled after it, rounding against the trader; the swap fee comes off a given amount in
 * before upscaling and onto a computed amount in after downscaling.
 */
import type { Address } from "viem";
import { complement, divDown, divUp, mulDown, mulUp, sub } from "./fixed-point.js";

/**
 * A token's amount in 18-decimal units, rounded down in every direction (`_upscale`: the one
 * place Balancer does not pick the rounding per direction, its error being negligible).
 */
export function upscale(amount: bigint, scalingFactor: bigint): bigint {
  return mulDown(amount, scalingFactor);
}

/** Back to the token's units, rounded down: for amounts leaving the pool. */
export function downscaleDown(amount: bigint, scalingFactor: bigint): bigint {
  return divDown(amount, scalingFactor);
}

/** Back to the token's units, rounded up: for amounts entering the pool. */
export function downscaleUp(amount: bigint, scalingFactor: bigint): bigint {
  return divUp(amount, scalingFactor);
}

/** `amount` less the swap fee, the fee rounded up (`_subtractSwapFeeAmount`). */
export function subtractSwapFeeAmount(amount: bigint, swapFeePercentage: bigint): bigint {
  return sub(amount, mulUp(amount, swapFeePercentage));
}

/** The amount which, less the swap fee, is `amount`, rounded up (`_addSwapFeeAmount`). */
export function addSwapFeeAmount(amount: bigint, swapFeePercentage: bigint): bigint {
  return divUp(amount, complement(swapFeePercentage));
}

/** The scaling factor of a token with `decimals` (at most 18): 1e18 · 10^(18 - decimals). */
export function decimalScalingFactor(decimals: number): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 18) {
    throw new RangeError(`Balancer V2 pools take tokens of 0 to 18 decimals, not ${decimals}`);
  }
  return 10n ** 18n * 10n ** BigInt(18 - decimals);
}

/** Where `token` is in a pool's token list; throws for a token the pool does not hold. */
export function tokenIndex(tokens: readonly Address[], token: Address): number {
  const wanted = token.toLowerCase();
  const index = tokens.findIndex((t) => t.toLowerCase() === wanted);
  if (index < 0) throw new RangeError(`token ${token} is not in the pool`);
  return index;
}

/** The element at `index` of one of a pool state's per-token arrays. */
export function perToken<T>(values: readonly T[], index: number, what: string): T {
  const value = values[index];
  if (value === undefined) throw new RangeError(`no ${what} for token ${index}`);
  return value;
}
