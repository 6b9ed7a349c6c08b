/**
 * The engine's seam for protocols: a constant-sum protocol written here, outside engine/ (its
 * pool model, its program steps, one bundle action), is passed to `createEngine`, and that
 * engine's graphs route through its pools and its compiler compiles its action — no file under
 * engine/ knows it, and no other engine does (each engine's tables are its own). Everything is
 * imported from `engine/index.ts`, the engine's one door.
 */
import { type Address, encodeFunctionData, getAddress, parseAbiItem } from "viem";
import { describe, expect, test } from "vitest";
import {
  type ActionSpec,
  builtinProtocols,
  compileBundle,
  createEngine,
  createRoutingGraph,
  DuplicateProtocolError,
  describeActions,
  type Engine,
  ForeignGraphError,
  outputQuote,
  type PoolKind,
  type Protocol,
  poolHop,
  type RoutingGraph,
  swapsBothWays,
  ZERO_OUTPUT,
} from "../../engine/index.js";
import { E18, token, v2 } from "../routing/fixtures.js";
import { chain, contracts } from "./fixtures.js";

/** A pool that trades its two tokens one for one, without a fee, up to what it holds. */
type SumPool = {
  kind: "ext:constant-sum";
  protocol: "constant-sum";
  address: Address;
  token0: Address;
  token1: Address;
  reserve0: bigint;
  reserve1: bigint;
};

const reserveOf = (pool: SumPool, t: Address) =>
  t === pool.token0 ? pool.reserve0 : pool.reserve1;

/** The pool's swap: it pays `to` what it received of `tokenIn` since its last swap. */
const swapFn = parseAbiItem(
  "function swap(address tokenIn, address to) returns (uint256 amountOut)",
);
const transferFn = parseAbiItem("function transfer(address to, uint256 amount) returns (bool)");
const SWAP_GAS = 40_000;

const sumPool: PoolKind<SumPool> = {
  kind: "ext:constant-sum",
  edges: (pool) => swapsBothWays(pool),
  quote: (edge, amountIn) =>
    amountIn > reserveOf(edge.pool, edge.tokenOut) ? ZERO_OUTPUT : outputQuote(amountIn),
  approx: (edge, amountIn, result) => {
    result.out = Math.min(amountIn, Number(reserveOf(edge.pool, edge.tokenOut)));
    result.ticksCrossed = 0;
    return result;
  },
  approxQuoter: (edge) => (amountIn, result) => sumPool.approx(edge, amountIn, result),
  approxSpot: (edge, result) => {
    result.rate = 1;
    result.depthIn = Number(reserveOf(edge.pool, edge.tokenIn));
    return result;
  },
  depth: (edge, side) => Number(reserveOf(edge.pool, side === "in" ? edge.tokenIn : edge.tokenOut)),
  priceAcross: (_edge, price) => price,
  gas: () => SWAP_GAS,
  addHop: (planner, _context, hop, amountIn, recipient) => {
    planner.add({
      target: hop.edge.tokenIn,
      fn: transferFn,
      args: [hop.edge.pool.address, amountIn],
    });
    return planner.add({
      target: hop.edge.pool.address,
      fn: swapFn,
      args: [hop.edge.tokenIn, recipient],
      label: "constant-sum swap",
    });
  },
  stateless: false,
  paysReceiverUnderRouter: true,
};

/** Its one bundle action: a swap through a named sum pool, the engine's one-hop action. */
const swap = poolHop("ext:constant-sum", "swap");

const constantSum: Protocol = {
  slug: "constant-sum",
  url: "https://example.org/constant-sum",
  forks: [],
  supports: () => true,
  poolKind: sumPool as unknown as Protocol["poolKind"],
  actions: { swap: swap as unknown as ActionSpec },
  methods: [
    {
      method: "swap",
      name: "Swap one for one",
      functionNames: ["swap"],
      inputs: {
        primaryAddress: "the pool",
        tokenIn: "token sold",
        tokenOut: "token bought",
        amountIn: "amount sold",
      },
      outputs: { amount: "tokenOut received (equal to amountIn)" },
    },
  ],
};

const tokenA = token(0xa1);
const tokenB = token(0xb1);
const caller = token(0xca11);
const pool: SumPool = {
  kind: "ext:constant-sum",
  protocol: "constant-sum",
  address: token(0x5e1),
  token0: tokenA,
  token1: tokenB,
  reserve0: 500n * E18,
  reserve1: 500n * E18,
};

/**
 * A graph of `engine`'s models holding the sum pool beside a V2 pair of the same tokens (0.3%
 * fee, 1,000 of each).
 */
function graphWithPools(engine: Pick<Engine, "createGraph">): RoutingGraph {
  const graph = engine.createGraph();
  graph.upsertPool(v2(tokenA, tokenB, 1000n * E18, 1000n * E18));
  graph.upsertPool(pool);
  return graph;
}

const search = (graph: RoutingGraph, findRoute: ReturnType<typeof createEngine>["findRoute"]) =>
  findRoute({
    graph,
    tokenIn: tokenA,
    tokenOut: tokenB,
    amountIn: 10n * E18,
    maxSplits: 1,
    gasPriceWei: 0n,
    weth: token(0xeeee),
  });

describe("a protocol added through createEngine", () => {
  test("before it is added its pools have no edges; once added, the route goes through it", () => {
    const before = createEngine();
    expect(before.findProtocol("constant-sum")).toBeUndefined();
    const graphBefore = graphWithPools(before);
    // The engine knows no model of the sum pool yet: only the pair leaves A.
    expect(graphBefore.edgesFrom(tokenA).map((e) => e.pool.kind)).toEqual(["v2"]);
    // Without it, the V2 pair is the only way: 10 A buy 9.87 B.
    const viaPair = search(graphBefore, before.findRoute);
    expect(viaPair.ok && viaPair.quote.legs[0]?.hops[0]?.edge.pool.kind).toBe("v2");
    expect(viaPair.ok && viaPair.quote.amountOut).toBe(9_871_580_343_970_612_988n);

    const engine = createEngine({ protocols: [constantSum] });
    expect(engine.protocols.at(-1)).toBe(constantSum);
    expect(engine.findProtocol("constant-sum")).toBe(constantSum);
    const found = search(graphWithPools(engine), engine.findRoute);
    // One for one beats the pair's 9.87: exactly 10 B, through the sum pool.
    expect(found).toEqual({
      ok: true,
      quote: {
        tokenIn: tokenA,
        tokenOut: tokenB,
        amountIn: 10n * E18,
        amountOut: 10n * E18,
        legs: [
          {
            amountIn: 10n * E18,
            amountOut: 10n * E18,
            hops: [
              {
                edge: { pool, tokenIn: tokenA, tokenOut: tokenB, action: "swap" },
                amountIn: 10n * E18,
                amountOut: 10n * E18,
              },
            ],
          },
        ],
        gasUnits: expect.any(BigInt),
        gasCostInTokenOut: 0n,
      },
    });

    // The protocol is that engine's alone: the built-in engine and one made before it still
    // give the sum pool no edges, and do not list it.
    expect(
      graphWithPools(before)
        .edgesFrom(tokenA)
        .map((e) => e.pool.kind),
    ).toEqual(["v2"]);
    expect(
      graphWithPools({ createGraph: createRoutingGraph })
        .edgesFrom(tokenA)
        .map((e) => e.pool.kind),
    ).toEqual(["v2"]);
    expect(before.protocols).toEqual(builtinProtocols);
    expect(engine.protocols).toEqual([...builtinProtocols, constantSum]);
  });

  test("its bundle action compiles to its own steps, and /v1/actions would describe it", () => {
    const engine = createEngine({ protocols: [constantSum] });
    const bundle = {
      actions: [
        {
          protocol: "constant-sum",
          action: "swap",
          args: {
            primaryAddress: pool.address,
            tokenIn: tokenA,
            tokenOut: tokenB,
            amountIn: "1000",
          },
        },
      ],
      strategy: "delegate" as const,
      contracts,
      chain,
      graph: graphWithPools(engine),
      gasPriceWei: 1n,
      account: caller,
      receiver: caller,
      from: caller,
      deadline: 2n ** 40n,
      slippageBps: 300,
    };
    // Another engine's compiler takes no graph of this one's pools …
    expect(() => compileBundle(bundle)).toThrow(new ForeignGraphError());
    // … and the built-in engine's knows no such protocol.
    expect(() =>
      compileBundle({ ...bundle, graph: graphWithPools({ createGraph: createRoutingGraph }) }),
    ).toThrow(
      'actions[0].protocol: unknown protocol "constant-sum"; known protocols and actions: core (route, call, transfer, approve, balance, split, minamountout); uniswap-v2 (swap, deposit, redeem); pancakeswap-v1 (swap); pancakeswap-v2 (swap); sushiswap-v2 (swap); uniswap-v3 (swap); pancakeswap-v3 (swap); sushiswap-v3 (swap); uniswap-v4 (swap); savings-vaults (deposit, redeem); yield-vaults (deposit, redeem); aave-v3 (deposit, withdraw, borrow, repay); balancer-v2 (swap, deposit, redeem); wrapped-native (deposit, withdraw).',
    );
    const compiled = engine.compileBundle(bundle);
    // The bundle's own checks around the action's steps: the sum pool's transfer and swap.
    expect(compiled.program.calls.map((c) => [c.target, c.functionName, c.label])).toEqual([
      [getAddress(contracts.minAmountOutCheck), "checkDeadline", "check deadline"],
      [getAddress(contracts.minAmountOutCheck), "balanceOf", "read balance"],
      [getAddress(tokenA), "transfer", "transfer"],
      [getAddress(pool.address), "swap", "constant-sum swap"],
      [getAddress(contracts.minAmountOutCheck), "checkMinAmountOut", "check minimum output"],
    ]);
    // The transfer pays the pool exactly the action's input.
    const transferArgs = encodeFunctionData({ abi: [transferFn], args: [pool.address, 1000n] });
    expect(
      compiled.program.state.some((word) => word.slice(2) === transferArgs.slice(10, 74)) &&
        compiled.program.state.some((word) => BigInt(word) === 1000n),
    ).toBe(true);
    expect(compiled.inputs).toEqual(new Map([[tokenA, 1000n]]));
    expect(compiled.lastOutputToken).toBe(tokenB);

    expect(describeActions(constantSum)).toEqual([
      {
        protocol: "constant-sum",
        action: "swap",
        name: "Swap one for one",
        inputs: {
          primaryAddress: { type: "address", description: "the pool", optional: false },
          tokenIn: { type: "address", description: "token sold", optional: false },
          tokenOut: { type: "address", description: "token bought", optional: false },
          amountIn: { type: "amount", description: "amount sold", optional: false },
        },
      },
    ]);
  });

  test("a second protocol under a slug already taken is refused; the same one again is kept once", () => {
    expect(createEngine({ protocols: [constantSum, constantSum] }).protocols).toEqual([
      ...builtinProtocols,
      constantSum,
    ]);
    expect(() => createEngine({ protocols: [constantSum, { ...constantSum }] })).toThrow(
      new DuplicateProtocolError("constant-sum"),
    );
    expect(() =>
      createEngine({ protocols: [{ ...builtinProtocols[1], url: "" } as Protocol] }),
    ).toThrow(new DuplicateProtocolError("uniswap-v2"));
  });
});
