/**
 * An exact-input Uniswap V4 swap computed off-chain. `Pool.swap` of v4-core runs V3's loop
 * (same tick math, same swap step, the bitmap words of the pool's tick spacing) with one fee:
 * the LP fee composed with the protocol fee of the swap's direction
 * (`ProtocolFeeLibrary.calculateSwapFee`). The protocol's share comes out of that fee, so the
 * swapper's amounts depend on the composed fee only.
 */
import type { V4Pool } from "../../core/types.js";
import { uniswapV3ExactIn, type V3ExactInResult, type V3SwapState } from "../../math/uniswap-v3.js";

/** `SwapMath.MAX_SWAP_FEE` and `ProtocolFeeLibrary.PIPS_DENOMINATOR`: 100% in millionths. */
export const V4_MAX_SWAP_FEE = 1_000_000;

/** `LPFeeLibrary.DYNAMIC_FEE_FLAG`: a key fee with it set marks a dynamic-fee pool. */
export const V4_DYNAMIC_FEE_FLAG = 0x800000;

/** BalanceDelta holds int128 amounts: a larger input cannot be swapped. */
const MAX_INT128 = (1n << 127n) - 1n;

/** The protocol fee of one direction: the low 12 bits sell currency0, the high 12 currency1. */
export function uniswapV4ProtocolFee(protocolFee: number, zeroForOne: boolean): number {
  return zeroForOne ? protocolFee & 0xfff : protocolFee >>> 12;
}

/**
 * The fee a swap pays, in millionths, as `Pool.swap` computes it:
 * `protocolFee == 0 ? lpFee : protocolFee + lpFee - protocolFee * lpFee / 1e6` (floored).
 */
export function uniswapV4SwapFee(lpFee: number, protocolFee: number, zeroForOne: boolean): number {
  const protocol = uniswapV4ProtocolFee(protocolFee, zeroForOne);
  if (protocol === 0) return lpFee;
  return protocol + lpFee - Math.floor((protocol * lpFee) / V4_MAX_SWAP_FEE);
}

/** The swap states of a pool in each direction (the fee differs), made once per pool object. */
const states = new WeakMap<V4Pool, [V3SwapState, V3SwapState]>();

function stateOf(pool: V4Pool, zeroForOne: boolean): V3SwapState {
  let pair = states.get(pool);
  if (!pair) {
    const withFee = (zeroForOne: boolean): V3SwapState => ({
      feePpm: uniswapV4SwapFee(pool.feePpm, pool.protocolFee, zeroForOne),
      tickSpacing: pool.tickSpacing,
      sqrtPriceX96: pool.sqrtPriceX96,
      tick: pool.tick,
      liquidity: pool.liquidity,
      ticks: pool.ticks,
    });
    pair = [withFee(true), withFee(false)];
    states.set(pool, pair);
  }
  return zeroForOne ? pair[0] : pair[1];
}

/**
 * The output of selling `amountIn` into the pool, as `PoolManager.swap` with
 * `amountSpecified = -amountIn` and the furthest price limit — and therefore
 * `V4Quoter.quoteExactInputSingle` — computes it, for a pool whose hook does not change the
 * swap's amounts.
 */
export function uniswapV4ExactIn(params: {
  pool: V4Pool;
  zeroForOne: boolean;
  amountIn: bigint;
}): V3ExactInResult {
  const { pool, zeroForOne, amountIn } = params;
  if (amountIn <= 0n) throw new RangeError(`amountIn ${amountIn} is not positive`);
  if (amountIn > MAX_INT128) return { ok: false, reason: "exceeds-liquidity" };
  const state = stateOf(pool, zeroForOne);
  // A 100% fee takes the whole input (SwapMath's MAX_SWAP_FEE branch): nothing comes out.
  if (state.feePpm >= V4_MAX_SWAP_FEE) return { ok: false, reason: "zero-output" };
  return uniswapV3ExactIn({ pool: state, zeroForOne, amountIn });
}
