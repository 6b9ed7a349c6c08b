/**
 * An upper bound on the best output over a set of pools: no flow of `amountIn` through the edges
 * given, split and merged at any token, yields more tokenOut than `bound` (gross of gas, by the
 * pools' float models, to within their precision: parts per billion).
 *
 * Routing through pools whose outputs are concave in their inputs is a convex problem (Angeris
 * et al., "Optimal routing for constant function market makers", 2022), and its Lagrange dual
 * gives the bound (Diamandis et al., "An efficient algorithm for optimal routing through
 * constant function market makers", 2023): give each token a price ν (tokenOut's is 1); then any
 * flow's output is at most
 *
 *     g(ν) = ν_in · amountIn + Σ_edges ν_out(e) · max_{x ≥ 0} ( f_e(x) − x · ν_in(e) / ν_out(e) ),
 *
 * each edge answering its price ratio on its own (what it would earn an arbitrageur at those
 * prices). Every ν ≥ 0 gives a valid bound; the prices are brought down to the least bound by
 * coordinate descent (each token's price set where what arrives of it equals what leaves, the
 * dual's gradient), then by a quasi-Newton descent (L-BFGS) on the prices' logarithms, which
 * moves prices coupled along chains of tokens together where coordinate steps crawl. At the
 * least bound each edge's answer is its part of the best flow (flow-route.ts reads it off). Each edge's answer is itself bounded from above, by concavity: its optimum is
 * bracketed by secant slopes on either side of the price ratio, and the value over the bracket is
 * at most the tangent from its left end.
 *
 * Conversions at a fixed rate both ways (wrapping native ether, a vault's deposit and redeem, an
 * Aave supply and withdrawal) have no concave output to bound: their two tokens are one asset at
 * a fixed ratio, and are priced as one (a withdrawal's cap on available liquidity is left out,
 * which only admits more). A fixed-rate conversion with no way back is left out of the bound and
 * reported (`unbounded`): a route through one is not certified.
 *
 * Both directions of a pool are separate edges, each from the pool's current state: that admits
 * more than any route can do (a route uses a pool one way), so the bound stays an upper bound.
 */
import type { ApproxEdgeQuoter, ApproxQuote, ApproxSpot } from "../core/quote.js";
import type { Address, Edge } from "../core/types.js";
import type { PoolModels } from "./pool-model.js";

export type FlowBoundParameters = {
  models: PoolModels;
  /** The candidate edges. */
  edges: readonly Edge[];
  tokenIn: Address;
  tokenOut: Address;
  /** Raw units of tokenIn. */
  amountIn: number;
  /** Most sweeps of the dual's coordinate descent (default 60). */
  maxSweeps?: number;
  /** Most iterations of the quasi-Newton descent after it (default 100). */
  maxIterations?: number;
  /** A quasi-Newton step lowering the dual by less than this fraction ends it (default 1e-11). */
  tolerance?: number;
  /**
   * Relative accuracy of each edge's answer to the prices (default 1e-9); a coarser one is
   * cheaper and serves a flow rounded to basis points.
   */
  precision?: number;
  /**
   * Whether to certify the bound (default true); without it `bound` is NaN and only the prices
   * and flows are of use (the flow solver's case).
   */
  certify?: boolean;
  /**
   * The descent ends as soon as the dual falls to this (raw units of tokenOut): no flow then
   * yields more, to within the edges' precision (the flow solver's case, given the output a
   * route already makes). Default: none.
   */
  stopAt?: number;
};

export type FlowBound = {
  /**
   * No flow through the edges (but `unbounded`) yields more raw units of tokenOut than this (NaN
   * when not certified).
   */
  bound: number;
  /** The dual prices the bound holds at: tokenOut per raw unit of each token. */
  prices: ReadonlyMap<Address, number>;
  /** Fixed-rate conversions with no way back, left out of the bound. */
  unbounded: readonly Edge[];
  /** Fixed-rate conversions with a way back (their two tokens priced as one), both ways. */
  conversions: readonly Edge[];
  /**
   * What each edge carries at the prices the descent ended at (its input `x` and output `y`, raw
   * units): near the best flow when the descent converged, what arrives of each token nearly
   * equalling what leaves. Edges carrying nothing are left out, and so are the fixed-rate
   * conversions, whose two tokens are priced as one.
   */
  flows: readonly { edge: Edge; x: number; y: number }[];
  /**
   * The dual's value where the descent ended, from the edges' approximate answers (at most their
   * precision below a bound).
   */
  value: number;
  /** Whether the descent ended because the dual fell to `stopAt`. */
  stopped: boolean;
  /** Sweeps of the descent run. */
  sweeps: number;
  /** Float quotes evaluated (the bound's cost). */
  evaluations: number;
};

/** Relative width of the secants an edge's slopes are read with. */
const SECANT = 1e-7;
/**
 * Width of the secants relative to the pool's depth, at least: a float model's output carries
 * an absolute error of about 2^-52 of the depth, which narrower secants would magnify.
 */
const SECANT_OF_DEPTH = 2e-7;
/** Relative accuracy of an edge's optimum while the prices are sought. */
const SOLVE = 1e-9;
/** A sweep that lowers the dual by less than this fraction ends the descent. */
const CONVERGED = 1e-11;
/** Two slopes this close (relative) are one: a fixed rate. */
const FIXED_RATE = 1e-6;
/** A price never falls below this fraction of its start (0 would leave edges unbounded). */
const PRICE_FLOOR = 1e-12;

/** One edge's arbitrage at a price ratio p (tokenIn per tokenOut), from its float model. */
class EdgeArbitrage {
  readonly #quote: ApproxEdgeQuoter;
  readonly #result: ApproxQuote = { out: 0, ticksCrossed: 0 };
  /** The pool's depth in tokenIn (the scale of its float model's absolute error). */
  readonly #depth: number;
  /** At least the slope of the output at 0 (0: the edge takes nothing). */
  readonly rate: number;
  /** The mean slope over the first secant: a fixed rate's rate. */
  readonly mean: number;
  /** The output is `rate` per unit at any size: a conversion at a fixed rate. */
  readonly fixedRate: boolean;
  #last = 0;
  /** The output of the input the last {@link solve} answered (0 with it). */
  y = 0;
  evaluations = 0;

  constructor(
    models: PoolModels,
    readonly edge: Edge,
    scale: number,
  ) {
    this.#quote = models.approxQuoter(edge);
    const spot: ApproxSpot = { rate: 0, depthIn: 0 };
    models.approxSpot(edge, spot);
    this.#depth = Number.isFinite(spot.depthIn) && spot.depthIn > 0 ? spot.depthIn : scale;
    // The mean slope over the first secant, fees included: the slope at 0 exceeds it by the
    // curvature over that width, a few parts in 10^7 at most, covered by the margin.
    const first = this.#width(0);
    const y = this.out(first);
    const mean = spot.depthIn > 0 && y > 0 ? y / first : 0;
    this.mean = mean;
    this.rate = mean * (1 + 4 * SECANT_OF_DEPTH);
    // A pool's output bends well before half its depth; a conversion's does not.
    const far = Number.isFinite(spot.depthIn) ? spot.depthIn / 2 : 1e6 * scale;
    const yFar = this.out(far);
    this.fixedRate = mean > 0 && Math.abs(yFar / far - mean) <= FIXED_RATE * mean;
  }

  /** The output of `x`, NaN when the pool cannot fill it. */
  out(x: number): number {
    if (x === 0) return 0;
    this.evaluations++;
    const out = this.#quote(x, this.#result).out;
    return Number.isFinite(out) && out >= 0 ? out : Number.NaN;
  }

  /** The secants' half-width at `x`. */
  #width(x: number): number {
    return Math.max(x * SECANT, this.#depth * SECANT_OF_DEPTH);
  }

  /** The mean slope just right of `x`, -Infinity when that cannot be filled. */
  #slopeRight(x: number, y: number): number {
    const w = this.#width(x);
    const right = this.out(x + w);
    return Number.isNaN(right) ? Number.NEGATIVE_INFINITY : (right - y) / w;
  }

  /** The mean slope just left of `x` (> 0): the slope at x is at most it. */
  #slopeLeft(x: number, y: number): number {
    const left = Math.max(0, x - this.#width(x));
    return left === 0 && x <= this.#width(0) ? this.rate : (y - this.out(left)) / (x - left);
  }

  /** The slope near `x` (a central secant); -Infinity where x cannot be filled. */
  #slope(x: number): number {
    const y = this.out(x);
    if (Number.isNaN(y)) return Number.NEGATIVE_INFINITY;
    const right = this.#slopeRight(x, y);
    if (!Number.isFinite(right)) return right;
    return (right + this.#slopeLeft(x, y)) / 2;
  }

  /**
   * Approximately the input that maximises f(x) − p·x (where the slope falls to p), its output
   * left in {@link y}: from the last answer (prices move little between calls), bracketed by 4×
   * steps and narrowed on the logarithm by regula falsi.
   */
  solve(p: number, precision = SOLVE): number {
    this.y = 0;
    if (!(this.rate > p)) return 0;
    let x = this.#last > 0 ? this.#last : this.#depth * 1e-3;
    let s = this.#slope(x);
    let lo = 0;
    let sLo = this.rate;
    let hi = Number.POSITIVE_INFINITY;
    let sHi = 0;
    for (let i = 0; i < 200; i++) {
      if (s > p) {
        lo = x;
        sLo = s;
        if (hi < Number.POSITIVE_INFINITY) break;
        x *= 4;
      } else {
        hi = x;
        sHi = s;
        if (lo > 0) break;
        x /= 4;
        if (x < this.#width(0)) break;
      }
      s = this.#slope(x);
    }
    if (hi === Number.POSITIVE_INFINITY) return this.#answer(lo);
    if (lo === 0) return this.#answer(hi);
    let side = 0;
    for (let i = 0; i < 100 && hi - lo > Math.max(precision * hi, this.#width(hi)); i++) {
      const a = Math.log(lo);
      const b = Math.log(hi);
      const fa = sLo - p;
      const fb = Number.isFinite(sHi) ? sHi - p : -fa;
      let t = fa - fb > 0 ? b - (fb * (b - a)) / (fb - fa) : (a + b) / 2;
      if (!(t > a && t < b)) t = (a + b) / 2;
      const mid = Math.exp(t);
      const sm = this.#slope(mid);
      if (sm > p) {
        lo = mid;
        sLo = sm;
        if (side === 1) sHi = p + (sHi - p) / 2;
        side = 1;
      } else {
        hi = mid;
        sHi = sm;
        if (side === -1) sLo = p + (sLo - p) / 2;
        side = -1;
      }
    }
    return this.#answer(Math.sqrt(lo * hi));
  }

  #answer(x: number): number {
    if (x === 0) return 0;
    const y = this.out(x);
    if (Number.isNaN(y)) return 0;
    this.#last = x;
    this.y = y;
    return x;
  }

  /**
   * At least max_x f(x) − p·x, certified around `near` (the approximate optimum): the optimum is
   * shown to lie in [lo, hi] by secant slopes (concavity: the slope right of lo is at least p,
   * the slope left of hi at most p, or hi cannot be filled), and over that interval f is under
   * its tangent at lo, whose slope is at most the secant left of lo.
   */
  upper(p: number, near: number): number {
    if (!(this.rate > p)) return 0;
    let spread = 4 * this.#width(near);
    for (let i = 0; i < 40; i++, spread *= 4) {
      const lo = Math.max(0, near - spread);
      const hi = near + spread;
      const yLo = this.out(lo);
      if (Number.isNaN(yLo)) continue;
      if (lo > 0 && this.#slopeRight(lo, yLo) < p) continue;
      const yHi = this.out(hi);
      if (!Number.isNaN(yHi) && this.#slopeLeft(hi, yHi) > p) continue;
      const slope = lo > 0 ? this.#slopeLeft(lo, yLo) : this.rate;
      return yLo - p * lo + Math.max(0, slope - p) * (hi - lo);
    }
    return Number.POSITIVE_INFINITY;
  }
}

/** Tokens joined by fixed-rate conversions both ways, each with its ratio to its component's. */
class Components {
  readonly #parent = new Map<Address, Address>();
  /** Units of the parent per unit of the token. */
  readonly #ratio = new Map<Address, number>();

  find(t: Address): { root: Address; ratio: number } {
    let ratio = 1;
    let at = t;
    for (let parent = this.#parent.get(at); parent; parent = this.#parent.get(at)) {
      ratio *= this.#ratio.get(at) ?? 1;
      at = parent;
    }
    return { root: at, ratio };
  }

  /** Joins `a` and `b`, one unit of `a` being `rate` units of `b`. */
  join(a: Address, b: Address, rate: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra.root === rb.root) return;
    // One unit of root(a) = (1 / ra.ratio) a = (rate / ra.ratio) b = (rate · rb.ratio / ra.ratio) root(b).
    this.#parent.set(ra.root, rb.root);
    this.#ratio.set(ra.root, (rate * rb.ratio) / ra.ratio);
  }
}

/**
 * The least upper bound the dual descent reaches on what `amountIn` of tokenIn yields in tokenOut
 * through `edges`, by any flow.
 * @example flowBound({ models: graph.models, edges, tokenIn, tokenOut, amountIn: 1e21 }).bound
 */
export function flowBound(params: FlowBoundParameters): FlowBound {
  const { tokenIn, tokenOut, amountIn } = params;
  const precision = params.precision ?? SOLVE;
  const all = params.edges.map((edge) => new EdgeArbitrage(params.models, edge, amountIn));
  const components = new Components();
  const unbounded: Edge[] = [];
  const conversions: Edge[] = [];
  const concave: EdgeArbitrage[] = [];
  const fixed = all.filter((a) => a.fixedRate);
  for (const a of fixed) {
    const back = fixed.find(
      (b) =>
        b.edge.pool === a.edge.pool &&
        b.edge.tokenIn === a.edge.tokenOut &&
        b.edge.tokenOut === a.edge.tokenIn,
    );
    if (back && Math.abs(a.mean * back.mean - 1) <= 2 * FIXED_RATE) {
      components.join(a.edge.tokenIn, a.edge.tokenOut, a.mean);
      conversions.push(a.edge);
    } else {
      unbounded.push(a.edge);
    }
  }
  for (const a of all) if (!a.fixedRate && a.rate > 0) concave.push(a);

  // Each token's component (the unknowns are the components' prices) and its ratio to it.
  const index = new Map<Address, number>();
  const members: { ratio: number }[][] = [];
  const ratioOf = new Map<Address, number>();
  const componentOf = (t: Address): number => {
    const { root, ratio } = components.find(t);
    ratioOf.set(t, ratio);
    let i = index.get(root);
    if (i === undefined) {
      i = members.length;
      index.set(root, i);
      members.push([]);
    }
    return i;
  };
  const inC = componentOf(tokenIn);
  const outC = componentOf(tokenOut);
  const edges = concave.map((arb) => ({
    arb,
    from: componentOf(arb.edge.tokenIn),
    to: componentOf(arb.edge.tokenOut),
    /** Units of the component per unit of each token. */
    rFrom: ratioOf.get(arb.edge.tokenIn) as number,
    rTo: ratioOf.get(arb.edge.tokenOut) as number,
  }));
  const n = members.length;
  const rIn = ratioOf.get(tokenIn) as number;
  const rOut = ratioOf.get(tokenOut) as number;
  const outgoing: number[][] = Array.from({ length: n }, () => []);
  const incoming: number[][] = Array.from({ length: n }, () => []);
  edges.forEach((e, k) => {
    outgoing[e.from]?.push(k);
    incoming[e.to]?.push(k);
  });

  // Component prices, per unit of the component: tokenOut's is fixed at 1 per tokenOut.
  const price = new Array<number>(n).fill(0);
  price[outC] = 1 / rOut;
  // Starting prices: the best rate product to tokenOut over up to n hops.
  for (let round = 0; round < n; round++) {
    let changed = false;
    for (const e of edges) {
      if (e.from === outC) continue;
      const through = ((e.arb.rate * (price[e.to] as number) * e.rTo) / e.rFrom) as number;
      if (through > (price[e.from] as number) * (1 + 1e-12)) {
        price[e.from] = through;
        changed = true;
      }
    }
    if (!changed) break;
  }
  const floor = price.map((p) => p * PRICE_FLOOR);

  /** What each edge takes (`xs`) and makes (`ys`) at the current prices, as last answered. */
  const xs = new Float64Array(edges.length);
  const ys = new Float64Array(edges.length);
  const ratio = (k: number): number => {
    const e = edges[k] as (typeof edges)[number];
    return ((price[e.from] as number) * e.rFrom) / ((price[e.to] as number) * e.rTo);
  };
  const answer = (k: number): void => {
    const e = edges[k] as (typeof edges)[number];
    const solved = (price[e.to] as number) > 0;
    xs[k] = solved ? e.arb.solve(ratio(k), precision) : 0;
    ys[k] = solved ? e.arb.y : 0;
  };
  for (let k = 0; k < edges.length; k++) answer(k);

  /** What arrives in component c less what leaves it, in its units, at its price `p`. */
  const excessAt = (c: number, p: number): number => {
    price[c] = p;
    let excess = c === inC ? amountIn * rIn : 0;
    for (const k of incoming[c] as number[]) {
      answer(k);
      excess += (ys[k] as number) * (edges[k]?.rTo as number);
    }
    for (const k of outgoing[c] as number[]) {
      answer(k);
      excess -= (xs[k] as number) * (edges[k]?.rFrom as number);
    }
    return excess;
  };
  /** The dual's value at the current prices, from the edges' approximate answers. */
  const dual = (): number => {
    let total = (price[inC] as number) * rIn * amountIn;
    edges.forEach((e, k) => {
      const x = xs[k] as number;
      const y = ys[k] as number;
      if (x > 0) {
        total += (price[e.to] as number) * e.rTo * y - (price[e.from] as number) * e.rFrom * x;
      }
    });
    return total;
  };
  /** The certified bound at the current prices. */
  const certified = (): number => {
    let total = (price[inC] as number) * rIn * amountIn;
    edges.forEach((e, k) => {
      const pOut = (price[e.to] as number) * e.rTo;
      if (!(pOut > 0)) return;
      const upper = e.arb.upper(ratio(k), xs[k] as number);
      if (upper > 0) total += pOut * upper;
    });
    return total;
  };

  let value = dual();
  let sweeps = 0;
  const maxSweeps = params.maxSweeps ?? 60;
  const stopAt = params.stopAt ?? Number.NEGATIVE_INFINITY;
  while (sweeps < maxSweeps && !(value <= stopAt)) {
    sweeps++;
    for (let c = 0; c < n; c++) {
      if (c === outC || !((price[c] as number) > 0)) continue;
      settlePrice(c, excessAt, price[c] as number, floor[c] as number);
    }
    const now = dual();
    const done = value - now <= CONVERGED * Math.abs(value);
    value = now;
    if (done) break;
  }
  // Coordinate descent crawls where prices are coupled along chains of tokens: a quasi-Newton
  // descent on the prices' logarithms takes it the rest of the way.
  value = quasiNewton({
    free: Array.from({ length: n }, (_, c) => c).filter(
      (c) => c !== outC && (price[c] as number) > 0,
    ),
    price,
    floor,
    value,
    evaluate: () => {
      for (let k = 0; k < edges.length; k++) answer(k);
      const excess = new Array<number>(n).fill(0);
      excess[inC] = amountIn * rIn;
      edges.forEach((e, k) => {
        excess[e.to] = (excess[e.to] as number) + (ys[k] as number) * e.rTo;
        excess[e.from] = (excess[e.from] as number) - (xs[k] as number) * e.rFrom;
      });
      return { value: dual(), excess };
    },
    maxIterations: params.maxIterations ?? 100,
    tolerance: params.tolerance ?? CONVERGED,
    stopAt,
  });
  const bound = params.certify === false ? Number.NaN : certified();
  const flows: { edge: Edge; x: number; y: number }[] = [];
  edges.forEach((e, k) => {
    answer(k);
    const x = xs[k] as number;
    const y = ys[k] as number;
    if (x > 0 && y > 0) flows.push({ edge: e.arb.edge, x, y });
  });
  let evaluations = 0;
  for (const a of all) evaluations += a.evaluations;
  const prices = new Map<Address, number>();
  for (const t of ratioOf.keys()) {
    const { ratio: r } = components.find(t);
    prices.set(t, (price[componentOf(t)] as number) * r);
  }
  return {
    bound,
    prices,
    unbounded,
    conversions,
    flows,
    value,
    stopped: value <= stopAt,
    sweeps,
    evaluations,
  };
}

/**
 * Sets component c's price where its excess changes sign (the dual is convex in each price, and
 * its derivative, the excess, grows with it): bracketed by doubling or halving, then narrowed on
 * the logarithm by regula falsi; never below `floor`.
 */
function settlePrice(
  c: number,
  excessAt: (c: number, p: number) => number,
  start: number,
  floor: number,
): void {
  let lo = start;
  let hi = start;
  let eLo = excessAt(c, start);
  let eHi = eLo;
  if (eLo === 0) return;
  if (eLo > 0) {
    // Too much of it is left: its price comes down.
    for (let i = 0; i < 200 && eLo > 0 && lo > floor; i++) {
      hi = lo;
      eHi = eLo;
      lo = Math.max(lo / 2, floor);
      eLo = excessAt(c, lo);
    }
    if (eLo > 0) return;
  } else {
    for (let i = 0; i < 200 && eHi < 0; i++) {
      lo = hi;
      eLo = eHi;
      hi *= 2;
      eHi = excessAt(c, hi);
    }
    if (eHi < 0) return;
  }
  let side = 0;
  let p = Math.sqrt(lo * hi);
  for (let i = 0; i < 80 && hi > lo * (1 + 1e-13); i++) {
    const a = Math.log(lo);
    const b = Math.log(hi);
    let m = eHi - eLo > 0 ? a - (eLo * (b - a)) / (eHi - eLo) : (a + b) / 2;
    if (!(m > a && m < b)) m = (a + b) / 2;
    p = Math.exp(m);
    const e = excessAt(c, p);
    if (e === 0) return;
    if (e < 0) {
      lo = p;
      eLo = e;
      if (side === -1) eHi /= 2;
      side = -1;
    } else {
      hi = p;
      eHi = e;
      if (side === 1) eLo /= 2;
      side = 1;
    }
  }
  excessAt(c, p);
}

/** Gradients and steps kept by the quasi-Newton descent. */
const MEMORY = 8;

/**
 * L-BFGS on the logarithms of the `free` prices (a price's gradient is its excess; on its
 * logarithm, the excess times the price), with a backtracking line search that accepts only a
 * lower dual. Leaves `price` at the best point found.
 * @returns the dual there.
 */
function quasiNewton(params: {
  free: readonly number[];
  price: number[];
  floor: readonly number[];
  value: number;
  evaluate: () => { value: number; excess: readonly number[] };
  maxIterations: number;
  /** A step that lowers the dual by less than this fraction ends the descent. */
  tolerance: number;
  /** A dual at or below this ends the descent. */
  stopAt: number;
}): number {
  const { free, price, floor } = params;
  if (free.length === 0 || params.maxIterations <= 0 || params.value <= params.stopAt) {
    return params.value;
  }
  const at = () => free.map((c) => Math.log(price[c] as number));
  const set = (u: readonly number[]) => {
    free.forEach((c, i) => {
      price[c] = Math.max(Math.exp(u[i] as number), floor[c] as number);
    });
  };
  const gradientAt = (excess: readonly number[]) =>
    free.map((c) => (excess[c] as number) * (price[c] as number));
  let point = at();
  let current = params.evaluate();
  let value = current.value;
  let gradient = gradientAt(current.excess);
  const steps: number[][] = [];
  const changes: number[][] = [];
  const dot = (a: readonly number[], b: readonly number[]) => {
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
    return sum;
  };
  for (let iteration = 0; iteration < params.maxIterations; iteration++) {
    // Two-loop recursion: the direction −H·g.
    const q = [...gradient];
    const alphas: number[] = [];
    for (let j = steps.length - 1; j >= 0; j--) {
      const s = steps[j] as number[];
      const yv = changes[j] as number[];
      const alpha = dot(s, q) / dot(yv, s);
      alphas[j] = alpha;
      for (let i = 0; i < q.length; i++) q[i] = (q[i] as number) - alpha * (yv[i] as number);
    }
    const last = steps.length - 1;
    const gamma =
      last >= 0
        ? dot(steps[last] as number[], changes[last] as number[]) /
          dot(changes[last] as number[], changes[last] as number[])
        : 1 /
          Math.max(
            1e-300,
            (Math.max(...gradient.map(Math.abs)) / Math.max(1e-300, Math.abs(value))) * 10,
          );
    for (let i = 0; i < q.length; i++) q[i] = (q[i] as number) * gamma;
    for (let j = 0; j < steps.length; j++) {
      const s = steps[j] as number[];
      const yv = changes[j] as number[];
      const beta = dot(yv, q) / dot(yv, s);
      for (let i = 0; i < q.length; i++)
        q[i] = (q[i] as number) + (s[i] as number) * ((alphas[j] as number) - beta);
    }
    let direction = q.map((v) => -v);
    let slope = dot(direction, gradient);
    if (!(slope < 0)) {
      // Not a descent direction: start over from the gradient.
      steps.length = 0;
      changes.length = 0;
      direction = gradient.map((v) => -v);
      slope = dot(direction, gradient);
      if (!(slope < 0)) break;
    }
    // No logarithm moves by more than 1 (a factor e) in one step.
    const longest = Math.max(...direction.map(Math.abs));
    let t = longest > 1 ? 1 / longest : 1;
    let accepted = false;
    for (let tries = 0; tries < 30; tries++, t /= 2) {
      const trial = point.map((u, i) => u + t * (direction[i] as number));
      set(trial);
      const next = params.evaluate();
      if (next.value <= value + 1e-4 * t * slope) {
        const nextGradient = gradientAt(next.excess);
        const s = trial.map((u, i) => u - (point[i] as number));
        const yv = nextGradient.map((g, i) => g - (gradient[i] as number));
        if (dot(s, yv) > 0) {
          steps.push(s);
          changes.push(yv);
          if (steps.length > MEMORY) {
            steps.shift();
            changes.shift();
          }
        }
        const decrease = value - next.value;
        point = trial;
        value = next.value;
        gradient = nextGradient;
        current = next;
        accepted = true;
        if (decrease <= params.tolerance * Math.abs(value) || value <= params.stopAt) return value;
        break;
      }
    }
    if (!accepted) {
      set(point);
      params.evaluate();
      break;
    }
  }
  return value;
}
