/**
 * Each token's edges ordered by how deep their pools are on that token's side, so the search
 * can follow a hub token's deepest pools instead of all its thousands. Depth is in the token's
 * own raw units (no price needed: every edge leaving a token is measured in that token).
 */

import type { Address, Edge } from "../core/types.js";
import type { RoutingGraph } from "./graph.js";

type Ranking = {
  members: number;
  pools: Address[];
  /** The first n edges at the token's edge state `state` (the pools' current edges). */
  state: number;
  heads: Map<number, readonly Edge[]>;
};

const rankings = new WeakMap<RoutingGraph, Map<string, Ranking>>();

/**
 * The first `n` edges leaving (`out`) or reaching (`in`) `token`, deepest first. The order of
 * the pools is kept until a pool joins or leaves the token (ranking a hub's thousands of pools
 * costs milliseconds; depths moving with trades do not make the order useless); the edges
 * returned are always the pools' current ones, rebuilt when the token's edges change.
 */
function deepest(
  graph: RoutingGraph,
  token: Address,
  side: "out" | "in",
  n: number,
): readonly Edge[] {
  const degree = side === "out" ? graph.degreeFrom(token) : graph.degreeInto(token);
  if (n >= degree) return side === "out" ? graph.edgesFrom(token) : graph.edgesInto(token);
  let perGraph = rankings.get(graph);
  if (!perGraph) {
    perGraph = new Map();
    rankings.set(graph, perGraph);
  }
  const key = side + token;
  const members = graph.poolSetVersion(token, side);
  const state = graph.edgeStateVersion(token, side);
  let ranking = perGraph.get(key);
  if (!ranking || ranking.members !== members) {
    const all = side === "out" ? graph.edgesFrom(token) : graph.edgesInto(token);
    const depthSide = side === "out" ? "in" : "out";
    const byPool = new Map<Address, number>();
    for (const edge of all) {
      const depth = graph.models.depth(edge, depthSide);
      byPool.set(edge.pool.address, Math.max(depth, byPool.get(edge.pool.address) ?? 0));
    }
    const pools = [...byPool.keys()].sort(
      (a, b) => (byPool.get(b) as number) - (byPool.get(a) as number),
    );
    ranking = { members, pools, state, heads: new Map() };
    perGraph.set(key, ranking);
  }
  if (ranking.state !== state) {
    ranking.state = state;
    ranking.heads = new Map();
  }
  let result = ranking.heads.get(n);
  if (!result) {
    const edges: Edge[] = [];
    for (const pool of ranking.pools) {
      if (edges.length >= n) break;
      const via =
        side === "out" ? graph.edgesFromVia(token, pool) : graph.edgesIntoVia(token, pool);
      for (const edge of via) edges.push(edge);
    }
    result = edges;
    ranking.heads.set(n, result);
  }
  return result;
}

/** The `n` edges leaving `token` through its deepest pools (in `token`). */
export function deepestEdgesFrom(graph: RoutingGraph, token: Address, n: number): readonly Edge[] {
  return deepest(graph, token, "out", n);
}

/** The `n` edges reaching `token` through its deepest pools (in `token`). */
export function deepestEdgesInto(graph: RoutingGraph, token: Address, n: number): readonly Edge[] {
  return deepest(graph, token, "in", n);
}
