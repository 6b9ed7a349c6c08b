/**
 * Spot prices of every token relative to anchor tokens, read from the graph itself: each token
 * is priced through the path to an anchor whose shallowest pool is the deepest (a widest-path
 * search), so a dust pool never sets the price of a token that also trades in a deep one.
 * Prices are the pools' mid prices (no fee, no size). The search runs on floats and keeps the
 * tree of chosen pools; a token's exact fixed-point price is computed along that tree when
 * asked for. A pool's own token the pool backs (a Balancer weighted pool's BPT, a Uniswap V2
 * fork's LP token; the pool model's `backing`) is priced at its share of the pool's reserves,
 * each at its own price. Results are cached per graph and anchor set, and recomputed after the graph
 * changes (or after `maxStaleChanges` changes): on the spot, or ahead of time in steps
 * ({@link staleSpotPrices}), which is how a large graph is repriced without holding the thread.
 */

import type { ApproxSpot } from "../core/quote.js";
import type { Address, Edge } from "../core/types.js";
import type { RoutingGraph } from "./graph.js";
import type { PoolBacking } from "./pool-model.js";

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
  /** The graph's block (and its timestamp) when these prices were computed from it. */
  blockNumber: bigint;
  blockTimestamp: bigint;
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

/** The share of a graph's pools that may change before prices used for ranking are recomputed. */
const PRICE_STALENESS = 0.01;

/**
 * How many pool changes prices that only rank, value gas or report may trail `graph` by:
 * {@link PRICE_STALENESS} of its pools (0 below 100 pools: a small graph is always current).
 */
export function priceStaleness(graph: RoutingGraph): number {
  return Math.floor(graph.size * PRICE_STALENESS);
}

type CacheEntry = {
  anchors: readonly PriceAnchor[];
  version: number;
  result: SpotPrices;
  /** A recomputation under way ({@link staleSpotPrices}), if any. */
  running?: SpotPriceRun;
};

const cache = new WeakMap<RoutingGraph, Map<string, CacheEntry>>();

const anchorsKey = (anchors: readonly PriceAnchor[]) =>
  anchors.map((a) => `${a.token}:${a.price}`).join(",");

function cacheOf(graph: RoutingGraph): Map<string, CacheEntry> {
  let perGraph = cache.get(graph);
  if (!perGraph) {
    perGraph = new Map();
    cache.set(graph, perGraph);
  }
  return perGraph;
}

/** Keeps `result`, computed from `graph` at `version`, unless a newer one is already kept. */
function keep(
  graph: RoutingGraph,
  anchors: readonly PriceAnchor[],
  version: number,
  result: SpotPrices,
): void {
  const perGraph = cacheOf(graph);
  const key = anchorsKey(anchors);
  const held = perGraph.get(key);
  if (held && held.version >= version) return;
  perGraph.set(key, { anchors, version, result, running: held?.running });
}

/**
 * Every token's spot price relative to the anchors (tokens no path reaches have none).
 * @example spotPrices({ graph, anchors: [{ token: weth, price: PRICE_SCALE }] }) // in wei
 */
export function spotPrices(params: SpotPricesParameters): SpotPrices {
  const { graph, anchors } = params;
  const hit = cacheOf(graph).get(anchorsKey(anchors));
  if (hit && graph.version - hit.version <= (params.maxStaleChanges ?? 0)) return hit.result;
  const run = new SpotPriceRun(graph, anchors);
  run.advance(Number.POSITIVE_INFINITY);
  return run.result;
}

/** A recomputation of prices, run in steps (the graph may change between them). */
export type SpotPriceStep = {
  /**
   * Walks up to `edges` more edges; returns true once the prices are computed and kept (what
   * `spotPrices` returns from then on, unless newer prices were computed meanwhile).
   */
  advance(edges: number): boolean;
};

/**
 * Recomputations of the prices of every anchor set asked of `graph` so far whose prices trail
 * it by more than `changes` pool changes (and are not being recomputed already): the caller
 * runs each in steps, so that repricing a large graph never holds the thread for long.
 */
export function staleSpotPrices(graph: RoutingGraph, changes: number): SpotPriceStep[] {
  const steps: SpotPriceStep[] = [];
  for (const entry of cacheOf(graph).values()) {
    if (entry.running || graph.version - entry.version <= changes) continue;
    const run = new SpotPriceRun(graph, entry.anchors);
    entry.running = run;
    steps.push({
      advance(edges) {
        if (!run.advance(edges)) return false;
        // The entry may have been replaced meanwhile (by newer prices, which stay).
        const current = cacheOf(graph).get(anchorsKey(entry.anchors));
        if (current?.running === run) current.running = undefined;
        return true;
      },
    });
  }
  return steps;
}

type Priced = {
  width: number;
  value: number;
  parent: Edge | undefined;
  done: boolean;
  /** A token priced at its share of a pool's reserves (no edge reaches it). */
  backing?: PoolBacking;
};

/**
 * A widest-path search from the anchors over the graph, resumable: `advance` walks a bounded
 * number of edges at a time. One record per token reached holds the widest connection so far,
 * the value it gives, and the pool it comes through (the tree the exact prices are computed
 * along). Done, it keeps its prices in the cache, as of the graph's version when it started.
 */
class SpotPriceRun {
  private readonly priced = new Map<Address, Priced>();
  private readonly exact = new Map<Address, bigint>();
  private readonly heap = new WidthHeap();
  private readonly spot: ApproxSpot = { rate: 0, depthIn: 0 };
  /** The graph's version, block and block timestamp when the run started: what it reflects. */
  private readonly version: number;
  private readonly blockNumber: bigint;
  private readonly blockTimestamp: bigint;
  /** The token whose edges are being walked, its edges and the next one to walk. */
  private from: Priced | undefined;
  private edges: readonly Edge[] = [];
  private next = 0;
  private finished = false;
  /** The prices, once computed. */
  result!: SpotPrices;

  constructor(
    private readonly graph: RoutingGraph,
    private readonly anchors: readonly PriceAnchor[],
  ) {
    this.version = graph.version;
    this.blockNumber = graph.blockNumber;
    this.blockTimestamp = graph.blockTimestamp;
    for (const anchor of anchors) {
      this.exact.set(anchor.token, anchor.price);
      const value = Number(anchor.price) / Number(PRICE_SCALE);
      this.priced.set(anchor.token, {
        width: Number.POSITIVE_INFINITY,
        value,
        parent: undefined,
        done: false,
      });
      this.heap.push({ token: anchor.token, width: Number.POSITIVE_INFINITY });
    }
  }

  advance(budget: number): boolean {
    if (this.finished) return true;
    const { priced, heap, spot } = this;
    let walked = 0;
    for (;;) {
      const from = this.from;
      if (from) {
        const edges = this.edges;
        while (this.next < edges.length) {
          if (walked >= budget) return false;
          walked++;
          const edge = edges[this.next++] as Edge;
          const to = priced.get(edge.tokenOut);
          if (to?.done) continue;
          this.graph.models.approxSpot(edge, spot);
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
        this.from = undefined;
      }
      const top = heap.pop();
      if (!top) break;
      const popped = priced.get(top.token) as Priced;
      if (popped.done) continue;
      popped.done = true;
      this.from = popped;
      this.edges = this.graph.edgesFrom(top.token);
      this.next = 0;
    }
    this.finished = true;
    this.edges = [];
    this.result = this.prices();
    keep(this.graph, this.anchors, this.version, this.result);
    return true;
  }

  /** The prices along the tree the search built. */
  private prices(): SpotPrices {
    const { graph, priced, exact, spot } = this;
    // A token only its own pool's terminal edges reach (a V2 pair's LP token) is priced on
    // first use, across the widest of those edges from a priced token.
    const lookup = (token: Address): Priced | undefined => {
      const known = priced.get(token);
      if (known) return known;
      // A token its own pool backs (a weighted pool's BPT, a fork's LP token) is worth its share
      // of all the pool's reserves, which one edge's marginal rate from one of them is not.
      let best = backed(token);
      if (!best) {
        for (const edge of graph.edgesIntoVia(token, token)) {
          const from = priced.get(edge.tokenIn);
          if (!from) continue;
          this.graph.models.approxSpot(edge, spot);
          if (!(spot.rate > 0) || !(spot.depthIn > 0)) continue;
          const width = Math.min(from.width, spot.depthIn * from.value);
          if (!best || width > best.width) {
            best = { width, value: from.value / spot.rate, parent: edge, done: true };
          }
        }
      }
      if (best) priced.set(token, best);
      return best;
    };
    // A pool's own token that the pool backs (a weighted pool's BPT) is worth its share of the
    // pool's reserves, each at its own price; the depth behind it is at most the reserves' value. A
    // token whose backing leads back to itself is not priced that way.
    const valuing = new Set<Address>();
    const backed = (token: Address): Priced | undefined => {
      const pool = graph.pool(token);
      const backing = pool && graph.models.backing(pool);
      if (!backing || backing.token !== token || backing.supply <= 0n || valuing.has(token)) {
        return undefined;
      }
      valuing.add(token);
      try {
        let value = 0;
        let width = Number.POSITIVE_INFINITY;
        for (const reserve of backing.reserves) {
          const underlying = lookup(reserve.token);
          if (!underlying) return undefined;
          value += Number(reserve.amount) * underlying.value;
          width = Math.min(width, underlying.width);
        }
        return {
          width: Math.min(width, value),
          value: value / Number(backing.supply),
          parent: undefined,
          done: true,
          backing,
        };
      } finally {
        valuing.delete(token);
      }
    };
    const approx: TokenValues = { get: (token) => lookup(token)?.value };
    const depth: TokenValues = { get: (token) => lookup(token)?.width };
    const prices: TokenPrices = {
      get(token) {
        const known = exact.get(token);
        if (known !== undefined) return known;
        const found = lookup(token);
        if (found?.backing) {
          let total = 0n;
          for (const reserve of found.backing.reserves) {
            const price = prices.get(reserve.token);
            if (price === undefined) return undefined;
            total += reserve.amount * price;
          }
          const price = total / found.backing.supply;
          exact.set(token, price);
          return price;
        }
        const edge = found?.parent;
        if (!edge) return undefined;
        const from = prices.get(edge.tokenIn);
        if (from === undefined) return undefined;
        const price = graph.models.priceAcross(edge, from);
        exact.set(token, price);
        return price;
      },
    };
    return {
      prices,
      approx,
      depth,
      blockNumber: this.blockNumber,
      blockTimestamp: this.blockTimestamp,
    };
  }
}
