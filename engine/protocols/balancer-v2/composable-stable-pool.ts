/**
 * Exact quotes of a Balancer V2 composable stable pool (`ComposableStablePool` of the 2023
 * factory, through `BaseGeneralPool`).
 *
 * The pool holds its own BPT as one of its registered tokens (preminted into the vault), so a
 * swap into or out of the BPT is a single-token join or exit priced by `StableMath`'s join and
 * exit functions, against the pool's *actual* supply: the BPT outside the vault plus the BPT the
 * pool owes the protocol and mints before any join or exit. Swaps between two other tokens use
 * the invariant of the balances without the BPT.
 *
 * Token rates enter the scaling factors. A pool caches each provider's rate for a duration and
 * refreshes it at the start of the first swap after it expired, so a quote must use the rate the
 * swap will see ({@link rateAtSwap}); the protocol's yield fee then charges the growth from the
 * rate at the last join or exit (the cache's old rate) to that one.
 */
import type { Address } from "viem";
import type { ComposableStablePoolState } from "../../core/types.js";
import {
  addSwapFeeAmount,
  downscaleDown,
  downscaleUp,
  perToken,
  subtractSwapFeeAmount,
  tokenIndex,
  upscale,
} from "./base-pool.js";
import { complement, divDown, divDownInteger, mul, mulDown, sub } from "./fixed-point.js";
import {
  calcBptInGivenExactTokensOut,
  calcBptOutGivenExactTokensIn,
  calcInGivenOut,
  calcOutGivenIn,
  calcTokenInGivenExactBptOut,
  calcTokenOutGivenExactBptIn,
  calculateInvariant,
} from "./stable-math.js";

export type { ComposableStablePoolState };

/** What the pool last stored about a token's rate (`getTokenRateCache`). */
export type TokenRateCache = {
  rate: bigint;
  /** The rate at the last join or exit: the base the yield fee is charged from. */
  oldRate: bigint;
  duration: bigint;
  /** Unix time after which the next swap, join or exit reads the provider again. */
  expires: bigint;
};

/**
 * The rate a swap at `timestamp` applies to a token: the cached one until the cache expires,
 * then the provider's (`_cacheTokenRateIfNecessary` runs first in every swap).
 */
export function rateAtSwap(params: {
  cache: TokenRateCache;
  providerRate: bigint;
  timestamp: bigint;
}): bigint {
  return params.timestamp > params.cache.expires ? params.providerRate : params.cache.rate;
}

/** Scaling factors with rates, as `_scalingFactors()`: decimals factor times rate, rounded down. */
export function composableStableScalingFactors(pool: ComposableStablePoolState): bigint[] {
  return pool.decimalScalingFactors.map((factor, i) =>
    i === pool.bptIndex ? factor : mulDown(factor, perToken(pool.tokenRates, i, "token rate")),
  );
}

function withoutBpt<T>(values: readonly T[], bptIndex: number): T[] {
  return values.filter((_, i) => i !== bptIndex);
}

/** The balances upscaled by `scalingFactors`, the BPT's left out: what the math works on. */
export function upscaledWithoutBpt(
  pool: ComposableStablePoolState,
  scalingFactors: readonly bigint[],
): bigint[] {
  const upscaled = pool.balances.map((balance, i) =>
    upscale(balance, perToken(scalingFactors, i, "scaling factor")),
  );
  return withoutBpt(upscaled, pool.bptIndex);
}

/** The index among the tokens without the BPT (`_skipBptIndex`). */
function skipBpt(index: number, bptIndex: number): number {
  return index < bptIndex ? index : index - 1;
}

/**
 * The supply a join or exit prices BPT against, as `_payProtocolFeesBeforeJoinExit`: the
 * virtual supply (total less the vault's preminted balance) plus the BPT minted to the protocol
 * for its share of the swap-fee growth and the non-exempt yield since the last join or exit.
 * `balances` are the upscaled balances without the BPT.
 */
export function actualSupply(pool: ComposableStablePoolState, balances: readonly bigint[]): bigint {
  const virtualSupply = sub(pool.totalSupply, perToken(pool.balances, pool.bptIndex, "balance"));
  const fees = pool.protocolFees;
  const tokenRates = withoutBpt(pool.tokenRates, pool.bptIndex);
  const oldRates = withoutBpt(pool.oldRates, pool.bptIndex);
  const hasRateProvider = withoutBpt(pool.hasRateProvider, pool.bptIndex);
  const exempt = withoutBpt(pool.exemptFromYieldProtocolFee, pool.bptIndex);
  // Balances at the old rates (balance · oldRate / rate, dividing last): for every token with
  // a rate provider when `allYield`, else for the exempt ones only (`_getAdjustedBalances`).
  const adjusted = (allYield: boolean) =>
    balances.map((balance, i) =>
      perToken(exempt, i, "exemption") || (allYield && perToken(hasRateProvider, i, "provider"))
        ? divDownInteger(
            mul(balance, perToken(oldRates, i, "old rate")),
            perToken(tokenRates, i, "token rate"),
          )
        : balance,
    );
  // All three with the amp of the last join or exit, so that an amp change is not growth.
  const swapFeeGrowthInvariant = calculateInvariant(fees.lastJoinExitAmp, adjusted(true));
  const nonExemptGrowthInvariant = calculateInvariant(fees.lastJoinExitAmp, adjusted(false));
  const totalGrowthInvariant = calculateInvariant(fees.lastJoinExitAmp, balances);
  // Rounding (or a rate that fell) can make a later invariant smaller: no negative growth.
  const swapFeeGrowth =
    swapFeeGrowthInvariant > fees.lastPostJoinExitInvariant
      ? swapFeeGrowthInvariant - fees.lastPostJoinExitInvariant
      : 0n;
  const yieldGrowth =
    nonExemptGrowthInvariant > swapFeeGrowthInvariant
      ? nonExemptGrowthInvariant - swapFeeGrowthInvariant
      : 0n;
  const ownership =
    mulDown(divDown(swapFeeGrowth, totalGrowthInvariant), fees.swapFeePercentage) +
    mulDown(divDown(yieldGrowth, totalGrowthInvariant), fees.yieldFeePercentage);
  // `ExternalFees.bptForPoolOwnershipPercentage`: the BPT that makes up `ownership` of the
  // supply after it is minted.
  const protocolFeeAmount = divDownInteger(mul(virtualSupply, ownership), complement(ownership));
  return virtualSupply + protocolFeeAmount;
}

export type ComposableStableSwapParameters = {
  pool: ComposableStablePoolState;
  tokenIn: Address;
  tokenOut: Address;
};

type SwapContext = {
  scalingFactors: bigint[];
  indexIn: number;
  indexOut: number;
  /** Upscaled balances without the BPT. */
  balances: bigint[];
};

function swapContext(params: ComposableStableSwapParameters): SwapContext {
  const { pool } = params;
  const indexIn = tokenIndex(pool.tokens, params.tokenIn);
  const indexOut = tokenIndex(pool.tokens, params.tokenOut);
  if (indexIn === indexOut) throw new RangeError("token in and token out are the same token");
  const scalingFactors = composableStableScalingFactors(pool);
  return { scalingFactors, indexIn, indexOut, balances: upscaledWithoutBpt(pool, scalingFactors) };
}

/**
 * What a swap into or out of the BPT prices against (`_beforeJoinExit`): the actual supply, and
 * the invariant at the current amp (which is the last join's or exit's when the amp is not
 * moving, the only case the pool reuses its stored value).
 */
function joinExitInputs(pool: ComposableStablePoolState, balances: readonly bigint[]) {
  return {
    amp: pool.amp,
    balances,
    bptTotalSupply: actualSupply(pool, balances),
    currentInvariant: calculateInvariant(pool.amp, balances),
    swapFeePercentage: pool.swapFeePercentage,
  };
}

/**
 * The amount of `tokenOut` a swap of exactly `amountIn` gets, as the vault's GIVEN_IN swap.
 * Between two pool tokens: fee off the amount in (rounded up), upscale, `calcOutGivenIn`,
 * downscale rounding down. Into or out of the BPT: a single-token join or exit whose fee is
 * inside `StableMath`, priced against {@link actualSupply}. Throws `BalancerMathError` where
 * the pool reverts.
 */
export function quoteComposableStableExactIn(
  params: ComposableStableSwapParameters & { amountIn: bigint },
): bigint {
  const { pool } = params;
  const { scalingFactors, indexIn, indexOut, balances } = swapContext(params);
  const factorIn = perToken(scalingFactors, indexIn, "scaling factor");
  const factorOut = perToken(scalingFactors, indexOut, "scaling factor");
  if (indexIn !== pool.bptIndex && indexOut !== pool.bptIndex) {
    const amountIn = upscale(
      subtractSwapFeeAmount(params.amountIn, pool.swapFeePercentage),
      factorIn,
    );
    const amountOut = calcOutGivenIn({
      amp: pool.amp,
      balances,
      indexIn: skipBpt(indexIn, pool.bptIndex),
      indexOut: skipBpt(indexOut, pool.bptIndex),
      amountIn,
      invariant: calculateInvariant(pool.amp, balances),
    });
    return downscaleDown(amountOut, factorOut);
  }
  const amount = upscale(params.amountIn, factorIn);
  const joinExit = joinExitInputs(pool, balances);
  const amountOut =
    indexOut === pool.bptIndex
      ? calcBptOutGivenExactTokensIn({
          ...joinExit,
          amountsIn: balances.map((_, i) => (i === skipBpt(indexIn, pool.bptIndex) ? amount : 0n)),
        })
      : calcTokenOutGivenExactBptIn({
          ...joinExit,
          tokenIndex: skipBpt(indexOut, pool.bptIndex),
          bptAmountIn: amount,
        });
  return downscaleDown(amountOut, factorOut);
}

/**
 * The amount of `tokenIn` a swap for exactly `amountOut` takes, as the vault's GIVEN_OUT swap
 * (the mirror of {@link quoteComposableStableExactIn}: the fee goes on after downscaling, for a
 * swap between pool tokens).
 */
export function quoteComposableStableExactOut(
  params: ComposableStableSwapParameters & { amountOut: bigint },
): bigint {
  const { pool } = params;
  const { scalingFactors, indexIn, indexOut, balances } = swapContext(params);
  const factorIn = perToken(scalingFactors, indexIn, "scaling factor");
  const factorOut = perToken(scalingFactors, indexOut, "scaling factor");
  const amount = upscale(params.amountOut, factorOut);
  if (indexIn !== pool.bptIndex && indexOut !== pool.bptIndex) {
    const amountIn = calcInGivenOut({
      amp: pool.amp,
      balances,
      indexIn: skipBpt(indexIn, pool.bptIndex),
      indexOut: skipBpt(indexOut, pool.bptIndex),
      amountOut: amount,
      invariant: calculateInvariant(pool.amp, balances),
    });
    return addSwapFeeAmount(downscaleUp(amountIn, factorIn), pool.swapFeePercentage);
  }
  const joinExit = joinExitInputs(pool, balances);
  const amountIn =
    indexOut === pool.bptIndex
      ? calcTokenInGivenExactBptOut({
          ...joinExit,
          tokenIndex: skipBpt(indexIn, pool.bptIndex),
          bptAmountOut: amount,
        })
      : calcBptInGivenExactTokensOut({
          ...joinExit,
          amountsOut: balances.map((_, i) =>
            i === skipBpt(indexOut, pool.bptIndex) ? amount : 0n,
          ),
        });
  return downscaleUp(amountIn, factorIn);
}

/**
 * `getRate()` for this state: the invariant per BPT of actual supply (with the rates in
 * `tokenRates`; the view reads the cached ones).
 */
export function composableStableBptRate(pool: ComposableStablePoolState): bigint {
  const balances = upscaledWithoutBpt(pool, composableStableScalingFactors(pool));
  return divDown(calculateInvariant(pool.amp, balances), actualSupply(pool, balances));
}
