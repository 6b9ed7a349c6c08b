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
 *
 * A flow (a route split and merged at intermediate tokens) runs its hops in order under any
 * strategy: each token's hops divide what earlier hops made of it ({@link addFlowHops}).
 */
import { type Address, getAbiItem } from "viem";
import { ProgramValuesAbi } from "../../abis/generated/ProgramValues.js";
import {
  type FlowHop,
  type QuotedFlow,
  type QuotedHop,
  type RouteQuote,
  routeHops,
} from "../core/types.js";
import {
  addArrayElement,
  addBalanceSnapshot,
  addDeadlineCheck,
  addMinAmountOutCheck,
  addSweep,
} from "./execution-steps.js";
import { type HopContext, type HopOptions, programValuesContract } from "./hop-context.js";
import type { HopStepsTable, Leftover } from "./hop-steps.js";
import { type PlannedProgram, ProgramPlanner, type ProgramValue } from "./planner.js";
import { addTransfer } from "./protocol-steps.js";

const sumFn = getAbiItem({ abi: ProgramValuesAbi, name: "sum" });
const splitFn = getAbiItem({ abi: ProgramValuesAbi, name: "splitProportionally" });

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
  for (const hop of routeHops(quote)) {
    for (const left of hopLeftovers(steps, hop)) tokens.add(left.token);
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
  if (p.quote.flow) {
    addFlowHops(p.steps, planner, p, p.quote, {
      recipient: (hop) => {
        // As a leg's last hop: the receiver directly where the hop can pay it.
        if (!inRouter || p.steps.of(hop.edge.pool).paysReceiverUnderRouter) return p.receiver;
        sweep = true;
        return p.account;
      },
      unused: (hop) => inRouter && hop.edge.tokenIn === p.quote.tokenIn,
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

/** `a + b`: a `sum` call, or the sum itself when both are constants. */
function addSum(
  planner: ProgramPlanner,
  p: HopContext,
  a: bigint | ProgramValue,
  b: bigint | ProgramValue,
): bigint | ProgramValue {
  if (typeof a === "bigint" && typeof b === "bigint") return a + b;
  return planner.add({
    target: programValuesContract(p),
    fn: sumFn,
    args: [a, b],
    label: "merge amounts",
  });
}

/** Where a flow's hops making the route's output pay it, and whether their output is read. */
export type FlowOutputs = {
  recipient: (hop: FlowHop) => Address;
  /** The hop's output is read by nothing (default: it is). */
  unused?: (hop: FlowHop) => boolean;
};

/**
 * Adds the hops of `quote`'s flow in order. A token's hops spend what earlier hops made of it
 * (their outputs summed), divided by the hops' shares at run time (`splitProportionally`, the last hop
 * taking the remainder): never the account's own balance, and nothing left behind. The route's
 * input is divided as quoted. Hops making tokenOut pay `outputs.recipient(hop)`.
 */
export function addFlowHops(
  steps: HopStepsTable,
  planner: ProgramPlanner,
  p: HopContext,
  quote: RouteQuote,
  outputs: FlowOutputs,
): void {
  const flow = quote.flow as QuotedFlow;
  const made = new Map<Address, bigint | ProgramValue>();
  const inputs = new Map<FlowHop, bigint | ProgramValue>();
  for (const hop of flow.hops) {
    const token = hop.edge.tokenIn;
    if (!inputs.has(hop)) {
      const spenders = flow.hops.filter((h) => h.edge.tokenIn === token);
      const amount = token === quote.tokenIn ? quote.amountIn : made.get(token);
      if (amount === undefined || typeof amount === "bigint") {
        // Known now (the route's input, or constants summed): divided as quoted.
        for (const h of spenders) {
          inputs.set(h, h.amountIn);
        }
      } else if (spenders.length === 1) {
        inputs.set(hop, amount);
      } else {
        const parts = planner.add({
          target: programValuesContract(p),
          fn: splitFn,
          args: [amount, spenders.map((h) => BigInt(h.sharePpb))],
          label: "split amount",
        });
        spenders.forEach((h, i) => {
          inputs.set(
            h,
            addArrayElement(planner, {
              programValues: programValuesContract(p),
              array: parts,
              index: BigInt(i),
            }),
          );
        });
      }
    }
    const last = hop.edge.tokenOut === quote.tokenOut;
    const out = addRouteHop(
      steps,
      planner,
      p,
      hop,
      inputs.get(hop) as bigint | ProgramValue,
      last ? outputs.recipient(hop) : p.account,
      { outputUnused: last && (outputs.unused?.(hop) ?? false) },
    );
    if (!last) {
      const before = made.get(hop.edge.tokenOut);
      made.set(hop.edge.tokenOut, before === undefined ? out : addSum(planner, p, before, out));
    }
  }
}
