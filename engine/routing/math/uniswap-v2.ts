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
