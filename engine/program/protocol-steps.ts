/**
 * Program steps for the protocols the execution layer drives directly: ERC20 transfers and
 * approvals, WETH, Uniswap V2 pairs, Uniswap V3 pools (through the router executor's swap
 * callback) and Uniswap's SwapRouter (for wallets, which have no such callback), Uniswap V4
 * pools (the router executor's unlock callback, or the execution layer's V4 router for wallets),
 * ERC4626 vaults.
 * Each returns the step's output amount as a ProgramValue where there is one.
 */
import {
  type Address,
  encodeAbiParameters,
  erc20Abi,
  erc4626Abi,
  getAbiItem,
  type Hex,
  maxUint256,
} from "viem";
import { AaveV3PoolAbi } from "../../abis/AaveV3Pool.js";
import { ProgramValuesAbi } from "../../abis/generated/ProgramValues.js";
import { RouterExecutorAbi } from "../../abis/generated/RouterExecutor.js";
import { UniswapV4RouterAbi } from "../../abis/generated/UniswapV4Router.js";
import { SwapRouterAbi } from "../../abis/SwapRouter.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { addBalanceGrowth, addBalanceSnapshot, addTupleWord } from "./execution-steps.js";
import type { ProgramPlanner, ProgramValue } from "./planner.js";

/** Uniswap V3 price limits just inside the valid range (a swap limited only by its amount). */
export const UNISWAP_V3_MIN_SQRT_RATIO_PLUS_ONE = 4295128740n;
export const UNISWAP_V3_MAX_SQRT_RATIO_MINUS_ONE =
  1461446703485210103287273052203988822378723970341n;

const transferFn = getAbiItem({ abi: erc20Abi, name: "transfer" });
const approveFn = getAbiItem({ abi: erc20Abi, name: "approve" });
const depositFn = getAbiItem({ abi: erc4626Abi, name: "deposit" });
const redeemFn = getAbiItem({ abi: erc4626Abi, name: "redeem" });
const wethDepositFn = getAbiItem({ abi: WETH9Abi, name: "deposit" });
const wethWithdrawFn = getAbiItem({ abi: WETH9Abi, name: "withdraw" });
const pairSwapFn = getAbiItem({ abi: UniswapV2PairAbi, name: "swap" });
const poolSwapFn = getAbiItem({ abi: UniswapV3PoolAbi, name: "swap" });
const exactInputSingleFn = getAbiItem({ abi: SwapRouterAbi, name: "exactInputSingle" });
const v2AmountOutFn = getAbiItem({ abi: ProgramValuesAbi, name: "uniswapV2AmountOut" });
const v3AmountOutFn = getAbiItem({ abi: ProgramValuesAbi, name: "uniswapV3ExactInputAmountOut" });
const executorV2SwapFn = getAbiItem({ abi: RouterExecutorAbi, name: "uniswapV2Swap" });
const aaveSupplyFn = getAbiItem({ abi: AaveV3PoolAbi, name: "supply" });
const aaveWithdrawFn = getAbiItem({ abi: AaveV3PoolAbi, name: "withdraw" });
const aaveBorrowFn = getAbiItem({ abi: AaveV3PoolAbi, name: "borrow" });
const aaveRepayFn = getAbiItem({ abi: AaveV3PoolAbi, name: "repay" });
const executorV4SwapFn = getAbiItem({ abi: RouterExecutorAbi, name: "uniswapV4Swap" });
const v4RouterSwapFn = getAbiItem({ abi: UniswapV4RouterAbi, name: "swapExactIn" });
const v2ZapInFn = getAbiItem({ abi: ProgramValuesAbi, name: "uniswapV2ZapIn" });
const sumFn = getAbiItem({ abi: ProgramValuesAbi, name: "sum" });
const pairMintFn = getAbiItem({ abi: UniswapV2PairAbi, name: "mint" });
const pairBurnFn = getAbiItem({ abi: UniswapV2PairAbi, name: "burn" });

type Amount = bigint | ProgramValue;

function sorted(a: Address, b: Address): [Address, Address] {
  return a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
}

/** Transfers `amount` of `token` from the executing account to `to`. */
export function addTransfer(
  planner: ProgramPlanner,
  params: { token: Address; to: Address; amount: Amount; label?: string },
): void {
  planner.add({
    target: params.token,
    fn: transferFn,
    args: [params.to, params.amount],
    label: params.label ?? "transfer",
  });
}

/** Approves `amount` of `token` to `spender` (use 0 to reset an allowance). */
export function addApprove(
  planner: ProgramPlanner,
  params: { token: Address; spender: Address; amount: Amount },
): void {
  planner.add({
    target: params.token,
    fn: approveFn,
    args: [params.spender, params.amount],
    label: "approve",
  });
}

/** Wraps `amount` of native currency into WETH (a value call). */
export function addWrapNative(
  planner: ProgramPlanner,
  params: { weth: Address; amount: Amount },
): void {
  planner.add({
    target: params.weth,
    fn: wethDepositFn,
    args: [],
    value: params.amount,
    label: "wrap",
  });
}

/** Unwraps `amount` of WETH into native currency held by the executing account. */
export function addUnwrapNative(
  planner: ProgramPlanner,
  params: { weth: Address; amount: Amount },
): void {
  planner.add({ target: params.weth, fn: wethWithdrawFn, args: [params.amount], label: "unwrap" });
}

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
  },
): ProgramValue {
  const [token0] = sorted(params.tokenIn, params.tokenOut);
  const zeroForOne = token0.toLowerCase() === params.tokenIn.toLowerCase();
  addTransfer(planner, { token: params.tokenIn, to: params.pair, amount: params.amountIn });
  const amountOut = planner.add({
    target: params.programValues,
    fn: v2AmountOutFn,
    args: [params.pair, params.tokenIn, params.tokenOut],
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
  },
): ProgramValue {
  return planner.add({
    target: params.executor,
    fn: executorV2SwapFn,
    args: [params.pair, params.tokenIn, params.tokenOut, params.amountIn, params.recipient],
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

/** The data the router executor's V3 swap callback expects: the pool's sorted tokens and fee. */
export function uniswapV3CallbackData(tokenA: Address, tokenB: Address, fee: number): Hex {
  const [token0, token1] = sorted(tokenA, tokenB);
  return encodeAbiParameters(
    [{ type: "address" }, { type: "address" }, { type: "uint24" }],
    [token0, token1, fee],
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
};

/**
 * Exact-input swap calling a Uniswap V3 pool directly; the router executor pays the pool from
 * its swap callback. Only for programs run by the router executor. The output is read with
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
  const deltas = planner.add({
    target: params.pool,
    fn: poolSwapFn,
    args: [
      params.recipient,
      zeroForOne,
      params.amountIn,
      zeroForOne ? UNISWAP_V3_MIN_SQRT_RATIO_PLUS_ONE : UNISWAP_V3_MAX_SQRT_RATIO_MINUS_ONE,
      uniswapV3CallbackData(params.tokenIn, params.tokenOut, params.fee),
    ],
    label: "swap on uniswap v3",
  });
  if (params.amountOut === false) return undefined;
  return planner.add({
    target: params.executor,
    fn: v3AmountOutFn,
    args: [deltas, params.amountIn],
    label: "read uniswap v3 output",
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

/**
 * Deposits `assets` into an ERC4626 vault for `receiver`, approving exactly that amount (which
 * the deposit consumes, leaving no allowance).
 * @returns the shares minted.
 */
export function addErc4626Deposit(
  planner: ProgramPlanner,
  params: { vault: Address; asset: Address; assets: Amount; receiver: Address },
): ProgramValue {
  addApprove(planner, { token: params.asset, spender: params.vault, amount: params.assets });
  return planner.add({
    target: params.vault,
    fn: depositFn,
    args: [params.assets, params.receiver],
    label: "deposit",
  });
}

/**
 * Redeems `shares` of an ERC4626 vault owned by the executing account, paying `receiver`.
 * @returns the assets paid out.
 */
export function addErc4626Redeem(
  planner: ProgramPlanner,
  params: { vault: Address; shares: Amount; receiver: Address; owner: Address },
): ProgramValue {
  return planner.add({
    target: params.vault,
    fn: redeemFn,
    args: [params.shares, params.receiver, params.owner],
    label: "redeem",
  });
}

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

/** Aave's variable interest rate mode (`DataTypes.InterestRateMode.VARIABLE`). */
const AAVE_VARIABLE_RATE = 2n;

/**
 * Supplies `amount` of `asset` to an Aave V3 pool for `onBehalfOf`, approving exactly that amount
 * (which the supply consumes). `Pool.supply` returns nothing: the output is `onBehalfOf`'s aToken
 * balance growth over the supply, read through the MinAmountOutCheck helper (exact whatever the
 * account held before).
 * @returns the aTokens `onBehalfOf` received.
 */
export function addAaveSupply(
  planner: ProgramPlanner,
  params: {
    pool: Address;
    asset: Address;
    aToken: Address;
    amount: Amount;
    onBehalfOf: Address;
    minAmountOutCheck: Address;
  },
): ProgramValue {
  const before = addBalanceSnapshot(planner, {
    minAmountOutCheck: params.minAmountOutCheck,
    token: params.aToken,
    account: params.onBehalfOf,
  });
  addApprove(planner, { token: params.asset, spender: params.pool, amount: params.amount });
  planner.add({
    target: params.pool,
    fn: aaveSupplyFn,
    args: [params.asset, params.amount, params.onBehalfOf, 0],
    label: "supply to aave",
  });
  return addBalanceGrowth(planner, {
    minAmountOutCheck: params.minAmountOutCheck,
    token: params.aToken,
    account: params.onBehalfOf,
    balanceBefore: before,
  });
}

/**
 * Withdraws `amount` of `asset` from an Aave V3 pool (burning the executing account's aTokens),
 * paying `to`; `"all"` withdraws the account's whole aToken balance (`type(uint256).max`).
 * @returns the amount withdrawn (Pool.withdraw's return value).
 */
export function addAaveWithdraw(
  planner: ProgramPlanner,
  params: { pool: Address; asset: Address; amount: Amount | "all"; to: Address },
): ProgramValue {
  return planner.add({
    target: params.pool,
    fn: aaveWithdrawFn,
    args: [params.asset, params.amount === "all" ? maxUint256 : params.amount, params.to],
    label: "withdraw from aave",
  });
}

/**
 * Borrows `amount` of `asset` at the variable rate against the executing account's collateral
 * (`onBehalfOf` is the account itself: only an account's own collateral backs its borrow); the
 * borrowed tokens arrive in the account.
 */
export function addAaveBorrow(
  planner: ProgramPlanner,
  params: { pool: Address; asset: Address; amount: Amount; account: Address },
): void {
  planner.add({
    target: params.pool,
    fn: aaveBorrowFn,
    args: [params.asset, params.amount, AAVE_VARIABLE_RATE, 0, params.account],
    label: "borrow from aave",
  });
}

/**
 * Repays up to `amount` of `onBehalfOf`'s variable debt in `asset`, approving exactly `amount`
 * and resetting the approval after (a repayment capped at the debt spends less).
 * @returns the amount repaid (Pool.repay's return value).
 */
export function addAaveRepay(
  planner: ProgramPlanner,
  params: { pool: Address; asset: Address; amount: Amount; onBehalfOf: Address },
): ProgramValue {
  addApprove(planner, { token: params.asset, spender: params.pool, amount: params.amount });
  const repaid = planner.add({
    target: params.pool,
    fn: aaveRepayFn,
    args: [params.asset, params.amount, AAVE_VARIABLE_RATE, params.onBehalfOf],
    label: "repay to aave",
  });
  addApprove(planner, { token: params.asset, spender: params.pool, amount: 0n });
  return repaid;
}
