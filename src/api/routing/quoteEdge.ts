/**
 * Exact quotes of one edge: the pool math of each pool kind, equal to the chain to the wei.
 */
import { previewDeposit, previewRedeem } from "./math/erc4626.js";
import { uniswapV2AmountOut } from "./math/uniswapV2.js";
import { uniswapV3ExactIn } from "./math/uniswapV3.js";
import type { Edge } from "./types.js";

/**
 * Why an edge cannot take an input: more than the pool can fill, a V3 pool whose price sits at
 * the swap's price limit (the pool reverts 'SPL': the edge takes nothing in that direction),
 * or an output that rounds to zero.
 */
export type EdgeQuoteFailure = "exceeds-liquidity" | "price-limit" | "zero-output";

export type EdgeQuote =
  | { ok: true; amountOut: bigint /** V3 only: initialized ticks crossed. */; ticksCrossed: number }
  | { ok: false; reason: EdgeQuoteFailure };

const ZERO_OUTPUT: EdgeQuote = { ok: false, reason: "zero-output" };
const EXCEEDS_LIQUIDITY: EdgeQuote = { ok: false, reason: "exceeds-liquidity" };
/** Uniswap V2 pairs keep their reserves in uint112. */
const MAX_UINT112 = 2n ** 112n - 1n;

/**
 * Quotes `amountIn` through `edge` and says why it cannot when it cannot: a V3 pool that runs
 * out of liquidity before the input is spent or whose price already sits at the swap's price
 * limit, a redeem of more shares than exist, or an output that rounds to zero.
 */
export function simulateEdge(edge: Edge, amountIn: bigint): EdgeQuote {
  if (amountIn <= 0n) return ZERO_OUTPUT;
  const pool = edge.pool;
  let amountOut: bigint;
  switch (pool.kind) {
    case "v2": {
      const zeroForOne = edge.tokenIn === pool.token0;
      const reserveIn = zeroForOne ? pool.reserve0 : pool.reserve1;
      // The pair keeps reserves in uint112: a larger balance makes `swap` revert (OVERFLOW).
      if (reserveIn + amountIn > MAX_UINT112) return EXCEEDS_LIQUIDITY;
      amountOut = uniswapV2AmountOut({
        amountIn,
        reserveIn,
        reserveOut: zeroForOne ? pool.reserve1 : pool.reserve0,
        feePpm: pool.feePpm,
      });
      break;
    }
    case "v3": {
      const result = uniswapV3ExactIn({ pool, zeroForOne: edge.tokenIn === pool.token0, amountIn });
      // The swap's failures are the edge's: the types keep the two lists of reasons in step.
      if (!result.ok) return result;
      return { ok: true, amountOut: result.amountOut, ticksCrossed: result.ticksCrossed };
    }
    case "erc4626": {
      if (edge.action === "deposit") {
        amountOut = previewDeposit(pool, amountIn);
      } else {
        // Nobody holds more shares than exist; what exists is all the vault pays out.
        if (amountIn > pool.totalSupply) return EXCEEDS_LIQUIDITY;
        amountOut = previewRedeem(pool, amountIn);
      }
      break;
    }
    case "wrap":
      amountOut = amountIn;
      break;
  }
  return amountOut > 0n ? { ok: true, amountOut, ticksCrossed: 0 } : ZERO_OUTPUT;
}

/**
 * The exact output of `amountIn` through `edge`, or `undefined` when the pool cannot fill it
 * (see {@link simulateEdge} for the reason).
 * @example quoteEdge({ pool: pair, tokenIn: weth, tokenOut: usdc, action: "swap" }, 10n ** 18n)
 */
export function quoteEdge(edge: Edge, amountIn: bigint): bigint | undefined {
  const quote = simulateEdge(edge, amountIn);
  return quote.ok ? quote.amountOut : undefined;
}
