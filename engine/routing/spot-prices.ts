/**
 * Spot prices of every token relative to anchor tokens, read from the graph itself: each token
 * is priced through the path to an anchor whose shallowest pool is the deepest (a widest-path
 * search), so a dust pool never sets the price of a token that also trades in a deep one.
 * Prices are the pools' mid prices (no fee, no size). The search runs on floats and keeps the
 * tree of chosen pools; a token's exact fixed-point price is computed along that tree when
 * asked for. Results are cached per graph and anchor set, and recomputed after the graph
 * changes (or after `maxStaleChanges` changes).
 */
import { poolKindOf } from "../protocols/registry.js";
import { type ApproxSpot, approxSpot } from "./approx-edge.js";
import type { RoutingGraph } from "./graph.js";
import type { Address, Edge } from "./types.js";

/** Prices are fixed-point: the value of one raw unit (wei) of a token × 10^36. */
export const PRICE_SCALE = 10n ** 36n;

export type PriceAnchor = {
  token: Address;
  /** Value of one raw unit of the anchor, × PRICE_SCALE. */
  price: bigint;
};

/** Prices by token (a `ReadonlyMap` satisfies this). */
export type TokenPrices = { get(token: Address): bigint | undefined };

/** Float values by token (a `ReadonlyMap` satisfies this). */
export type TokenValues = { get(token: Address): number | undefined };

export type SpotPrices = {
  /** Value of one raw unit of each priced token, × PRICE_SCALE. */
  prices: TokenPrices;
  /** The same as floats, for ranking (never for amounts). */
  approx: TokenValues;
  /**
   * The depth behind each price, in the anchors' unit: what the shallowest pool on the token's
   * path to an anchor holds on its input side (infinite for an anchor).
   */
  depth: TokenValues;
};

export type SpotPricesParameters = {
  graph: RoutingGraph;
  anchors: readonly PriceAnchor[];
  /**
   * Reuse prices computed up to this many pool changes ago (default 0: always current).
   * Pricing a large graph takes milliseconds; uses that only rank or value gas can take
   * prices a few blocks old.
   */
  maxStaleChanges?: number;
};

/** The exact price of `edge.tokenOut` given the exact price of `edge.tokenIn`. */
function priceAcross(edge: Edge, price: bigint): bigint {
  return poolKindOf(edge.pool).priceAcross(edge, price);
}

type HeapItem = { token: Address; width: number };

/** A max-heap of tokens by width. */
class WidthHeap {
  private readonly items: HeapItem[] = [];

  get size(): number {
    return this.items.length;
  }

  push(item: HeapItem): void {
    const items = this.items;
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as HeapItem;
      if (p.width >= item.width) break;
      items[i] = p;
      i = parent;
    }
    items[i] = item;
  }

  pop(): HeapItem | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child =
          right < items.length && (items[right] as HeapItem).width > (items[left] as HeapItem).width
            ? right
            : left;
        if ((items[child] as HeapItem).width <= last.width) break;
        items[i] = items[child] as HeapItem;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

const cache = new WeakMap<RoutingGraph, Map<string, { version: number; result: SpotPrices }>>();

/**
 * Every token's spot price relative to the anchors (tokens no path reaches have none).
 * @example spotPrices({ graph, anchors: [{ token: weth, price: PRICE_SCALE }] }) // in wei
 */
export function spotPrices(params: SpotPricesParameters): SpotPrices {
  const key = params.anchors.map((a) => `${a.token}:${a.price}`).join(",");
  let perGraph = cache.get(params.graph);
  if (!perGraph) {
    perGraph = new Map();
    cache.set(params.graph, perGraph);
  }
  const hit = perGraph.get(key);
  if (hit && params.graph.version - hit.version <= (params.maxStaleChanges ?? 0)) {
    return hit.result;
  }
  const result = computeSpotPrices(params);
  perGraph.set(key, { version: params.graph.version, result });
  return result;
}

type Priced = { width: number; value: number; parent: Edge | undefined; done: boolean };

function computeSpotPrices({ graph, anchors }: SpotPricesParameters): SpotPrices {
  // One record per token reached: the widest connection so far, the value it gives, and the
  // pool it comes through (the tree the exact prices are computed along).
  const priced = new Map<Address, Priced>();
  const exact = new Map<Address, bigint>();
  const heap = new WidthHeap();
  const spot: ApproxSpot = { rate: 0, depthIn: 0 };
  for (const anchor of anchors) {
    exact.set(anchor.token, anchor.price);
    const value = Number(anchor.price) / Number(PRICE_SCALE);
    priced.set(anchor.token, {
      width: Number.POSITIVE_INFINITY,
      value,
      parent: undefined,
      done: false,
    });
    heap.push({ token: anchor.token, width: Number.POSITIVE_INFINITY });
  }
  while (heap.size > 0) {
    const top = heap.pop() as HeapItem;
    const from = priced.get(top.token) as Priced;
    if (from.done) continue;
    from.done = true;
    for (const edge of graph.edgesFrom(top.token)) {
      const to = priced.get(edge.tokenOut);
      if (to?.done) continue;
      approxSpot(edge, spot);
      if (!(spot.rate > 0) || !(spot.depthIn > 0)) continue;
      const width = Math.min(from.width, spot.depthIn * from.value);
      if (to && width <= to.width) continue;
      const value = from.value / spot.rate;
      if (to) {
        to.width = width;
        to.value = value;
        to.parent = edge;
      } else {
        priced.set(edge.tokenOut, { width, value, parent: edge, done: false });
      }
      heap.push({ token: edge.tokenOut, width });
    }
  }
  // A token only its own pool's terminal edges reach (a V2 pair's LP token) is priced on first
  // use, across the widest of those edges from a priced token.
  const lookup = (token: Address): Priced | undefined => {
    const known = priced.get(token);
    if (known) return known;
    let best: Priced | undefined;
    for (const edge of graph.edgesIntoVia(token, token)) {
      const from = priced.get(edge.tokenIn);
      if (!from) continue;
      approxSpot(edge, spot);
      if (!(spot.rate > 0) || !(spot.depthIn > 0)) continue;
      const width = Math.min(from.width, spot.depthIn * from.value);
      if (!best || width > best.width) {
        best = { width, value: from.value / spot.rate, parent: edge, done: true };
      }
    }
    if (best) priced.set(token, best);
    return best;
  };
  const approx: TokenValues = { get: (token) => lookup(token)?.value };
  const depth: TokenValues = { get: (token) => lookup(token)?.width };
  const prices: TokenPrices = {
    get(token) {
      const known = exact.get(token);
      if (known !== undefined) return known;
      const edge = lookup(token)?.parent;
      if (!edge) return undefined;
      const from = prices.get(edge.tokenIn);
      if (from === undefined) return undefined;
      const price = priceAcross(edge, from);
      exact.set(token, price);
      return price;
    },
  };
  return { prices, approx, depth };
}
