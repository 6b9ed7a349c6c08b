/**
 * The routing graph: pools keyed by address, and the directed edges they contribute (from the
 * protocol folders in `engine/protocols/`) indexed by the token they leave and the token they reach.
 * Upserting or removing a pool touches only that pool's tokens; nothing is rebuilt wholesale.
 * A pool's terminal edges (into and out of its own token, such as a V2 pair's LP token) are not
 * indexed: they are added to that token's own lookups only, so they begin or end a route and a
 * search never passes through them.
 */
import type { Address, Edge, Pool } from "../core/types.js";
import type { PoolModels } from "./pool-model.js";

/** How a pool's edges are derived. */
export type EdgesOf = (pool: Pool) => Edge[];

/** A pool's terminal edges, out of (`from`) and into (`into`) its own token. */
type Terminal = { from: readonly Edge[]; into: readonly Edge[] };
const NO_TERMINAL: Terminal = { from: [], into: [] };

const NO_EDGES: readonly Edge[] = [];

/**
 * The edges at one token, grouped by pool; the flat list is rebuilt lazily after a change.
 * Most tokens of a large graph have one pool: such a token holds it without a map (a graph of
 * 550,000 tokens would otherwise allocate over a million maps as it loads).
 */
class TokenEdges {
  /** The only pool while there is one, and its edges. */
  private onlyPool: Address | undefined;
  private onlyEdges: Edge[] | undefined;
  /** Every pool once there are two or more. */
  private many: Map<Address, Edge[]> | undefined;
  /** Counts pools joining or leaving (not state changes): caches of the pool set key on it. */
  members = 0;
  /** Counts every change, state changes included. */
  changes = 0;
  private flat: readonly Edge[] | undefined;

  /** Number of pools. */
  get size(): number {
    return this.many ? this.many.size : this.onlyPool === undefined ? 0 : 1;
  }

  /** The edges of one pool at this token. */
  get(pool: Address): Edge[] | undefined {
    if (this.many) return this.many.get(pool);
    return pool === this.onlyPool ? this.onlyEdges : undefined;
  }

  /** Each pool's edges at this token. */
  *groups(): IterableIterator<Edge[]> {
    if (this.many) yield* this.many.values();
    else if (this.onlyEdges) yield this.onlyEdges;
  }

  set(pool: Address, edges: Edge[]): void {
    this.changes++;
    this.flat = undefined;
    if (this.many) {
      const size = this.many.size;
      this.many.set(pool, edges);
      if (this.many.size !== size) this.members++;
    } else if (this.onlyPool === undefined || this.onlyPool === pool) {
      if (this.onlyPool === undefined) this.members++;
      this.onlyPool = pool;
      this.onlyEdges = edges;
    } else {
      this.many = new Map([
        [this.onlyPool, this.onlyEdges as Edge[]],
        [pool, edges],
      ]);
      this.onlyPool = undefined;
      this.onlyEdges = undefined;
      this.members++;
    }
  }

  delete(pool: Address): void {
    let removed: boolean;
    if (this.many) {
      removed = this.many.delete(pool);
    } else {
      removed = pool === this.onlyPool;
      if (removed) {
        this.onlyPool = undefined;
        this.onlyEdges = undefined;
      }
    }
    if (removed) {
      this.members++;
      this.changes++;
      this.flat = undefined;
    }
  }

  list(): readonly Edge[] {
    if (this.flat === undefined) {
      if (!this.many) {
        // One pool: its own edges are the list.
        this.flat = this.onlyEdges ?? NO_EDGES;
      } else {
        const flat: Edge[] = [];
        for (const edges of this.many.values()) for (const edge of edges) flat.push(edge);
        this.flat = flat;
      }
    }
    return this.flat;
  }
}

export type RoutingGraphParameters = {
  /**
   * The models of the pools the graph holds (an engine's: `createEngine().createGraph()`):
   * their edges, and everything a search asks of a pool.
   */
  models: PoolModels;
  /** Edge derivation; defaults to the models' ({@link PoolModels.edges}). */
  edgesOf?: EdgesOf;
  /** Terminal edge derivation; defaults to the models' ({@link PoolModels.terminalEdges}). */
  terminalEdgesOf?: EdgesOf;
};

/**
 * The pools a route can go through. Addresses are lowercase throughout: pools must be given
 * with lowercase addresses, and lookups take lowercase tokens.
 * @example
 * const graph = new RoutingGraph({ models });
 * graph.upsertPool(pair);
 * graph.edgesFrom(weth); // every edge leaving WETH
 */
export class RoutingGraph {
  /** The block the pools' state was read at (set by whoever builds the snapshot). */
  blockNumber = 0n;
  /** The timestamp (unix seconds) of `blockNumber`; 0 when not known. */
  blockTimestamp = 0n;
  /** The models of the graph's pools: what quotes, gas and prices ask of each pool. */
  readonly models: PoolModels;
  private changes = 0;
  private readonly edgesOf: EdgesOf;
  private readonly terminalEdgesOf: EdgesOf;
  /** Each pool's terminal edges, derived when its token is first looked up. */
  private readonly terminals = new WeakMap<Pool, Terminal>();
  private readonly entries = new Map<Address, { pool: Pool; edges: Edge[]; upserts: number }>();
  private readonly outgoing = new Map<Address, TokenEdges>();
  private readonly incoming = new Map<Address, TokenEdges>();
  /**
   * The edges from a token of more than {@link SCANNED_DEGREE} pools to each token it reaches,
   * built when first asked ({@link edgesBetween}) and kept current from then on: loading a
   * graph builds none, and a token of few pools is scanned instead.
   */
  private readonly between = new Map<Address, Map<Address, Edge[]>>();

  constructor(params: RoutingGraphParameters) {
    this.models = params.models;
    this.edgesOf = params.edgesOf ?? ((pool) => params.models.edges(pool));
    this.terminalEdgesOf = params.terminalEdgesOf ?? ((pool) => params.models.terminalEdges(pool));
  }

  /** The terminal edges of the pool whose own token is `token` (none for other tokens). */
  private terminal(token: Address): Terminal {
    const entry = this.entries.get(token);
    if (!entry) return NO_TERMINAL;
    let terminal = this.terminals.get(entry.pool);
    if (!terminal) {
      const edges = this.terminalEdgesOf(entry.pool);
      terminal =
        edges.length === 0
          ? NO_TERMINAL
          : {
              from: edges.filter((e) => e.tokenIn === token),
              into: edges.filter((e) => e.tokenOut === token),
            };
      this.terminals.set(entry.pool, terminal);
    }
    return terminal;
  }

  /** How often the pool whose token is `token` changed, when it has terminal edges (else 0). */
  private terminalChanges(token: Address): number {
    const terminal = this.terminal(token);
    return terminal === NO_TERMINAL ? 0 : (this.entries.get(token)?.upserts ?? 0);
  }

  /** Number of pools. */
  get size(): number {
    return this.entries.size;
  }

  /** Increases with every upsert and removal: caches derived from the graph key on it. */
  get version(): number {
    return this.changes;
  }

  pool(address: Address): Pool | undefined {
    return this.entries.get(address)?.pool;
  }

  *pools(): IterableIterator<Pool> {
    for (const entry of this.entries.values()) yield entry.pool;
  }

  /** Whether any pool holds `token` (an LP token: its own pool's terminal edges). */
  hasToken(token: Address): boolean {
    return (
      this.outgoing.has(token) || this.incoming.has(token) || this.terminal(token) !== NO_TERMINAL
    );
  }

  /** Every token with at least one edge leaving it. */
  tokens(): IterableIterator<Address> {
    return this.outgoing.keys();
  }

  /** The edges leaving `token` (do not mutate the array). */
  edgesFrom(token: Address): readonly Edge[] {
    const edges = this.outgoing.get(token)?.list() ?? NO_EDGES;
    const { from } = this.terminal(token);
    return from.length === 0 ? edges : [...edges, ...from];
  }

  /** The edges reaching `token` (do not mutate the array). */
  edgesInto(token: Address): readonly Edge[] {
    const edges = this.incoming.get(token)?.list() ?? NO_EDGES;
    const { into } = this.terminal(token);
    return into.length === 0 ? edges : [...edges, ...into];
  }

  /** The edges leaving `token` through one pool (current state; do not mutate). */
  edgesFromVia(token: Address, pool: Address): readonly Edge[] {
    if (pool === token) {
      const { from } = this.terminal(token);
      if (from.length > 0) return from;
    }
    return this.outgoing.get(token)?.get(pool) ?? NO_EDGES;
  }

  /** Whether any pool of the graph holds `token` (lowercase): an edge leaves or reaches it. */
  holds(token: Address): boolean {
    return this.edgesFrom(token).length > 0 || this.edgesInto(token).length > 0;
  }

  /** The edges reaching `token` through one pool (current state; do not mutate). */
  edgesIntoVia(token: Address, pool: Address): readonly Edge[] {
    if (pool === token) {
      const { into } = this.terminal(token);
      if (into.length > 0) return into;
    }
    return this.incoming.get(token)?.get(pool) ?? NO_EDGES;
  }

  /** Number of pools with an edge leaving `token`. */
  degreeFrom(token: Address): number {
    const own = this.terminal(token).from.length > 0 ? 1 : 0;
    return (this.outgoing.get(token)?.size ?? 0) + own;
  }

  /** Number of pools with an edge reaching `token`. */
  degreeInto(token: Address): number {
    const own = this.terminal(token).into.length > 0 ? 1 : 0;
    return (this.incoming.get(token)?.size ?? 0) + own;
  }

  /**
   * Changes whenever a pool joins or leaves the edges leaving (`out`) or reaching (`in`)
   * `token` — not when a pool's state changes: caches of a token's pool set key on it.
   */
  poolSetVersion(token: Address, side: "out" | "in"): number {
    const members = (side === "out" ? this.outgoing : this.incoming).get(token)?.members ?? 0;
    return members + (this.terminal(token) === NO_TERMINAL ? 0 : 1);
  }

  /** Changes with every change to the edges leaving (`out`) or reaching (`in`) `token`. */
  edgeStateVersion(token: Address, side: "out" | "in"): number {
    const changes = (side === "out" ? this.outgoing : this.incoming).get(token)?.changes ?? 0;
    return changes + this.terminalChanges(token);
  }

  /** The edges from `tokenIn` straight to `tokenOut` (do not mutate the array). */
  edgesBetween(tokenIn: Address, tokenOut: Address): readonly Edge[] {
    const from = this.betweenFrom(tokenIn);
    const edges = from
      ? (from.get(tokenOut) ?? NO_EDGES)
      : edgesTo(this.outgoing.get(tokenIn)?.list() ?? NO_EDGES, tokenOut);
    const leaving = this.terminal(tokenIn);
    const reaching = this.terminal(tokenOut);
    if (leaving === NO_TERMINAL && reaching === NO_TERMINAL) return edges;
    return [
      ...edges,
      ...leaving.from.filter((e) => e.tokenOut === tokenOut),
      ...reaching.into.filter((e) => e.tokenIn === tokenIn),
    ];
  }

  /** Adds a pool or replaces the state of one already held (same address). */
  upsertPool(pool: Pool): void {
    const old = this.entries.get(pool.address);
    const edges = this.edgesOf(pool);
    if (old) {
      // Tokens the pool still touches are re-pointed in place below (the pool stays a member
      // of their edge sets); only tokens it no longer touches are unindexed.
      const stillFrom = new Set(edges.map((e) => e.tokenIn));
      const stillInto = new Set(edges.map((e) => e.tokenOut));
      for (const edge of old.edges) {
        if (!stillFrom.has(edge.tokenIn)) unindexToken(this.outgoing, edge.tokenIn, pool.address);
        if (!stillInto.has(edge.tokenOut)) unindexToken(this.incoming, edge.tokenOut, pool.address);
        this.unindexBetween(pool.address, edge);
      }
    }
    this.entries.set(pool.address, { pool, edges, upserts: (old?.upserts ?? 0) + 1 });
    index(this.outgoing, pool.address, edges, (e) => e.tokenIn);
    index(this.incoming, pool.address, edges, (e) => e.tokenOut);
    for (const edge of edges) {
      const from = this.between.get(edge.tokenIn);
      if (!from) continue;
      const held = from.get(edge.tokenOut);
      from.set(edge.tokenOut, held ? [...held, edge] : [edge]);
    }
    this.changes++;
  }

  /** Removes a pool; returns whether it was there. */
  removePool(address: Address): boolean {
    const old = this.entries.get(address);
    if (!old) return false;
    this.unindex(address, old.edges);
    this.entries.delete(address);
    this.changes++;
    return true;
  }

  private unindex(address: Address, edges: readonly Edge[]): void {
    for (const edge of edges) {
      unindexToken(this.outgoing, edge.tokenIn, address);
      unindexToken(this.incoming, edge.tokenOut, address);
      this.unindexBetween(address, edge);
    }
  }

  /**
   * The edges leaving `tokenIn`, by the token they reach (built on first use), for a token of
   * more than {@link SCANNED_DEGREE} pools; undefined for one of fewer.
   */
  private betweenFrom(tokenIn: Address): Map<Address, Edge[]> | undefined {
    let from = this.between.get(tokenIn);
    if (!from) {
      const at = this.outgoing.get(tokenIn);
      if (!at || at.size <= SCANNED_DEGREE) return undefined;
      from = new Map();
      for (const edges of at.groups()) {
        for (const edge of edges) {
          const held = from.get(edge.tokenOut);
          if (held) held.push(edge);
          else from.set(edge.tokenOut, [edge]);
        }
      }
      this.between.set(tokenIn, from);
    }
    return from;
  }

  private unindexBetween(address: Address, edge: Edge): void {
    const from = this.between.get(edge.tokenIn);
    if (!from) return;
    const rest = (from.get(edge.tokenOut) ?? NO_EDGES).filter((e) => e.pool.address !== address);
    if (rest.length > 0) {
      from.set(edge.tokenOut, rest);
    } else {
      from.delete(edge.tokenOut);
      if (from.size === 0) this.between.delete(edge.tokenIn);
    }
  }
}

/** Up to this many pools, a token's edges to another are found by scanning its edges. */
const SCANNED_DEGREE = 8;

/** The edges of `edges` that reach `tokenOut`. */
function edgesTo(edges: readonly Edge[], tokenOut: Address): readonly Edge[] {
  let found: Edge[] | undefined;
  for (const edge of edges) {
    if (edge.tokenOut !== tokenOut) continue;
    if (found) found.push(edge);
    else found = [edge];
  }
  return found ?? NO_EDGES;
}

function index(
  map: Map<Address, TokenEdges>,
  pool: Address,
  edges: readonly Edge[],
  tokenOf: (edge: Edge) => Address,
): void {
  // Grouped by token without a map: a pool has a handful of edges (a pair two), and this runs
  // for every pool of a graph being loaded.
  for (let i = 0; i < edges.length; i++) {
    const token = tokenOf(edges[i] as Edge);
    let seen = false;
    for (let j = 0; j < i && !seen; j++) seen = tokenOf(edges[j] as Edge) === token;
    if (seen) continue;
    // Sized to its edges: an array grown by push from empty keeps room for 17, which across the
    // four groups of each of a mainnet graph's 430,000 pools is over 200 MB of heap.
    let count = 0;
    for (let j = i; j < edges.length; j++) if (tokenOf(edges[j] as Edge) === token) count++;
    let group: Edge[];
    if (count === 1) group = [edges[i] as Edge];
    else {
      const grown: Edge[] = [];
      for (let j = i; j < edges.length; j++) {
        if (tokenOf(edges[j] as Edge) === token) grown.push(edges[j] as Edge);
      }
      group = grown.slice();
    }
    let at = map.get(token);
    if (!at) {
      at = new TokenEdges();
      map.set(token, at);
    }
    at.set(pool, group);
  }
}

function unindexToken(map: Map<Address, TokenEdges>, token: Address, pool: Address): void {
  const at = map.get(token);
  if (!at) return;
  at.delete(pool);
  if (at.size === 0) map.delete(token);
}
