import { describe, expect, it } from "vitest";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { createRoutingGraph, engine } from "../../engine/index.js";
import { RoutingGraph } from "../../engine/routing/graph.js";
import { E18, token, v2, vault, wrapper } from "./fixtures.js";

const [a, b, c, weth] = [token(1), token(2), token(3), token(9)];

describe("RoutingGraph", () => {
  it("derives each pool's edges from its protocol file", () => {
    const graph = createRoutingGraph();
    const pair = v2(a, b, 100n, 200n);
    const shares = vault({ address: token(50), asset: a, totalAssets: 10n, totalSupply: 9n });
    graph.upsertPool(pair);
    graph.upsertPool(shares);
    graph.upsertPool(wrapper(weth));
    expect(graph.size).toBe(3);
    expect(graph.edgesFrom(a).map((e) => [e.tokenOut, e.action])).toEqual([
      [b, "swap"],
      [token(50), "deposit"],
    ]);
    // A 0.3% pair's single-sided liquidity edges are terminal: its LP token's own lookups
    // have them, its tokens' do not (a route only starts or ends with one).
    expect(graph.edgesFrom(pair.address).map((e) => [e.tokenOut, e.action])).toEqual([
      [a, "redeem"],
      [b, "redeem"],
    ]);
    expect(graph.edgesInto(pair.address).map((e) => [e.tokenIn, e.action])).toEqual([
      [a, "deposit"],
      [b, "deposit"],
    ]);
    expect(graph.edgesBetween(a, pair.address)).toEqual([
      { pool: pair, tokenIn: a, tokenOut: pair.address, action: "deposit" },
    ]);
    expect(graph.edgesBetween(pair.address, b)).toEqual([
      { pool: pair, tokenIn: pair.address, tokenOut: b, action: "redeem" },
    ]);
    expect([graph.degreeFrom(pair.address), graph.degreeInto(pair.address)]).toEqual([1, 1]);
    expect(graph.hasToken(pair.address)).toBe(true);
    const otherFee = v2(a, c, 100n, 200n, 500);
    graph.upsertPool(otherFee);
    expect(graph.edgesFrom(otherFee.address)).toEqual([]);
    graph.removePool(otherFee.address);
    // A fork's pair has none even at 0.3%: a fork may mint itself a share at each add.
    const forkPair = { ...v2(a, c, 100n, 200n), protocol: "sushiswap-v2" };
    graph.upsertPool(forkPair);
    expect(graph.edgesFrom(forkPair.address)).toEqual([]);
    expect(graph.edgesBetween(a, c)).toEqual([
      { pool: forkPair, tokenIn: a, tokenOut: c, action: "swap" },
    ]);
    graph.removePool(forkPair.address);
    expect(graph.edgesFrom(token(50))).toEqual([
      { pool: shares, tokenIn: token(50), tokenOut: a, action: "redeem" },
    ]);
    expect(graph.edgesFrom(NATIVE_TOKEN_ADDRESS)).toEqual([
      { pool: wrapper(weth), tokenIn: NATIVE_TOKEN_ADDRESS, tokenOut: weth, action: "wrap" },
    ]);
    expect(graph.edgesFrom(weth)[0]?.action).toBe("unwrap");
    expect(graph.edgesInto(b)).toEqual([{ pool: pair, tokenIn: a, tokenOut: b, action: "swap" }]);
    expect(graph.edgesBetween(b, a)).toEqual([
      { pool: pair, tokenIn: b, tokenOut: a, action: "swap" },
    ]);
    expect(graph.hasToken(b)).toBe(true);
    expect(graph.hasToken(c)).toBe(false);
    expect([...graph.pools()]).toEqual([pair, shares, wrapper(weth)]);
  });

  it("replaces a pool's state on upsert and forgets it on removal", () => {
    const graph = createRoutingGraph();
    const before = v2(a, b, 100n, 200n);
    graph.upsertPool(before);
    const after = { ...before, reserve0: 150n };
    graph.upsertPool(after);
    expect(graph.size).toBe(1);
    expect(graph.pool(before.address)).toBe(after);
    expect(graph.edgesFrom(a).map((e) => e.pool)).toEqual([after]);
    // The LP token's terminal edges follow the pool's new state too.
    expect(graph.edgesFrom(before.address).map((e) => e.pool)).toEqual([after, after]);
    expect(graph.edgesBetween(a, b).map((e) => e.pool)).toEqual([after]);
    expect(graph.removePool(before.address)).toBe(true);
    expect(graph.removePool(before.address)).toBe(false);
    expect(graph.size).toBe(0);
    expect(graph.edgesFrom(a)).toEqual([]);
    expect(graph.edgesBetween(a, b)).toEqual([]);
    expect(graph.hasToken(a)).toBe(false);
  });

  it("updates only the tokens of the pool that changed", () => {
    const graph = createRoutingGraph();
    graph.upsertPool(v2(a, b, E18, E18));
    const bc = v2(b, c, E18, E18);
    graph.upsertPool(bc);
    const fromA = graph.edgesFrom(a);
    const fromC = graph.edgesFrom(c);
    const version = graph.version;
    graph.upsertPool({ ...bc, reserve0: 2n * E18 });
    // A's edge list is the very same array: nothing about A was rebuilt.
    expect(graph.edgesFrom(a)).toBe(fromA);
    expect(graph.edgesFrom(c)).not.toBe(fromC);
    expect(graph.edgesFrom(c)[0]?.pool.kind === "v2" && graph.edgesFrom(c)[0]?.pool).toMatchObject({
      reserve0: 2n * E18,
    });
    expect(graph.version).toBe(version + 1);
  });

  it("tells pool-set changes from state changes, and finds a token's edges by pool", () => {
    const graph = createRoutingGraph();
    const ab = v2(a, b, E18, E18);
    graph.upsertPool(ab);
    const members = graph.poolSetVersion(a, "out");
    graph.upsertPool({ ...ab, reserve0: 2n * E18 });
    expect(graph.poolSetVersion(a, "out")).toBe(members);
    graph.upsertPool(v2(a, c, E18, E18));
    expect(graph.poolSetVersion(a, "out")).toBe(members + 1);
    expect(graph.poolSetVersion(a, "in")).toBe(2);
    expect(graph.degreeFrom(a)).toBe(2);
    expect(graph.edgesFromVia(a, ab.address).map((e) => e.tokenOut)).toEqual([b]);
    expect(graph.edgesIntoVia(a, ab.address).map((e) => e.tokenIn)).toEqual([b]);
    // The LP token: its terminal edges count as its own pool's, and follow that pool's state.
    const lpState = graph.edgeStateVersion(ab.address, "out");
    graph.upsertPool({ ...ab, reserve0: 3n * E18 });
    expect(graph.edgeStateVersion(ab.address, "out")).toBeGreaterThan(lpState);
    expect(graph.edgesFromVia(ab.address, ab.address).map((e) => e.tokenOut)).toEqual([a, b]);
    expect(graph.edgesFromVia(c, ab.address)).toEqual([]);
  });

  it("finds the edges between two tokens of few pools or many alike, through joins and removals", () => {
    // A hub of 12 pools to 6 tokens (two each, besides one pair of a different fee), and a
    // tail token of 2 pools: the two ways of finding edges between tokens (an index for a
    // token of more than 8 pools, built when first asked; a scan below that).
    const graph = createRoutingGraph();
    const hub = token(70);
    const others = [1, 2, 3, 4, 5, 6].map((i) => token(70 + i));
    const pools = others.flatMap((t) => [v2(hub, t, E18, E18), v2(hub, t, E18, E18, 500)]);
    for (const pool of pools) graph.upsertPool(pool);
    const tail = others[0] as (typeof others)[number];
    const tailPair = v2(tail, c, E18, E18);
    graph.upsertPool(tailPair);
    /** The pools (by address) of edges from `from` to `to`, in address order. */
    const poolsOf = (edges: readonly { pool: { address: string } }[]) =>
      edges.map((e) => e.pool.address).sort();
    /** The edges between every two tokens are those a scan of every edge leaving one finds. */
    const check = () => {
      for (const from of [hub, tail, c, ...others]) {
        for (const to of [hub, tail, c, ...others]) {
          const scanned = graph.edgesFrom(from).filter((e) => e.tokenOut === to);
          expect(poolsOf(graph.edgesBetween(from, to))).toEqual(poolsOf(scanned));
          for (const edge of graph.edgesBetween(from, to)) {
            expect(graph.pool(edge.pool.address)).toBe(edge.pool);
          }
        }
      }
    };
    expect(graph.edgesBetween(hub, tail).map((e) => e.pool.address)).toEqual([
      pools[0]?.address,
      pools[1]?.address,
    ]);
    check();
    // The hub's index, built by the lookups above, follows a state change, a join and a removal.
    const moved = { ...(pools[0] as typeof tailPair), reserve0: 2n * E18 };
    graph.upsertPool(moved);
    expect(graph.edgesBetween(hub, tail).find((e) => e.pool.address === moved.address)?.pool).toBe(
      moved,
    );
    const joined = v2(hub, c, E18, E18);
    graph.upsertPool(joined);
    expect(graph.edgesBetween(hub, c).map((e) => e.pool)).toEqual([joined]);
    graph.removePool(pools[1]?.address as typeof hub);
    expect(graph.edgesBetween(hub, tail).map((e) => e.pool)).toEqual([moved]);
    graph.removePool(tailPair.address);
    expect(graph.edgesBetween(tail, c)).toEqual([]);
    expect(graph.degreeFrom(tail)).toBe(1);
    check();
  });

  it("ignores pools of protocols that do not route, and takes another edge source", () => {
    const none = new RoutingGraph({ models: engine.models, edgesOf: () => [] });
    none.upsertPool(v2(a, b, 1n, 1n));
    expect(none.size).toBe(1);
    expect(none.edgesFrom(a)).toEqual([]);
    const graph = createRoutingGraph();
    graph.upsertPool({ ...v2(a, b, 1n, 1n), protocol: "unknown" as "uniswap-v2" });
    expect(graph.edgesFrom(a)).toEqual([]);
  });
});
