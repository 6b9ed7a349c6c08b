/**
 * The route search: the best way to turn `amountIn` of tokenIn into tokenOut through the graph,
 * over paths of up to `maxHops` hops, divided between up to `maxSplits` pool-disjoint paths
 * where that yields more, all compared by output net of gas valued in tokenOut.
 *
 * 1. Candidates: every path of up to maxHops hops is ranked by the float shadow of the pool
 *    math at the full amount, net of gas (candidate-paths.ts); the best few are kept.
 * 2. Best path: the top candidates are quoted exactly (`bigint`, the chain's own math) and the
 *    best by exact net output wins — never a spot price.
 * 3. Splits: legs are added greedily while a path sharing no pool with the legs so far gains
 *    more than its gas (partners from the candidates; for a large trade also from a ranking at
 *    a sliver of the amount, by marginal rate; failing those, from a search avoiding the legs'
 *    pools), from the best path and, for a large trade, from two other starts; then each leg
 *    of the best result in turn is dropped and the best replacement sought, and then swapped
 *    for the path that yields most at the leg's own amount among those avoiding the other
 *    legs' pools (a deeper pool where the leg's share is bounded by another hop). This runs on the
 *    float shadows (split-amounts.ts); the division found is quoted exactly and kept only if
 *    its exact output net of gas beats the best single path's.
 * 4. When no single path can take the whole amount, the best pool-disjoint paths share it
 *    (if together they can), and step 3 improves on that.
 *
 * Gas is valued in tokenOut through spot prices from the graph (WETH per tokenOut), with the
 * per-step constants of gas.ts; on a chain with an L1 data fee, so is that fee of the route's
 * calldata, estimated from its legs and hops (gas.ts, `routeDataBytes`). Every amount in the result
 * is an exact quote.
 */

import type { ApproxQuote } from "../core/quote.js";
import type { Address, Edge, QuotedLeg, RouteQuote } from "../core/types.js";
import {
  type CandidatePath,
  type FindCandidatePathsParameters,
  findCandidatePaths,
} from "./candidate-paths.js";
import { FLOW_MAX_SPLITS, type FlowRoute, solveFlowRoute } from "./flow-route.js";
import { HOP_DATA_BYTES, routeDataBytes, routeGas } from "./gas.js";
import type { RoutingGraph } from "./graph.js";
import type { PoolModels } from "./pool-model.js";
import { legsOfFlow } from "./quote-flow.js";
import { quotePath, quotePathOut } from "./quote-path.js";
import { splitApprox, splitExact } from "./split-amounts.js";
import { PRICE_SCALE, priceStaleness, spotPrices } from "./spot-prices.js";

export type FindRouteParameters = {
  graph: RoutingGraph;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  /**
   * Longest path, in hops (default 3). A flow's hops are not bounded by it (they run between the
   * tokens of paths it bounds), so a flow answered as whole paths may have a longer one.
   */
  maxHops?: number;
  /**
   * Most paths the amount is divided between (default 4; 1 disables splits), and most pools a
   * flow divides one token's amount between (default 12).
   */
  maxSplits?: number;
  /** Gas price to value gas at (from the chain); 0 compares gross outputs. */
  gasPriceWei: bigint;
  /**
   * On a chain that charges for L1 data (an OP-stack chain), the fee of one byte of compressed
   * calldata (`opStackFeePerByte`): each route is also charged that for the bytes its calldata is
   * estimated to take (`routeDataBytes`). Absent or 0: no L1 fee.
   */
  l1FeePerByteWei?: bigint;
  /** The wrapped native token: gas is valued in tokenOut through its price in WETH. */
  weth: Address;
  /**
   * Whether a route may split and merge at intermediate tokens (a flow, flow-route.ts) rather
   * than only divide its input between whole paths (default true; maxSplits 1 allows neither).
   */
  flows?: boolean;
  /**
   * Whether a route may go through an edge (default every edge): a route to be executed by an
   * account that cannot swap some pools (no SwapRouter for them outside the router) leaves them
   * out, and is the best of what it can execute.
   */
  admits?: (edge: Edge) => boolean;
};

/**
 * Why there is no route:
 * - `no-path`: no path of at most maxHops hops joins the two tokens;
 * - `insufficient-liquidity`: paths exist, but none can take amountIn (a V3 pool runs out of
 *   liquidity before the input is spent or sits at its price limit in the path's direction, a
 *   redeem exceeds the shares that exist);
 * - `amount-too-small`: paths exist, but amountIn is so small every output rounds to zero.
 */
export type NoRouteReason = "no-path" | "insufficient-liquidity" | "amount-too-small";

export type FindRouteResult =
  | { ok: true; quote: RouteQuote }
  | { ok: false; reason: NoRouteReason };

/** Paths the float ranking keeps. */
const CANDIDATE_PATHS = 16;
/** Of those, how many are quoted exactly for the best single path. */
const EXACT_CANDIDATES = 4;
/** The search for paths avoiding a split's pools looks less wide than the first one. */
const PARTNER_SEARCH_LIMITS = { firstHopEdges: 32, expandTokens: 12, edgesPerToken: 12 };
/** Paths sharing a pool with the best one that a large trade's split also starts from. */
const RIVAL_SEEDS = 1;
/** Marginal rates are read at amountIn / SPOT_FRACTION. */
const SPOT_FRACTION = 2 ** 16;
/** Partners screened for each further leg of a split... */
const PARTNERS_PER_LEG = 4;
/** ...and of those, how many are divided in full. */
const PARTNERS_DIVIDED = 2;
/**
 * A trade is large when the best path yields this much less per unit for all of the amount
 * than for amountIn / PARTIAL_FRACTION.
 */
const PARTIAL_FRACTION = 16;
const PARTIAL_SEARCH_IMPACT = 0.005;
/** A single path's price impact above which a flow is sought (half a basis point). */
const FLOW_SEARCH_IMPACT = 0.00005;
/**
 * Candidate paths of each ranking whose tokens a flow is sought between: more find a better flow
 * in a few more scenarios of the quality benchmark, at a cost in every search the flow is sought
 * in (bench/results/routing.md).
 */
const FLOW_CANDIDATE_PATHS = 4;

type GasValuation = {
  /**
   * Cost of `units` gas and `dataBytes` of L1 data in tokenOut raw units (0 when tokenOut has no
   * price in WETH).
   */
  costOf: (units: number, dataBytes: number) => bigint;
  /** The same per gas unit, as a float, for ranking. */
  perUnit: number;
  /** The same per byte of L1 data, as a float (0 without an L1 fee). */
  perByte: number;
  /** Approximate value of one raw unit of each token, in wei (for pruning the search). */
  unitValue: (token: Address) => number | undefined;
};

function gasValuation(
  graph: RoutingGraph,
  weth: Address,
  tokenOut: Address,
  gasPriceWei: bigint,
  feePerByteWei = 0n,
): GasValuation {
  const { prices, approx } = spotPrices({
    graph,
    anchors: [{ token: weth, price: PRICE_SCALE }],
    // Gas is valued and the search pruned at prices up to 1% of the graph's pools out of date
    // (a busy block or two on 10,000 pools); a large graph is repriced ahead of that, in steps.
    maxStaleChanges: priceStaleness(graph),
  });
  const price = prices.get(tokenOut);
  const approxPrice = approx.get(tokenOut);
  const unitValue = (token: Address) => approx.get(token);
  const perByteWei = feePerByteWei > 0n ? feePerByteWei : 0n;
  const perUnitWei = gasPriceWei > 0n ? gasPriceWei : 0n;
  if ((perUnitWei === 0n && perByteWei === 0n) || !price || !approxPrice)
    return { costOf: () => 0n, perUnit: 0, perByte: 0, unitValue };
  return {
    costOf: (units, dataBytes) =>
      ((BigInt(units) * perUnitWei + BigInt(dataBytes) * perByteWei) * PRICE_SCALE) / price,
    perUnit: Number(perUnitWei) / approxPrice,
    perByte: Number(perByteWei) / approxPrice,
    unitValue,
  };
}

const poolsOf = new WeakMap<readonly Edge[], Address[]>();

/** Pools a leg occupies; the wrapper converts one for one with no state, so legs may share it. */
function statefulPools(models: PoolModels, edges: readonly Edge[]): Address[] {
  let pools = poolsOf.get(edges);
  if (!pools) {
    pools = edges.filter((e) => !models.stateless(e.pool)).map((e) => e.pool.address);
    poolsOf.set(edges, pools);
  }
  return pools;
}

const legsOf = new WeakMap<CandidatePath, (amountIn: number) => number>();

/** The float output of a path for an input (NaN when it cannot take it), cached per path. */
function approxLeg(models: PoolModels, path: CandidatePath): (amountIn: number) => number {
  let leg = legsOf.get(path);
  if (!leg) {
    const hops = path.edges.map((edge) => models.approxQuoter(edge));
    const quote: ApproxQuote = { out: 0, ticksCrossed: 0 };
    leg = (amountIn) => {
      let amount = amountIn;
      for (const hop of hops) {
        amount = hop(amount, quote).out;
        if (!(amount > 0)) return Number.isNaN(amount) ? Number.NaN : 0;
      }
      return amount;
    };
    legsOf.set(path, leg);
  }
  return leg;
}

/** A float division as `bigint` amounts summing exactly to amountIn. */
function toExactAmounts(fractions: readonly number[], amountIn: bigint): bigint[] {
  const total = fractions.reduce((a, b) => a + b, 0);
  const amounts = fractions.map(
    (f) => (amountIn * BigInt(Math.floor((f / total) * 2 ** 40))) >> 40n,
  );
  let largest = 0;
  for (let i = 1; i < amounts.length; i++) {
    if ((amounts[i] as bigint) > (amounts[largest] as bigint)) largest = i;
  }
  amounts[largest] = (amounts[largest] as bigint) + amountIn - amounts.reduce((a, b) => a + b, 0n);
  return amounts;
}

type Division = {
  paths: CandidatePath[];
  legs: QuotedLeg[];
  amountOut: bigint;
  gasUnits: number;
  /** The estimated compressed calldata bytes (for an L1 data fee). */
  dataBytes: number;
  net: bigint;
};

/** The exact legs, gas and net output of dividing amountIn as `amounts` (zero legs dropped). */
function divide(
  models: PoolModels,
  paths: readonly CandidatePath[],
  amounts: readonly bigint[],
  gas: GasValuation,
): Division | undefined {
  const quoted = quoteLegs(
    models,
    paths.map((p) => p.edges),
    amounts,
    gas,
  );
  if (!quoted) return undefined;
  const { kept, ...division } = quoted;
  return { ...division, paths: kept.map((i) => paths[i] as CandidatePath) };
}

/**
 * `divide` over paths given as their edges: the exact legs, gas and net output, and the indexes
 * of the paths kept (those given an amount). Undefined when a path cannot take its amount.
 */
function quoteLegs(
  models: PoolModels,
  paths: readonly (readonly Edge[])[],
  amounts: readonly bigint[],
  gas: GasValuation,
): (Omit<Division, "paths"> & { kept: number[] }) | undefined {
  const kept: number[] = [];
  const legs: QuotedLeg[] = [];
  let amountOut = 0n;
  let stepsGas = 0;
  let hops = 0;
  for (let i = 0; i < paths.length; i++) {
    const amount = amounts[i] as bigint;
    if (amount === 0n) continue;
    const edges = paths[i] as readonly Edge[];
    const quote = quotePath(models, edges, amount);
    if (!quote.ok) return undefined;
    kept.push(i);
    legs.push(quote.leg);
    amountOut += quote.leg.amountOut;
    stepsGas += quote.gas;
    hops += edges.length;
  }
  const gasUnits = routeGas(legs.length, stepsGas);
  const dataBytes = routeDataBytes(legs.length, hops);
  return {
    kept,
    legs,
    amountOut,
    gasUnits,
    dataBytes,
    net: amountOut - gas.costOf(gasUnits, dataBytes),
  };
}

/** Both lists, each path once (the first list's first). */
function mergePaths(
  first: readonly CandidatePath[],
  second: readonly CandidatePath[],
): CandidatePath[] {
  const key = (p: CandidatePath) => p.edges.map((e) => `${e.pool.address}${e.tokenIn}`).join();
  const seen = new Set(first.map(key));
  return [...first, ...second.filter((p) => !seen.has(key(p)))];
}

/** A division on the float shadows: which paths, how much each takes, what it yields. */
type FloatSplit = {
  paths: CandidatePath[];
  legs: ((amountIn: number) => number)[];
  amounts: number[];
  /** Total output. */
  total: number;
  /** Total output minus the route's gas valued in tokenOut. */
  net: number;
};

type SplitContext = {
  /** The models of the graph searched. */
  models: PoolModels;
  amountIn: bigint;
  amountFloat: number;
  maxSplits: number;
  gas: GasValuation;
  candidates: readonly CandidatePath[];
  /** Paths avoiding the given pools, ranked for the given amount. */
  disjointPaths: (amount: number, exclude: ReadonlySet<Address>) => CandidatePath[];
  /** Each path's output per unit for a sliver of input (its marginal rate at zero), cached. */
  spotRates: Map<CandidatePath, number>;
  /**
   * What {@link addLeg}, {@link dropLeg} (by leg) and {@link substituteLegs} answered for each
   * split they were given. None depends on the cap on the legs, and the search under each cap
   * repeats much of the one under the cap before: each is worked out once.
   */
  grown: Map<FloatSplit, FloatSplit | undefined>;
  dropped: Map<FloatSplit, Map<number, FloatSplit>>;
  substituted: Map<FloatSplit, FloatSplit>;
};

function floatNet(ctx: SplitContext, paths: readonly CandidatePath[], total: number): number {
  const steps = paths.reduce((sum, p) => sum + p.approxGas, 0);
  const hops = paths.reduce((sum, p) => sum + p.edges.length, 0);
  return (
    total -
    routeGas(paths.length, steps) * ctx.gas.perUnit -
    routeDataBytes(paths.length, hops) * ctx.gas.perByte
  );
}

/**
 * The best split with one more leg than `split` (a path sharing no pool with it), or undefined
 * when no further leg earns more than its gas.
 */
function addLeg(ctx: SplitContext, split: FloatSplit): FloatSplit | undefined {
  const { amountFloat } = ctx;
  // By concavity a partner can only help if its first sliver of input must yield more per unit than the legs lose per unit
  // by giving it up (the cheapest leg to take from, at a 1,024th of the amount).
  const probe = amountFloat / 1024;
  const sliver = amountFloat / SPOT_FRACTION;
  let cheapestLoss = Number.POSITIVE_INFINITY;
  if (split.total === Number.NEGATIVE_INFINITY) {
    // The legs cannot take the amount yet: any partner helps.
    cheapestLoss = Number.NEGATIVE_INFINITY;
  } else {
    split.legs.forEach((leg, i) => {
      const x = split.amounts[i] as number;
      if (x >= probe) cheapestLoss = Math.min(cheapestLoss, (leg(x) - leg(x - probe)) / probe);
    });
  }
  const used = new Set(split.paths.flatMap((p) => statefulPools(ctx.models, p.edges)));
  const screen = (paths: readonly CandidatePath[]) =>
    paths
      .filter(
        (c) =>
          !split.paths.includes(c) && statefulPools(ctx.models, c.edges).every((a) => !used.has(a)),
      )
      .map((path) => ({ path, leg: approxLeg(ctx.models, path), rate: spotRate(ctx, path) }))
      .filter((p) => p.rate > cheapestLoss)
      .sort((x, y) => y.rate - x.rate)
      .slice(0, PARTNERS_PER_LEG);
  let partners = screen(ctx.candidates);
  // None known: the paths with the best marginal rates that avoid the legs' pools.
  if (partners.length === 0) partners = screen(ctx.disjointPaths(sliver, used));
  // Each partner's share where its marginal rate falls to the legs' (concave: found by
  // bisection), and the gain that share promises; the most promising are divided in full.
  const gasOf = (path: CandidatePath) =>
    floatNet(ctx, [...split.paths, path], 0) - floatNet(ctx, split.paths, 0);
  const estimated = partners
    .map((p) => {
      if (cheapestLoss === Number.NEGATIVE_INFINITY)
        return { ...p, share: amountFloat / 2, gain: p.rate };
      const share = marginalShare(p.leg, cheapestLoss, sliver, amountFloat);
      return { ...p, share, gain: p.leg(share) - cheapestLoss * share + gasOf(p.path) };
    })
    .filter((p) => p.gain > 0)
    .sort((x, y) => y.gain - x.gain)
    .slice(0, PARTNERS_DIVIDED);
  let best: FloatSplit | undefined;
  for (const { path, leg, share } of estimated) {
    const legs = [...split.legs, leg];
    const paths = [...split.paths, path];
    const rest = 1 - share / amountFloat;
    const divided = splitApprox({
      amountIn: amountFloat,
      legs,
      start: [...split.amounts.map((x) => x * rest), share],
      firstStepShift: Math.max(2, Math.floor(Math.log2(amountFloat / share))),
      lastStepShift: 18,
    });
    const net = floatNet(ctx, paths, divided.total);
    if (net > split.net && (!best || net > best.net)) {
      best = { paths, legs, amounts: divided.amounts, total: divided.total, net };
    }
  }
  return best;
}

/**
 * How much input a concave leg takes before its marginal rate falls to `rate` (between
 * `low` and half of `amountIn`, by bisection on a log scale).
 */
function marginalShare(
  leg: (amountIn: number) => number,
  rate: number,
  low: number,
  amountIn: number,
): number {
  let lo = low;
  let hi = amountIn / 2;
  for (let i = 0; i < 24 && hi / lo > 1.05; i++) {
    const mid = Math.sqrt(lo * hi);
    const h = mid / 1024;
    const marginal = (leg(mid + h) - leg(mid)) / h;
    if (marginal >= rate) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** `split` without leg `i`, its input spread over the others and re-divided. */
function dropLeg(ctx: SplitContext, split: FloatSplit, i: number): FloatSplit {
  const paths = split.paths.filter((_, j) => j !== i);
  const legs = split.legs.filter((_, j) => j !== i);
  const kept = split.amounts.filter((_, j) => j !== i);
  const keptTotal = kept.reduce((a, b) => a + b, 0);
  const start = kept.map((x) =>
    keptTotal > 0 ? (x / keptTotal) * ctx.amountFloat : ctx.amountFloat / kept.length,
  );
  const result = splitApprox({
    amountIn: ctx.amountFloat,
    legs,
    start,
    firstStepShift: 3,
    lastStepShift: 18,
  });
  return {
    paths,
    legs,
    amounts: result.amounts,
    total: result.total,
    net: floatNet(ctx, paths, result.total),
  };
}

/** The exact search for a division of `split`'s paths, from its float division. */
function exactDivision(split: FloatSplit, ctx: SplitContext): Division | undefined {
  const result = splitExact({
    amountIn: ctx.amountIn,
    legs: split.paths.map((p) => (x: bigint) => quotePathOut(ctx.models, p.edges, x)),
    start: toExactAmounts(split.amounts, ctx.amountIn),
    firstStepShift: 10,
    lastStepShift: 16,
  });
  return result && divide(ctx.models, split.paths, result.amounts, ctx.gas);
}

/**
 * For a large trade, the best candidates that share a pool with the best path: started from
 * instead, they may leave room for partners the best path blocks.
 */
function rivals(
  models: PoolModels,
  best: Division | undefined,
  candidates: readonly CandidatePath[],
  large: boolean,
): CandidatePath[] {
  const first = best?.paths[0];
  if (!large || !first) return [];
  const pools = new Set(statefulPools(models, first.edges));
  return candidates
    .filter((c) => c !== first && statefulPools(models, c.edges).some((a) => pools.has(a)))
    .slice(0, RIVAL_SEEDS);
}

/** A float split of the whole amount into one path (its output −∞ if it cannot take it). */
function single(ctx: SplitContext, path: CandidatePath, amount: number): FloatSplit {
  const leg = approxLeg(ctx.models, path);
  const out = leg(amount);
  const total = Number.isNaN(out) ? Number.NEGATIVE_INFINITY : out;
  return {
    paths: [path],
    legs: [leg],
    amounts: [amount],
    total,
    net: floatNet(ctx, [path], total),
  };
}

/** Adds legs greedily while one earns more than its gas (up to `maxLegs`). */
function grow(ctx: SplitContext, from: FloatSplit, maxLegs = ctx.maxSplits): FloatSplit {
  let current = from;
  while (current.paths.length < Math.min(maxLegs, ctx.maxSplits)) {
    const next = remembered(ctx.grown, current, () => addLeg(ctx, current));
    if (!next) break;
    current = next;
  }
  return current;
}

/**
 * Whether some candidate better at the margin than the split's legs is kept out by leg `i`
 * alone (it shares a pool with that leg and with no other): only then can replacing the leg
 * pay.
 */
function blocks(ctx: SplitContext, split: FloatSplit, i: number): boolean {
  const own = new Set(statefulPools(ctx.models, (split.paths[i] as CandidatePath).edges));
  const others = new Set(
    split.paths.flatMap((p, j) => (j === i ? [] : statefulPools(ctx.models, p.edges))),
  );
  const probe = ctx.amountFloat / 1024;
  let margin = Number.POSITIVE_INFINITY;
  split.legs.forEach((leg, j) => {
    const x = split.amounts[j] as number;
    if (x >= probe) margin = Math.min(margin, (leg(x) - leg(x - probe)) / probe);
  });
  return ctx.candidates.some((c) => {
    if (split.paths.includes(c)) return false;
    const pools = statefulPools(ctx.models, c.edges);
    if (!pools.some((a) => own.has(a)) || pools.some((a) => others.has(a))) return false;
    return spotRate(ctx, c) > margin;
  });
}

/** A path's output per unit for a sliver of input: its marginal rate at zero (cached). */
function spotRate(ctx: SplitContext, path: CandidatePath): number {
  let rate = ctx.spotRates.get(path);
  if (rate === undefined) {
    const sliver = ctx.amountFloat / SPOT_FRACTION;
    rate = approxLeg(ctx.models, path)(sliver) / sliver;
    ctx.spotRates.set(path, rate);
  }
  return rate;
}

/** Drops each leg that blocks a better candidate and grows again: keeps clear improvements. */
function replaceLegs(ctx: SplitContext, from: FloatSplit): FloatSplit {
  let split = from;
  for (let i = 0; split.paths.length > 1 && i < split.paths.length; i++) {
    if (!blocks(ctx, split, i)) continue;
    const drops = remembered(ctx.dropped, split, () => new Map<number, FloatSplit>());
    const replaced = grow(
      ctx,
      remembered(drops, i, () => dropLeg(ctx, split, i)),
    );
    // A clear float gain only: near-ties are not worth re-dividing.
    if (replaced.net > split.net + Math.abs(split.net) * 1e-9) split = replaced;
  }
  return split;
}

/**
 * Each leg in turn swapped for the path that yields most at the leg's own amount, among the
 * candidates and the paths found at that amount that share no pool with the other legs (a path
 * through a deeper pool at a hop where the leg's share is bounded elsewhere: the choice by
 * marginal rate at zero can miss it), then the amount re-divided; kept only where the float net
 * output rises.
 */
function substituteLegs(ctx: SplitContext, from: FloatSplit): FloatSplit {
  let split = from;
  for (let i = 0; split.paths.length > 1 && i < split.paths.length; i++) {
    const x = split.amounts[i] as number;
    const others = new Set(
      split.paths.flatMap((p, j) => (j === i ? [] : statefulPools(ctx.models, p.edges))),
    );
    let bestPath: CandidatePath | undefined;
    let bestLeg: ((amountIn: number) => number) | undefined;
    let bestOut = (split.legs[i] as (amountIn: number) => number)(x);
    // Ranked at the leg's own amount, among the paths that avoid the other legs' pools (a leg of
    // one hop has no other hop whose pool could be swapped: the candidates hold its rivals).
    const leg = split.paths[i] as CandidatePath;
    const found = leg.edges.length > 1 ? ctx.disjointPaths(x, others) : [];
    for (const c of mergePaths(ctx.candidates, found)) {
      if (split.paths.includes(c) || statefulPools(ctx.models, c.edges).some((a) => others.has(a)))
        continue;
      const leg = approxLeg(ctx.models, c);
      const out = leg(x);
      if (out > bestOut) {
        bestOut = out;
        bestPath = c;
        bestLeg = leg;
      }
    }
    if (!bestPath || !bestLeg) continue;
    const paths = split.paths.map((p, j) => (j === i ? (bestPath as CandidatePath) : p));
    const legs = split.legs.map((l, j) => (j === i ? (bestLeg as (a: number) => number) : l));
    const divided = splitApprox({
      amountIn: ctx.amountFloat,
      legs,
      start: split.amounts,
      firstStepShift: 10,
      lastStepShift: 18,
    });
    const net = floatNet(ctx, paths, divided.total);
    if (net > split.net + Math.abs(split.net) * 1e-9) {
      split = { paths, legs, amounts: divided.amounts, total: divided.total, net };
    }
  }
  return split;
}

/**
 * Divides amountIn between up to maxSplits pool-disjoint paths where that yields more net of
 * gas, or where no single path can take it all. Each start — the best single path, the best
 * path by marginal rate (which may not take it all), and a rival sharing a pool with the best
 * (which may leave room for partners the best blocks) — is grown by one leg; the most
 * promising is grown in full (each leg the partner whose division gains most), then each of
 * its legs in turn is dropped and the best replacement sought. All of this runs on the float
 * shadows; the division found is quoted exactly and kept only if its exact net output beats
 * `best`.
 */
function splitRoute(
  best: Division | undefined,
  seeds: readonly CandidatePath[],
  ctx: SplitContext,
): Division | undefined {
  const starts: FloatSplit[] = [];
  if (best) {
    const legs = best.paths.map((path) => approxLeg(ctx.models, path));
    const amounts = best.legs.map((l) => Number(l.amountIn));
    const total = legs.reduce((sum, leg, i) => sum + leg(amounts[i] as number), 0);
    starts.push({
      paths: [...best.paths],
      legs,
      amounts,
      total,
      net: floatNet(ctx, best.paths, total),
    });
  }
  const seeded = new Set(best?.paths);
  for (const seed of seeds) {
    if (!seeded.has(seed)) {
      seeded.add(seed);
      starts.push(single(ctx, seed, ctx.amountFloat));
    }
  }
  let split: FloatSplit | undefined;
  // Each start grown by one leg tells which structure is most promising; that one is grown
  // in full, then its legs are replaced where that pays.
  for (const start of starts) {
    const grown = grow(ctx, start, start.paths.length + 1);
    if (Number.isFinite(grown.net) && (!split || grown.net > split.net)) split = grown;
  }
  if (!split) return best;
  // Grown in full under each cap on the legs, up to maxSplits: the answer is the best of them by
  // exact net output, so allowing more legs never lowers it (a greedy growth to more legs can
  // end in a worse local optimum than one to fewer).
  let result = best;
  const tried: CandidatePath[][] = best ? [best.paths] : [];
  for (let cap = Math.min(2, ctx.maxSplits); cap <= ctx.maxSplits; cap++) {
    const capped = cap === ctx.maxSplits ? ctx : { ...ctx, maxSplits: cap };
    const replaced = replaceLegs(capped, grow(capped, split));
    const chosen = remembered(ctx.substituted, replaced, () => substituteLegs(capped, replaced));
    if (tried.some((paths) => samePaths(paths, chosen.paths))) continue;
    tried.push(chosen.paths);
    // The float shadows are within a hair of the exact math, so their best division is the
    // exact one's to a few parts per billion: quoted exactly as it is, unless rounding left a
    // leg with more than it can take, when the exact search moves the difference.
    const exact =
      divide(ctx.models, chosen.paths, toExactAmounts(chosen.amounts, ctx.amountIn), ctx.gas) ??
      exactDivision(chosen, ctx);
    if (exact && (!result || exact.net > result.net)) result = exact;
  }
  return result;
}

/** `map`'s value for `key`, made by `make` the first time it is asked for. */
function remembered<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  if (map.has(key)) return map.get(key) as V;
  const value = make();
  map.set(key, value);
  return value;
}

/** Whether two splits take the same paths, in the same order. */
function samePaths(a: readonly CandidatePath[], b: readonly CandidatePath[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}

/**
 * Brings the prices the search values gas and prunes with up to date, off the request path:
 * call it after applying a batch of pool updates (it reprices only when the search would).
 */
export function prepareRouteSearch(params: { graph: RoutingGraph; weth: Address }): void {
  const weth = params.weth.toLowerCase() as Address;
  gasValuation(params.graph, weth, weth, 0n);
}

/**
 * The pools a route search for these parameters chooses from, as edges: every edge between two
 * tokens of the candidate paths it ranks (at the amount and at a sliver of it), so the parallel
 * pools between a candidate path's tokens are among them. What a route's certificate
 * (certificate.ts) bounds the best flow over.
 */
export function candidateEdges(params: FindRouteParameters): Edge[] {
  const { graph } = params;
  const tokenIn = params.tokenIn.toLowerCase() as Address;
  const tokenOut = params.tokenOut.toLowerCase() as Address;
  const gas = gasValuation(
    graph,
    params.weth.toLowerCase() as Address,
    tokenOut,
    params.gasPriceWei,
  );
  const tokens = new Set<Address>([tokenIn, tokenOut]);
  for (const amount of [Number(params.amountIn), Number(params.amountIn) / SPOT_FRACTION]) {
    const { paths } = findCandidatePaths({
      graph,
      tokenIn,
      tokenOut,
      amountIn: amount,
      maxHops: params.maxHops ?? 3,
      gasToOut: gas.perUnit,
      limit: CANDIDATE_PATHS,
      unitValue: gas.unitValue,
      exactConnectivity: false,
      admits: params.admits,
    });
    for (const path of paths) for (const e of path.edges) tokens.add(e.tokenOut);
  }
  const admits = params.admits;
  const edges: Edge[] = [];
  for (const t of tokens) {
    for (const e of graph.edgesFrom(t)) {
      if (tokens.has(e.tokenOut) && (admits === undefined || admits(e))) edges.push(e);
    }
  }
  return edges;
}

/**
 * {@link findRoute} over the edges `params.admits` lets through; where they make no route but
 * other pools do, the route through those instead of "no route", so that compiling it says why
 * the account cannot execute it (a strategy without a SwapRouter for a pool, say).
 */
export function findAdmittedRoute(params: FindRouteParameters): FindRouteResult {
  const found = findRoute(params);
  if (found.ok || params.admits === undefined) return found;
  const unrestricted = findRoute({ ...params, admits: undefined });
  return unrestricted.ok ? unrestricted : found;
}

/**
 * The best route for `amountIn` of tokenIn into tokenOut, or why there is none.
 * @example
 * const result = findRoute({ graph, tokenIn: usdc, tokenOut: weth, amountIn: 10n ** 9n,
 *   gasPriceWei: 1_000_000_000n, weth });
 * if (result.ok) result.quote.amountOut;
 */
export function findRoute(params: FindRouteParameters): FindRouteResult {
  const { graph, amountIn } = params;
  if (amountIn <= 0n) throw new RangeError("amountIn must be positive");
  const maxHops = params.maxHops ?? 3;
  const maxSplits = params.maxSplits ?? 4;
  if (!Number.isInteger(maxHops) || maxHops < 1) throw new RangeError("maxHops must be ≥ 1");
  if (!Number.isInteger(maxSplits) || maxSplits < 1) throw new RangeError("maxSplits must be ≥ 1");
  const tokenIn = params.tokenIn.toLowerCase() as Address;
  const tokenOut = params.tokenOut.toLowerCase() as Address;
  if (tokenIn === tokenOut) return { ok: false, reason: "no-path" };

  const gas = gasValuation(
    graph,
    params.weth.toLowerCase() as Address,
    tokenOut,
    params.gasPriceWei,
    params.l1FeePerByteWei,
  );
  const find = (amount: number, options: Partial<FindCandidatePathsParameters> = {}) =>
    findCandidatePaths({
      graph,
      tokenIn,
      tokenOut,
      amountIn: amount,
      maxHops,
      gasToOut: gas.perUnit,
      hopCostToOut: HOP_DATA_BYTES * gas.perByte,
      limit: CANDIDATE_PATHS,
      unitValue: gas.unitValue,
      admits: params.admits,
      ...options,
    });
  const candidates = (amount: number) => find(amount);
  const amountFloat = Number(amountIn);
  const { paths, connected } = candidates(amountFloat);
  if (!connected) return { ok: false, reason: "no-path" };

  let best: Division | undefined;
  let tooSmall = 0;
  let failed = 0;
  for (const path of paths.slice(0, EXACT_CANDIDATES)) {
    const division = divide(graph.models, [path], [amountIn], gas);
    if (!division) {
      failed++;
      if (quotePathOut(graph.models, path.edges, amountIn) === 0n) tooSmall++;
      continue;
    }
    if (division.amountOut === 0n) continue;
    if (!best || division.net > best.net) best = division;
  }
  if (failed > 0 && tooSmall === failed && !best) return { ok: false, reason: "amount-too-small" };

  // A large trade may be best split with pools that could not take all of it alone (a
  // concentrated V3 range, say): when the best path moves its price noticeably (or no path
  // fills), paths are also ranked at a fraction of the amount.
  let partners = paths;
  let partial: CandidatePath[] = [];
  if (maxSplits > 1) {
    const top = paths[0];
    const part = amountFloat / PARTIAL_FRACTION;
    const impact = top
      ? 1 -
        approxLeg(graph.models, top)(amountFloat) /
          (PARTIAL_FRACTION * approxLeg(graph.models, top)(part))
      : 1;
    if (!best || impact > PARTIAL_SEARCH_IMPACT) {
      // Ranked at a sliver of the amount, paths come by their marginal rates: partners that
      // take a share, down to pools that can take only a sliver of a pool-draining trade.
      partial = candidates(amountFloat / SPOT_FRACTION).paths;
      partners = mergePaths(paths, partial);
    }
  }
  // The same search recurs across the caps on the legs (the same leg's amount beside the same
  // other legs): each is run once.
  const disjoint = new Map<string, CandidatePath[]>();
  const disjointPaths = (amount: number, exclude: ReadonlySet<Address>) =>
    remembered(
      disjoint,
      `${amount}${[...exclude].sort().join()}`,
      () =>
        find(amount, {
          excludePools: exclude,
          exactConnectivity: false,
          limits: PARTNER_SEARCH_LIMITS,
        }).paths,
    );
  const route =
    maxSplits > 1 && (!best || partial.length > 0 || paths.length > 1)
      ? splitRoute(
          best,
          [...partial.slice(0, 1), ...rivals(graph.models, best, partners, partial.length > 0)],
          {
            models: graph.models,
            amountIn,
            amountFloat,
            maxSplits,
            gas,
            candidates: partners,
            disjointPaths,
            spotRates: new Map(),
            grown: new Map(),
            dropped: new Map(),
            substituted: new Map(),
          },
        )
      : best;
  const flow =
    maxSplits > 1 &&
    params.flows !== false &&
    // No whole path fills the amount: a flow through the pools ranked at a sliver of it may.
    (paths[0] ? flowMayPay(graph.models, paths[0], amountFloat) : partial.length > 0)
      ? solveFlowRoute({
          models: graph.models,
          // With the pools ranked at a sliver of the amount too: a partner a small trade's best
          // path does not lead to.
          edges: flowCandidates(
            graph,
            [paths, partial.length > 0 ? partial : candidates(amountFloat / SPOT_FRACTION).paths],
            params.admits,
          ),
          tokenIn,
          tokenOut,
          amountIn,
          costOf: gas.costOf,
          maxSplits: params.maxSplits ?? FLOW_MAX_SPLITS,
          // The route's gross output: a flow that cannot make more is not worth finishing.
          beat: route ? Number(route.amountOut) : undefined,
        })
      : undefined;
  // A flow that divides only its input is whole paths: answered as legs, as a split is.
  const legs = flow && legsOfFlow(flow.flow, tokenIn, tokenOut);
  const asLegs =
    legs &&
    quoteLegs(
      graph.models,
      legs.map((leg) => leg.hops.map((h) => h.edge)),
      legs.map((leg) => leg.amountIn),
      gas,
    );
  // The best of the whole paths, the flow as legs and the flow (which may fill an amount no
  // whole paths can).
  let answer: Omit<Division, "paths"> | FlowRoute | undefined = route;
  if (asLegs && (!answer || asLegs.net > answer.net)) answer = asLegs;
  if (flow && !legs && (!answer || flow.net > answer.net)) answer = flow;
  if (!answer) return { ok: false, reason: "insufficient-liquidity" };
  return {
    ok: true,
    quote: {
      tokenIn,
      tokenOut,
      amountIn,
      amountOut: answer.amountOut,
      legs: "legs" in answer ? answer.legs : [],
      ...("flow" in answer ? { flow: answer.flow } : {}),
      gasUnits: BigInt(answer.gasUnits),
      gasCostInTokenOut: gas.costOf(answer.gasUnits, answer.dataBytes),
    },
  };
}

/**
 * Whether splitting and merging at intermediate tokens may beat a route: the best-ranked path
 * moves prices by more than {@link FLOW_SEARCH_IMPACT} (a flow gains on it at most what it loses
 * to price impact), or cannot fill the amount at all. It depends on neither the route found nor
 * maxSplits, so a larger maxSplits, which never lowers the route, never lowers the answer either;
 * the solve itself stops early only where its dual shows that no flow beats the route by more
 * than FLOW_STOP_MARGIN (flow-route.ts), a hundredth of a basis point.
 */
function flowMayPay(models: PoolModels, path: CandidatePath, amountFloat: number): boolean {
  const leg = approxLeg(models, path);
  const impact = 1 - leg(amountFloat) / (PARTIAL_FRACTION * leg(amountFloat / PARTIAL_FRACTION));
  // NaN: the path cannot fill the amount, where a flow may pay most.
  return !(impact <= FLOW_SEARCH_IMPACT);
}

/**
 * The pools a flow is sought over: every edge `admits` lets through between two tokens of the
 * best-ranked candidate paths, at the amount and at a sliver of it (so the parallel pools
 * between them are among them). Like the trigger, it does not depend on maxSplits.
 */
function flowCandidates(
  graph: RoutingGraph,
  pathSets: readonly (readonly CandidatePath[])[],
  admits: ((edge: Edge) => boolean) | undefined,
): Edge[] {
  const tokens = new Set<Address>();
  for (const paths of pathSets) {
    for (const path of paths.slice(0, FLOW_CANDIDATE_PATHS)) {
      for (const e of path.edges) {
        tokens.add(e.tokenIn);
        tokens.add(e.tokenOut);
      }
    }
  }
  const edges: Edge[] = [];
  for (const t of tokens) {
    for (const u of tokens) {
      if (u === t) continue;
      const between = graph.edgesBetween(t, u);
      edges.push(...(admits === undefined ? between : between.filter(admits)));
    }
  }
  return edges;
}
