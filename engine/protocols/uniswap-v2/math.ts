/** Uniswap V2's `getAmountOut`, generalized from 997/1000 to the pair's fee in millionths. */

const ONE_MILLION = 1_000_000n;

export type V2AmountOutParameters = {
  amountIn: bigint;
  reserveIn: bigint;
  reserveOut: bigint;
  /** Swap fee in millionths of the input (3000 for Uniswap V2's 0.3%). */
  feePpm: number;
};

/**
 * The output of selling `amountIn` into a constant-product pair, rounded down as
 * `UniswapV2Library.getAmountOut`: at 3,000 ppm this is (a·997·R) / (r·1000 + a·997) scaled by
 * 1,000 above and below, the same quotient to the wei. Zero when the pair is empty.
 */
export function uniswapV2AmountOut(params: V2AmountOutParameters): bigint {
  const { amountIn, reserveIn, reserveOut } = params;
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const amountInWithFee = amountIn * (ONE_MILLION - BigInt(params.feePpm));
  return (amountInWithFee * reserveOut) / (reserveIn * ONE_MILLION + amountInWithFee);
}

/** The largest integer whose square is at most `n` (OpenZeppelin's `Math.sqrt`). */
export function floorSqrt(n: bigint): bigint {
  if (n < 2n) return n;
  // Newton's iteration from above decreases to the floor; the float estimate, raised past its
  // rounding error, starts it a few steps away.
  let x = BigInt(Math.ceil(Math.sqrt(Number(n)) * (1 + 1e-12))) + 1n;
  for (let next = (x + n / x) >> 1n; next < x; next = (x + n / x) >> 1n) x = next;
  return x;
}

/** A single-sided add of liquidity to a 0.3% pair, as `ProgramValues.uniswapV2ZapIn` runs it. */
export type V2ZapIn = {
  /** Sold first, for `swapOut` of the other token. */
  swapIn: bigint;
  swapOut: bigint;
  /** Added as liquidity: the input token, and the other token. */
  depositIn: bigint;
  depositOther: bigint;
  /** LP tokens minted. */
  liquidity: bigint;
  /** Left over: of the input token, and of the other token. */
  dustIn: bigint;
  dustOther: bigint;
};

/**
 * Turning `amountIn` of one token of a 0.3% pair into its liquidity: sell the share after
 * which the rest and the purchase stand in the pair's new ratio, then add both as Router02
 * would (one side whole, the other in ratio, rounded down) and mint. `undefined` when the pair
 * is empty or the liquidity minted rounds to zero (the pair reverts).
 */
export function uniswapV2ZapIn(params: {
  amountIn: bigint;
  reserveIn: bigint;
  reserveOut: bigint;
  totalSupply: bigint;
}): V2ZapIn | undefined {
  const { amountIn, totalSupply } = params;
  let { reserveIn, reserveOut } = params;
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n || totalSupply <= 0n) return undefined;
  const swapIn =
    (floorSqrt(reserveIn * (reserveIn * 3_988_009n + amountIn * 3_988_000n)) - reserveIn * 1997n) /
    1994n;
  const swapOut = uniswapV2AmountOut({ amountIn: swapIn, reserveIn, reserveOut, feePpm: 3000 });
  reserveIn += swapIn;
  reserveOut -= swapOut;
  const left = amountIn - swapIn;
  const otherInRatio = (left * reserveOut) / reserveIn;
  const [depositIn, depositOther] =
    otherInRatio <= swapOut ? [left, otherInRatio] : [(swapOut * reserveIn) / reserveOut, swapOut];
  const byIn = (depositIn * totalSupply) / reserveIn;
  const byOther = (depositOther * totalSupply) / reserveOut;
  const liquidity = byIn < byOther ? byIn : byOther;
  if (liquidity <= 0n) return undefined;
  return {
    swapIn,
    swapOut,
    depositIn,
    depositOther,
    liquidity,
    dustIn: amountIn - swapIn - depositIn,
    dustOther: swapOut - depositOther,
  };
}

/** Uniswap V2 keeps this much of the first liquidity locked forever (at address 0). */
export const V2_MINIMUM_LIQUIDITY = 1000n;

/** Removing liquidity from a 0.3% pair and selling the other side on it. */
export type V2ZapOut = {
  /** Paid out by the burn: of the wanted token, and of the other. */
  amountOwn: bigint;
  amountOther: bigint;
  /** The other side sold, after the burn, on the same pair. */
  swapOut: bigint;
  /** amountOwn + swapOut. */
  amountOut: bigint;
};

/**
 * Burning `liquidity` of a 0.3% pair (its share of each reserve, rounded down) and selling the
 * other token's share back into the pair at the reserves the burn left. `undefined` when the
 * burn would pay nothing of either token (the pair reverts) or more than the unlocked supply.
 */
export function uniswapV2ZapOut(params: {
  liquidity: bigint;
  reserveOwn: bigint;
  reserveOther: bigint;
  totalSupply: bigint;
}): V2ZapOut | undefined {
  const { liquidity, reserveOwn, reserveOther, totalSupply } = params;
  if (liquidity <= 0n || liquidity > totalSupply - V2_MINIMUM_LIQUIDITY) return undefined;
  const amountOwn = (liquidity * reserveOwn) / totalSupply;
  const amountOther = (liquidity * reserveOther) / totalSupply;
  if (amountOwn === 0n || amountOther === 0n) return undefined;
  const swapOut = uniswapV2AmountOut({
    amountIn: amountOther,
    reserveIn: reserveOther - amountOther,
    reserveOut: reserveOwn - amountOwn,
    feePpm: 3000,
  });
  return { amountOwn, amountOther, swapOut, amountOut: amountOwn + swapOut };
}
