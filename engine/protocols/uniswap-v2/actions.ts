/** Uniswap V2's bundle actions: `swap` on a pair, `deposit` and `redeem` liquidity through Router02. */
import { type Address, getAbiItem, maxUint256 } from "viem";
import { z } from "zod";
import { UniswapV2Router02Abi } from "../../../abis/UniswapV2Router02.js";
import { AMOUNT_DESCRIPTION, addressArg, amountArg } from "../../bundle/actions/args.js";
import { hopContext, literalInput, poolHop } from "../../bundle/actions/pool-action.js";
import type {
  ActionSpec,
  AmountArg,
  CompileContext,
  OutputValue,
} from "../../bundle/actions/types.js";
import {
  InvalidArgumentError,
  UnknownPoolError,
  UnsupportedOnChainError,
} from "../../core/errors.js";
import { displayAddress } from "../../core/native.js";
import { addTupleWord } from "../../program/execution-steps.js";
import { programValuesContract } from "../../program/hop-context.js";
import { addApprove } from "../../program/protocol-steps.js";
import type { ProtocolMethod } from "../types.js";

const addLiquidityFn = getAbiItem({ abi: UniswapV2Router02Abi, name: "addLiquidity" });
const removeLiquidityFn = getAbiItem({ abi: UniswapV2Router02Abi, name: "removeLiquidity" });

const lpDepositArgs = z.object({
  primaryAddress: addressArg,
  tokenIn: z.array(addressArg).length(2, { error: "expected the pair's two tokens" }),
  tokenOut: addressArg.optional(),
  amountIn: z.array(amountArg).length(2, { error: "expected two amounts, one per token" }),
});

/**
 * The named pair, Uniswap V2's own: Router02 adds and removes liquidity on the pair its factory
 * derives from the two tokens, never on a fork's.
 */
function pairOf(ctx: CompileContext, address: Address) {
  const pool = ctx.graph.pool(address);
  if (pool?.kind !== "v2") {
    throw new UnknownPoolError(
      `${displayAddress(address)} is not an indexed Uniswap V2 pair on chain ${ctx.chain.id}.`,
      { path: "args.primaryAddress", pool: address },
    );
  }
  if (pool.protocol !== "uniswap-v2") {
    throw new UnknownPoolError(
      `${displayAddress(address)} is a ${pool.protocol} pair: Uniswap V2's Router02 adds and removes liquidity on Uniswap V2's own pairs only.`,
      { path: "args.primaryAddress", pool: address },
    );
  }
  return pool;
}

function router02(ctx: CompileContext): Address {
  const router = ctx.chain.uniswapV2?.router02;
  if (!router)
    throw new UnsupportedOnChainError(
      `No Uniswap V2 Router02 is configured on chain ${ctx.chain.id}.`,
    );
  return router;
}

/**
 * Router02's `amountAMin`/`amountBMin` for adding `desiredA`/`desiredB`: the amounts Router02
 * will take at the indexed reserves (it keeps the pair's ratio, as in its `_addLiquidity`) less
 * the bundle's slippage; 0 where an amount is only known on chain or the pair is empty.
 */
function liquidityMinimums(
  pair: { token0: Address; reserve0: bigint; reserve1: bigint },
  a: Address,
  desiredA: bigint | undefined,
  desiredB: bigint | undefined,
  ctx: CompileContext,
): [bigint, bigint] {
  const [reserveA, reserveB] =
    a === pair.token0 ? [pair.reserve0, pair.reserve1] : [pair.reserve1, pair.reserve0];
  if (desiredA === undefined || desiredB === undefined || reserveA === 0n || reserveB === 0n) {
    return [0n, 0n];
  }
  const optimalB = (desiredA * reserveB) / reserveA;
  const [takenA, takenB] =
    optimalB <= desiredB ? [desiredA, optimalB] : [(desiredB * reserveA) / reserveB, desiredB];
  const less = (x: bigint) => (x * BigInt(10_000 - ctx.slippageBps)) / 10_000n;
  return [less(takenA), less(takenB)];
}

/** Uniswap V2 `deposit`: adds liquidity through Router02 (which keeps the pair's ratio). */
const uniswapV2Deposit: ActionSpec<typeof lpDepositArgs> = {
  args: lpDepositArgs,
  amountFields: ["amountIn"],
  // Each literal amount is the caller's, pulled like any other action's input.
  input: (args) =>
    args.tokenIn.flatMap((token, i) => {
      const literal = literalInput(token, args.amountIn[i] as AmountArg);
      return literal ? [literal] : [];
    }),
  compile: (ctx, args) => {
    const pair = pairOf(ctx, args.primaryAddress);
    const tokens = new Set([pair.token0, pair.token1]);
    if (!args.tokenIn.every((t) => tokens.has(t)) || args.tokenIn[0] === args.tokenIn[1]) {
      throw new InvalidArgumentError(
        `expected the pair's tokens ${displayAddress(pair.token0)} and ${displayAddress(pair.token1)}.`,
        { path: "args.tokenIn" },
      );
    }
    if (args.tokenOut && args.tokenOut !== pair.address) {
      throw new InvalidArgumentError(
        `the LP token of this pair is ${displayAddress(pair.address)}.`,
        { path: "args.tokenOut" },
      );
    }
    const router = router02(ctx);
    const [a, b] = args.tokenIn as [Address, Address];
    const amountA = ctx.amount(args.amountIn[0] as AmountArg, "amountIn[0]");
    const amountB = ctx.amount(args.amountIn[1] as AmountArg, "amountIn[1]");
    addApprove(ctx.planner, { token: a, spender: router, amount: amountA.value });
    addApprove(ctx.planner, { token: b, spender: router, amount: amountB.value });
    const [minA, minB] = liquidityMinimums(pair, a, amountA.estimate, amountB.estimate, ctx);
    const result = ctx.planner.add({
      target: router,
      fn: addLiquidityFn,
      args: [
        a,
        b,
        amountA.value,
        amountB.value,
        minA,
        minB,
        ctx.account,
        ctx.bounds?.deadline ?? maxUint256,
      ],
      returnRaw: true,
      label: "add liquidity",
    });
    // What the pair's ratio left unused stays with the account: clear the allowances.
    addApprove(ctx.planner, { token: a, spender: router, amount: 0n });
    addApprove(ctx.planner, { token: b, spender: router, amount: 0n });
    const liquidity = addTupleWord(ctx.planner, {
      programValues: programValuesContract(hopContext(ctx)),
      tuple: result,
      index: 2n,
    });
    for (const t of [a, b, pair.address]) ctx.touched.add(t);
    return [{ kind: "amount", value: liquidity, estimate: undefined, token: pair.address }];
  },
};

const lpRedeemArgs = z.object({
  primaryAddress: addressArg,
  tokenIn: addressArg.optional(),
  tokenOut: z.array(addressArg).length(2, { error: "expected the pair's two tokens" }).optional(),
  amountIn: amountArg,
});

/** Uniswap V2 `redeem`: removes liquidity through Router02; outputs index 0 and 1 are the two amounts. */
const uniswapV2Redeem: ActionSpec<typeof lpRedeemArgs> = {
  args: lpRedeemArgs,
  amountFields: ["amountIn"],
  input: (args) => literalInput(args.primaryAddress, args.amountIn),
  compile: (ctx, args) => {
    const pair = pairOf(ctx, args.primaryAddress);
    if (args.tokenIn && args.tokenIn !== pair.address) {
      throw new InvalidArgumentError(
        `the LP token of this pair is ${displayAddress(pair.address)}.`,
        { path: "args.tokenIn" },
      );
    }
    const [a, b] = (args.tokenOut ?? [pair.token0, pair.token1]) as [Address, Address];
    if (new Set([a, b, pair.token0, pair.token1]).size !== 2) {
      throw new InvalidArgumentError(
        `expected the pair's tokens ${displayAddress(pair.token0)} and ${displayAddress(pair.token1)}.`,
        { path: "args.tokenOut" },
      );
    }
    const router = router02(ctx);
    const liquidity = ctx.amount(args.amountIn, "amountIn");
    addApprove(ctx.planner, { token: pair.address, spender: router, amount: liquidity.value });
    const result = ctx.planner.add({
      target: router,
      fn: removeLiquidityFn,
      // Its minimums stay 0: the pair's LP supply is not indexed, so the amounts are checked by
      // the bundle's own output check at the receiver instead.
      args: [a, b, liquidity.value, 0n, 0n, ctx.account, ctx.bounds?.deadline ?? maxUint256],
      returnRaw: true,
      label: "remove liquidity",
    });
    for (const t of [a, b, pair.address]) ctx.touched.add(t);
    return [a, b].map(
      (token, i): OutputValue => ({
        kind: "amount",
        value: addTupleWord(ctx.planner, {
          programValues: programValuesContract(hopContext(ctx)),
          tuple: result,
          index: BigInt(i),
        }),
        estimate: undefined,
        token,
      }),
    );
  },
};

/** The `swap` method on a named pair, as `/v1/standards` describes it (its forks' too). */
export const uniswapV2SwapMethod: ProtocolMethod = {
  method: "swap",
  name: "Swap",
  functionNames: ["swap", "getReserves"],
  inputs: {
    primaryAddress: "Pair address",
    tokenIn: "Token to sell",
    tokenOut: "Token to buy",
    amountIn: AMOUNT_DESCRIPTION,
  },
  outputs: { amountOut: "Amount of tokenOut received" },
};

/** `swap` on a named pair: Uniswap V2's, and each fork's on its own pairs. */
export const uniswapV2SwapAction: ActionSpec = poolHop("v2", "swap");

/** Uniswap V2's actions, by method. */
export const uniswapV2Actions: Record<string, ActionSpec> = {
  swap: uniswapV2SwapAction,
  deposit: uniswapV2Deposit,
  redeem: uniswapV2Redeem,
};
