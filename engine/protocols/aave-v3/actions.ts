/**
 * Aave V3's bundle actions. `deposit` supplies an asset (its aTokens go to the account or the
 * optional receiver) and `withdraw` burns aTokens for the asset, each a hop through the reserve
 * named by the Aave Pool (`primaryAddress`) and its two tokens. `borrow` borrows at the variable
 * rate against the executing account's own collateral, and `repay` repays a debt (the caller's
 * by default). The executing account is the only account a borrow can charge: the router's
 * executor holds no collateral of the caller (only a credit delegation to it could back one),
 * so under the router a borrow is refused.
 */
import type { Address } from "viem";
import { z } from "zod";
import { addressArg, amountArg } from "../../bundle/actions/args.js";
import { hopAction, literalInput } from "../../bundle/actions/pool-action.js";
import type { ActionSpec, CompileContext } from "../../bundle/actions/types.js";
import { InvalidArgumentError, UnknownPoolError } from "../../core/errors.js";
import { displayAddress } from "../../core/native.js";
import type { AaveReservePool, Edge, EdgeAction } from "../../core/types.js";
import { addAaveBorrow, addAaveRepay } from "./steps.js";

/** The reserve of `asset` in the Aave pool `pool`, or a 400 naming what was asked. */
function reserveOf(
  ctx: CompileContext,
  pool: Address,
  asset: Address,
  path: string,
): AaveReservePool {
  for (const edge of ctx.graph.edgesFrom(asset)) {
    const p = edge.pool;
    if (p.kind === "aave-v3" && p.pool === pool && p.asset === asset) return p;
  }
  throw new UnknownPoolError(
    `${displayAddress(asset)} is not a reserve of the indexed Aave V3 pool ${displayAddress(pool)} on chain ${ctx.chain.id}.`,
    { path, pool },
  );
}

/** The reserve's edge doing `action` between its asset and its aToken. */
function reserveEdge(reserve: AaveReservePool, action: EdgeAction): Edge {
  return action === "deposit"
    ? { pool: reserve, tokenIn: reserve.asset, tokenOut: reserve.address, action }
    : { pool: reserve, tokenIn: reserve.address, tokenOut: reserve.asset, action };
}

const depositArgs = z.object({
  primaryAddress: addressArg,
  tokenIn: addressArg,
  tokenOut: addressArg.optional(),
  amountIn: amountArg,
  receiver: addressArg.optional(),
});

const deposit: ActionSpec<typeof depositArgs> = {
  args: depositArgs,
  amountFields: ["amountIn"],
  input: (a) => literalInput(a.tokenIn, a.amountIn),
  compile: (ctx, a) => {
    const reserve = reserveOf(ctx, a.primaryAddress, a.tokenIn, "args.tokenIn");
    if (a.tokenOut !== undefined && a.tokenOut !== reserve.address) {
      throw new InvalidArgumentError(
        `${displayAddress(a.tokenOut)} is not the aToken of ${displayAddress(a.tokenIn)} in this pool (${displayAddress(reserve.address)}).`,
        { path: "args.tokenOut" },
      );
    }
    return hopAction(ctx, reserveEdge(reserve, "deposit"), a.amountIn, a.receiver ?? ctx.account);
  },
};

const withdrawArgs = z.object({
  primaryAddress: addressArg,
  tokenIn: addressArg,
  tokenOut: addressArg,
  amountIn: amountArg,
});

const withdraw: ActionSpec<typeof withdrawArgs> = {
  args: withdrawArgs,
  amountFields: ["amountIn"],
  input: (a) => literalInput(a.tokenIn, a.amountIn),
  compile: (ctx, a) => {
    const reserve = reserveOf(ctx, a.primaryAddress, a.tokenOut, "args.tokenOut");
    if (a.tokenIn !== reserve.address) {
      throw new InvalidArgumentError(
        `${displayAddress(a.tokenIn)} is not the aToken of ${displayAddress(a.tokenOut)} in this pool (${displayAddress(reserve.address)}).`,
        { path: "args.tokenIn" },
      );
    }
    return hopAction(ctx, reserveEdge(reserve, "redeem"), a.amountIn, ctx.account);
  },
};

const borrowArgs = z.object({
  primaryAddress: addressArg,
  tokenOut: addressArg,
  amountOut: amountArg,
});

const borrow: ActionSpec<typeof borrowArgs> = {
  args: borrowArgs,
  amountFields: ["amountOut"],
  compile: (ctx, a) => {
    if (ctx.strategy === "router") {
      throw new InvalidArgumentError(
        "an Aave borrow charges the account that runs the program, and under routingStrategy=router that is the router's executor, which holds none of your collateral: use routingStrategy=delegate or corewallet to borrow against your own.",
        { path: "action" },
      );
    }
    const reserve = reserveOf(ctx, a.primaryAddress, a.tokenOut, "args.tokenOut");
    const amount = ctx.amount(a.amountOut, "amountOut");
    addAaveBorrow(ctx.planner, {
      pool: reserve.pool,
      asset: reserve.asset,
      amount: amount.value,
      account: ctx.account,
    });
    ctx.touched.add(reserve.asset);
    // The account's aTokens of this pool back the debt and its debt tokens record it: both stay
    // with it rather than being handed to the receiver at the end (Aave refuses either move).
    for (const token of ctx.touched) {
      const pool = ctx.graph.pool(token);
      if (pool?.kind === "aave-v3" && pool.pool === reserve.pool) ctx.kept.add(token);
    }
    for (const debt of reserve.debtTokens) ctx.kept.add(debt);
    return [
      { kind: "amount", value: amount.value, estimate: amount.estimate, token: reserve.asset },
    ];
  },
};

const repayArgs = z.object({
  primaryAddress: addressArg,
  tokenIn: addressArg,
  amountIn: amountArg,
  onBehalfOf: addressArg.optional(),
});

const repay: ActionSpec<typeof repayArgs> = {
  args: repayArgs,
  amountFields: ["amountIn"],
  input: (a) => literalInput(a.tokenIn, a.amountIn),
  compile: (ctx, a) => {
    const reserve = reserveOf(ctx, a.primaryAddress, a.tokenIn, "args.tokenIn");
    const amount = ctx.amount(a.amountIn, "amountIn");
    // Under the router the debt is the caller's, not the executor's (which has none).
    const onBehalfOf = a.onBehalfOf ?? (ctx.strategy === "router" ? ctx.from : ctx.account);
    const repaid = addAaveRepay(ctx.planner, {
      pool: reserve.pool,
      asset: reserve.asset,
      amount: amount.value,
      onBehalfOf,
    });
    ctx.touched.add(reserve.asset);
    return [{ kind: "amount", value: repaid, estimate: amount.estimate, token: reserve.asset }];
  },
};

/** Aave V3's actions, by method. */
export const aaveV3Actions: Record<string, ActionSpec> = { deposit, withdraw, borrow, repay };
