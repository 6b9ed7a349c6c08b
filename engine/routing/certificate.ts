/**
 * A route's certificate: how far its output net of gas can be from the best flow over the pools
 * its search chose from (`candidateEdges`), by the dual bound of flow-bound.ts. No flow through
 * those pools — split and merged at any token, not only whole paths — yields more than the
 * bound; a flow pays at least a route's fixed gas and the steps of its cheapest whole path, so the
 * best net output is at most the bound less that. The gap is the route's shortfall from that ceiling.
 */
import { type Address, type Edge, type RouteQuote, routeHops } from "../core/types.js";
import { flowBound } from "./flow-bound.js";
import { ROUTE_BASE_GAS } from "./gas.js";
import { candidateEdges, type FindRouteParameters } from "./search.js";

export type RouteCertificate = {
  /** No flow over the candidate pools yields more tokenOut (raw units, gross of gas). */
  bound: number;
  /** The best net output is at most this (raw units of tokenOut). */
  netBound: number;
  /** The route's net output's shortfall from `netBound`, in basis points of it (≥ 0). */
  gapBps: number;
  /** The candidate edges bounded over. */
  edges: number;
  /** Float quotes the bound took. */
  evaluations: number;
};

/**
 * The certificate of `quote`, the answer of `findRoute(params)`.
 * @example const { gapBps } = certifyRoute(params, quote); // ≤ 1: within a basis point
 */
export function certifyRoute(
  params: FindRouteParameters,
  quote: RouteQuote,
  edges: readonly Edge[] = candidateEdges(params),
): RouteCertificate {
  // The route's own pools are among those bounded over, so the bound is at least its output.
  const all = new Set<Edge>(edges);
  for (const hop of routeHops(quote)) all.add(hop.edge);
  const result = flowBound({
    models: params.graph.models,
    edges: [...all],
    tokenIn: quote.tokenIn,
    tokenOut: quote.tokenOut,
    amountIn: Number(quote.amountIn),
  });
  // Any flow pays a route's fixed gas and the steps of at least one whole path; gas is valued
  // linearly (what the route's units cost, per unit).
  const perUnit =
    quote.gasUnits > 0n ? Number(quote.gasCostInTokenOut) / Number(quote.gasUnits) : 0;
  const leastGas =
    perUnit > 0 ? perUnit * (ROUTE_BASE_GAS + cheapestPathGas(params, [...all], quote)) : 0;
  const netBound = result.bound - leastGas;
  const net = Number(quote.amountOut) - Number(quote.gasCostInTokenOut);
  const gapBps = netBound > 0 ? Math.max(0, ((netBound - net) / netBound) * 10_000) : 0;
  return {
    bound: result.bound,
    netBound,
    gapBps,
    edges: all.size,
    evaluations: result.evaluations,
  };
}

/** The least gas of the steps of any path from tokenIn to tokenOut over `edges` (Dijkstra). */
function cheapestPathGas(params: FindRouteParameters, edges: Edge[], quote: RouteQuote): number {
  const from = new Map<Address, Edge[]>();
  for (const e of edges) {
    const list = from.get(e.tokenIn);
    if (list) list.push(e);
    else from.set(e.tokenIn, [e]);
  }
  const best = new Map<Address, number>([[quote.tokenIn, 0]]);
  const done = new Set<Address>();
  for (;;) {
    let at: Address | undefined;
    let gas = Number.POSITIVE_INFINITY;
    for (const [t, g] of best) {
      if (!done.has(t) && g < gas) {
        at = t;
        gas = g;
      }
    }
    if (at === undefined) return 0;
    if (at === quote.tokenOut) return gas;
    done.add(at);
    for (const e of from.get(at) ?? []) {
      const through = gas + params.graph.models.gas(e, 0);
      if (through < (best.get(e.tokenOut) ?? Number.POSITIVE_INFINITY))
        best.set(e.tokenOut, through);
    }
  }
}
