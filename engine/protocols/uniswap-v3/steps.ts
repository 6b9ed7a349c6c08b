/** Program steps of uniswap-v3: the calls a hop or an action through it adds. */
import { type Address, encodeAbiParameters, getAbiItem, type Hex, maxUint256 } from "viem";
import { ProgramValuesAbi } from "../../../abis/generated/ProgramValues.js";
import { SwapRouterAbi } from "../../../abis/SwapRouter.js";
import { UniswapV3PoolAbi } from "../../../abis/UniswapV3Pool.js";
import type { ProgramPlanner, ProgramValue } from "../../program/planner.js";
import { type Amount, addApprove, sorted } from "../../program/protocol-steps.js";

/** Uniswap V3 price limits just inside the valid range (a swap limited only by its amount). */
export const UNISWAP_V3_MIN_SQRT_RATIO_PLUS_ONE = 4295128740n;

export const UNISWAP_V3_MAX_SQRT_RATIO_MINUS_ONE =
  1461446703485210103287273052203988822378723970341n;

const poolSwapFn = getAbiItem({ abi: UniswapV3PoolAbi, name: "swap" });

const exactInputSingleFn = getAbiItem({ abi: SwapRouterAbi, name: "exactInputSingle" });

const v3AmountOutFn = getAbiItem({ abi: ProgramValuesAbi, name: "uniswapV3ExactInputAmountOut" });

/**
 * The data the router executor's V3 swap callback expects: the pool's sorted tokens and fee,
 * then for a fork's pool the fork's pool deployer (the executor pays only the CREATE2 address
 * they give, from Uniswap's factory or that deployer).
 */
export function uniswapV3CallbackData(
  tokenA: Address,
  tokenB: Address,
  fee: number,
  forkDeployer?: Address,
): Hex {
  const [token0, token1] = sorted(tokenA, tokenB);
  if (forkDeployer === undefined) {
    return encodeAbiParameters(
      [{ type: "address" }, { type: "address" }, { type: "uint24" }],
      [token0, token1, fee],
    );
  }
  return encodeAbiParameters(
    [{ type: "address" }, { type: "address" }, { type: "uint24" }, { type: "address" }],
    [token0, token1, fee, forkDeployer],
  );
}

/** Parameters of {@link addUniswapV3PoolSwap}. */
export type UniswapV3PoolSwapParameters = {
  /** The router executor (pays the callback, carries the value helpers). */
  executor: Address;
  pool: Address;
  tokenIn: Address;
  tokenOut: Address;
  fee: number;
  amountIn: Amount;
  recipient: Address;
  /** Whether to read the amount out (default true); false saves a call when nothing uses it. */
  amountOut?: boolean;
  /** A fork's pool: the fork's slug and pool deployer (default: Uniswap V3's own pool). */
  fork?: { slug: string; poolDeployer: Address };
};

/**
 * Exact-input swap calling a Uniswap V3 pool (or a fork's) directly; the router executor pays the
 * pool from its swap callback. Only for programs run by the router executor. The output is read with
 * `uniswapV3ExactInputAmountOut`, which reverts unless the pool took all of `amountIn` (a pool
 * that ran out of liquidity would leave the rest in the executor).
 * @returns the amount out (read from the pool's return value), unless `amountOut: false`.
 */
export function addUniswapV3PoolSwap(
  planner: ProgramPlanner,
  params: UniswapV3PoolSwapParameters & { amountOut?: true },
): ProgramValue;
export function addUniswapV3PoolSwap(
  planner: ProgramPlanner,
  params: UniswapV3PoolSwapParameters & { amountOut: false },
): undefined;
export function addUniswapV3PoolSwap(
  planner: ProgramPlanner,
  params: UniswapV3PoolSwapParameters,
): ProgramValue | undefined {
  const [token0] = sorted(params.tokenIn, params.tokenOut);
  const zeroForOne = token0.toLowerCase() === params.tokenIn.toLowerCase();
  const name = (params.fork?.slug ?? "uniswap-v3").replaceAll("-", " ");
  const deltas = planner.add({
    target: params.pool,
    fn: poolSwapFn,
    args: [
      params.recipient,
      zeroForOne,
      params.amountIn,
      zeroForOne ? UNISWAP_V3_MIN_SQRT_RATIO_PLUS_ONE : UNISWAP_V3_MAX_SQRT_RATIO_MINUS_ONE,
      uniswapV3CallbackData(params.tokenIn, params.tokenOut, params.fee, params.fork?.poolDeployer),
    ],
    label: `swap on ${name}`,
  });
  if (params.amountOut === false) return undefined;
  return planner.add({
    target: params.executor,
    fn: v3AmountOutFn,
    args: [deltas, params.amountIn],
    label: `read ${name} output`,
  });
}

/**
 * Exact-input swap through Uniswap's SwapRouter, for accounts without a V3 callback (wallets,
 * delegated accounts): approves exactly `amountIn`, swaps with the step's own minimum and the
 * transaction's deadline (SwapRouter enforces both), then resets the allowance to zero.
 * @returns the amount out.
 */
export function addUniswapV3RouterSwap(
  planner: ProgramPlanner,
  params: {
    swapRouter: Address;
    tokenIn: Address;
    tokenOut: Address;
    fee: number;
    amountIn: Amount;
    recipient: Address;
    /** SwapRouter's `deadline` (default: none, the program checks its own). */
    deadline?: bigint;
    /** SwapRouter's `amountOutMinimum` (default 0: the program's final check bounds it). */
    amountOutMinimum?: bigint;
  },
): ProgramValue {
  addApprove(planner, {
    token: params.tokenIn,
    spender: params.swapRouter,
    amount: params.amountIn,
  });
  const amountOut = planner.add({
    target: params.swapRouter,
    fn: exactInputSingleFn,
    args: [
      {
        tokenIn: params.tokenIn,
        tokenOut: params.tokenOut,
        fee: params.fee,
        recipient: params.recipient,
        deadline: params.deadline ?? maxUint256,
        amountIn: params.amountIn,
        amountOutMinimum: params.amountOutMinimum ?? 0n,
        sqrtPriceLimitX96: 0n,
      },
    ],
    label: "swap on uniswap v3 router",
  });
  addApprove(planner, { token: params.tokenIn, spender: params.swapRouter, amount: 0n });
  return amountOut;
}
