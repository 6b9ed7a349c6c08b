/**
 * Exact quotes of a flow: a route whose amounts split and merge at any token. Hops run in the
 * order given; each spends its share of what its input token holds when the token's first
 * spending hop runs, divided as `ProgramValues.splitProportionally` divides on chain (each share rounded
 * down, the last hop of the token taking the remainder), so the quote is what the program does.
 */
import type { EdgeQuoteFailure } from "../core/quote.js";
import type {
  Address,
  Edge,
  FlowHop,
  Pool,
  QuotedFlow,
  QuotedHop,
  QuotedLeg,
} from "../core/types.js";
import { FLOW_MERGE_GAS, FLOW_SPLIT_GAS, FLOW_SPLIT_HOP_GAS } from "./gas.js";
import type { PoolModels } from "./pool-model.js";

/**
 * The whole of a token's amount, in parts per billion: fine enough that a pool worth a hair of a
 * large trade (a deep detour taking a millionth of it) keeps its share.
 */
export const ALL_PPB = 1_000_000_000;

/** A hop of a flow before it is quoted: its edge and its share of its input token. */
export type FlowPlanHop = { edge: Edge; sharePpb: number };

export type FlowPlan = {
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  hops: readonly FlowPlanHop[];
};

export type FlowQuote =
  | {
      ok: true;
      flow: QuotedFlow;
      amountOut: bigint;
      /** Gas of the hops' steps and of the program's splits and merges (the route's fixed part excluded). */
      gas: number;
    }
  | {
      ok: false;
      reason: EdgeQuoteFailure;
      /** The index of the hop whose pool refused its part. */
      hop: number;
      /** What the hop was to spend, and what its input token held when divided. */
      amountIn: bigint;
      held: bigint;
    };

/** A flow that is not one: the rule it breaks, for the code that built it. */
export class InvalidFlowError extends Error {
  override readonly name = "InvalidFlowError";
}

/**
 * `amount` divided in proportion to `shares` as `ProgramValues.splitProportionally` divides it:
 * each part `amount * share / sum` rounded down, the last taking the remainder.
 */
export function splitByShares(amount: bigint, shares: readonly number[]): bigint[] {
  const whole = shares.reduce((sum, share) => sum + share, 0);
  const parts: bigint[] = [];
  let assigned = 0n;
  shares.forEach((share, i) => {
    const part =
      i === shares.length - 1 ? amount - assigned : (amount * BigInt(share)) / BigInt(whole);
    parts.push(part);
    assigned += part;
  });
  return parts;
}

/** The spending hops' indexes of each token, in order. */
function spendersOf(hops: readonly FlowPlanHop[]): Map<Address, number[]> {
  const spenders = new Map<Address, number[]>();
  hops.forEach((hop, i) => {
    const list = spenders.get(hop.edge.tokenIn);
    if (list) list.push(i);
    else spenders.set(hop.edge.tokenIn, [i]);
  });
  return spenders;
}

/**
 * Checks that `plan` is a flow a program can run.
 * @throws InvalidFlowError naming the first rule broken: a share outside 1 to a billion ppb or a
 *   token's shares not summing to a billion; a pool used twice; the route's input made by a hop or
 *   its output spent; a token spent before it is made, or made after it is spent; a token made
 *   and never spent (it would stay with the executing account).
 */
export function checkFlowPlan(plan: FlowPlan): void {
  const { hops, tokenIn, tokenOut } = plan;
  if (hops.length === 0) throw new InvalidFlowError("a flow has at least one hop");
  const pools = new Set<Pool>();
  const made = new Set<Address>([tokenIn]);
  const spent = new Set<Address>();
  for (const [i, hop] of hops.entries()) {
    const { edge, sharePpb } = hop;
    if (!Number.isInteger(sharePpb) || sharePpb < 1 || sharePpb > ALL_PPB) {
      throw new InvalidFlowError(
        `hop ${i}: share ${sharePpb} ppb is not an integer in 1–${ALL_PPB}`,
      );
    }
    if (pools.has(edge.pool)) throw new InvalidFlowError(`hop ${i}: its pool is used twice`);
    pools.add(edge.pool);
    if (edge.tokenIn === tokenOut) throw new InvalidFlowError(`hop ${i} spends the route's output`);
    if (edge.tokenOut === tokenIn) throw new InvalidFlowError(`hop ${i} makes the route's input`);
    if (!made.has(edge.tokenIn)) {
      throw new InvalidFlowError(`hop ${i} spends ${edge.tokenIn} before any hop makes it`);
    }
    if (spent.has(edge.tokenOut)) {
      throw new InvalidFlowError(`hop ${i} makes ${edge.tokenOut} after a hop spent it`);
    }
    spent.add(edge.tokenIn);
    made.add(edge.tokenOut);
  }
  if (!made.has(tokenOut)) throw new InvalidFlowError("no hop makes the route's output");
  for (const token of made) {
    if (token !== tokenOut && !spent.has(token)) {
      throw new InvalidFlowError(`${token} is made and never spent`);
    }
  }
  for (const [token, indexes] of spendersOf(hops)) {
    const total = indexes.reduce((sum, i) => sum + (hops[i] as FlowPlanHop).sharePpb, 0);
    if (total !== ALL_PPB) {
      throw new InvalidFlowError(`the shares of ${token} sum to ${total} ppb, not ${ALL_PPB}`);
    }
  }
}

/**
 * The gas of a flow's splits and merges: each token other than the input split between several
 * hops (a `splitProportionally` and one `arrayElement` per hop) and each further hop making a token that
 * is spent (a `sum`). The input's split is constants, and the output is never summed.
 */
export function flowProgramGas(plan: Pick<FlowPlan, "tokenIn" | "tokenOut" | "hops">): number {
  let gas = 0;
  for (const [token, indexes] of spendersOf(plan.hops)) {
    if (token !== plan.tokenIn && indexes.length > 1) {
      gas += FLOW_SPLIT_GAS + indexes.length * FLOW_SPLIT_HOP_GAS;
    }
  }
  const makers = new Map<Address, number>();
  for (const hop of plan.hops) {
    makers.set(hop.edge.tokenOut, (makers.get(hop.edge.tokenOut) ?? 0) + 1);
  }
  for (const [token, count] of makers) {
    if (token !== plan.tokenOut && count > 1) gas += (count - 1) * FLOW_MERGE_GAS;
  }
  return gas;
}

/**
 * Quotes `plan` exactly, hop by hop, by `models`' exact quotes (or a stand-in for them that
 * adjusts a hop's output, as a check of rounding does).
 * @throws InvalidFlowError when `plan` is not a flow ({@link checkFlowPlan}).
 */
export function quoteFlow(models: Pick<PoolModels, "simulate" | "gas">, plan: FlowPlan): FlowQuote {
  checkFlowPlan(plan);
  return quoteCheckedFlow(models, plan);
}

/**
 * `quoteFlow` without checking the plan again: for a plan made from a checked one by moving
 * parts of a token's share between its hops (the solver's capacity retries).
 */
export function quoteCheckedFlow(
  models: Pick<PoolModels, "simulate" | "gas">,
  plan: FlowPlan,
): FlowQuote {
  const spenders = spendersOf(plan.hops);
  const held = new Map<Address, bigint>([[plan.tokenIn, plan.amountIn]]);
  /** Each hop's input, set when its token's first spending hop runs, and what was divided. */
  const inputs = new Map<number, bigint>();
  const divided = new Map<Address, bigint>();
  const hops: FlowHop[] = [];
  let amountOut = 0n;
  let gas = flowProgramGas(plan);
  for (const [i, { edge, sharePpb }] of plan.hops.entries()) {
    if (!inputs.has(i)) {
      const indexes = spenders.get(edge.tokenIn) as number[];
      divided.set(edge.tokenIn, held.get(edge.tokenIn) ?? 0n);
      const parts = splitByShares(
        held.get(edge.tokenIn) ?? 0n,
        indexes.map((j) => (plan.hops[j] as FlowPlanHop).sharePpb),
      );
      indexes.forEach((j, k) => {
        inputs.set(j, parts[k] as bigint);
      });
    }
    const amountIn = inputs.get(i) as bigint;
    const quote = models.simulate(edge, amountIn);
    if (!quote.ok) {
      const whole = divided.get(edge.tokenIn) as bigint;
      return { ok: false, reason: quote.reason, hop: i, amountIn, held: whole };
    }
    hops.push({ edge, sharePpb, amountIn, amountOut: quote.amountOut });
    gas += models.gas(edge, quote.ticksCrossed);
    if (edge.tokenOut === plan.tokenOut) amountOut += quote.amountOut;
    else held.set(edge.tokenOut, (held.get(edge.tokenOut) ?? 0n) + quote.amountOut);
  }
  return { ok: true, flow: { hops }, amountOut, gas };
}

/**
 * The flow as whole paths, when it is one: every token but the input and the output made by one
 * hop and spent by one (the amounts then pass along each path as a leg's do, the input divided
 * as quoted). Undefined when some token is divided or merged.
 */
export function legsOfFlow(
  flow: QuotedFlow,
  tokenIn: Address,
  tokenOut: Address,
): QuotedLeg[] | undefined {
  const spender = new Map<Address, FlowHop>();
  const makers = new Map<Address, number>();
  for (const hop of flow.hops) {
    const { tokenIn: t, tokenOut: u } = hop.edge;
    if (t !== tokenIn) {
      if (spender.has(t)) return undefined;
      spender.set(t, hop);
    }
    if (u !== tokenOut) {
      makers.set(u, (makers.get(u) ?? 0) + 1);
      if ((makers.get(u) as number) > 1) return undefined;
    }
  }
  return flow.hops
    .filter((hop) => hop.edge.tokenIn === tokenIn)
    .map((first) => {
      const hops: QuotedHop[] = [first];
      for (let at = first; at.edge.tokenOut !== tokenOut; ) {
        at = spender.get(at.edge.tokenOut) as FlowHop;
        hops.push(at);
      }
      const last = hops[hops.length - 1] as QuotedHop;
      return {
        amountIn: first.amountIn,
        amountOut: last.amountOut,
        hops: hops.map(({ edge, amountIn, amountOut }) => ({ edge, amountIn, amountOut })),
      };
    });
}
