/** Program steps of uniswap-v2: the calls a hop or an action through it adds. */
import { type Address, getAbiItem } from "viem";
import { ProgramValuesAbi } from "../../../abis/generated/ProgramValues.js";
import { RouterExecutorAbi } from "../../../abis/generated/RouterExecutor.js";
import { UniswapV2PairAbi } from "../../../abis/UniswapV2Pair.js";
import { addTupleWord } from "../../program/execution-steps.js";
import type { ProgramPlanner, ProgramValue } from "../../program/planner.js";
import { type Amount, addTransfer, sorted } from "../../program/protocol-steps.js";

const pairSwapFn = getAbiItem({ abi: UniswapV2PairAbi, name: "swap" });

const v2AmountOutFn = getAbiItem({ abi: ProgramValuesAbi, name: "uniswapV2AmountOut" });

const executorV2SwapFn = getAbiItem({ abi: RouterExecutorAbi, name: "uniswapV2Swap" });

const v2ZapInFn = getAbiItem({ abi: ProgramValuesAbi, name: "uniswapV2ZapIn" });

const sumFn = getAbiItem({ abi: ProgramValuesAbi, name: "sum" });

const pairMintFn = getAbiItem({ abi: UniswapV2PairAbi, name: "mint" });

const pairBurnFn = getAbiItem({ abi: UniswapV2PairAbi, name: "burn" });

/**
 * Swaps on a Uniswap V2 pair without approvals, from any account (wallet, delegated account):
 * sends `amountIn` to the pair, reads what the pair now owes (ProgramValues.uniswapV2AmountOut),
 * then calls `pair.swap` paying `recipient`. Router programs use
 * {@link addExecutorUniswapV2Swap}, which does the same in one command.
 * @returns the amount out.
 */
export function addUniswapV2Swap(
  planner: ProgramPlanner,
  params: {
    pair: Address;
    tokenIn: Address;
    tokenOut: Address;
    amountIn: Amount;
    recipient: Address;
    programValues: Address;
    /** The pair's swap fee in millionths (3000 for Uniswap V2's own). */
    feePpm: number;
  },
): ProgramValue {
  const [token0] = sorted(params.tokenIn, params.tokenOut);
  const zeroForOne = token0.toLowerCase() === params.tokenIn.toLowerCase();
  addTransfer(planner, { token: params.tokenIn, to: params.pair, amount: params.amountIn });
  const amountOut = planner.add({
    target: params.programValues,
    fn: v2AmountOutFn,
    args: [params.pair, params.tokenIn, params.tokenOut, params.feePpm],
    label: "quote uniswap v2",
  });
  planner.add({
    target: params.pair,
    fn: pairSwapFn,
    args: zeroForOne
      ? [0n, amountOut, params.recipient, "0x"]
      : [amountOut, 0n, params.recipient, "0x"],
    label: "swap on uniswap v2",
  });
  return amountOut;
}

/**
 * Swaps on a Uniswap V2 pair in a router program, in one command: the router executor's own
 * `uniswapV2Swap` sends `amountIn` it holds to the pair and pays `recipient` what the pair owes.
 * @returns the amount out.
 */
export function addExecutorUniswapV2Swap(
  planner: ProgramPlanner,
  params: {
    executor: Address;
    pair: Address;
    tokenIn: Address;
    tokenOut: Address;
    amountIn: Amount;
    recipient: Address;
    /** The pair's swap fee in millionths (3000 for Uniswap V2's own). */
    feePpm: number;
  },
): ProgramValue {
  return planner.add({
    target: params.executor,
    fn: executorV2SwapFn,
    args: [
      params.pair,
      params.tokenIn,
      params.tokenOut,
      params.amountIn,
      params.recipient,
      params.feePpm,
    ],
    label: "swap on uniswap v2",
  });
}

/**
 * Turns `amountIn` of one token of a Uniswap V2 pair held by `account` into the pair's
 * liquidity, minted to `recipient`: `ProgramValues.uniswapV2ZapIn` sizes the sale at the
 * pair's reserves of the moment, the sale pays `account`, and both sides go to the pair, which
 * mints. What the ratio's rounding leaves unused of either token stays with `account`.
 * @returns the liquidity minted.
 */
export function addUniswapV2ZapIn(
  planner: ProgramPlanner,
  params: {
    pair: Address;
    tokenIn: Address;
    tokenOther: Address;
    amountIn: Amount;
    account: Address;
    recipient: Address;
    /** The value helpers: the router executor under the router, else ProgramValues. */
    programValues: Address;
  },
): ProgramValue {
  const { pair, tokenIn, tokenOther, programValues } = params;
  const plan = planner.add({
    target: programValues,
    fn: v2ZapInFn,
    args: [pair, tokenIn, tokenOther, params.amountIn],
    returnRaw: true,
    label: "size uniswap v2 liquidity add",
  });
  const [swapIn, swapOut, depositIn, depositOther] = [0n, 1n, 2n, 3n].map((index) =>
    addTupleWord(planner, { programValues, tuple: plan, index }),
  ) as [ProgramValue, ProgramValue, ProgramValue, ProgramValue];
  const zeroForOne = tokenIn.toLowerCase() < tokenOther.toLowerCase();
  addTransfer(planner, { token: tokenIn, to: pair, amount: swapIn });
  planner.add({
    target: pair,
    fn: pairSwapFn,
    args: zeroForOne ? [0n, swapOut, params.account, "0x"] : [swapOut, 0n, params.account, "0x"],
    label: "swap on uniswap v2",
  });
  addTransfer(planner, { token: tokenIn, to: pair, amount: depositIn });
  addTransfer(planner, { token: tokenOther, to: pair, amount: depositOther });
  return planner.add({
    target: pair,
    fn: pairMintFn,
    args: [params.recipient],
    label: "add liquidity on uniswap v2",
  });
}

/**
 * Turns `liquidity` of a Uniswap V2 pair held by `account` into one of its tokens, `tokenOut`,
 * paid to `recipient`: the pair burns it (paying `account` both tokens), the other token is sold
 * back into the pair for tokenOut, and tokenOut's own share follows to `recipient`.
 * @returns the amount of tokenOut (the burn's share plus the sale's output).
 */
export function addUniswapV2ZapOut(
  planner: ProgramPlanner,
  params: {
    pair: Address;
    tokenOut: Address;
    tokenOther: Address;
    liquidity: Amount;
    account: Address;
    recipient: Address;
    programValues: Address;
    /** Under the router: the executor, whose one-command swap sells the other side. */
    executor: Address | undefined;
    /** The pair's swap fee in millionths. */
    feePpm: number;
  },
): ProgramValue {
  const { pair, tokenOut, tokenOther, programValues } = params;
  addTransfer(planner, { token: pair, to: pair, amount: params.liquidity });
  const burnt = planner.add({
    target: pair,
    fn: pairBurnFn,
    args: [params.account],
    returnRaw: true,
    label: "remove liquidity on uniswap v2",
  });
  const outIsToken0 = tokenOut.toLowerCase() < tokenOther.toLowerCase();
  const word = (index: bigint) => addTupleWord(planner, { programValues, tuple: burnt, index });
  const own = word(outIsToken0 ? 0n : 1n);
  const other = word(outIsToken0 ? 1n : 0n);
  const swap = {
    pair,
    tokenIn: tokenOther,
    tokenOut,
    amountIn: other,
    recipient: params.recipient,
    feePpm: params.feePpm,
  };
  const swapOut = params.executor
    ? addExecutorUniswapV2Swap(planner, { ...swap, executor: params.executor })
    : addUniswapV2Swap(planner, { ...swap, programValues });
  if (params.recipient.toLowerCase() !== params.account.toLowerCase()) {
    addTransfer(planner, { token: tokenOut, to: params.recipient, amount: own });
  }
  return planner.add({
    target: programValues,
    fn: sumFn,
    args: [own, swapOut],
    label: "add amounts",
  });
}
