/**
 * Candidate paths from tokenIn to tokenOut, ranked by their approximate output net of gas
 * (the float shadows of the pool math, `PoolModels.approx`). A layered search: layer d holds,
 * per token, the best few partial paths of d hops by their amount net of their gas so far,
 * valued in that token (at most one per first pool, so that alternatives that can run side by
 * side in a split survive).
 *
 * What keeps it fast on a graph of thousands of pools around hub tokens:
 * - the first hop follows tokenIn's `firstHopEdges` deepest pools, plus every pool from
 *   tokenIn to a token with one of tokenOut's deepest pools, plus every direct pool;
 * - paths are extended beyond the first hop only from the `expandTokens` tokens whose partial
 *   paths are worth most (amount × spot price), and only along each token's `edgesPerToken`
 *   deepest pools — the last hop before tokenOut also searched from the tokenOut side (the
 *   deepest pools into tokenOut, and their tokens' deepest pools), so a path meets in the
 *   middle from whichever side is narrow;
 * - the hop into tokenOut is taken from those most valuable partial paths through any pool,
 *   and from any partial path through tokenOut's `edgesPerToken` deepest pools.
 * A token with fewer pools than the limits (most tokens) has all of them searched: the limits
 * only thin out hub tokens, where the long tail's shallow pools never make the best path. If
 * the limited search finds no path at all, an unlimited one runs, so that "no path" and
 * "cannot fill" are never artefacts of pruning.
 */

import type { ApproxQuote } from "../core/quote.js";
import type { Address, Edge } from "../core/types.js";
import { deepestEdgesFrom, deepestEdgesInto } from "./edge-ranking.js";
import type { RoutingGraph } from "./graph.js";

/** A path and what the float model says it yields for the whole amount. */
export type CandidatePath = {
  edges: Edge[];
  approxOut: number;
  /** Gas of the path's steps (without the route's fixed part). */
  approxGas: number;
  /** approxOut minus the steps' gas (and the hops' L1 data fee) valued in tokenOut. */
  approxNet: number;
};

export type CandidateLimits = {
  /** tokenIn's deepest pools taken for the first hop (default 128). */
  firstHopEdges: number;
  /** Tokens of a layer whose partial paths are extended further (default 24). */
  expandTokens: number;
  /** Deepest pools followed from (or into) a token past the first hop (default 24). */
  edgesPerToken: number;
  /** Partial paths kept per token and layer (default 3: the best pools in parallel). */
  beam: number;
};

export type FindCandidatePathsParameters = {
  graph: RoutingGraph;
  tokenIn: Address;
  tokenOut: Address;
  /** The amount in raw units, as a float. */
  amountIn: number;
  maxHops: number;
  /** tokenOut raw units one gas unit costs (0 when gas is not valued). */
  gasToOut: number;
  /**
   * tokenOut raw units each hop costs besides its gas: the L1 data fee of its calldata on a chain
   * that charges one (default 0).
   */
  hopCostToOut?: number;
  /** How many paths to return at most. */
  limit: number;
  /** Approximate value of one raw unit of a token (any common unit), for pruning. */
  unitValue: (token: Address) => number | undefined;
  limits?: Partial<CandidateLimits>;
  /** Pools no path may use (a stateless pool, such as the wrapper, is never excluded). */
  excludePools?: ReadonlySet<Address>;
  /** Whether a path may use an edge at all (default every edge): what the route can execute. */
  admits?: (edge: Edge) => boolean;
  /**
   * Whether to search again without limits when the limited search finds no path at all, to
   * tell "no path" apart exactly (default true; a caller only looking for more paths need not).
   */
  exactConnectivity?: boolean;
};

export type CandidatePathsResult = {
  /**
   * The `limit` best fillable paths, best first, then (for splits) the best path for each pair
   * of first and last pool that is not among them (at most `2 × limit` more).
   */
  paths: CandidatePath[];
  /** Whether any path of at most maxHops joins the two tokens, fillable or not. */
  connected: boolean;
};

const DEFAULT_LIMITS: CandidateLimits = {
  firstHopEdges: 128,
  expandTokens: 24,
  edgesPerToken: 24,
  beam: 3,
};

type Node = {
  token: Address;
  edge: Edge | undefined;
  prev: Node | undefined;
  /** The path's first pool (distinct first pools make pool-disjoint splits possible). */
  first: Address | undefined;
  amount: number;
  gas: number;
  /**
   * The amount less what the gas so far costs in this token (the amount when gas is not valued
   * or the token has no price): what the beam keeps partial paths by, so that a pool cheaper to
   * cross is not crowded out by ones that yield a little more before gas.
   */
  worth: number;
  /** Hops so far. */
  hops: number;
};

type Layer = Map<Address, Node[]>;

type Complete = { node: Node; edge: Edge; out: number; gas: number; net: number };

function visits(node: Node | undefined, token: Address): boolean {
  for (let n = node; n; n = n.prev) if (n.token === token) return true;
  return false;
}

/** Whether the partial path already goes through `pool` (a pool's state is used once per path). */
function usesPool(node: Node | undefined, pool: Edge["pool"]): boolean {
  for (let n = node; n?.edge; n = n.prev) if (n.edge.pool.address === pool.address) return true;
  return false;
}

function edgesOf(node: Node, last: Edge): Edge[] {
  const edges: Edge[] = [last];
  for (let n: Node | undefined = node; n?.edge; n = n.prev) edges.push(n.edge);
  return edges.reverse();
}

/** Ranks the paths of up to `maxHops` hops; see the module comment. */
export function findCandidatePaths(params: FindCandidatePathsParameters): CandidatePathsResult {
  // Nothing leaves tokenIn or nothing reaches tokenOut: no path, without searching the graph
  // (an unlimited search from a hub token walks all of it).
  if (
    params.graph.degreeFrom(params.tokenIn) === 0 ||
    params.graph.degreeInto(params.tokenOut) === 0
  ) {
    return { paths: [], connected: false };
  }
  const limited = search(params, { ...DEFAULT_LIMITS, ...params.limits });
  if (limited.connected || params.exactConnectivity === false) return limited;
  return search(params, undefined);
}

/** One search; `limits` undefined: every edge, and connectivity tracked exactly. */
function search(
  params: FindCandidatePathsParameters,
  limits: CandidateLimits | undefined,
): CandidatePathsResult {
  const { graph, tokenIn, tokenOut, maxHops, gasToOut, limit, unitValue } = params;
  const hopCost = params.hopCostToOut ?? 0;
  const beam = limits?.beam ?? DEFAULT_LIMITS.beam;
  const perToken = limits?.edgesPerToken ?? Number.POSITIVE_INFINITY;
  const expandTokens = limits?.expandTokens ?? Number.POSITIVE_INFINITY;
  const quote: ApproxQuote = { out: 0, ticksCrossed: 0 };
  const root: Node = {
    token: tokenIn,
    edge: undefined,
    prev: undefined,
    first: undefined,
    amount: params.amountIn,
    gas: 0,
    worth: params.amountIn,
    hops: 0,
  };
  // Wei (or whatever unit unitValue counts in) one gas unit costs.
  const gasValue = gasToOut > 0 ? gasToOut * (unitValue(tokenOut) ?? 0) : 0;
  /** `amount` of `token` less `gas` valued in it. */
  const worthOf = (token: Address, amount: number, gas: number) => {
    if (gasValue === 0) return amount;
    const value = unitValue(token);
    return value === undefined || !(value > 0) ? amount : amount - (gas * gasValue) / value;
  };
  const deepInto = deepestEdgesInto(graph, tokenOut, perToken);
  // Tokens through which a path of three or more hops may reach tokenOut.
  const feeders = new Set<Address>();
  for (const edge of deepInto) feeders.add(edge.tokenIn);
  feeders.delete(tokenIn);
  // Only an unlimited search tracks every token reached (proof of a path that cannot fill).
  const reached: Set<Address>[] = [new Set([tokenIn])];
  let sawPath = false;

  const excluded = params.excludePools;
  const admits = params.admits;
  const usable = (edge: Edge) =>
    (!excluded?.has(edge.pool.address) || graph.models.stateless(edge.pool)) &&
    (admits === undefined || admits(edge));
  const extend = (node: Node, edge: Edge, layer: Layer, seen: Set<Address> | undefined) => {
    const token = edge.tokenOut;
    if (token === tokenOut || visits(node, token) || !usable(edge)) return;
    if (usesPool(node, edge.pool)) return;
    seen?.add(token);
    graph.models.approx(edge, node.amount, quote);
    const amount = quote.out;
    if (!(amount > 0)) return;
    const gas = node.gas + graph.models.gas(edge, quote.ticksCrossed);
    const worth = worthOf(token, amount, gas);
    let nodes = layer.get(token);
    if (nodes && nodes.length >= beam && (nodes[nodes.length - 1] as Node).worth >= worth) return;
    const first = node.first ?? edge.pool.address;
    // One partial path per first pool: the beam keeps alternatives that can run in parallel.
    const twin = nodes?.findIndex((n) => n.first === first) ?? -1;
    if (nodes && twin >= 0) {
      if ((nodes[twin] as Node).worth >= worth) return;
      nodes.splice(twin, 1);
    }
    const next: Node = { token, edge, prev: node, first, amount, gas, worth, hops: node.hops + 1 };
    if (!nodes) {
      nodes = [];
      layer.set(token, nodes);
    }
    let i = nodes.length;
    while (i > 0 && (nodes[i - 1] as Node).worth < worth) i--;
    nodes.splice(i, 0, next);
    if (nodes.length > beam) nodes.pop();
  };

  /** The tokens of a layer worth extending: the most valuable partial paths. */
  const expandableOf = new Map<Layer, Layer>();
  const expandable = (layer: Layer): Layer => {
    if (layer.size <= expandTokens) return layer;
    const cached = expandableOf.get(layer);
    if (cached) return cached;
    const values = new Map<Address, number>();
    for (const [token, nodes] of layer) {
      const price = unitValue(token);
      values.set(token, price === undefined ? 0 : (nodes[0] as Node).amount * price);
    }
    const sorted = Float64Array.from(values.values()).sort();
    const threshold = sorted[sorted.length - expandTokens] as number;
    const kept: Layer = new Map();
    for (const [token, nodes] of layer) {
      if ((values.get(token) as number) >= threshold) kept.set(token, nodes);
    }
    expandableOf.set(layer, kept);
    return kept;
  };

  const layers: Layer[] = [new Map([[tokenIn, [root]]])];
  for (let depth = 1; depth < maxHops; depth++) {
    const previous = layers[depth - 1] as Layer;
    const layer: Layer = new Map();
    const seen = limits ? undefined : new Set<Address>();
    if (depth === 1) {
      if (!limits || graph.degreeFrom(tokenIn) <= limits.firstHopEdges) {
        for (const edge of graph.edgesFrom(tokenIn)) extend(root, edge, layer, seen);
      } else {
        for (const edge of deepestEdgesFrom(graph, tokenIn, limits.firstHopEdges)) {
          extend(root, edge, layer, seen);
        }
        // Towards tokenOut's deepest pools, however shallow the first pool (beam dedupes).
        for (const feeder of feeders) {
          for (const edge of graph.edgesBetween(tokenIn, feeder)) {
            if (!layer.get(feeder)?.some((n) => n.edge === edge)) extend(root, edge, layer, seen);
          }
        }
      }
    } else {
      const sources = expandable(previous);
      const last = depth === maxHops - 1;
      const done = new Set<Edge>();
      for (const [token, nodes] of sources) {
        for (const edge of deepestEdgesFrom(graph, token, perToken)) {
          if (last && !feeders.has(edge.tokenOut)) continue;
          done.add(edge);
          for (const node of nodes) extend(node, edge, layer, seen);
        }
      }
      if (last) {
        // The same hop found from the tokenOut side: the feeders' deepest pools.
        for (const feeder of feeders) {
          for (const edge of deepestEdgesInto(graph, feeder, perToken)) {
            const nodes = sources.get(edge.tokenIn);
            if (!nodes || done.has(edge)) continue;
            done.add(edge);
            for (const node of nodes) extend(node, edge, layer, seen);
          }
        }
        // And every pool straight from a source to a feeder: between two hubs there are few,
        // and they can rank below both hubs' deepest (without them a tail token's path through
        // its hub to another tail token's hub is found only by the unlimited search).
        if (limits) {
          for (const [token, nodes] of sources) {
            for (const feeder of feeders) {
              for (const edge of graph.edgesBetween(token, feeder)) {
                if (done.has(edge)) continue;
                done.add(edge);
                for (const node of nodes) extend(node, edge, layer, seen);
              }
            }
          }
        }
      }
    }
    layers.push(layer);
    if (seen) reached.push(seen);
  }

  // Complete into tokenOut, keeping the `limit` best by net output.
  const best: Complete[] = [];
  // Splits need pool-disjoint paths: the best path for each pair of a first pool (out of
  // tokenIn) and a last pool (into tokenOut) is kept too, however far down the ranking.
  // By first pool, then last pool: the index of the pair's entry in `byEnds`, kept in the order
  // the pairs were first met.
  const endsIndex = new Map<Address, Map<Address, number>>();
  const byEnds: Complete[] = [];
  const complete = (node: Node, edge: Edge) => {
    if (!usable(edge) || usesPool(node, edge.pool)) return;
    sawPath = true;
    graph.models.approx(edge, node.amount, quote);
    const out = quote.out;
    if (!(out > 0)) return;
    const gas = node.gas + graph.models.gas(edge, quote.ticksCrossed);
    const net = out - gas * gasToOut - (node.hops + 1) * hopCost;
    const first = node.first ?? edge.pool.address;
    let lasts = endsIndex.get(first);
    if (!lasts) {
      lasts = new Map();
      endsIndex.set(first, lasts);
    }
    const at = lasts.get(edge.pool.address);
    const better = at === undefined || net > (byEnds[at] as Complete).net;
    const ranked = best.length < limit || (best[best.length - 1] as Complete).net < net;
    if (!better && !ranked) return;
    const c: Complete = { node, edge, out, gas, net };
    if (at === undefined) {
      lasts.set(edge.pool.address, byEnds.length);
      byEnds.push(c);
    } else if (better) {
      byEnds[at] = c;
    }
    if (!ranked) return;
    let i = best.length;
    while (i > 0 && (best[i - 1] as Complete).net < net) i--;
    best.splice(i, 0, c);
    if (best.length > limit) best.pop();
  };
  let connected = false;
  if (!limits) {
    for (const edge of graph.edgesInto(tokenOut)) {
      for (let depth = 0; depth < layers.length; depth++) {
        if ((reached[depth] as Set<Address>).has(edge.tokenIn) && usable(edge)) connected = true;
        const nodes = (layers[depth] as Layer).get(edge.tokenIn);
        if (nodes) for (const node of nodes) complete(node, edge);
      }
    }
  } else {
    // From the most valuable partial paths of each layer through any pool into tokenOut...
    for (let depth = 0; depth < layers.length; depth++) {
      for (const [token, nodes] of depth === 0
        ? (layers[0] as Layer)
        : expandable(layers[depth] as Layer)) {
        for (const edge of graph.edgesBetween(token, tokenOut)) {
          for (const node of nodes) complete(node, edge);
        }
      }
    }
    // ...and from any partial path through tokenOut's deepest pools.
    for (const edge of deepInto) {
      for (let depth = 1; depth < layers.length; depth++) {
        const layer = layers[depth] as Layer;
        const nodes = layer.get(edge.tokenIn);
        if (!nodes || expandable(layer).has(edge.tokenIn)) continue;
        for (const node of nodes) complete(node, edge);
      }
    }
    connected = sawPath;
  }
  const kept = new Set(best);
  const diverse = byEnds.filter((c) => !kept.has(c)).sort((a, b) => b.net - a.net);
  best.push(...diverse.slice(0, 2 * limit));
  return {
    connected,
    paths: best.map((c) => ({
      edges: edgesOf(c.node, c.edge),
      approxOut: c.out,
      approxGas: c.gas,
      approxNet: c.net,
    })),
  };
}
