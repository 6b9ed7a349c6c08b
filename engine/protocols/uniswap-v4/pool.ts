/**
 * A Uniswap V4 pool as a routing edge: V3's swap loop over the indexed ticks with the V4 fee of
 * the swap's direction (`engine/math/uniswap-v4.ts`), its float shadow from the shared
 * concentrated-liquidity model, and the swap settled through the pool manager's unlock callback.
 */

import { zeroAddress } from "viem";
import { isNativeToken } from "../../core/native.js";
import type { Address, V4Pool } from "../../core/types.js";
import { minimumOf, UnsupportedRouteError } from "../../program/hop-context.js";
import { concentratedModel, concentratedShadow } from "../concentrated-liquidity/model.js";
import { type PoolKind, swapsBothWays } from "../pool-kind.js";
import { V4_NATIVE_IN_GAS_SAVED, V4_SWAP_GAS, V4_TICK_CROSS_GAS } from "./gas.js";
import { uniswapV4ExactIn, uniswapV4SwapFee } from "./math.js";
import {
  addExecutorUniswapV4Swap,
  addUniswapV4RouterSwap,
  type UniswapV4PoolKey,
} from "./steps.js";

const model = (pool: V4Pool) =>
  concentratedModel(pool, (zeroForOne) =>
    uniswapV4SwapFee(pool.feePpm, pool.protocolFee, zeroForOne),
  );

/** The pool manager's name for a catalogue token: the zero address for the native currency. */
export function uniswapV4Currency(token: Address): Address {
  return isNativeToken(token) ? zeroAddress : token;
}

/** The pool's key, as the pool manager hashes it into the PoolId. */
export function uniswapV4PoolKey(pool: V4Pool): UniswapV4PoolKey {
  return {
    currency0: uniswapV4Currency(pool.token0),
    currency1: uniswapV4Currency(pool.token1),
    fee: pool.keyFee,
    tickSpacing: pool.tickSpacing,
    hooks: pool.hooks,
  };
}

export const uniswapV4Pool: PoolKind<V4Pool> = {
  kind: "v4",
  edges: swapsBothWays,
  quote: (edge, amountIn) => {
    const pool = edge.pool;
    const result = uniswapV4ExactIn({ pool, zeroForOne: edge.tokenIn === pool.token0, amountIn });
    if (!result.ok) return result;
    return { ok: true, amountOut: result.amountOut, ticksCrossed: result.ticksCrossed };
  },
  ...concentratedShadow(model),
  gas: (edge, ticksCrossed) =>
    V4_SWAP_GAS +
    ticksCrossed * V4_TICK_CROSS_GAS -
    (isNativeToken(edge.tokenIn) ? V4_NATIVE_IN_GAS_SAVED : 0),
  addHop: (planner, context, hop, amountIn, recipient) => {
    const { edge } = hop;
    const pool = edge.pool;
    const swap = {
      key: uniswapV4PoolKey(pool),
      zeroForOne: edge.tokenIn === pool.token0,
      amountIn,
      recipient,
    };
    if (context.strategy === "router") {
      return addExecutorUniswapV4Swap(planner, { executor: context.execution.executor, ...swap });
    }
    const v4Router = context.execution.uniswapV4Router;
    if (!v4Router) {
      throw new UnsupportedRouteError("no Uniswap V4 router of the execution layer on this chain");
    }
    return addUniswapV4RouterSwap(planner, {
      v4Router,
      ...swap,
      // A pool whose hook alters swaps is quoted by the simulation, not by this hop's math.
      amountOutMinimum:
        context.bounds && hop.amountOut > 0n && pool.admission === "exact"
          ? minimumOf(hop.amountOut, context.bounds.slippageBps)
          : undefined,
    });
  },
  stepPool: (pool) => ({ primaryAddress: pool.poolManager, poolId: pool.address }),
  stateless: false,
  paysReceiverUnderRouter: true,
};
