/**
 * Concentrated liquidity (Uniswap V3's pools and V4's): the float shadow of the swap loop that
 * still walks the initialized ticks, the spot price and depth, and the exact price across a
 * pool. Shared by the protocols whose pools hold such ticks; registers no protocol itself.
 */

import type { ApproxQuote, ApproxSpot } from "../../core/quote.js";
import type { Address, Pool, V3Tick } from "../../core/types.js";
import { uniswapV3SwapAllowed } from "../../math/uniswap-v3.js";
import type { PoolKind } from "../pool-kind.js";

const HALF_LOG_1_0001 = Math.log(1.0001) / 2;
const Q96 = 2 ** 96;
const Q192 = 1n << 192n;

/** What the float model reads of a pool. */
export type ConcentratedPool = {
  token0: Address;
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
  ticks: V3Tick[];
};

export type ConcentratedModel = {
  /** 1 − fee of each direction: selling token0, selling token1. */
  gammaZeroForOne: number;
  gammaOneForZero: number;
  sqrtPrice: number;
  liquidity: number;
  /** sqrt(1.0001^tick) of each initialized tick, ascending. */
  tickSqrtPrices: Float64Array;
  liquidityNets: Float64Array;
  /** Index of the first initialized tick above the current tick. */
  above: number;
  /**
   * Whether the pool accepts a swap each way at its price: decided exactly, on the `bigint`
   * price, since a pool at its price limit reverts (floats cannot tell MAX - 1 from MAX - 2).
   */
  zeroForOneAllowed: boolean;
  oneForZeroAllowed: boolean;
};

const models = new WeakMap<ConcentratedPool, ConcentratedModel>();

/**
 * The pool's float model, made once per pool object (a pool's state never changes in place:
 * the snapshot replaces the object).
 * @param feePips the fee in millionths of each direction (selling token0, selling token1).
 */
export function concentratedModel(
  pool: ConcentratedPool,
  feePips: (zeroForOne: boolean) => number,
): ConcentratedModel {
  let model = models.get(pool);
  if (!model) {
    const n = pool.ticks.length;
    const tickSqrtPrices = new Float64Array(n);
    const liquidityNets = new Float64Array(n);
    let above = n;
    for (let i = 0; i < n; i++) {
      const t = pool.ticks[i];
      if (!t) continue;
      tickSqrtPrices[i] = Math.exp(t.tick * HALF_LOG_1_0001);
      liquidityNets[i] = Number(t.liquidityNet);
      if (above === n && t.tick > pool.tick) above = i;
    }
    model = {
      gammaZeroForOne: 1 - feePips(true) / 1e6,
      gammaOneForZero: 1 - feePips(false) / 1e6,
      sqrtPrice: Number(pool.sqrtPriceX96) / Q96,
      liquidity: Number(pool.liquidity),
      tickSqrtPrices,
      liquidityNets,
      above,
      zeroForOneAllowed: uniswapV3SwapAllowed(pool.sqrtPriceX96, true),
      oneForZeroAllowed: uniswapV3SwapAllowed(pool.sqrtPriceX96, false),
    };
    models.set(pool, model);
  }
  return model;
}

/** Approximately what selling `amountIn` yields, and the initialized ticks crossed. */
export function concentratedOut(
  model: ConcentratedModel,
  zeroForOne: boolean,
  amountIn: number,
  result: ApproxQuote,
): void {
  if (!(zeroForOne ? model.zeroForOneAllowed : model.oneForZeroAllowed)) {
    // The pool reverts at its price limit: it takes nothing this way, as the exact quote says.
    result.out = Number.NaN;
    result.ticksCrossed = 0;
    return;
  }
  // The fee comes off the input; what remains moves the price through each liquidity range.
  let remaining = amountIn * (zeroForOne ? model.gammaZeroForOne : model.gammaOneForZero);
  let s = model.sqrtPrice;
  let liquidity = model.liquidity;
  let out = 0;
  let crossed = 0;
  const prices = model.tickSqrtPrices;
  const nets = model.liquidityNets;
  if (zeroForOne) {
    for (let i = model.above - 1; ; i--) {
      const boundary = i >= 0 ? (prices[i] as number) : 0;
      // Past the last initialized tick there is no liquidity (float residue aside).
      if (i < 0) liquidity = 0;
      if (liquidity > 0) {
        const toBoundary = boundary > 0 ? liquidity * (1 / boundary - 1 / s) : Infinity;
        if (remaining <= toBoundary) {
          const next = (liquidity * s) / (liquidity + remaining * s);
          out += liquidity * (s - next);
          remaining = 0;
          break;
        }
        out += liquidity * (s - boundary);
        remaining -= toBoundary;
      }
      if (i < 0) break;
      s = boundary;
      liquidity -= nets[i] as number;
      crossed++;
    }
  } else {
    for (let i = model.above; ; i++) {
      const boundary = i < prices.length ? (prices[i] as number) : Infinity;
      if (i >= prices.length) liquidity = 0;
      if (liquidity > 0) {
        const toBoundary = liquidity * (boundary - s);
        if (remaining <= toBoundary) {
          const next = s + remaining / liquidity;
          out += liquidity * (1 / s - 1 / next);
          remaining = 0;
          break;
        }
        out += liquidity * (1 / s - 1 / boundary);
        remaining -= toBoundary;
      }
      if (i >= prices.length) break;
      s = boundary;
      liquidity += nets[i] as number;
      crossed++;
    }
  }
  result.out = remaining > 0 ? Number.NaN : out;
  result.ticksCrossed = crossed;
}

/** The mid price and the in-range depth in tokenIn, into `result`. */
export function concentratedSpot(
  model: ConcentratedModel,
  zeroForOne: boolean,
  result: ApproxSpot,
): ApproxSpot {
  const price = model.sqrtPrice * model.sqrtPrice;
  if (zeroForOne) {
    result.rate = price;
    result.depthIn = model.zeroForOneAllowed ? model.liquidity / model.sqrtPrice : 0;
  } else {
    result.rate = 1 / price;
    result.depthIn = model.oneForZeroAllowed ? model.liquidity * model.sqrtPrice : 0;
  }
  return result;
}

/** How much of `token` the pool holds in range (virtual reserves), 0 when it is at its limit. */
export function concentratedDepth(
  pool: ConcentratedPool,
  zeroForOne: boolean,
  token: Address,
): number {
  // At its price limit in the edge's direction the pool takes nothing that way.
  if (!uniswapV3SwapAllowed(pool.sqrtPriceX96, zeroForOne)) return 0;
  const sqrtPrice = Number(pool.sqrtPriceX96) / Q96;
  const liquidity = Number(pool.liquidity);
  return token === pool.token0 ? liquidity / sqrtPrice : liquidity * sqrtPrice;
}

/** tokenOut's exact price given tokenIn's: raw token1 per raw token0 is sqrtPriceX96² / 2^192. */
export function concentratedPriceAcross(
  pool: ConcentratedPool,
  tokenIn: Address,
  price: bigint,
): bigint {
  const priceX192 = pool.sqrtPriceX96 * pool.sqrtPriceX96;
  return tokenIn === pool.token0 ? (price * Q192) / priceX192 : (price * priceX192) / Q192;
}

/**
 * The members of a pool kind that the float model answers (`approx`, `approxQuoter`,
 * `approxSpot`, `depth`, `priceAcross`), for a pool kind whose model is `modelOf`.
 */
export function concentratedShadow<P extends ConcentratedPool>(
  modelOf: (pool: P) => ConcentratedModel,
): Pick<PoolKind<P & Pool>, "approx" | "approxQuoter" | "approxSpot" | "depth" | "priceAcross"> {
  return {
    approx: (edge, amountIn, result) => {
      concentratedOut(modelOf(edge.pool), edge.tokenIn === edge.pool.token0, amountIn, result);
      return result;
    },
    approxQuoter: (edge) => {
      const m = modelOf(edge.pool);
      const zeroForOne = edge.tokenIn === edge.pool.token0;
      return (amountIn, result) => {
        concentratedOut(m, zeroForOne, amountIn, result);
        return result;
      };
    },
    approxSpot: (edge, result) =>
      concentratedSpot(modelOf(edge.pool), edge.tokenIn === edge.pool.token0, result),
    depth: (edge, side) =>
      concentratedDepth(
        edge.pool,
        edge.tokenIn === edge.pool.token0,
        side === "in" ? edge.tokenIn : edge.tokenOut,
      ),
    priceAcross: (edge, price) => concentratedPriceAcross(edge.pool, edge.tokenIn, price),
  };
}
