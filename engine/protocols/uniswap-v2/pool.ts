/** A Uniswap V2 pair as a routing edge: constant-product math, exact and as floats. */
import { addExecutorUniswapV2Swap, addUniswapV2Swap } from "../../program/protocol-steps.js";
import { EXCEEDS_LIQUIDITY, outputQuote } from "../../routing/edge-quote.js";
import { V2_SWAP_GAS } from "../../routing/gas.js";
import { uniswapV2AmountOut } from "../../routing/math/uniswap-v2.js";
import type { V2Pool } from "../../routing/types.js";
import { type PoolKind, swapsBothWays } from "../pool-kind.js";

/** Uniswap V2 pairs keep their reserves in uint112. */
const MAX_UINT112 = 2n ** 112n - 1n;

type V2Model = { reserve0: number; reserve1: number; gamma: number };
const models = new WeakMap<V2Pool, V2Model>();

function model(pool: V2Pool): V2Model {
  let m = models.get(pool);
  if (!m) {
    m = {
      reserve0: Number(pool.reserve0),
      reserve1: Number(pool.reserve1),
      gamma: 1 - pool.feePpm / 1e6,
    };
    models.set(pool, m);
  }
  return m;
}

/** The float output of `amountIn` sold into `reserveIn` for `reserveOut`, fee `1 - gamma`. */
function amountOut(reserveIn: number, reserveOut: number, gamma: number, amountIn: number): number {
  const effective = amountIn * gamma;
  return (reserveOut * effective) / (reserveIn + effective);
}

export const uniswapV2Pool: PoolKind<V2Pool> = {
  kind: "v2",
  edges: swapsBothWays,
  quote: (edge, amountIn) => {
    const pool = edge.pool;
    const zeroForOne = edge.tokenIn === pool.token0;
    const reserveIn = zeroForOne ? pool.reserve0 : pool.reserve1;
    // The pair keeps reserves in uint112: a larger balance makes `swap` revert (OVERFLOW).
    if (reserveIn + amountIn > MAX_UINT112) return EXCEEDS_LIQUIDITY;
    return outputQuote(
      uniswapV2AmountOut({
        amountIn,
        reserveIn,
        reserveOut: zeroForOne ? pool.reserve1 : pool.reserve0,
        feePpm: pool.feePpm,
      }),
    );
  },
  approx: (edge, amountIn, result) => {
    const m = model(edge.pool);
    const zeroForOne = edge.tokenIn === edge.pool.token0;
    result.out = zeroForOne
      ? amountOut(m.reserve0, m.reserve1, m.gamma, amountIn)
      : amountOut(m.reserve1, m.reserve0, m.gamma, amountIn);
    result.ticksCrossed = 0;
    return result;
  },
  approxQuoter: (edge) => {
    const m = model(edge.pool);
    const zeroForOne = edge.tokenIn === edge.pool.token0;
    const reserveIn = zeroForOne ? m.reserve0 : m.reserve1;
    const reserveOut = zeroForOne ? m.reserve1 : m.reserve0;
    const gamma = m.gamma;
    return (amountIn, result) => {
      result.out = amountOut(reserveIn, reserveOut, gamma, amountIn);
      result.ticksCrossed = 0;
      return result;
    };
  },
  approxSpot: (edge, result) => {
    const m = model(edge.pool);
    const zeroForOne = edge.tokenIn === edge.pool.token0;
    result.depthIn = zeroForOne ? m.reserve0 : m.reserve1;
    result.rate = (zeroForOne ? m.reserve1 : m.reserve0) / result.depthIn;
    return result;
  },
  depth: (edge, side) => {
    const token = side === "in" ? edge.tokenIn : edge.tokenOut;
    return Number(token === edge.pool.token0 ? edge.pool.reserve0 : edge.pool.reserve1);
  },
  priceAcross: (edge, price) => {
    const pool = edge.pool;
    const zeroForOne = edge.tokenIn === pool.token0;
    const reserveIn = zeroForOne ? pool.reserve0 : pool.reserve1;
    const reserveOut = zeroForOne ? pool.reserve1 : pool.reserve0;
    return (price * reserveIn) / reserveOut;
  },
  gas: () => V2_SWAP_GAS,
  addHop: (planner, context, hop, amountIn, recipient) => {
    const { edge } = hop;
    return context.strategy === "router"
      ? addExecutorUniswapV2Swap(planner, {
          executor: context.execution.executor,
          pair: edge.pool.address,
          tokenIn: edge.tokenIn,
          tokenOut: edge.tokenOut,
          amountIn,
          recipient,
        })
      : addUniswapV2Swap(planner, {
          pair: edge.pool.address,
          tokenIn: edge.tokenIn,
          tokenOut: edge.tokenOut,
          amountIn,
          recipient,
          programValues: context.execution.programValues,
        });
  },
  stateless: false,
  paysReceiverUnderRouter: true,
};
