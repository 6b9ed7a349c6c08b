/**
 * Floating-point shadows of the pool math, for ranking many candidates fast. They follow the
 * exact math's shape (a V3 swap still walks its initialized ticks) and are off only by float
 * rounding, so the ranking they give is the exact one but for near-ties; every amount the
 * engine returns is re-quoted exactly in `bigint`. These numbers are never amounts.
 */
import { uniswapV3SwapAllowed } from "./math/uniswapV3.js";
import type { Edge, Pool, V2Pool, V3Pool, VaultPool } from "./types.js";

/** What an approximate quote yields: `out` is NaN when the pool cannot fill the input. */
export type ApproxQuote = { out: number; ticksCrossed: number };

type V2Model = { reserve0: number; reserve1: number; gamma: number };
type V3Model = {
  gamma: number;
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
type VaultModel = { sharesPerAsset: number; assetsPerShare: number; totalSupply: number };

const models = new WeakMap<Pool, V2Model | V3Model | VaultModel>();
const HALF_LOG_1_0001 = Math.log(1.0001) / 2;
const Q96 = 2 ** 96;

function v2Model(pool: V2Pool): V2Model {
  let model = models.get(pool) as V2Model | undefined;
  if (!model) {
    model = {
      reserve0: Number(pool.reserve0),
      reserve1: Number(pool.reserve1),
      gamma: 1 - pool.feePpm / 1e6,
    };
    models.set(pool, model);
  }
  return model;
}

function v3Model(pool: V3Pool): V3Model {
  let model = models.get(pool) as V3Model | undefined;
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
      gamma: 1 - pool.feePpm / 1e6,
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

function vaultModel(pool: VaultPool): VaultModel {
  let model = models.get(pool) as VaultModel | undefined;
  if (!model) {
    const virtualShares = Number(pool.totalSupply) + 10 ** pool.decimalsOffset;
    const virtualAssets = Number(pool.totalAssets) + 1;
    model = {
      sharesPerAsset: virtualShares / virtualAssets,
      assetsPerShare: virtualAssets / virtualShares,
      totalSupply: Number(pool.totalSupply),
    };
    models.set(pool, model);
  }
  return model;
}

function v3Out(model: V3Model, zeroForOne: boolean, amountIn: number, result: ApproxQuote): void {
  if (!(zeroForOne ? model.zeroForOneAllowed : model.oneForZeroAllowed)) {
    // The pool reverts 'SPL': it takes nothing this way, as the exact quote says.
    result.out = Number.NaN;
    result.ticksCrossed = 0;
    return;
  }
  // The fee comes off the input; what remains moves the price through each liquidity range.
  let remaining = amountIn * model.gamma;
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

/**
 * Approximately what `amountIn` through `edge` yields, written into `result` (reused by the
 * caller to avoid allocating in the search's inner loop).
 */
export function approxEdge(edge: Edge, amountIn: number, result: ApproxQuote): ApproxQuote {
  const pool = edge.pool;
  result.ticksCrossed = 0;
  switch (pool.kind) {
    case "v2": {
      const m = v2Model(pool);
      const zeroForOne = edge.tokenIn === pool.token0;
      const reserveIn = zeroForOne ? m.reserve0 : m.reserve1;
      const reserveOut = zeroForOne ? m.reserve1 : m.reserve0;
      const effective = amountIn * m.gamma;
      result.out = (reserveOut * effective) / (reserveIn + effective);
      break;
    }
    case "v3":
      v3Out(v3Model(pool), edge.tokenIn === pool.token0, amountIn, result);
      break;
    case "erc4626": {
      const m = vaultModel(pool);
      if (edge.action === "deposit") result.out = amountIn * m.sharesPerAsset;
      else result.out = amountIn > m.totalSupply ? Number.NaN : amountIn * m.assetsPerShare;
      break;
    }
    case "wrap":
      result.out = amountIn;
      break;
  }
  return result;
}

/** `approxEdge` for one edge, with the pool's model looked up once (for repeated quotes). */
export type ApproxEdgeQuoter = (amountIn: number, result: ApproxQuote) => ApproxQuote;

export function approxEdgeQuoter(edge: Edge): ApproxEdgeQuoter {
  const pool = edge.pool;
  switch (pool.kind) {
    case "v2": {
      const m = v2Model(pool);
      const zeroForOne = edge.tokenIn === pool.token0;
      const reserveIn = zeroForOne ? m.reserve0 : m.reserve1;
      const reserveOut = zeroForOne ? m.reserve1 : m.reserve0;
      const gamma = m.gamma;
      return (amountIn, result) => {
        const effective = amountIn * gamma;
        result.out = (reserveOut * effective) / (reserveIn + effective);
        result.ticksCrossed = 0;
        return result;
      };
    }
    case "v3": {
      const m = v3Model(pool);
      const zeroForOne = edge.tokenIn === pool.token0;
      return (amountIn, result) => {
        v3Out(m, zeroForOne, amountIn, result);
        return result;
      };
    }
    default:
      return (amountIn, result) => approxEdge(edge, amountIn, result);
  }
}

/**
 * An edge's mid price (tokenOut per tokenIn, raw units) and its pool's depth in tokenIn: 0 for
 * a V3 pool at its price limit that way, which takes nothing in (its mid price backs no trade).
 */
export type ApproxSpot = { rate: number; depthIn: number };

/** The mid price and depth of `edge` from the float models, written into `result`. */
export function approxSpot(edge: Edge, result: ApproxSpot): ApproxSpot {
  const pool = edge.pool;
  switch (pool.kind) {
    case "v2": {
      const m = v2Model(pool);
      const zeroForOne = edge.tokenIn === pool.token0;
      result.depthIn = zeroForOne ? m.reserve0 : m.reserve1;
      result.rate = (zeroForOne ? m.reserve1 : m.reserve0) / result.depthIn;
      break;
    }
    case "v3": {
      const m = v3Model(pool);
      const price = m.sqrtPrice * m.sqrtPrice;
      if (edge.tokenIn === pool.token0) {
        result.rate = price;
        result.depthIn = m.zeroForOneAllowed ? m.liquidity / m.sqrtPrice : 0;
      } else {
        result.rate = 1 / price;
        result.depthIn = m.oneForZeroAllowed ? m.liquidity * m.sqrtPrice : 0;
      }
      break;
    }
    case "erc4626": {
      const m = vaultModel(pool);
      if (edge.action === "deposit") {
        result.rate = m.sharesPerAsset;
        result.depthIn = Number(pool.totalAssets);
      } else {
        result.rate = m.assetsPerShare;
        result.depthIn = m.totalSupply;
      }
      break;
    }
    case "wrap":
      result.rate = 1;
      result.depthIn = Number.POSITIVE_INFINITY;
      break;
  }
  return result;
}
