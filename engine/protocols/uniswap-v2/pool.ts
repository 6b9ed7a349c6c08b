/**
 * A Uniswap V2 pair as routing edges, exact and as floats: swaps both ways (constant product),
 * and, on 0.3% pairs, single-sided liquidity: `deposit` one token (sell the right share of it,
 * add both) for LP tokens, `redeem` LP tokens for one token (burn, sell the other side back).
 */

import { EXCEEDS_LIQUIDITY, outputQuote, ZERO_OUTPUT } from "../../core/quote.js";
import type { Edge, V2Pool } from "../../core/types.js";
import { programValuesContract } from "../../program/hop-context.js";
import { type EdgeOf, type PoolKind, swapsBothWays } from "../pool-kind.js";
import { V2_SWAP_GAS, V2_ZAP_IN_GAS, V2_ZAP_OUT_GAS } from "./gas.js";
import {
  uniswapV2AmountOut,
  uniswapV2ZapIn,
  uniswapV2ZapOut,
  V2_MINIMUM_LIQUIDITY,
} from "./math.js";
import {
  addExecutorUniswapV2Swap,
  addUniswapV2Swap,
  addUniswapV2ZapIn,
  addUniswapV2ZapOut,
} from "./steps.js";

/** Uniswap V2 pairs keep their reserves in uint112. */
const MAX_UINT112 = 2n ** 112n - 1n;

type V2Model = { reserve0: number; reserve1: number; gamma: number; totalSupply: number };
const models = new WeakMap<V2Pool, V2Model>();

function model(pool: V2Pool): V2Model {
  let m = models.get(pool);
  if (!m) {
    m = {
      reserve0: Number(pool.reserve0),
      reserve1: Number(pool.reserve1),
      gamma: 1 - pool.feePpm / 1e6,
      totalSupply: Number(pool.totalSupply),
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

/** The execution layer sizes single-sided adds for Uniswap V2's own 0.3% fee only. */
const ZAP_FEE_PPM = 3000;

/**
 * Whose pairs take single-sided adds and removals: Uniswap V2's own. A fork's pair may mint its
 * protocol a share of the growth in √k at each add and removal (its `feeTo`, on for
 * PancakeSwap and SushiSwap on their chains), which the LP amounts here do not model.
 */
const ZAP_PROTOCOL = "uniswap-v2";

/** The pair's reserve of `token` (one of its two), exact. */
function reserveOf(pool: V2Pool, token: string): bigint {
  return token === pool.token0 ? pool.reserve0 : pool.reserve1;
}

/** The pair's other token than `token`. */
function otherOf(pool: V2Pool, token: string) {
  return token === pool.token0 ? pool.token1 : pool.token0;
}

/** The exact single-sided add of `amountIn` through a deposit edge. */
function zapIn(edge: EdgeOf<V2Pool>, amountIn: bigint) {
  const pool = edge.pool;
  return uniswapV2ZapIn({
    amountIn,
    reserveIn: reserveOf(pool, edge.tokenIn),
    reserveOut: reserveOf(pool, otherOf(pool, edge.tokenIn)),
    totalSupply: pool.totalSupply,
  });
}

/** The pair's reserves of the edge's token and of the other one, as floats. */
function floatReserves(edge: EdgeOf<V2Pool>, token: string): [number, number] {
  const m = model(edge.pool);
  return token === edge.pool.token0 ? [m.reserve0, m.reserve1] : [m.reserve1, m.reserve0];
}

/** The single-sided add of `amountIn` as floats: the liquidity minted (NaN when none). */
function approxZapIn(edge: EdgeOf<V2Pool>, amountIn: number): number {
  const m = model(edge.pool);
  const [reserveIn, reserveOut] = floatReserves(edge, edge.tokenIn);
  // (√(r(3988009 r + 3988000 a)) − 1997 r) / 1994, rationalized: no cancellation for small a.
  const root = Math.sqrt(reserveIn * (reserveIn * 3_988_009 + amountIn * 3_988_000));
  const swapIn = (reserveIn * amountIn * 2000) / (root + reserveIn * 1997);
  const liquidity = ((amountIn - swapIn) * m.totalSupply) / (reserveIn + swapIn);
  return reserveOut > 0 && liquidity > 0 ? liquidity : Number.NaN;
}

/** Burning `liquidity` and selling the other side back, as floats (NaN past the supply). */
function approxZapOut(edge: EdgeOf<V2Pool>, liquidity: number): number {
  const m = model(edge.pool);
  if (!(liquidity <= m.totalSupply - Number(V2_MINIMUM_LIQUIDITY))) return Number.NaN;
  const [reserveOwn, reserveOther] = floatReserves(edge, edge.tokenOut);
  const own = (liquidity * reserveOwn) / m.totalSupply;
  const other = (liquidity * reserveOther) / m.totalSupply;
  return own + amountOut(reserveOther - other, reserveOwn - own, m.gamma, other);
}

/**
 * On Uniswap V2's 0.3% pairs, deposit either token for LP tokens and redeem them for either: a
 * route's first or last step only (the LP token is held by nothing else a route could go on
 * through).
 */
function zapEdges(pool: V2Pool): Edge[] {
  const edges: Edge[] = [];
  if (pool.feePpm !== ZAP_FEE_PPM || pool.protocol !== ZAP_PROTOCOL) return edges;
  for (const token of [pool.token0, pool.token1]) {
    edges.push(
      { pool, tokenIn: token, tokenOut: pool.address, action: "deposit" },
      { pool, tokenIn: pool.address, tokenOut: token, action: "redeem" },
    );
  }
  return edges;
}

export const uniswapV2Pool: PoolKind<V2Pool> = {
  kind: "v2",
  edges: swapsBothWays,
  terminalEdges: zapEdges,
  quote: (edge, amountIn) => {
    const pool = edge.pool;
    if (edge.action === "deposit") {
      // The input ends up in the pair (sold, then added): it must fit its uint112 reserve.
      if (reserveOf(pool, edge.tokenIn) + amountIn > MAX_UINT112) return EXCEEDS_LIQUIDITY;
      const zap = zapIn(edge, amountIn);
      return zap ? outputQuote(zap.liquidity) : ZERO_OUTPUT;
    }
    if (edge.action === "redeem") {
      if (amountIn > pool.totalSupply - V2_MINIMUM_LIQUIDITY) return EXCEEDS_LIQUIDITY;
      const zap = uniswapV2ZapOut({
        liquidity: amountIn,
        reserveOwn: reserveOf(pool, edge.tokenOut),
        reserveOther: reserveOf(pool, otherOf(pool, edge.tokenOut)),
        totalSupply: pool.totalSupply,
      });
      return zap ? outputQuote(zap.amountOut) : ZERO_OUTPUT;
    }
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
    result.ticksCrossed = 0;
    if (edge.action === "deposit") {
      result.out = approxZapIn(edge, amountIn);
      return result;
    }
    if (edge.action === "redeem") {
      result.out = approxZapOut(edge, amountIn);
      return result;
    }
    const m = model(edge.pool);
    const zeroForOne = edge.tokenIn === edge.pool.token0;
    result.out = zeroForOne
      ? amountOut(m.reserve0, m.reserve1, m.gamma, amountIn)
      : amountOut(m.reserve1, m.reserve0, m.gamma, amountIn);
    result.ticksCrossed = 0;
    return result;
  },
  approxQuoter: (edge) => {
    if (edge.action !== "swap") {
      return (amountIn, result) => uniswapV2Pool.approx(edge, amountIn, result);
    }
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
    // At the margin half of a deposit is sold, so a unit of either token is half a unit's
    // share of the pair: totalSupply / (2 · reserve) LP tokens; a redeem is the inverse.
    if (edge.action === "deposit") {
      result.depthIn = floatReserves(edge, edge.tokenIn)[0];
      result.rate = Number(edge.pool.totalSupply) / (2 * result.depthIn);
      return result;
    }
    if (edge.action === "redeem") {
      result.depthIn = Number(edge.pool.totalSupply);
      result.rate = (2 * floatReserves(edge, edge.tokenOut)[0]) / result.depthIn;
      return result;
    }
    // Straight from the reserves (the same floats as the model's): pricing a whole graph
    // would otherwise build a model for every pair of it.
    const pool = edge.pool;
    const zeroForOne = edge.tokenIn === pool.token0;
    result.depthIn = Number(zeroForOne ? pool.reserve0 : pool.reserve1);
    result.rate = Number(zeroForOne ? pool.reserve1 : pool.reserve0) / result.depthIn;
    return result;
  },
  depth: (edge, side) => {
    const token = side === "in" ? edge.tokenIn : edge.tokenOut;
    if (token === edge.pool.address) return Number(edge.pool.totalSupply);
    return Number(token === edge.pool.token0 ? edge.pool.reserve0 : edge.pool.reserve1);
  },
  priceAcross: (edge, price) => {
    const pool = edge.pool;
    // An LP token is worth twice its share of either reserve (both sides are of equal value).
    if (edge.action === "deposit") {
      return pool.totalSupply > 0n
        ? (price * 2n * reserveOf(pool, edge.tokenIn)) / pool.totalSupply
        : 0n;
    }
    if (edge.action === "redeem") {
      const reserve = reserveOf(pool, edge.tokenOut);
      return reserve > 0n ? (price * pool.totalSupply) / (2n * reserve) : 0n;
    }
    const zeroForOne = edge.tokenIn === pool.token0;
    const reserveIn = zeroForOne ? pool.reserve0 : pool.reserve1;
    const reserveOut = zeroForOne ? pool.reserve1 : pool.reserve0;
    return (price * reserveIn) / reserveOut;
  },
  leftovers: (edge, amountIn) => {
    if (edge.action !== "deposit") return [];
    const zap = zapIn(edge, amountIn);
    if (!zap) return [];
    return [
      { token: edge.tokenIn, amount: zap.dustIn },
      { token: otherOf(edge.pool, edge.tokenIn), amount: zap.dustOther },
    ];
  },
  gas: (edge) =>
    edge.action === "deposit"
      ? V2_ZAP_IN_GAS
      : edge.action === "redeem"
        ? V2_ZAP_OUT_GAS
        : V2_SWAP_GAS,
  addHop: (planner, context, hop, amountIn, recipient) => {
    const { edge } = hop;
    const inRouter = context.strategy === "router";
    const programValues = programValuesContract(context);
    const pool = edge.pool;
    if (edge.action === "deposit") {
      return addUniswapV2ZapIn(planner, {
        pair: pool.address,
        tokenIn: edge.tokenIn,
        tokenOther: otherOf(pool, edge.tokenIn),
        amountIn,
        account: context.account,
        recipient,
        programValues,
      });
    }
    if (edge.action === "redeem") {
      return addUniswapV2ZapOut(planner, {
        pair: pool.address,
        tokenOut: edge.tokenOut,
        tokenOther: otherOf(pool, edge.tokenOut),
        liquidity: amountIn,
        account: context.account,
        recipient,
        programValues,
        executor: inRouter ? context.execution.executor : undefined,
        feePpm: pool.feePpm,
      });
    }
    return inRouter
      ? addExecutorUniswapV2Swap(planner, {
          executor: context.execution.executor,
          pair: edge.pool.address,
          tokenIn: edge.tokenIn,
          tokenOut: edge.tokenOut,
          amountIn,
          recipient,
          feePpm: pool.feePpm,
        })
      : addUniswapV2Swap(planner, {
          pair: edge.pool.address,
          tokenIn: edge.tokenIn,
          tokenOut: edge.tokenOut,
          amountIn,
          recipient,
          programValues,
          feePpm: pool.feePpm,
        });
  },
  stateless: false,
  paysReceiverUnderRouter: true,
  // A fork's pair has no deposit or redeem edge (zapEdges): its LP token is priced at its share
  // of the reserves. On a fork whose protocol fee is on, the LP its `feeTo` is owed since the
  // pair's last add or removal is minted only then, so the share is of the supply in existence.
  // Uniswap's own pairs are priced across their deposit edges.
  backing: (pool) =>
    pool.totalSupply > 0n && zapEdges(pool).length === 0
      ? {
          token: pool.address,
          supply: pool.totalSupply,
          reserves: [
            { token: pool.token0, amount: pool.reserve0 },
            { token: pool.token1, amount: pool.reserve1 },
          ],
        }
      : undefined,
};
