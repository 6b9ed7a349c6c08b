/**
 * The flow solver: the best route over a set of candidate pools when amounts may split and merge
 * at any token, net of gas.
 *
 * Gross of gas, routing through pools whose outputs are concave in their inputs is a convex
 * problem, and its dual (flow-bound.ts) prices each token so that every pool, answering those
 * prices on its own, carries its part of the best flow: at the dual's optimum what arrives of
 * each token equals what leaves. The solver reads the flow off the dual's answer: each pool used
 * one way (the way that carries more), the fixed-rate conversions the dual prices as one asset
 * (wrapping, a vault's deposit or redeem) carrying what the pools leave of a token to its
 * partner, cycles cut where a depth-first walk from the input meets them, pools that lead
 * nowhere near the output dropped, and each token's amount divided between its pools by what
 * they carry, in parts per billion (rounded down, the largest taking the rest). That plan is then
 * quoted exactly (quote-flow.ts), as the program runs it.
 *
 * A pool costs its gas whether it carries one wei or all of it, which the convex part cannot
 * see: the plan is also made without the pools whose surplus at the dual's prices (what each
 * makes less what it takes, valued in tokenOut: to first order what the flow loses without it)
 * is below their gas, and the better of the two by exact net output answers.
 */
import type { Address, Edge, Pool, QuotedFlow } from "../core/types.js";
import { type FlowBound, flowBound } from "./flow-bound.js";
import {
  EXTRA_LEG_DATA_BYTES,
  HOP_DATA_BYTES,
  ROUTE_BASE_DATA_BYTES,
  ROUTE_BASE_GAS,
} from "./gas.js";
import type { PoolModels } from "./pool-model.js";
import { ALL_PPB, type FlowPlanHop, quoteCheckedFlow, quoteFlow } from "./quote-flow.js";

export type FlowRouteParameters = {
  models: PoolModels;
  /** The candidate edges. */
  edges: readonly Edge[];
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  /** The cost of `units` gas and `dataBytes` of L1 data, in tokenOut's raw units. */
  costOf: (units: number, dataBytes: number) => bigint;
  /** Most hops of the flow (default {@link MAX_FLOW_HOPS}). */
  maxHops?: number;
  /**
   * Most pools any one token's amount is divided between (default {@link FLOW_MAX_SPLITS}): the
   * best flow under each cap from 2 up to it answers, so a larger one never lowers the answer.
   */
  maxSplits?: number;
  /** Most sweeps of the dual descent (default {@link FLOW_SWEEPS}). */
  maxSweeps?: number;
  /**
   * What a route found otherwise makes, gross of gas (raw units of tokenOut): once the dual
   * shows no flow over the edges makes more than {@link FLOW_STOP_MARGIN} above it, the solver
   * stops and answers none.
   */
  beat?: number;
};

export type FlowRoute = {
  flow: QuotedFlow;
  amountOut: bigint;
  gasUnits: number;
  dataBytes: number;
  /** amountOut less the gas's and L1 data's cost. */
  net: bigint;
};

/**
 * Most hops a flow has: beyond them, the smallest splits are dropped. Most pools a flow divides
 * one token's amount between, unless the search is told fewer. Both as far as the flow's quality
 * gains by them on the quality benchmark's graphs (bench/quality.ts): a hop or a split that does
 * not earn its gas is left out anyway.
 */
export const MAX_FLOW_HOPS = 24;
export const FLOW_MAX_SPLITS = 12;
/**
 * Sweeps of the dual's coordinate descent, then iterations of its quasi-Newton descent: as far as
 * the flow's quality gains by them on the quality benchmark's graphs.
 */
export const FLOW_SWEEPS = 0;
/** Iterations of the quasi-Newton descent after them. */
export const FLOW_ITERATIONS = 100;
/** A descent step lowering the dual by less than this fraction ends it. */
export const FLOW_TOLERANCE = 1e-11;
/** Relative accuracy of each pool's answer to the dual's prices. */
export const FLOW_PRECISION = 1e-9;
/**
 * A dual within this fraction above the output to beat ends the solve with no flow: the best flow
 * makes at most a hundredth of a basis point more, gross of the gas its extra pools cost.
 */
export const FLOW_STOP_MARGIN = 1e-6;
/** Times a share a pool cannot take is cut before the plan is given up. */
const CAPACITY_RETRIES = 4;
/** A pool carrying less than this share of the input's value is left out. */
const LEAST_SHARE = 1e-5;

/**
 * An edge of the dual's flow: what it takes (`x`) and makes (`y`), the value it takes, its
 * surplus (what it makes less what it takes, valued in tokenOut at the dual's prices), and
 * whether it is a fixed-rate conversion.
 */
type Carried = {
  edge: Edge;
  x: number;
  y: number;
  value: number;
  surplus: number;
  conversion?: boolean;
};

/** The compressed calldata bytes of a flow's route (the leg's measure per split beyond one). */
export function flowDataBytes(hops: readonly FlowPlanHop[]): number {
  const splits = hops.filter((h) => h.sharePpb < ALL_PPB).length;
  return ROUTE_BASE_DATA_BYTES + hops.length * HOP_DATA_BYTES + splits * EXTRA_LEG_DATA_BYTES;
}

/**
 * The plan of what `carried` carries: acyclic, every pool leading to tokenOut, shares in parts
 * per billion. Undefined when nothing reaches tokenOut; a pool whose share rounds to nothing is
 * dropped and the plan made again.
 */
function planOf(
  carried: readonly Carried[],
  tokenIn: Address,
  tokenOut: Address,
  maxHops: number,
): FlowPlanHop[] | undefined {
  let items = [...carried];
  for (let attempt = 0; attempt <= carried.length; attempt++) {
    const from = new Map<Address, Carried[]>();
    for (const item of items) {
      const { tokenIn: t, tokenOut: u } = item.edge;
      if (t === tokenOut || u === tokenIn) continue;
      const list = from.get(t);
      if (list) list.push(item);
      else from.set(t, [item]);
    }
    // Depth-first from the input: an edge back into the walk's own path would close a cycle.
    const state = new Map<Address, "open" | "done">();
    const postorder: Address[] = [];
    const kept: Carried[] = [];
    const visit = (t: Address) => {
      state.set(t, "open");
      for (const item of (from.get(t) ?? []).sort((a, b) => b.value - a.value)) {
        const u = item.edge.tokenOut;
        if (state.get(u) === "open") continue;
        kept.push(item);
        if (u !== tokenOut && !state.has(u)) visit(u);
      }
      state.set(t, "done");
      postorder.push(t);
    };
    visit(tokenIn);
    // Only what leads to tokenOut.
    const leads = new Set<Address>([tokenOut]);
    for (let changed = true; changed; ) {
      changed = false;
      for (const item of kept) {
        if (leads.has(item.edge.tokenOut) && !leads.has(item.edge.tokenIn)) {
          leads.add(item.edge.tokenIn);
          changed = true;
        }
      }
    }
    const useful = kept.filter((item) => leads.has(item.edge.tokenOut));
    if (!useful.some((item) => item.edge.tokenOut === tokenOut)) return undefined;
    const order = new Map(postorder.reverse().map((t, i) => [t, i]));
    const byToken = new Map<Address, Carried[]>();
    for (const item of useful) {
      const list = byToken.get(item.edge.tokenIn);
      if (list) list.push(item);
      else byToken.set(item.edge.tokenIn, [item]);
    }
    // Too many hops: the pool carrying least at a token split between several goes first.
    if (useful.length > maxHops) {
      const splitting = useful
        .filter((item) => (byToken.get(item.edge.tokenIn)?.length ?? 0) > 1)
        .sort((a, b) => a.value - b.value)[0];
      if (!splitting) return undefined;
      items = items.filter((item) => item !== splitting);
      continue;
    }
    const hops: FlowPlanHop[] = [];
    let dropped: Carried | undefined;
    const tokens = [...byToken.keys()].sort(
      (a, b) => (order.get(a) as number) - (order.get(b) as number),
    );
    for (const token of tokens) {
      const list = (byToken.get(token) as Carried[]).sort((a, b) => a.x - b.x);
      const total = list.reduce((sum, item) => sum + item.x, 0);
      // Rounded down: a pool the dual fills to its last tick cannot take a hair more.
      const shares = list.map((item) => Math.floor((item.x / total) * ALL_PPB));
      const zero = list.findIndex((_, i) => (shares[i] as number) === 0);
      if (zero >= 0) {
        dropped = list[zero];
        break;
      }
      // The largest takes the rounding: it is last, and on chain takes the remainder anyway.
      const last = shares.length - 1;
      shares[last] = ALL_PPB - shares.slice(0, last).reduce((sum, s) => sum + s, 0);
      if ((shares[last] as number) <= 0) {
        dropped = list[0];
        break;
      }
      list.forEach((item, i) => {
        hops.push({ edge: item.edge, sharePpb: shares[i] as number });
      });
    }
    if (!dropped) return hops;
    items = items.filter((item) => item !== dropped);
  }
  return undefined;
}

/**
 * The exact route of `plan`, or undefined when a pool cannot take its part. A pool the dual
 * fills to its last tick may refuse its share of the exact amounts (the exact amounts differ
 * from the float ones by a hair): its share is cut to the most it takes, the token's largest
 * other pool taking the rest; a pool that alone spends its token is sent less instead, by the
 * nearest hop before it that shares its own token with others. A few times.
 */
function exactRoute(params: FlowRouteParameters, planned: FlowPlanHop[]): FlowRoute | undefined {
  const { tokenIn, tokenOut, amountIn } = params;
  // The plan's rules are checked once: a retry only moves share between a token's hops.
  const quoteOf = (hops: readonly FlowPlanHop[]) =>
    quoteCheckedFlow(params.models, { tokenIn, tokenOut, amountIn, hops });
  let hops = planned;
  let quote = quoteFlow(params.models, { tokenIn, tokenOut, amountIn, hops });
  for (let retry = 0; retry < CAPACITY_RETRIES && !quote.ok; retry++) {
    if (quote.reason !== "exceeds-liquidity") return undefined;
    const failed = quote.hop;
    const full = hops[failed] as FlowPlanHop;
    const siblings = siblingsOf(hops, full).length;
    if (siblings > 0) {
      const share = mostShare(params, full, quote.held, siblings);
      if (!share) return undefined;
      hops = reshared(hops, full, share);
    } else {
      // Less must arrive: the nearest hop upstream that can give some of its token to a sibling
      // gives some, from the part of its share the full pool's excess is of what it was asked,
      // doubled until the full pool takes what arrives.
      const cut = upstreamOf(hops, full);
      if (!cut) return undefined;
      const asked = quote.amountIn;
      const kept = largest(
        (f) => params.models.simulate(full.edge, part(asked, f)).ok,
        ALL_PPB,
        floatShare(params, full, asked, ALL_PPB, 0n),
      );
      let step = Math.max(1, Math.ceil(cut.sharePpb * (1 - kept / ALL_PPB)));
      const fits = (share: number) => {
        const q = quoteOf(reshared(hops, cut, share));
        return q.ok || q.hop !== failed;
      };
      while (step < cut.sharePpb && !fits(cut.sharePpb - step)) step *= 2;
      if (step >= cut.sharePpb) return undefined;
      hops = reshared(hops, cut, cut.sharePpb - step);
    }
    quote = quoteOf(hops);
  }
  if (!quote.ok) return undefined;
  const gasUnits = ROUTE_BASE_GAS + quote.gas;
  const dataBytes = flowDataBytes(hops);
  return {
    flow: quote.flow,
    amountOut: quote.amountOut,
    gasUnits,
    dataBytes,
    net: quote.amountOut - params.costOf(gasUnits, dataBytes),
  };
}

/** The other hops spending `hop`'s input token. */
function siblingsOf(hops: readonly FlowPlanHop[], hop: FlowPlanHop): FlowPlanHop[] {
  return hops.filter((h) => h !== hop && h.edge.tokenIn === hop.edge.tokenIn);
}

/** `hops` with `hop`'s share set to `share`, its largest sibling taking the difference. */
function reshared(hops: readonly FlowPlanHop[], hop: FlowPlanHop, share: number): FlowPlanHop[] {
  const taker = siblingsOf(hops, hop).sort((a, b) => b.sharePpb - a.sharePpb)[0];
  const freed = hop.sharePpb - share;
  return hops.map((h) =>
    h === hop
      ? { ...h, sharePpb: share }
      : h === taker
        ? { ...h, sharePpb: h.sharePpb + freed }
        : h,
  );
}

/**
 * The nearest hop before `hop` (through the largest maker of each token on the way) whose token
 * other hops also spend, so that its share can be cut; undefined when there is none.
 */
function upstreamOf(hops: readonly FlowPlanHop[], hop: FlowPlanHop): FlowPlanHop | undefined {
  let at = hop;
  for (let depth = 0; depth < hops.length; depth++) {
    const maker = hops
      .filter((h) => h.edge.tokenOut === at.edge.tokenIn)
      .sort((a, b) => b.sharePpb - a.sharePpb)[0];
    if (!maker) return undefined;
    if (siblingsOf(hops, maker).length > 0) return maker;
    at = maker;
  }
  return undefined;
}

/**
 * The largest share below `hop`'s that its pool takes of `held` (0 when none): a share's part
 * is rounded down, but the token's last hop takes the remainder, up to a wei more per sibling.
 */
function mostShare(
  params: FlowRouteParameters,
  hop: FlowPlanHop,
  held: bigint,
  siblings: number,
): number {
  const extra = BigInt(siblings);
  return largest(
    (share) => params.models.simulate(hop.edge, part(held, share) + extra).ok,
    hop.sharePpb,
    floatShare(params, hop, held, hop.sharePpb, extra),
  );
}

/**
 * The largest share below `below` of `held` (plus `extra`) that `hop`'s pool takes by its float
 * model: where to look for the exact one, a few exact quotes away.
 */
function floatShare(
  params: FlowRouteParameters,
  hop: FlowPlanHop,
  held: bigint,
  below: number,
  extra: bigint,
): number {
  const quote = params.models.approxQuoter(hop.edge);
  const result = { out: 0, ticksCrossed: 0 };
  return largest((share) => {
    const out = quote(Number(part(held, share) + extra), result).out;
    return Number.isFinite(out) && out >= 0;
  }, below);
}

/** `share` parts per billion of `amount`, rounded down. */
const part = (amount: bigint, share: number) => (amount * BigInt(share)) / BigInt(ALL_PPB);

/**
 * The largest n below `below` for which `holds(n)` (0 when none), holds falling with n: from
 * `guess` (when given) by doubling steps until it is bracketed, then by halving.
 */
function largest(holds: (n: number) => boolean, below: number, guess?: number): number {
  let lo = 0;
  let hi = below;
  if (guess !== undefined && guess > 0 && guess < below) {
    const up = holds(guess);
    if (up) lo = guess;
    else hi = guess;
    // Away from the guess until the answer changes: up while it holds, down while it does not.
    for (let step = 1; hi - lo > 1; step *= 2) {
      const n = up ? guess + step : guess - step;
      if (n >= hi || n <= lo) break;
      if (holds(n)) {
        lo = n;
        if (!up) break;
      } else {
        hi = n;
        if (up) break;
      }
    }
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (holds(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The best flow the solver finds over `params.edges`, net of gas; undefined when the dual's
 * flow reaches no output or a pool cannot take its part, or the dual shows no flow beats
 * `params.beat`.
 */
export function solveFlowRoute(params: FlowRouteParameters): FlowRoute | undefined {
  const { tokenIn, tokenOut } = params;
  const maxHops = params.maxHops ?? MAX_FLOW_HOPS;
  const bound = flowBound({
    models: params.models,
    edges: params.edges,
    tokenIn,
    tokenOut,
    amountIn: Number(params.amountIn),
    maxSweeps: params.maxSweeps ?? FLOW_SWEEPS,
    maxIterations: FLOW_ITERATIONS,
    certify: false,
    precision: FLOW_PRECISION,
    tolerance: FLOW_TOLERANCE,
    stopAt: params.beat === undefined ? undefined : params.beat * (1 + FLOW_STOP_MARGIN),
  });
  if (bound.stopped) return undefined;
  const total = (bound.prices.get(tokenIn) ?? 0) * Number(params.amountIn);
  if (!(total > 0)) return undefined;
  // Each pool one way: the way that carries more value.
  const byPool = new Map<Pool, Carried>();
  for (const { edge, x, y } of bound.flows) {
    const value = (bound.prices.get(edge.tokenIn) ?? 0) * x;
    if (!(value >= LEAST_SHARE * total)) continue;
    const held = byPool.get(edge.pool);
    const surplus = (bound.prices.get(edge.tokenOut) ?? 0) * y - value;
    if (!held || value > held.value) byPool.set(edge.pool, { edge, x, y, value, surplus });
  }
  const all = [...byPool.values(), ...conversionsOf(params, bound, byPool.values())];
  const widest = Math.max(...countBy(all).values());
  const gasOf = (item: Carried) => params.costOf(params.models.gas(item.edge, 0), HOP_DATA_BYTES);
  let answer: FlowRoute | undefined;
  const most = params.maxSplits ?? FLOW_MAX_SPLITS;
  // Caps that leave the same plan quote it once.
  const quoted: { plan: FlowPlanHop[]; route: FlowRoute | undefined }[] = [];
  const exact = (plan: FlowPlanHop[]) => {
    let known = quoted.find((q) => samePlan(q.plan, plan));
    if (!known) {
      known = { plan, route: exactRoute(params, plan) };
      quoted.push(known);
    }
    return known.route;
  };
  for (let cap = 2; cap <= Math.max(2, Math.min(most, widest)); cap++) {
    const route = bestWithin(params, capped(all, cap), maxHops, gasOf, exact);
    if (route && (!answer || route.net > answer.net)) answer = route;
  }
  return answer;
}

/** Whether two plans are the same hops (each pool the same way) with the same shares. */
function samePlan(a: readonly FlowPlanHop[], b: readonly FlowPlanHop[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as FlowPlanHop;
    const y = b[i] as FlowPlanHop;
    if (
      x.sharePpb !== y.sharePpb ||
      x.edge.pool.address !== y.edge.pool.address ||
      x.edge.tokenOut !== y.edge.tokenOut
    ) {
      return false;
    }
  }
  return true;
}

/**
 * What the fixed-rate conversions carry (wrapping, a vault's deposit or redeem), which the dual
 * prices as one asset and leaves out of its flows: what is left of a token after its pools, into
 * its partner where the pools lack it (or where it is the output).
 */
function conversionsOf(
  params: FlowRouteParameters,
  bound: FlowBound,
  carried: Iterable<Carried>,
): Carried[] {
  const { tokenIn, tokenOut } = params;
  const excess = new Map<Address, number>([[tokenIn, Number(params.amountIn)]]);
  const add = (t: Address, v: number) => excess.set(t, (excess.get(t) ?? 0) + v);
  for (const item of carried) {
    add(item.edge.tokenIn, -item.x);
    add(item.edge.tokenOut, item.y);
  }
  const converted: Carried[] = [];
  for (const edge of bound.conversions) {
    const surplus = excess.get(edge.tokenIn) ?? 0;
    if (edge.tokenIn === tokenOut || !(surplus > 0)) continue;
    const priceIn = bound.prices.get(edge.tokenIn) ?? 0;
    const priceOut = bound.prices.get(edge.tokenOut) ?? 0;
    if (!(priceIn > 0 && priceOut > 0)) continue;
    // The partner's shortfall, in this token's units (the output takes all there is).
    const need =
      edge.tokenOut === tokenOut
        ? surplus
        : (-(excess.get(edge.tokenOut) ?? 0) * priceOut) / priceIn;
    const x = Math.min(surplus, need);
    if (!(x > 0)) continue;
    converted.push({
      edge,
      x,
      y: (x * priceIn) / priceOut,
      value: x * priceIn,
      surplus: 0,
      conversion: true,
    });
    add(edge.tokenIn, -x);
    add(edge.tokenOut, (x * priceIn) / priceOut);
  }
  return converted;
}

/** How many of `carried` spend each token. */
function countBy(carried: readonly Carried[]): Map<Address, number> {
  const counts = new Map<Address, number>();
  for (const item of carried) {
    counts.set(item.edge.tokenIn, (counts.get(item.edge.tokenIn) ?? 0) + 1);
  }
  return counts;
}

/** `carried` with at most `cap` pools spending any one token: those carrying most value. */
function capped(carried: readonly Carried[], cap: number): Carried[] {
  const byToken = new Map<Address, Carried[]>();
  for (const item of carried) {
    const list = byToken.get(item.edge.tokenIn);
    if (list) list.push(item);
    else byToken.set(item.edge.tokenIn, [item]);
  }
  return [...byToken.values()].flatMap((list) =>
    list.sort((a, b) => b.value - a.value).slice(0, cap),
  );
}

/**
 * The exact route of what `carried` carries, and of the same less the pools that do not earn
 * their gas, whichever nets more. What a pool earns is its surplus at the dual's prices (what it
 * makes less what it takes, valued in tokenOut): to first order, what the best flow loses
 * without it. `exact` quotes a plan exactly (exactRoute, remembered across the caps).
 */
function bestWithin(
  params: FlowRouteParameters,
  carried: Carried[],
  maxHops: number,
  gasOf: (item: Carried) => bigint,
  exact: (plan: FlowPlanHop[]) => FlowRoute | undefined,
): FlowRoute | undefined {
  const { tokenIn, tokenOut } = params;
  const all = planOf(carried, tokenIn, tokenOut, maxHops);
  const whole = all && exact(all);
  const earning = carried.filter((item) => item.conversion || item.surplus >= Number(gasOf(item)));
  if (earning.length === carried.length) return whole;
  const fewer = planOf(earning, tokenIn, tokenOut, maxHops);
  const pruned = fewer && exact(fewer);
  if (!pruned) return whole;
  return !whole || pruned.net > whole.net ? pruned : whole;
}
