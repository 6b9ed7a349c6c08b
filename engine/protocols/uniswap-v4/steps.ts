/** Program steps of uniswap-v4: the calls a hop or an action through it adds. */
import { type Address, getAbiItem } from "viem";
import { RouterExecutorAbi } from "../../../abis/generated/RouterExecutor.js";
import { UniswapV4RouterAbi } from "../../../abis/generated/UniswapV4Router.js";
import type { ProgramPlanner, ProgramValue } from "../../program/planner.js";
import { type Amount, addApprove } from "../../program/protocol-steps.js";

const executorV4SwapFn = getAbiItem({ abi: RouterExecutorAbi, name: "uniswapV4Swap" });

const v4RouterSwapFn = getAbiItem({ abi: UniswapV4RouterAbi, name: "swapExactIn" });

/** A Uniswap V4 pool key, its currencies as the pool manager names them (native: zero address). */
export type UniswapV4PoolKey = {
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
};

/** A pool key as the execution layer's V4 functions take it: its five fields, flattened. */
function keyArgs(key: UniswapV4PoolKey) {
  return [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks] as const;
}

/**
 * Exact-input swap on a Uniswap V4 pool in a router program: the router executor's own
 * `uniswapV4Swap` unlocks the pool manager, swaps, pays the input from what it holds (native
 * currency included) and takes the output to `recipient`; it reverts unless the pool took all of
 * `amountIn`.
 * @returns the amount out.
 */
export function addExecutorUniswapV4Swap(
  planner: ProgramPlanner,
  params: {
    executor: Address;
    key: UniswapV4PoolKey;
    zeroForOne: boolean;
    amountIn: Amount;
    recipient: Address;
  },
): ProgramValue {
  return planner.add({
    target: params.executor,
    fn: executorV4SwapFn,
    args: [...keyArgs(params.key), params.zeroForOne, params.amountIn, params.recipient],
    label: "swap on uniswap v4",
  });
}

/**
 * Exact-input swap on a Uniswap V4 pool through the execution layer's V4 router, for accounts
 * that cannot answer the pool manager's callback (wallets, delegated accounts): approves exactly
 * `amountIn` of an ERC20 input (the router's `transferFrom` spends all of it, leaving no
 * allowance) or sends a native input as the call's value.
 * @returns the amount out.
 */
export function addUniswapV4RouterSwap(
  planner: ProgramPlanner,
  params: {
    v4Router: Address;
    key: UniswapV4PoolKey;
    zeroForOne: boolean;
    amountIn: Amount;
    /** The router's own minimum (default 0: the program's final check bounds the route). */
    amountOutMinimum?: bigint;
    recipient: Address;
  },
): ProgramValue {
  const { key } = params;
  const currencyIn = params.zeroForOne ? key.currency0 : key.currency1;
  const native = BigInt(currencyIn) === 0n;
  if (!native) {
    addApprove(planner, { token: currencyIn, spender: params.v4Router, amount: params.amountIn });
  }
  return planner.add({
    target: params.v4Router,
    fn: v4RouterSwapFn,
    args: [
      ...keyArgs(key),
      params.zeroForOne,
      params.amountIn,
      params.amountOutMinimum ?? 0n,
      params.recipient,
    ],
    ...(native ? { value: params.amountIn } : {}),
    label: "swap on uniswap v4 router",
  });
}
