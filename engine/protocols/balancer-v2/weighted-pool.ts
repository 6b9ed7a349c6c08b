/**
 * Exact quotes of a Balancer V2 weighted pool (`WeightedPool` of the 2023 factory, through
 * `BaseMinimalSwapInfoPool`), from the state the vault and the pool report.
 */
import type { Address } from "viem";
import type { WeightedPoolState } from "../../core/types.js";
import {
  addSwapFeeAmount,
  downscaleDown,
  downscaleUp,
  perToken,
  subtractSwapFeeAmount,
  tokenIndex,
  upscale,
} from "./base-pool.js";
import {
  calcBptOutGivenExactTokensIn,
  calcInGivenOut,
  calcOutGivenIn,
  calcTokenOutGivenExactBptIn,
} from "./weighted-math.js";

export type { WeightedPoolState };

export type WeightedSwapParameters = {
  pool: WeightedPoolState;
  tokenIn: Address;
  tokenOut: Address;
};

type Side = { balance: bigint; weight: bigint; scalingFactor: bigint };

function side(pool: WeightedPoolState, token: Address): Side {
  const i = tokenIndex(pool.tokens, token);
  return {
    balance: upscale(
      perToken(pool.balances, i, "balance"),
      perToken(pool.scalingFactors, i, "scaling factor"),
    ),
    weight: perToken(pool.normalizedWeights, i, "weight"),
    scalingFactor: perToken(pool.scalingFactors, i, "scaling factor"),
  };
}

/**
 * The amount of `tokenOut` a swap of exactly `amountIn` gets, as the vault's GIVEN_IN swap:
 * fee off (rounded up), upscale, `calcOutGivenIn`, downscale rounding down. Throws
 * `BalancerMathError` where the pool reverts (`MAX_IN_RATIO` past 30% of the balance in).
 */
export function quoteWeightedExactIn(
  params: WeightedSwapParameters & { amountIn: bigint },
): bigint {
  const { pool } = params;
  const tokenIn = side(pool, params.tokenIn);
  const tokenOut = side(pool, params.tokenOut);
  const amountIn = upscale(
    subtractSwapFeeAmount(params.amountIn, pool.swapFeePercentage),
    tokenIn.scalingFactor,
  );
  const amountOut = calcOutGivenIn({
    balanceIn: tokenIn.balance,
    weightIn: tokenIn.weight,
    balanceOut: tokenOut.balance,
    weightOut: tokenOut.weight,
    amountIn,
  });
  return downscaleDown(amountOut, tokenOut.scalingFactor);
}

/**
 * The amount of `tokenIn` a swap for exactly `amountOut` takes, as the vault's GIVEN_OUT swap:
 * upscale, `calcInGivenOut`, downscale rounding up, fee on (rounded up). `MAX_OUT_RATIO` past
 * 30% of the balance out.
 */
export function quoteWeightedExactOut(
  params: WeightedSwapParameters & { amountOut: bigint },
): bigint {
  const { pool } = params;
  const tokenIn = side(pool, params.tokenIn);
  const tokenOut = side(pool, params.tokenOut);
  const amountIn = calcInGivenOut({
    balanceIn: tokenIn.balance,
    weightIn: tokenIn.weight,
    balanceOut: tokenOut.balance,
    weightOut: tokenOut.weight,
    amountOut: upscale(params.amountOut, tokenOut.scalingFactor),
  });
  return addSwapFeeAmount(downscaleUp(amountIn, tokenIn.scalingFactor), pool.swapFeePercentage);
}

/**
 * BPT minted by a join with exactly `amountIn` of one token (`EXACT_TOKENS_IN_FOR_BPT_OUT` with
 * the other amounts zero): the non-proportional share of the amount pays the swap fee.
 */
export function quoteWeightedJoinExactTokenIn(params: {
  pool: WeightedPoolState;
  tokenIn: Address;
  amountIn: bigint;
}): bigint {
  const { pool } = params;
  const index = tokenIndex(pool.tokens, params.tokenIn);
  const balances = pool.balances.map((balance, i) =>
    upscale(balance, perToken(pool.scalingFactors, i, "scaling factor")),
  );
  const amountsIn = pool.tokens.map((_, i) =>
    i === index ? upscale(params.amountIn, perToken(pool.scalingFactors, i, "scaling factor")) : 0n,
  );
  return calcBptOutGivenExactTokensIn({
    balances,
    normalizedWeights: pool.normalizedWeights,
    amountsIn,
    bptTotalSupply: pool.actualSupply,
    swapFeePercentage: pool.swapFeePercentage,
  });
}

/**
 * The amount of `tokenOut` an exit burning exactly `bptIn` pays (`EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`),
 * against the supply the pool exits against (its actual supply, protocol fees due minted first):
 * upscale, `calcTokenOutGivenExactBptIn`, downscale rounding down.
 */
export function quoteWeightedExitExactBptIn(params: {
  pool: WeightedPoolState;
  tokenOut: Address;
  bptIn: bigint;
}): bigint {
  const tokenOut = side(params.pool, params.tokenOut);
  const amountOut = calcTokenOutGivenExactBptIn({
    balance: tokenOut.balance,
    normalizedWeight: tokenOut.weight,
    bptAmountIn: params.bptIn,
    bptTotalSupply: params.pool.actualSupply,
    swapFeePercentage: params.pool.swapFeePercentage,
  });
  return downscaleDown(amountOut, tokenOut.scalingFactor);
}
