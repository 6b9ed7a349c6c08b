/**
 * A Uniswap V3 pool as a routing edge: the swap loop over the indexed ticks (exact, a port of
 * the pool's own math), and its float shadow that still walks the initialized ticks
 * (`../concentrated-liquidity/`).
 */

import type { Address, V3Pool } from "../../core/types.js";
import { uniswapV3ExactIn } from "../../math/uniswap-v3.js";
import { minimumOf, UnsupportedRouteError } from "../../program/hop-context.js";
import type { ExecutionScope } from "../../program/hop-steps.js";
import { concentratedModel, concentratedShadow } from "../concentrated-liquidity/model.js";
import { type PoolKind, swapsBothWays } from "../pool-kind.js";
import { V3_FORK_SWAP_GAS, V3_SWAP_GAS, V3_TICK_CROSS_GAS } from "./gas.js";
import { addUniswapV3PoolSwap, addUniswapV3RouterSwap } from "./steps.js";

const UNISWAP_V3 = "uniswap-v3";

/**
 * Whether a hop through `pool` is swapped on the pool itself in `scope`: under the router, when
 * the executor pays it from its swap callback (Uniswap's own pools, or a fork's whose pool
 * deployer it was built to trust; any other cannot be executed there). Outside the router a hop
 * goes through the pool's SwapRouter ({@link swapRouterOf}), when the chain has one for it.
 * Neither allocates: the route search asks for every edge it weighs.
 */
function swappedDirectly(pool: V3Pool, scope: ExecutionScope): boolean {
  return (
    scope.strategy === "router" &&
    (pool.protocol === UNISWAP_V3 || scope.forkPoolDeployers?.[pool.protocol] !== undefined)
  );
}

/** The SwapRouter a hop through `pool` goes through outside the router, if the chain has one. */
function swapRouterOf(pool: V3Pool, scope: ExecutionScope): Address | undefined {
  return pool.protocol === UNISWAP_V3 ? scope.swapRouter : scope.forkSwapRouters?.[pool.protocol];
}

/** Both directions of a V3 pool pay its one fee. */
const model = (pool: V3Pool) => concentratedModel(pool, () => pool.feePpm);

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
  ...concentratedShadow(model),
  gas: (edge, ticksCrossed) =>
    (edge.pool.protocol === UNISWAP_V3 ? V3_SWAP_GAS : V3_FORK_SWAP_GAS) +
    ticksCrossed * V3_TICK_CROSS_GAS,
  addHop: (planner, context, hop, amountIn, recipient, options) => {
    const { edge } = hop;
    const pool = edge.pool;
    const own = pool.protocol === UNISWAP_V3;
    const poolDeployer = own ? undefined : context.forkPoolDeployers?.[pool.protocol];
    const swapRouter = swapRouterOf(pool, context);
    if (swappedDirectly(pool, context)) {
      const swap = {
        executor: context.execution.executor,
        pool: pool.address,
        tokenIn: edge.tokenIn,
        tokenOut: edge.tokenOut,
        fee: pool.feePpm,
        amountIn,
        recipient,
        fork: poolDeployer && { slug: pool.protocol, poolDeployer },
      };
      if (options.outputUnused) {
        // A partial fill would leave tokenIn in the executor, which the router refuses.
        addUniswapV3PoolSwap(planner, { ...swap, amountOut: false });
        return hop.amountOut;
      }
      return addUniswapV3PoolSwap(planner, swap);
    }
    if (context.strategy === "router") {
      // A fork's pool the executor was not built to pay: a layer deployed before the fork was
      // known to the chain.
      throw new UnsupportedRouteError(
        `the router executor at ${context.execution.executor} does not pay ${pool.protocol}'s pools; deploy the execution layer again with \`npm run deploy\``,
      );
    }
    if (!swapRouter) {
      throw new UnsupportedRouteError(
        `no ${own ? "Uniswap V3" : pool.protocol} SwapRouter is configured on this chain`,
      );
    }
    return addUniswapV3RouterSwap(planner, {
      swapRouter,
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
  executable: (pool, scope) =>
    scope.strategy === "router"
      ? swappedDirectly(pool, scope)
      : swapRouterOf(pool, scope) !== undefined,
};
