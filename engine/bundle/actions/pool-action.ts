/**
 * What the bundle actions of several protocols share: an action's literal input, what a route
 * hop needs of the compile context, and one hop through a pool the action names (its edge
 * looked up in the routing graph, its program steps those of the route programs).
 * The routing engine itself comes in the compile context (`ctx.routing`), not by import.
 */
import type { Address } from "viem";
import { z } from "zod";
import { forkPoolDeployers, forkSwapRouters } from "../../core/chain-setup.js";
import { InvalidArgumentError, UnknownPoolError } from "../../core/errors.js";
import { displayAddress } from "../../core/native.js";
import type { Edge, EdgeAction, Pool } from "../../core/types.js";
import { addBalanceSnapshot, addMinAmountOutCheck } from "../../program/execution-steps.js";
import { minimumOf } from "../../program/hop-context.js";
import { addressArg, amountArg } from "./args.js";
import type { ActionSpec, AmountArg, CompileContext, OutputValue } from "./types.js";

/** The caller's token an action spends, when its amount is a literal (pulled at the start). */
export function literalInput(token: Address, amount: AmountArg) {
  return typeof amount === "bigint" ? { token, amount } : undefined;
}

/** The edge of the named pool from tokenIn to tokenOut doing `action`, or a 400 naming the pool. */
export function namedEdge(
  ctx: CompileContext,
  primaryAddress: Address,
  tokenIn: Address,
  tokenOut: Address,
  kinds: string[],
  action: EdgeAction,
): Edge {
  const pool = ctx.graph.pool(primaryAddress);
  if (!pool || !kinds.includes(pool.kind)) {
    throw new UnknownPoolError(
      `${displayAddress(primaryAddress)} is not an indexed ${kinds.join(" or ")} pool on chain ${ctx.chain.id}.`,
      { path: "args.primaryAddress", pool: primaryAddress },
    );
  }
  // Protocols sharing a pool kind (a fork and its original, two kinds of vault) name their own
  // pools only: a fork's pair trades at its own fee, under its own name.
  if (pool.protocol !== ctx.protocol) {
    throw new UnknownPoolError(
      `${displayAddress(primaryAddress)} is a ${pool.protocol} pool, not a ${ctx.protocol} one: name it under protocol ${pool.protocol}.`,
      { path: "args.primaryAddress", pool: primaryAddress },
    );
  }
  // A pool's terminal edge into its own token (a weighted pool's join) is listed under that token.
  const matches = (e: Edge) =>
    e.tokenIn === tokenIn && e.tokenOut === tokenOut && e.action === action;
  const edge =
    ctx.graph.edgesFromVia(tokenIn, pool.address).find(matches) ??
    ctx.graph.edgesIntoVia(tokenOut, pool.address).find(matches);
  if (!edge) {
    throw new UnknownPoolError(
      `${displayAddress(primaryAddress)} does not ${action} ${displayAddress(tokenIn)} for ${displayAddress(tokenOut)}.`,
      { path: "args.tokenIn/tokenOut", pool: primaryAddress },
    );
  }
  return edge;
}

/**
 * What a route hop needs of the compile context; `slippageBps` replaces the bundle's slippage
 * in the hop's own minimums (outside the router).
 */
export function hopContext(ctx: CompileContext, slippageBps?: number) {
  return {
    strategy: ctx.strategy,
    execution: ctx.contracts,
    swapRouter: ctx.chain.uniswapV3?.swapRouter,
    forkSwapRouters: forkSwapRouters(ctx.chain),
    forkPoolDeployers: forkPoolDeployers(ctx.chain, ctx.contracts.untrustedV3Forks),
    account: ctx.account,
    bounds:
      ctx.bounds && slippageBps !== undefined
        ? { deadline: ctx.bounds.deadline, slippageBps }
        : ctx.bounds,
  };
}

/**
 * Whether the hop's price is the pool's, which trades move: a swap, or a join or exit of a pool
 * that also swaps its tokens (a composable stable pool's BPT), not a conversion at a protocol's
 * own rate (wrapping, a vault's shares, a lending reserve).
 */
function tradesAtPoolPrice(ctx: CompileContext, edge: Edge): boolean {
  if (edge.action === "swap") return true;
  const token = edge.tokenOut === edge.pool.address ? edge.tokenIn : edge.tokenOut;
  return ctx.graph.edgesFromVia(token, edge.pool.address).some((e) => e.action === "swap");
}

/**
 * One hop through a named pool; the estimate is the off-chain quote when the input is known.
 * A swap whose output is estimated gets its own minimum, that estimate less the bundle's
 * slippage, checked on `recipient`'s balance right after it (as a `route` action's output is):
 * a pool's price is what someone can move between the simulation and the transaction, and
 * without it an output that later actions pass on (to a merchant, into a vault) would be bounded
 * only by the bundle's checks at its end; so is a join or exit of a pool that swaps. Wrapping,
 * vault and lending hops move at the protocol's own rate, which a trade does not push around; they are left to those end checks,
 * as is a V4 pool whose hook alters swaps (its quote is not this engine's to make).
 */
export function hopAction(
  ctx: CompileContext,
  edge: Edge,
  amountArgValue: AmountArg,
  recipient: Address,
): OutputValue[] {
  const amount = ctx.amount(amountArgValue, "amountIn");
  if (typeof amount.value === "bigint" && amount.value === 0n) {
    throw new InvalidArgumentError("expected an amount greater than 0.", { path: "args.amountIn" });
  }
  const estimate =
    amount.estimate === undefined ? undefined : ctx.routing.quoteEdge(edge, amount.estimate);
  // A V4 pool whose allow-listed hook alters swaps is quoted by the simulation, not by this
  // math: its output is held by the bundle's checks of what the simulation delivered instead.
  const quotedExactly = edge.pool.kind !== "v4" || edge.pool.admission === "exact";
  const bounded =
    tradesAtPoolPrice(ctx, edge) && quotedExactly && estimate !== undefined && estimate > 0n;
  const before = bounded
    ? addBalanceSnapshot(ctx.planner, {
        minAmountOutCheck: ctx.contracts.minAmountOutCheck,
        token: edge.tokenOut,
        account: recipient,
      })
    : undefined;
  const value = ctx.routing.addRouteHop(
    ctx.planner,
    hopContext(ctx),
    { edge, amountIn: amount.estimate ?? 0n, amountOut: estimate ?? 0n },
    amount.value,
    recipient,
  );
  if (before && estimate !== undefined) {
    addMinAmountOutCheck(ctx.planner, {
      minAmountOutCheck: ctx.contracts.minAmountOutCheck,
      token: edge.tokenOut,
      account: recipient,
      balanceBefore: before,
      minAmountOut: minimumOf(estimate, ctx.slippageBps),
    });
  }
  ctx.touched.add(edge.tokenIn);
  ctx.touched.add(edge.tokenOut);
  if (recipient !== ctx.account) ctx.deliveries.push({ token: edge.tokenOut, to: recipient });
  return [{ kind: "amount", value, estimate, token: edge.tokenOut }];
}

/** The arguments of one hop through a named pool; with `receiver`, who gets its output. */
const poolHopArgs = z.object({
  primaryAddress: addressArg,
  tokenIn: addressArg,
  tokenOut: addressArg,
  amountIn: amountArg,
});
const poolHopToArgs = poolHopArgs.extend({ receiver: addressArg.optional() });

/**
 * `action` (a swap, a vault's redeem…) through a named pool of `kind`: one hop, its output kept
 * by the executing account.
 */
export function poolHop(kind: Pool["kind"], action: EdgeAction): ActionSpec<typeof poolHopArgs> {
  return hopSpec(poolHopArgs, kind, action, (ctx) => ctx.account);
}

/** As `poolHop`, paying its output to the optional `receiver` argument (default: the account). */
export function poolHopTo(
  kind: Pool["kind"],
  action: EdgeAction,
): ActionSpec<typeof poolHopToArgs> {
  return hopSpec(poolHopToArgs, kind, action, (ctx, args) => args.receiver ?? ctx.account);
}

function hopSpec<S extends typeof poolHopArgs>(
  args: S,
  kind: Pool["kind"],
  action: EdgeAction,
  recipient: (ctx: CompileContext, args: z.infer<S>) => Address,
): ActionSpec<S> {
  return {
    args,
    amountFields: ["amountIn"],
    input: (a) => literalInput(a.tokenIn, a.amountIn),
    compile: (ctx, a) =>
      hopAction(
        ctx,
        namedEdge(ctx, a.primaryAddress, a.tokenIn, a.tokenOut, [kind], action),
        a.amountIn,
        recipient(ctx, a),
      ),
  };
}
