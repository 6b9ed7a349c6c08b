import { Hono } from "hono";
import type { Address } from "viem";
import { describe, expect, test } from "vitest";
import {
  ChainUnavailableError,
  DuplicateProtocolError,
  EngineError,
  type EngineErrorType,
  ExecutionNotDeployedError,
  ForeignGraphError,
  InputNotSimulatableError,
  InsufficientLiquidityError,
  InvalidArgumentError,
  MissingArgumentError,
  NoRouteError,
  PoolKindConflictError,
  SimulationRevertedError,
  UnknownActionError,
  UnknownPoolError,
  UnknownPoolKindError,
  UnknownTokenError,
  UnsafePositionError,
  UnsupportedByStrategyError,
  UnsupportedOnChainError,
} from "../../engine/core/errors.js";
import { displayAddress } from "../../engine/core/native.js";
import { compileBundle, createRoutingGraph } from "../../engine/index.js";
import {
  ApiError,
  ENGINE_ERROR_STATUS,
  engineApiError,
  handleError,
} from "../../src/api/errors.js";
import { quoteNotDelivered } from "../../src/api/shortcuts/quote-delivered.js";
import { E18, token, v2 } from "../routing/fixtures.js";
import { chain, contracts } from "./fixtures.js";

/** The status and body the API answers with for `error`, through its error handler. */
async function answerFor(error: Error): Promise<{ status: number; body: unknown }> {
  const app = new Hono();
  app.get("/", () => {
    throw error;
  });
  app.onError(handleError);
  const res = await app.request("/");
  return { status: res.status, body: await res.json() };
}

describe("engine errors", () => {
  test("the message is the path and the short message; the fields stay apart", () => {
    const cause = new Error("underlying");
    const error = new InvalidArgumentError("expected an amount greater than 0.", {
      path: "args.amountIn",
      cause,
    });
    expect(error).toBeInstanceOf(EngineError);
    expect(error.name).toBe("InvalidArgumentError");
    expect(error.shortMessage).toBe("expected an amount greater than 0.");
    expect(error.path).toBe("args.amountIn");
    expect(error.actionIndex).toBeUndefined();
    expect(error.details).toBeUndefined();
    expect(error.cause).toBe(cause);
    expect(error.message).toBe("args.amountIn: expected an amount greater than 0.");
  });

  test("placed in an action, a failure keeps its class, cause and stack and gains the prefix", () => {
    const cause = new Error("underlying");
    const inner = new UnknownTokenError("unknown token 0x01: no indexed pool or vault holds it.", {
      path: "args.tokenIn",
      token: token(1),
      cause,
    });
    const located = inner.inAction(3);
    expect(located).toBeInstanceOf(UnknownTokenError);
    expect(located.path).toBe("actions[3].args.tokenIn");
    expect(located.actionIndex).toBe(3);
    expect(located.message).toBe(
      "actions[3].args.tokenIn: unknown token 0x01: no indexed pool or vault holds it.",
    );
    expect(located.shortMessage).toBe(inner.shortMessage);
    expect(located.cause).toBe(cause);
    expect(located.token).toBe(token(1));
    expect(located.stack).toBe(inner.stack);
    // The original is untouched.
    expect(inner.path).toBe("args.tokenIn");
    expect(inner.message).toBe(
      "args.tokenIn: unknown token 0x01: no indexed pool or vault holds it.",
    );

    const pathless = new UnsupportedOnChainError(
      "No Uniswap V2 Router02 is configured on chain 1.",
    );
    expect(pathless.inAction(0).message).toBe(
      "actions[0]: No Uniswap V2 Router02 is configured on chain 1.",
    );
    expect(new MissingArgumentError({ path: "args.amountIn" }).inAction(2).message).toBe(
      "actions[2].args.amountIn is required.",
    );
  });

  // One instance of every class, with the status and body the API answers it with.
  const cases: [EngineErrorType, number, Record<string, unknown>][] = [
    [
      new InvalidArgumentError("The bundle is empty: send at least one action."),
      400,
      {
        statusCode: 400,
        error: "Bad Request",
        message: "The bundle is empty: send at least one action.",
      },
    ],
    [
      new MissingArgumentError({ path: "actions[0].args.amountIn", actionIndex: 0 }),
      400,
      { statusCode: 400, error: "Bad Request", message: "actions[0].args.amountIn is required." },
    ],
    [
      new UnknownActionError('core has no action "swap"; its actions: route.', {
        path: "actions[1].action",
        actionIndex: 1,
        protocol: "core",
        action: "swap",
      }),
      400,
      {
        statusCode: 400,
        error: "Bad Request",
        message: 'actions[1].action: core has no action "swap"; its actions: route.',
      },
    ],
    [
      new UnknownPoolError(
        "0x00000000000000000000000000000000000000aA is not an indexed v2 pool on chain 1.",
        {
          path: "args.primaryAddress",
          pool: "0x00000000000000000000000000000000000000aa",
        },
      ),
      400,
      {
        statusCode: 400,
        error: "Bad Request",
        message:
          "args.primaryAddress: 0x00000000000000000000000000000000000000aA is not an indexed v2 pool on chain 1.",
      },
    ],
    [
      new UnsupportedOnChainError("No wrapped native token is configured on chain 1."),
      400,
      {
        statusCode: 400,
        error: "Bad Request",
        message: "No wrapped native token is configured on chain 1.",
      },
    ],
    [
      new UnknownTokenError(
        "Unknown token 0x01 (`tokenIn`): no indexed pool or vault on chain 1 holds it.",
        { token: token(1) },
      ),
      404,
      {
        statusCode: 404,
        error: "Not Found",
        message: "Unknown token 0x01 (`tokenIn`): no indexed pool or vault on chain 1 holds it.",
      },
    ],
    [
      new NoRouteError("No route from 0x01 to 0x02 on chain 1.", {
        tokenIn: token(1),
        tokenOut: token(2),
      }),
      422,
      {
        statusCode: 422,
        error: "Unprocessable Entity",
        message: "No route from 0x01 to 0x02 on chain 1.",
      },
    ],
    [
      new InsufficientLiquidityError("The liquidity cannot fill 5 wei of 0x01.", {
        tokenIn: token(1),
        tokenOut: token(2),
        amountIn: 5n,
      }),
      422,
      {
        statusCode: 422,
        error: "Unprocessable Entity",
        message: "The liquidity cannot fill 5 wei of 0x01.",
      },
    ],
    [
      new UnsupportedByStrategyError(
        "The bundle delivers nothing the router could check: no token reaches the receiver or a transfer target.",
      ),
      422,
      {
        statusCode: 422,
        error: "Unprocessable Entity",
        message:
          "The bundle delivers nothing the router could check: no token reaches the receiver or a transfer target.",
      },
    ],
    [
      new InputNotSimulatableError(
        "Cannot simulate with 0x01 as an input: its balance storage could not be located.",
        { token: token(1) },
      ),
      422,
      {
        statusCode: 422,
        error: "Unprocessable Entity",
        message: "Cannot simulate with 0x01 as an input: its balance storage could not be located.",
      },
    ],
    [
      new SimulationRevertedError("Action 1 (core call) failed in simulation: reverted.", {
        actionIndex: 1,
        blockNumber: 12n,
        revertData: "0x",
        details: { blockNumber: 12, actionIndex: 1 },
      }),
      422,
      {
        statusCode: 422,
        error: "Unprocessable Entity",
        message: "Action 1 (core call) failed in simulation: reverted.",
        details: { blockNumber: 12, actionIndex: 1 },
      },
    ],
    [
      quoteNotDelivered({
        chainId: 1,
        tokenOut: "0x00000000000000000000000000000000000000bb",
        quoted: 1000n,
        simulated: 980n,
        blockNumber: 12n,
      }),
      422,
      {
        statusCode: 422,
        error: "Unprocessable Entity",
        message:
          "The route's transaction delivered 980 wei of 0x00000000000000000000000000000000000000bb in simulation on block 12, but its pools' state there gives 1000 wei: code on the route acts otherwise than its state says, so no safe minimum can be set. The route is refused.",
        details: { blockNumber: 12, quoted: "1000", simulated: "980" },
      },
    ],
    [
      new UnsafePositionError(
        "The bundle would leave 0x00000000000000000000000000000000000000aA with an Aave V3 health factor of 0.950000 on pool 0x00000000000000000000000000000000000000bB (below 1: the position could be liquidated). Borrow less or supply more collateral.",
        { account: "0x00000000000000000000000000000000000000aa", details: { blockNumber: 12 } },
      ),
      422,
      {
        statusCode: 422,
        error: "Unprocessable Entity",
        message:
          "The bundle would leave 0x00000000000000000000000000000000000000aA with an Aave V3 health factor of 0.950000 on pool 0x00000000000000000000000000000000000000bB (below 1: the position could be liquidated). Borrow less or supply more collateral.",
        details: { blockNumber: 12 },
      },
    ],
    [
      new ChainUnavailableError(
        "The RPC node of chain 1 did not answer the simulation. Retry shortly.",
        { chainId: 1 },
      ),
      503,
      {
        statusCode: 503,
        error: "Service Unavailable",
        message: "The RPC node of chain 1 did not answer the simulation. Retry shortly.",
      },
    ],
    [
      new ExecutionNotDeployedError(
        "The execution contracts are not deployed on chain 1 (missing: router); routes cannot be executed there.",
        { chainId: 1, missing: ["router"] },
      ),
      503,
      {
        statusCode: 503,
        error: "Service Unavailable",
        message:
          "The execution contracts are not deployed on chain 1 (missing: router); routes cannot be executed there.",
      },
    ],
    // The engine's own assembly gone wrong: the service's fault, answered as one.
    [
      new UnknownPoolKindError("curve"),
      500,
      {
        statusCode: 500,
        error: "Internal Server Error",
        message: "no protocol implements the pool kind curve",
      },
    ],
    [
      new PoolKindConflictError("v2", "model"),
      500,
      {
        statusCode: 500,
        error: "Internal Server Error",
        message: "two protocols implement the model of pool kind v2 differently",
      },
    ],
    [
      new DuplicateProtocolError("uniswap-v2"),
      500,
      {
        statusCode: 500,
        error: "Internal Server Error",
        message: "a protocol with the slug uniswap-v2 is installed already",
      },
    ],
    [
      new ForeignGraphError(),
      500,
      {
        statusCode: 500,
        error: "Internal Server Error",
        message:
          "the routing graph was built with another engine's pool models: build it with this engine's createGraph()",
      },
    ],
  ];

  test("every class has a case here", () => {
    expect(cases.map(([e]) => e.name).sort()).toEqual(Object.keys(ENGINE_ERROR_STATUS).sort());
  });

  test.each(cases.map((c) => [c[0].name, ...c] as const))(
    "%s answers %i with its exact body",
    async (_name, error, status, body) => {
      const api = engineApiError(error);
      expect(api).toBeInstanceOf(ApiError);
      expect(api.statusCode).toBe(status);
      // Serialized as sent: keys and their order included.
      expect(JSON.stringify(api.toBody())).toBe(JSON.stringify(body));
      const answer = await answerFor(error);
      expect(answer.status).toBe(status);
      expect(JSON.stringify(answer.body)).toBe(JSON.stringify(body));
    },
  );
});

const REASON: Record<number, string> = {
  400: "Bad Request",
  404: "Not Found",
  422: "Unprocessable Entity",
};

describe("bundle compilation failures, without chain or server", () => {
  const tokenA = token(1);
  const tokenB = token(2);
  const tokenC = token(3);
  const tokenD = token(4);
  const graph = createRoutingGraph();
  const pair = v2(tokenA, tokenB, 1000n * E18, 1000n * E18);
  graph.upsertPool(pair);
  // C and D share a pair but are not connected to A and B.
  graph.upsertPool(v2(tokenC, tokenD, 1000n * E18, 1000n * E18));
  // A pair of a fork of Uniswap V2 (PancakeSwap V1, 0.2%), between two tokens of its own.
  const forkPair = {
    ...v2(token(6), token(7), 1000n * E18, 1000n * E18),
    protocol: "pancakeswap-v1",
    feePpm: 2000,
  };
  graph.upsertPool(forkPair);
  // E is reached from A through a Uniswap V3 pool only (and the chain has no SwapRouter).
  const tokenE = token(5);
  graph.upsertPool({
    kind: "v3",
    protocol: "uniswap-v3",
    address: token(0x205),
    token0: tokenA,
    token1: tokenE,
    feePpm: 3000,
    tickSpacing: 60,
    sqrtPriceX96: 2n ** 96n,
    tick: 0,
    liquidity: 1000n * E18,
    ticks: [
      { tick: -887220, liquidityNet: 1000n * E18 },
      { tick: 887220, liquidityNet: -1000n * E18 },
    ],
  });

  // A Uniswap V4 pool of A and B in the manager at 0x…4444.
  const manager = token(0x4444);
  const v4Id = `0x${"4d".repeat(32)}` as Address;
  graph.upsertPool({
    kind: "v4",
    protocol: "uniswap-v4",
    address: v4Id,
    poolManager: manager,
    token0: tokenA,
    token1: tokenB,
    feePpm: 500,
    keyFee: 500,
    protocolFee: 0,
    tickSpacing: 10,
    hooks: token(0),
    admission: "exact",
    sqrtPriceX96: 2n ** 96n,
    tick: 0,
    liquidity: 1000n * E18,
    ticks: [
      { tick: -887270, liquidityNet: 1000n * E18 },
      { tick: 887270, liquidityNet: -1000n * E18 },
    ],
  });
  const v4Swap = (args: Record<string, unknown>) => ({
    protocol: "uniswap-v4",
    action: "swap",
    args: { primaryAddress: manager, tokenIn: tokenA, tokenOut: tokenB, amountIn: "1000", ...args },
  });

  const caller = token(0xca11);

  function failure(actions: unknown[]): EngineError {
    try {
      compileBundle({
        actions,
        strategy: "delegate",
        contracts,
        chain,
        graph,
        gasPriceWei: 1n,
        account: caller,
        receiver: caller,
        from: caller,
        deadline: 2n ** 40n,
        slippageBps: 300,
      });
    } catch (error) {
      if (error instanceof EngineError) return error;
      throw error;
    }
    throw new Error("expected the bundle to fail");
  }

  const route = (args: Record<string, unknown>) => ({ protocol: "core", action: "route", args });
  const v2Action = (action: string, args: Record<string, unknown>) => ({
    protocol: "uniswap-v2",
    action,
    args,
  });
  const unknown = token(9);
  const first = route({ tokenIn: tokenA, tokenOut: tokenB, amountIn: "1000" });

  type FailureCase = {
    what: string;
    actions: unknown[];
    kind: new (...args: never[]) => EngineError;
    path: string | undefined;
    actionIndex: number | undefined;
    /** The class's own structured fields. */
    fields?: Record<string, unknown>;
    status: number;
    message: string;
  };
  const failures: FailureCase[] = [
    {
      what: "an empty bundle",
      actions: [],
      kind: InvalidArgumentError,
      path: undefined,
      actionIndex: undefined,
      status: 400,
      message: "The bundle is empty: send at least one action.",
    },
    {
      what: "an action the protocol does not have",
      actions: [{ protocol: "core", action: "swap", args: {} }],
      kind: UnknownActionError,
      path: "actions[0].action",
      actionIndex: 0,
      fields: { protocol: "core", action: "swap" },
      status: 400,
      message:
        'actions[0].action: core has no action "swap"; its actions: route, call, transfer, approve, balance, split, minamountout.',
    },
    {
      what: "a missing argument",
      actions: [route({ tokenIn: tokenA, tokenOut: tokenB })],
      kind: MissingArgumentError,
      path: "actions[0].args.amountIn",
      actionIndex: 0,
      status: 400,
      message: "actions[0].args.amountIn is required.",
    },
    {
      what: "an argument the schema refuses",
      actions: [route({ tokenIn: "0x12", tokenOut: tokenB, amountIn: "1" })],
      kind: InvalidArgumentError,
      path: "actions[0].args.tokenIn",
      actionIndex: 0,
      status: 400,
      message: "actions[0].args.tokenIn: expected an address (0x followed by 40 hex digits).",
    },
    {
      what: "an action's own argument check, placed in its action",
      actions: [first, route({ tokenIn: tokenB, tokenOut: tokenB, amountIn: "1000" })],
      kind: InvalidArgumentError,
      path: "actions[1].args.tokenOut",
      actionIndex: 1,
      fields: { shortMessage: "the same token as tokenIn; there is nothing to route." },
      status: 400,
      message: "actions[1].args.tokenOut: the same token as tokenIn; there is nothing to route.",
    },
    {
      what: "a misspelt argument, named instead of dropped",
      actions: [route({ tokenIn: tokenA, tokenOut: tokenB, amountIn: "1000", slipage: 50 })],
      kind: InvalidArgumentError,
      path: "actions[0].args.slipage",
      actionIndex: 0,
      status: 400,
      message:
        "actions[0].args.slipage: unknown argument; the arguments of core route are tokenIn, tokenOut, amountIn, slippage.",
    },
    {
      what: "a JSON integer amount beyond 2^53 - 1 (not exact in every JSON parser)",
      actions: [route({ tokenIn: tokenA, tokenOut: tokenB, amountIn: 2 ** 53 })],
      kind: InvalidArgumentError,
      path: "actions[0].args.amountIn",
      actionIndex: 0,
      status: 400,
      message:
        "actions[0].args.amountIn: expected an amount in wei (a decimal string, or a JSON integer up to 2^53 - 1) or an output reference { useOutputOfCallAt: <earlier action index> }.",
    },
    {
      what: "a share that is no whole number of basis points",
      actions: [
        first,
        {
          protocol: "core",
          action: "split",
          args: { amount: { useOutputOfCallAt: 0 }, bps: ["6000", 4000.5] },
        },
      ],
      kind: InvalidArgumentError,
      path: "actions[1].args.bps[1]",
      actionIndex: 1,
      status: 400,
      message:
        "actions[1].args.bps[1]: expected basis points: a whole number from 0 to 10000 (a JSON integer or a decimal string).",
    },
    {
      what: "an unknown token",
      actions: [route({ tokenIn: tokenA, tokenOut: unknown, amountIn: "1000" })],
      kind: UnknownTokenError,
      path: "actions[0].args.tokenOut",
      actionIndex: 0,
      fields: { token: unknown },
      status: 404,
      message:
        "actions[0].args.tokenOut: unknown token 0x0000000000000000000000000000000000000009: no indexed pool or vault holds it.",
    },
    {
      what: "tokens no path joins",
      actions: [route({ tokenIn: tokenA, tokenOut: tokenC, amountIn: "1000" })],
      kind: NoRouteError,
      path: "actions[0]",
      actionIndex: 0,
      fields: { tokenIn: tokenA, tokenOut: tokenC },
      status: 422,
      message:
        "actions[0]: No route from 0x0000000000000000000000000000000000000001 to 0x0000000000000000000000000000000000000003.",
    },
    {
      what: "a reference to a later action",
      actions: [
        first,
        {
          protocol: "core",
          action: "transfer",
          args: { token: tokenB, receiver: caller, amount: { useOutputOfCallAt: 5 } },
        },
      ],
      kind: InvalidArgumentError,
      path: "actions[1].args.amount",
      actionIndex: 1,
      status: 400,
      message:
        "actions[1].args.amount: useOutputOfCallAt 5 does not point to an earlier action (this is action 1).",
    },
    {
      what: "a reference inside a call's arguments, named by its place among them",
      actions: [
        first,
        {
          protocol: "core",
          action: "call",
          args: {
            address: tokenB,
            method: "transfer",
            abi: "function transfer(address to, uint256 amount) returns (bool)",
            args: [caller, { useOutputOfCallAt: 5 }],
          },
        },
      ],
      kind: InvalidArgumentError,
      path: "actions[1].args.args[1]",
      actionIndex: 1,
      status: 400,
      message:
        "actions[1].args.args[1]: useOutputOfCallAt 5 does not point to an earlier action (this is action 1).",
    },
    {
      what: "a route through a pool the strategy cannot reach on this chain",
      actions: [route({ tokenIn: tokenA, tokenOut: tokenE, amountIn: "1000000" })],
      kind: UnsupportedByStrategyError,
      path: "actions[0]",
      actionIndex: 0,
      status: 422,
      message: "actions[0]: no Uniswap V3 SwapRouter is configured on this chain.",
    },
    {
      what: "a pool that is not indexed",
      actions: [
        v2Action("swap", {
          primaryAddress: tokenC,
          tokenIn: tokenA,
          tokenOut: tokenB,
          amountIn: "1",
        }),
      ],
      kind: UnknownPoolError,
      path: "actions[0].args.primaryAddress",
      actionIndex: 0,
      fields: { pool: tokenC },
      status: 400,
      message:
        "actions[0].args.primaryAddress: 0x0000000000000000000000000000000000000003 is not an indexed v2 pool on chain 1.",
    },
    {
      what: "a fork's pair named under Uniswap V2",
      actions: [
        v2Action("swap", {
          primaryAddress: forkPair.address,
          tokenIn: token(6),
          tokenOut: token(7),
          amountIn: "1",
        }),
      ],
      kind: UnknownPoolError,
      path: "actions[0].args.primaryAddress",
      actionIndex: 0,
      fields: { pool: forkPair.address },
      status: 400,
      message: `actions[0].args.primaryAddress: ${displayAddress(forkPair.address)} is a pancakeswap-v1 pool, not a uniswap-v2 one: name it under protocol pancakeswap-v1.`,
    },
    {
      what: "liquidity added to a fork's pair through Uniswap V2",
      actions: [
        v2Action("deposit", {
          primaryAddress: forkPair.address,
          tokenIn: [token(6), token(7)],
          amountIn: ["1", "1"],
        }),
      ],
      kind: UnknownPoolError,
      path: "actions[0].args.primaryAddress",
      actionIndex: 0,
      fields: { pool: forkPair.address },
      status: 400,
      message: `actions[0].args.primaryAddress: ${displayAddress(forkPair.address)} is a pancakeswap-v1 pair: Uniswap V2's Router02 adds and removes liquidity on Uniswap V2's own pairs only.`,
    },
    {
      what: "Uniswap V2's pair named under a fork",
      actions: [
        {
          protocol: "pancakeswap-v1",
          action: "swap",
          args: { primaryAddress: pair.address, tokenIn: tokenA, tokenOut: tokenB, amountIn: "1" },
        },
      ],
      kind: UnknownPoolError,
      path: "actions[0].args.primaryAddress",
      actionIndex: 0,
      fields: { pool: pair.address },
      status: 400,
      message: `actions[0].args.primaryAddress: ${displayAddress(pair.address)} is a uniswap-v2 pool, not a pancakeswap-v1 one: name it under protocol uniswap-v2.`,
    },
    {
      what: "a V4 pool id that is not 32 bytes",
      actions: [v4Swap({ poolId: "0x1234" })],
      kind: InvalidArgumentError,
      path: "actions[0].args.poolId",
      actionIndex: 0,
      status: 400,
      message: "actions[0].args.poolId: expected a pool id (0x followed by 64 hex digits).",
    },
    {
      what: "a V4 pool id the manager does not hold",
      actions: [v4Swap({ poolId: `0x${"00".repeat(31)}01` })],
      kind: UnknownPoolError,
      path: "actions[0].args.poolId",
      actionIndex: 0,
      fields: { pool: manager },
      status: 400,
      message: `actions[0].args.poolId: 0x${"00".repeat(31)}01 is not a routable pool of the Uniswap V4 pool manager 0x0000000000000000000000000000000000004444 on chain 1: no such pool is indexed, or its hook runs during swaps (where it could trade against them or change their amounts) and is not in UNISWAP_V4_HOOKS_1.`,
    },
    {
      what: "a V4 pool named with another manager",
      actions: [v4Swap({ poolId: v4Id, primaryAddress: tokenC })],
      kind: UnknownPoolError,
      path: "actions[0].args.poolId",
      actionIndex: 0,
      fields: { pool: tokenC },
      status: 400,
      message: `actions[0].args.poolId: ${v4Id} is not a routable pool of the Uniswap V4 pool manager 0x0000000000000000000000000000000000000003 on chain 1: no such pool is indexed, or its hook runs during swaps (where it could trade against them or change their amounts) and is not in UNISWAP_V4_HOOKS_1.`,
    },
    {
      what: "a V4 pool that does not hold the tokens",
      actions: [v4Swap({ poolId: v4Id, tokenOut: tokenC })],
      kind: UnknownPoolError,
      path: "actions[0].args.tokenIn/tokenOut",
      actionIndex: 0,
      fields: { pool: manager },
      status: 400,
      message: `actions[0].args.tokenIn/tokenOut: Uniswap V4 pool ${v4Id} does not swap 0x0000000000000000000000000000000000000001 for 0x0000000000000000000000000000000000000003.`,
    },
    {
      what: "what the chain lacks",
      actions: [
        v2Action("deposit", {
          primaryAddress: pair.address,
          tokenIn: [tokenA, tokenB],
          amountIn: ["1", "1"],
        }),
      ],
      kind: UnsupportedOnChainError,
      path: "actions[0]",
      actionIndex: 0,
      status: 400,
      message: "actions[0]: No Uniswap V2 Router02 is configured on chain 1.",
    },
  ];

  test.each(failures.map((f) => [f.what, f] as const))("%s", (_what, f) => {
    const error = failure(f.actions);
    expect(error).toBeInstanceOf(f.kind);
    expect({ path: error.path, actionIndex: error.actionIndex }).toEqual({
      path: f.path,
      actionIndex: f.actionIndex,
    });
    if (f.fields) expect(error).toMatchObject(f.fields);
    expect(JSON.stringify(engineApiError(error).toBody())).toBe(
      JSON.stringify({ statusCode: f.status, error: REASON[f.status], message: f.message }),
    );
  });
});
