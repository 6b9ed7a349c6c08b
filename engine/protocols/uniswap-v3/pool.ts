/**
 * A Uniswap V3 pool as a routing edge: the swap loop over the indexed ticks (exact, a port of
 * the pool's own math), and its float shadow that still walks the initialized ticks.
 */

import { minimumOf, UnsupportedRouteError } from "../../program/hop-context.js";
import { addUniswapV3PoolSwap, addUniswapV3RouterSwap } from "../../program/protocol-steps.js";
import type { ApproxQuote } from "../../routing/edge-quote.js";
import { V3_SWAP_GAS, V3_TICK_CROSS_GAS } from "../../routing/gas.js";
import { uniswapV3ExactIn, uniswapV3SwapAllowed } from "../../routing/math/uniswap-v3.js";
import type { V3Pool } from "../../routing/types.js";
import { type PoolKind, swapsBothWays } from "../pool-kind.js";

const HALF_LOG_1_0001 = Math.log(1.0001) / 2;
const Q96 = 2 ** 96;
const Q192 = 1n << 192n;

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
const models = new WeakMap<V3Pool, V3Model>();

function model(pool: V3Pool): V3Model {
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

export const uniswapV3Pool: PoolKind<V3Pool> = {
  kind: "v3",
  edges: swapsBothWays,
  quote: (edge, amountIn) => {
    const pool = edge.pool;
    const result = uniswapV3ExactIn({ pool, zeroForOne: edge.tokenIn === pool.token0, amountIn });
    // The swap's failures are the edge's: the types keep the two lists of reasons in step.
    if (!result.ok) return result;
    return { ok: true, amountOut: result.amountOut, ticksCrossed: result.ticksCrossed };
  },
  approx: (edge, amountIn, result) => {
    v3Out(model(edge.pool), edge.tokenIn === edge.pool.token0, amountIn, result);
    return result;
  },
  approxQuoter: (edge) => {
    const m = model(edge.pool);
    const zeroForOne = edge.tokenIn === edge.pool.token0;
    return (amountIn, result) => {
      v3Out(m, zeroForOne, amountIn, result);
      return result;
    };
  },
  approxSpot: (edge, result) => {
    const m = model(edge.pool);
    const price = m.sqrtPrice * m.sqrtPrice;
    if (edge.tokenIn === edge.pool.token0) {
      result.rate = price;
      result.depthIn = m.zeroForOneAllowed ? m.liquidity / m.sqrtPrice : 0;
    } else {
      result.rate = 1 / price;
      result.depthIn = m.oneForZeroAllowed ? m.liquidity * m.sqrtPrice : 0;
    }
    return result;
  },
  depth: (edge, side) => {
    const pool = edge.pool;
    // At its price limit in the edge's direction the pool takes nothing that way.
    if (!uniswapV3SwapAllowed(pool.sqrtPriceX96, edge.tokenIn === pool.token0)) return 0;
    const token = side === "in" ? edge.tokenIn : edge.tokenOut;
    const sqrtPrice = Number(pool.sqrtPriceX96) / Q96;
    const liquidity = Number(pool.liquidity);
    return token === pool.token0 ? liquidity / sqrtPrice : liquidity * sqrtPrice;
  },
  priceAcross: (edge, price) => {
    const pool = edge.pool;
    // Raw token1 per raw token0 is sqrtPriceX96² / 2^192.
    const priceX192 = pool.sqrtPriceX96 * pool.sqrtPriceX96;
    return edge.tokenIn === pool.token0 ? (price * Q192) / priceX192 : (price * priceX192) / Q192;
  },
  gas: (_edge, ticksCrossed) => V3_SWAP_GAS + ticksCrossed * V3_TICK_CROSS_GAS,
  addHop: (planner, context, hop, amountIn, recipient, options) => {
    const { edge } = hop;
    const pool = edge.pool;
    if (context.strategy === "router") {
      const swap = {
        executor: context.execution.executor,
        pool: pool.address,
        tokenIn: edge.tokenIn,
        tokenOut: edge.tokenOut,
        fee: pool.feePpm,
        amountIn,
        recipient,
      };
      if (options.outputUnused) {
        // A partial fill would leave tokenIn in the executor, which the router refuses.
        addUniswapV3PoolSwap(planner, { ...swap, amountOut: false });
        return hop.amountOut;
      }
      return addUniswapV3PoolSwap(planner, swap);
    }
    if (!context.swapRouter)
      throw new UnsupportedRouteError("no Uniswap V3 SwapRouter is configured on this chain");
    return addUniswapV3RouterSwap(planner, {
      swapRouter: context.swapRouter,
      tokenIn: edge.tokenIn,
      tokenOut: edge.tokenOut,
      fee: pool.feePpm,
      amountIn,
      recipient,
      deadline: context.bounds?.deadline,
      amountOutMinimum:
        context.bounds && hop.amountOut > 0n
          ? minimumOf(hop.amountOut, context.bounds.slippageBps)
          : undefined,
    });
  },
  stateless: false,
  paysReceiverUnderRouter: true,
};
