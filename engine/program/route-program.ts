/**
 * Turns a quoted route into a program for the command VM and the unsigned transaction of the
 * requested routing strategy.
 *
 * - `router`: the router pulls amountIn (and the fee) from the caller into its executor; the
 *   program runs each leg with the executor as the intermediate holder and sweeps tokenOut to
 *   the receiver; the router checks the receiver's balance growth on chain.
 * - `delegate` / `corewallet`: the program runs as the caller's account (EIP-7702 delegation) or
 *   in the caller's wallet; V3 hops go through Uniswap's SwapRouter (no callback there), the
 *   last hop pays the receiver, and the program checks the receiver's balance growth itself.
 */
import type { Address } from "viem";
import type { QuotedHop, RouteQuote } from "../core/types.js";
import {
  addBalanceSnapshot,
  addDeadlineCheck,
  addMinAmountOutCheck,
  addSweep,
} from "./execution-steps.js";
import type { HopContext, HopOptions } from "./hop-context.js";
import type { HopStepsTable, Leftover } from "./hop-steps.js";
import { type PlannedProgram, ProgramPlanner, type ProgramValue } from "./planner.js";
import { addTransfer } from "./protocol-steps.js";

export type RouteProgramParameters = HopContext & {
  /** The hop steps of the route's pool kinds (an engine's). */
  steps: HopStepsTable;
  weth: Address | undefined;
  receiver: Address;
  /**
   * Under the router: who gets what a hop leaves unused in the executor (a single-sided V2
   * add's dust), swept at the end; the caller. Elsewhere it stays with the executing account.
   */
  refundTo?: Address;
  quote: RouteQuote;
  /** Only outside the router (which takes the fee itself): fee paid from tokenIn first. */
  fee?: { amount: bigint; receiver: Address };
  /** Only outside the router: the minimum the program itself enforces. */
  minAmountOut?: bigint;
};

/** What `hop` leaves unused with the account that runs it (a single-sided V2 add's dust). */
export function hopLeftovers(steps: HopStepsTable, hop: QuotedHop): Leftover[] {
  return steps.of(hop.edge.pool).leftovers?.(hop.edge, hop.amountIn) ?? [];
}

/** The tokens a route's hops may leave unused amounts of, each once. */
export function leftoverTokens(steps: HopStepsTable, quote: RouteQuote): Address[] {
  const tokens = new Set<Address>();
  for (const leg of quote.legs) {
    for (const hop of leg.hops) for (const left of hopLeftovers(steps, hop)) tokens.add(left.token);
  }
  return [...tokens];
}

/**
 * Adds one hop's steps, paying `recipient`.
 * @returns the hop's output amount (a program value, or the input itself for wrap/unwrap).
 */
export function addRouteHop(
  steps: HopStepsTable,
  planner: ProgramPlanner,
  p: HopContext,
  hop: QuotedHop,
  amountIn: bigint | ProgramValue,
  recipient: Address,
  options: HopOptions = {},
): ProgramValue | bigint {
  return steps.of(hop.edge.pool).addHop(planner, p, hop, amountIn, recipient, options);
}

/**
 * Plans the program executing `quote`. The executing account holds every intermediate amount
 * and each leg's last hop pays the receiver directly (the router checks what arrived); under
 * the router a last hop that cannot pay someone else (unwrapping) leaves tokenOut in the
 * executor, which sweeps it to the receiver at the end.
 */
export function planRouteProgram(p: RouteProgramParameters): PlannedProgram {
  const planner = new ProgramPlanner();
  const inRouter = p.strategy === "router";
  let balanceBefore: ProgramValue | undefined;
  if (!inRouter) {
    // No router checks the deadline here: the program does, first.
    if (p.bounds) {
      addDeadlineCheck(planner, {
        minAmountOutCheck: p.execution.minAmountOutCheck,
        deadline: p.bounds.deadline,
      });
    }
    if (p.fee && p.fee.amount > 0n) {
      addTransfer(planner, {
        token: p.quote.tokenIn,
        to: p.fee.receiver,
        amount: p.fee.amount,
        label: "pay fee",
      });
    }
    balanceBefore = addBalanceSnapshot(planner, {
      minAmountOutCheck: p.execution.minAmountOutCheck,
      token: p.quote.tokenOut,
      account: p.receiver,
    });
  }
  let sweep = false;
  for (const leg of p.quote.legs) {
    let amount: bigint | ProgramValue = leg.amountIn;
    leg.hops.forEach((hop, i) => {
      const last = i === leg.hops.length - 1;
      // Paying the receiver from the pool saves a transfer (and a storage slot) per leg.
      const direct = last && (!inRouter || p.steps.of(hop.edge.pool).paysReceiverUnderRouter);
      if (last && !direct) sweep = true;
      amount = addRouteHop(p.steps, planner, p, hop, amount, direct ? p.receiver : p.account, {
        outputUnused: inRouter && last && leg.hops.length === 1,
      });
    });
  }
  if (inRouter) {
    // The executor keeps nothing: what a hop left unused goes back to the caller.
    for (const token of leftoverTokens(p.steps, p.quote)) {
      addSweep(planner, {
        executor: p.execution.executor,
        token,
        to: p.refundTo ?? p.receiver,
        label: "return leftovers",
      });
    }
  }
  if (sweep) {
    addSweep(planner, { executor: p.execution.executor, token: p.quote.tokenOut, to: p.receiver });
  } else if (balanceBefore) {
    addMinAmountOutCheck(planner, {
      minAmountOutCheck: p.execution.minAmountOutCheck,
      token: p.quote.tokenOut,
      account: p.receiver,
      balanceBefore,
      minAmountOut: p.minAmountOut ?? 1n,
    });
  }
  return planner.plan();
}
