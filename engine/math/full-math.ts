/**
 * Uniswap's FullMath and UnsafeMath over `bigint`: products never overflow here, so each
 * function is the exact rational result rounded the way the Solidity library rounds it.
 * Arguments are non-negative, as the uint256 arguments of the Solidity originals are.
 */

export const Q96 = 1n << 96n;
export const Q128 = 1n << 128n;
export const MAX_UINT160 = (1n << 160n) - 1n;
export const MAX_UINT256 = (1n << 256n) - 1n;

/** floor(a × b / denominator), as `FullMath.mulDiv`. */
export function mulDiv(a: bigint, b: bigint, denominator: bigint): bigint {
  return (a * b) / denominator;
}

/** ceil(a × b / denominator), as `FullMath.mulDivRoundingUp`. */
export function mulDivRoundingUp(a: bigint, b: bigint, denominator: bigint): bigint {
  const product = a * b;
  const quotient = product / denominator;
  return product % denominator === 0n ? quotient : quotient + 1n;
}

/** ceil(x / y), as `UnsafeMath.divRoundingUp`. */
export function divRoundingUp(x: bigint, y: bigint): bigint {
  const quotient = x / y;
  return x % y === 0n ? quotient : quotient + 1n;
}
