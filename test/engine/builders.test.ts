/**
 * The route and bundle builders without a chain, a database or a server: a request and an
 * in-memory routing graph in; the route, the program's calls and the strategy's calldata out,
 * decoded and checked word by word; and each failure as its error class with its path.
 */
import { type Address, decodeFunctionData, getAddress, type Hex } from "viem";
import { describe, expect, test } from "vitest";
import { CoreWalletFactoryAbi } from "../../abis/generated/CoreWalletFactory.js";
import { DelegateExecutorAbi } from "../../abis/generated/DelegateExecutor.js";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import type { BundleRequest } from "../../engine/bundle/build.js";
import type { ChainSetup, UniswapV3ForkDeployment } from "../../engine/core/chain-setup.js";
import {
  type EngineError,
  InvalidArgumentError,
  MissingArgumentError,
  NoRouteError,
  UnknownTokenError,
  UnsupportedByStrategyError,
} from "../../engine/core/errors.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { buildBundle, buildRoute, createRoutingGraph } from "../../engine/index.js";
import { decodeCommandTarget } from "../../engine/program/command-layout.js";
import type { ExecutionContracts } from "../../engine/program/hop-context.js";
import type { PlannedProgram } from "../../engine/program/planner.js";
import type { RouteRequest } from "../../engine/route/route.js";
import type { RoutingGraph } from "../../engine/routing/graph.js";
import { E18, token, v2, v3 } from "../routing/fixtures.js";
import { chain, contracts, routeRequest } from "./fixtures.js";

const tokenA = token(0xa1);
const tokenB = token(0xb1);
const tokenC = token(0xc1);
const tokenD = token(0xd1);
const graph = createRoutingGraph();
const pair = v2(tokenA, tokenB, 1_000n * E18, 2_000n * E18);
graph.upsertPool(pair);
// C and D trade with each other only.
graph.upsertPool(v2(tokenC, tokenD, 1_000n * E18, 1_000n * E18));

const user = getAddress(token(0x7777));
const third = getAddress(token(0x3333));

/** Uniswap V2's getAmountOut at a 0.3% fee, written out here rather than imported. */
function v2Out(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
}

function request(overrides: Partial<RouteRequest>): RouteRequest {
  return routeRequest({
    fromAddress: user,
    tokenIn: tokenA,
    tokenOut: tokenB,
    amountIn: 10n * E18,
    ...overrides,
  });
}

const route = (overrides: Partial<RouteRequest>) =>
  buildRoute({ chain, contracts, graph, gasPriceWei: 1n, request: request(overrides) });

/** Each call as [function, target]; each command word must name the same target. */
function callsOf(program: { calls: PlannedProgram["calls"]; commands: readonly Hex[] }) {
  for (const call of program.calls) {
    const word = program.commands[call.commandIndex] as Hex;
    expect(decodeCommandTarget(word).target.toLowerCase()).toBe(call.target.toLowerCase());
  }
  return program.calls.map((c) => [c.functionName, c.target]);
}

function failure(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (error) {
    return error as EngineError;
  }
  throw new Error("expected a failure");
}

describe("route builder", () => {
  const amountOut = v2Out(10n * E18, 1_000n * E18, 2_000n * E18);

  test("router: the pair's exact output, and the router's swap call with its minimum and deadline", () => {
    const built = route({});
    expect(amountOut).toBe(19_743_160_687_941_225_977n);
    expect(built.quote.amountOut).toBe(amountOut);
    expect(built.account).toBe(contracts.executor);
    expect(built.funded).toEqual({ holder: user, spender: contracts.router });

    const { tx, calls } = built.encode(19_545_729_081_061_813_717n, 1_700_000_000n);
    expect(tx.to).toBe(contracts.router);
    expect(tx.from).toBe(user);
    expect(tx.value).toBe(0n);
    const decoded = decodeFunctionData({ abi: ShortcutRouterAbi, data: tx.data });
    expect(decoded.functionName).toBe("swap");
    const [order, commands] = decoded.args as readonly [
      Record<string, unknown>,
      readonly Hex[],
      readonly Hex[],
    ];
    expect(order).toEqual({
      tokenIn: getAddress(tokenA),
      amountIn: 10n * E18,
      tokenOut: getAddress(tokenB),
      minAmountOut: 19_545_729_081_061_813_717n,
      receiver: user,
      feeBps: 0n,
      feeReceiver: "0x0000000000000000000000000000000000000000",
      deadline: 1_700_000_000n,
    });
    // The executor swaps on the pair, which pays the receiver; the router checks what arrived.
    expect(callsOf({ calls, commands })).toEqual([["uniswapV2Swap", contracts.executor]]);
    expect(built.beforeSending()).toEqual([
      {
        type: "approve",
        token: getAddress(tokenA),
        spender: getAddress(contracts.router),
        amount: (10n * E18).toString(),
      },
    ]);
  });

  test("delegate: the account sends to itself; its program checks deadline and minimum", () => {
    const built = route({ routingStrategy: "delegate" });
    expect(built.account).toBe(user);
    const { tx, calls } = built.encode(19_000n, 1_700_000_000n);
    expect(tx.to).toBe(user);
    const decoded = decodeFunctionData({ abi: DelegateExecutorAbi, data: tx.data });
    expect(decoded.functionName).toBe("execute");
    const [commands] = decoded.args as readonly [readonly Hex[], readonly Hex[]];
    expect(callsOf({ calls, commands })).toEqual([
      ["checkDeadline", contracts.minAmountOutCheck],
      ["balanceOf", contracts.minAmountOutCheck],
      ["transfer", getAddress(tokenA)],
      ["uniswapV2AmountOut", contracts.programValues],
      ["swap", getAddress(pair.address)],
      ["checkMinAmountOut", contracts.minAmountOutCheck],
    ]);
    expect(built.beforeSending()).toEqual([
      { type: "delegate", account: user, delegateTo: getAddress(contracts.delegateExecutor) },
    ]);
  });

  test("corewallet: the factory deploys the wallet and pulls the input into it", () => {
    const built = route({ routingStrategy: "corewallet" });
    const { tx } = built.encode(19_000n, 1_700_000_000n);
    expect(tx.to).toBe(contracts.walletFactory);
    const decoded = decodeFunctionData({ abi: CoreWalletFactoryAbi, data: tx.data });
    expect(decoded.functionName).toBe("deployAndExecute");
    expect(decoded.args.slice(0, 2)).toEqual([getAddress(tokenA), 10n * E18]);
    expect(built.amountFromOwner).toBe(10n * E18);
  });

  test("a fee is taken from the input before it is routed", () => {
    const built = route({ routingStrategy: "delegate", fee: 100, feeReceiver: third });
    expect(built.feeAmount).toBe(10n ** 17n);
    expect(built.routedIn).toBe(99n * 10n ** 17n);
    expect(built.quote.amountOut).toBe(v2Out(99n * 10n ** 17n, 1_000n * E18, 2_000n * E18));
  });

  test.each([
    [
      "a token no pool holds",
      { tokenOut: token(0xeee1) },
      UnknownTokenError,
      `Unknown token ${getAddress(token(0xeee1))} (\`tokenOut\`): no indexed pool or vault on chain 1 holds it.`,
    ],
    [
      "tokens in disconnected pools",
      { tokenOut: tokenC },
      NoRouteError,
      `No route from ${getAddress(tokenA)} to ${getAddress(tokenC)} on chain 1.`,
    ],
    [
      "a spender other than the caller outside corewallet",
      { spender: third },
      InvalidArgumentError,
      "Query parameter `spender` must equal `fromAddress` with routingStrategy=router: the input is spent from the sender's own account.",
    ],
    [
      "a fee on native input outside the router",
      {
        tokenIn: NATIVE_TOKEN_ADDRESS as Address,
        routingStrategy: "delegate" as const,
        fee: 10,
        feeReceiver: third,
      },
      InvalidArgumentError,
      "Query parameter `fee`: a fee on a native-currency input needs routingStrategy=router.",
    ],
  ])("%s fails as %s", (_what, overrides, kind, message) => {
    // The native token needs a pool holding it to get past the token check.
    const error = failure(() =>
      "tokenIn" in overrides && overrides.tokenIn === NATIVE_TOKEN_ADDRESS
        ? buildRoute({
            chain,
            contracts,
            graph: withNativePool(),
            gasPriceWei: 1n,
            request: request(overrides),
          })
        : route(overrides),
    );
    expect(error).toBeInstanceOf(kind);
    expect(error.message).toBe(message);
  });
});

function withNativePool(): RoutingGraph {
  const g = createRoutingGraph();
  g.upsertPool(pair);
  g.upsertPool({ kind: "wrap", protocol: "wrapped-native", address: tokenA });
  return g;
}

describe("a route is the best of what its strategy can execute", () => {
  // PancakeSwap V3's pool at 0.25% beside Uniswap V2's pair at 0.3%, both at 2 B per A: the
  // fork's pool is far deeper and the better venue.
  const pancake = {
    ...v3({
      token0: tokenA,
      token1: tokenB,
      feePpm: 2500,
      tickSpacing: 50,
      tick: 6931,
      positions: [{ lower: -887_250, upper: 887_250, liquidity: 10n ** 23n }],
    }),
    protocol: "pancakeswap-v3",
  };
  const fork: UniswapV3ForkDeployment = {
    slug: "pancakeswap-v3",
    factory: getAddress(token(0xfac)),
    poolDeployer: getAddress(token(0xde9)),
    poolInitCodeHash: `0x${"6c".repeat(32)}` as Hex,
    startBlock: 0,
  };
  const both = createRoutingGraph();
  both.upsertPool(pair);
  both.upsertPool(pancake);
  const forkOnly = createRoutingGraph();
  forkOnly.upsertPool(pancake);
  // The fork as known chains have it: no SwapRouter (no address book has one).
  const withoutRouter = { ...chain, uniswapV3Forks: [fork] };
  const build = (
    g: RoutingGraph,
    setup: ChainSetup,
    routingStrategy: RouteRequest["routingStrategy"],
    execution: ExecutionContracts = contracts,
  ) =>
    buildRoute({
      chain: setup,
      contracts: execution,
      graph: g,
      gasPriceWei: 1n,
      request: request({ routingStrategy }),
    });
  const pools = (built: ReturnType<typeof build>) =>
    (built.quote.flow?.hops ?? built.quote.legs.flatMap((leg) => leg.hops)).map(
      (hop) => hop.edge.pool.protocol,
    );

  test("the router swaps the fork's pool itself: its route goes through it", () => {
    const built = build(both, withoutRouter, "router");
    expect(pools(built)).toContain("pancakeswap-v3");
    expect(built.quote.amountOut).toBeGreaterThan(v2Out(10n * E18, 1_000n * E18, 2_000n * E18));
  });

  test.each(["delegate", "corewallet"] as const)(
    "%s, without the fork's SwapRouter: the route leaves its pool out and goes through the pair alone, exactly the pair's output",
    (strategy) => {
      const built = build(both, withoutRouter, strategy);
      expect(pools(built)).toEqual(["uniswap-v2"]);
      expect(built.quote.amountOut).toBe(v2Out(10n * E18, 1_000n * E18, 2_000n * E18));
      expect(built.quote.amountOut).toBe(19_743_160_687_941_225_977n);
      // And it compiles: nothing in it needs a SwapRouter.
      expect(built.encode(1n, 1_700_000_000n).calls.length).toBeGreaterThan(0);
    },
  );

  test("delegate, with the fork's SwapRouter configured: the fork's pool again", () => {
    const swapRouter = getAddress(token(0x5e7));
    const built = build(both, { ...chain, uniswapV3Forks: [{ ...fork, swapRouter }] }, "delegate");
    expect(pools(built)).toContain("pancakeswap-v3");
    expect(built.encode(1n, 1_700_000_000n).calls.some((c) => c.target === swapRouter)).toBe(true);
  });

  test('delegate, where only the fork\'s pool joins the tokens: a 422 that says why, not "no route"', () => {
    expect(build(forkOnly, withoutRouter, "router").quote.amountOut).toBeGreaterThan(0n);
    const error = failure(() =>
      build(forkOnly, withoutRouter, "delegate").encode(1n, 1_700_000_000n),
    );
    expect(error).toBeInstanceOf(UnsupportedByStrategyError);
    expect(error.message).toBe("no pancakeswap-v3 SwapRouter is configured on this chain.");
  });

  // An execution layer deployed before the fork was known to the chain: its executor was not
  // built to pay the fork's pools (the service finds so on chain and says which forks).
  const beforeTheFork = { ...contracts, untrustedV3Forks: ["pancakeswap-v3"] };

  test("router, with an executor built before the fork: the route leaves the fork's pool out, exactly the pair's output", () => {
    const built = build(both, withoutRouter, "router", beforeTheFork);
    expect(pools(built)).toEqual(["uniswap-v2"]);
    expect(built.quote.amountOut).toBe(19_743_160_687_941_225_977n);
    expect(built.encode(1n, 1_700_000_000n).calls.length).toBeGreaterThan(0);
    // A SwapRouter of the fork does not bring its pool back under the router.
    const swapRouter = getAddress(token(0x5e7));
    const routed = build(
      both,
      { ...chain, uniswapV3Forks: [{ ...fork, swapRouter }] },
      "router",
      beforeTheFork,
    );
    expect(pools(routed)).toEqual(["uniswap-v2"]);
  });

  test("router, with an executor built before the fork, where only the fork's pool joins the tokens: a 422 naming the executor", () => {
    const error = failure(() =>
      build(forkOnly, withoutRouter, "router", beforeTheFork).encode(1n, 1_700_000_000n),
    );
    expect(error).toBeInstanceOf(UnsupportedByStrategyError);
    expect(error.message).toBe(
      `the router executor at ${contracts.executor} does not pay pancakeswap-v3's pools; deploy the execution layer again with \`npm run deploy\`.`,
    );
  });

  test("a bundle's route action under the router, with an executor built before the fork: the pair alone", () => {
    const routeSteps = (execution: ExecutionContracts) =>
      buildBundle({
        chain: withoutRouter,
        contracts: execution,
        graph: both,
        gasPriceWei: 1n,
        request: {
          fromAddress: user,
          receiver: undefined,
          spender: user.toLowerCase() as Address,
          routingStrategy: "router",
          actions: [
            {
              protocol: "core",
              action: "route",
              args: { tokenIn: tokenA, tokenOut: tokenB, amountIn: (10n * E18).toString() },
            },
          ],
        },
      }).compiled.routeSteps;
    expect(routeSteps(beforeTheFork).map((s) => [s.protocol, s.amountOut])).toEqual([
      ["uniswap-v2", "19743160687941225977"],
    ]);
    // With the executor built for the chain, the fork's pool is in.
    expect(routeSteps(contracts).map((s) => s.protocol)).toContain("pancakeswap-v3");
  });
});

describe("bundle builder", () => {
  const bundle = (overrides: Partial<BundleRequest>) =>
    buildBundle({
      chain,
      contracts,
      graph,
      gasPriceWei: 1n,
      request: {
        fromAddress: user,
        receiver: undefined,
        spender: user.toLowerCase() as Address,
        routingStrategy: "delegate",
        actions: [],
        ...overrides,
      },
    });
  const swapThenSend = [
    {
      protocol: "core",
      action: "route",
      args: { tokenIn: tokenA, tokenOut: tokenB, amountIn: "1000000000000000000" },
    },
    {
      protocol: "core",
      action: "transfer",
      args: { token: tokenB, receiver: third, amount: { useOutputOfCallAt: 0 } },
    },
  ];

  test("delegate: route then transfer of its output, compiled to the program the account runs", () => {
    // The echo shows each action's arguments as understood: addresses checksummed, the
    // defaults it applied (the route's slippage), references in their full form.
    const built = bundle({ actions: swapThenSend });
    expect([...built.compiled.inputs]).toEqual([[tokenA, E18]]);
    expect(built.compiled.bundle).toEqual([
      {
        protocol: "core",
        action: "route",
        args: {
          tokenIn: getAddress(tokenA),
          tokenOut: getAddress(tokenB),
          amountIn: E18.toString(),
          slippage: 300,
        },
      },
      {
        protocol: "core",
        action: "transfer",
        args: {
          token: getAddress(tokenB),
          receiver: third,
          amount: { useOutputOfCallAt: 0, index: 0 },
        },
      },
    ]);
    // Read around the run: what the transfer delivers, and what B the receiver is left with.
    expect(built.watchList(built.compiled)).toEqual([
      { token: getAddress(tokenB), account: third },
      { token: getAddress(tokenB), account: user },
    ]);
    const tx = built.encode(built.compiled, [], 1_700_000_000n);
    expect(tx.to).toBe(user);
    const decoded = decodeFunctionData({ abi: DelegateExecutorAbi, data: tx.data });
    const [commands, state] = decoded.args as readonly [readonly Hex[], readonly Hex[]];
    expect(commands).toEqual(built.compiled.program.commands);
    expect(state).toEqual(built.compiled.program.state);
    expect(callsOf({ calls: built.compiled.program.calls, commands })).toEqual([
      ["checkDeadline", contracts.minAmountOutCheck],
      // The route action measures what it made and holds it to the route's own minimum.
      ["balanceOf", contracts.minAmountOutCheck],
      ["transfer", getAddress(tokenA)],
      ["uniswapV2AmountOut", contracts.programValues],
      ["swap", getAddress(pair.address)],
      ["checkMinAmountOut", contracts.minAmountOutCheck],
      ["transfer", getAddress(tokenB)],
    ]);
  });

  test("clients of this API family may say `enso` for core, and send amounts and shares as JSON integers", () => {
    const sent = bundle({ actions: swapThenSend }).compiled;
    // The same bundle as another client writes it: `enso`, a JSON integer amount, and a split
    // whose shares are decimal strings; and the bundle with the split written in numbers.
    const aliased = bundle({
      actions: [
        {
          ...swapThenSend[0],
          protocol: "enso",
          args: { tokenIn: tokenA, tokenOut: tokenB, amountIn: 10 ** 15 },
        },
        {
          protocol: "enso",
          action: "split",
          args: { amount: { useOutputOfCallAt: 0 }, bps: ["6000", "4000"] },
        },
      ],
    }).compiled;
    const numeric = bundle({
      actions: [
        {
          ...swapThenSend[0],
          args: { tokenIn: tokenA, tokenOut: tokenB, amountIn: "1000000000000000" },
        },
        {
          protocol: "core",
          action: "split",
          args: { amount: { useOutputOfCallAt: 0 }, bps: [6000, 4000] },
        },
      ],
    }).compiled;
    expect(aliased.program).toEqual(numeric.program);
    // The echo says `core`, whatever the request called it.
    expect(aliased.bundle.map((a) => a.protocol)).toEqual(["core", "core"]);
    expect(aliased.bundle[0]?.args.amountIn).toBe("1000000000000000");
    expect(aliased.bundle[1]?.args.bps).toEqual([6000, 4000]);
    expect(sent.bundle[0]?.args.amountIn).toBe("1000000000000000000");
  });

  test("the checks follow what a first run delivered, less the slippage", () => {
    const built = bundle({ actions: swapThenSend, slippage: 250 });
    const checks = built.checks(built.compiled, [
      { token: getAddress(tokenB), account: third, delta: 1_000_000n },
      { token: getAddress(tokenA), account: user, delta: -5n },
    ]);
    expect(checks).toEqual([{ token: getAddress(tokenB), account: third, min: 975_000n }]);
    const final = built.compile({ deadline: 1_700_000_000n, checks });
    expect(final.program.calls.at(-1)?.functionName).toBe("checkMinAmountOut");
  });

  test("router: a bundle must spend a literal input, and deliver something it can check", () => {
    const noInput = failure(() =>
      bundle({
        routingStrategy: "router",
        actions: [{ protocol: "core", action: "balance", args: { token: tokenB } }],
      }),
    );
    expect(noInput).toBeInstanceOf(InvalidArgumentError);
    expect(noInput.message).toBe(
      "With routingStrategy=router a bundle must spend an input token with a literal amount (the router pulls it first).",
    );
    const built = bundle({ routingStrategy: "router", actions: swapThenSend });
    expect(built.account).toBe(contracts.executor);
    const nothing = failure(() => built.checks(built.compiled, []));
    expect(nothing).toBeInstanceOf(UnsupportedByStrategyError);
    expect(nothing.message).toBe(
      "The bundle delivers nothing the router could check: no token reaches the receiver or a transfer target.",
    );
  });

  test("a bundle's action error names its path and action", () => {
    const error = failure(() =>
      bundle({
        actions: [
          swapThenSend[0],
          { protocol: "core", action: "transfer", args: { token: tokenB, receiver: third } },
        ],
      }),
    );
    expect(error).toBeInstanceOf(MissingArgumentError);
    expect([error.path, error.actionIndex, error.message]).toEqual([
      "actions[1].args.amount",
      1,
      "actions[1].args.amount is required.",
    ]);
  });
});
