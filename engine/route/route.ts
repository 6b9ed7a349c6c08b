/**
 * The route builder: a route request, the chain's routing graph and its execution contracts in;
 * the best route, the strategy's program and its unsigned transaction out. No I/O: the service
 * simulates what this builds and reports what the simulation delivered
 * (src/api/shortcuts/plan-route.ts).
 */
import { type Address, getAddress } from "viem";
import { type ChainSetup, forkPoolDeployers, forkSwapRouters } from "../core/chain-setup.js";
import {
  InsufficientLiquidityError,
  InvalidArgumentError,
  NoRouteError,
  UnknownTokenError,
  UnsupportedByStrategyError,
} from "../core/errors.js";
import { displayAddress, isNativeToken, NATIVE_TOKEN_ADDRESS } from "../core/native.js";
import { type Edge, type RouteQuote, routeHops } from "../core/types.js";
import {
  type EncodedTx,
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterSwapTx,
  routeFeeAmount,
} from "../program/encode.js";
import { executingAccount, inputHolder } from "../program/executing-account.js";
import {
  type ExecutionContracts,
  type RoutingStrategy,
  UnsupportedRouteError,
} from "../program/hop-context.js";
import type { HopStepsTable } from "../program/hop-steps.js";
import type { PlannedCall } from "../program/planner.js";
import { hopLeftovers, planRouteProgram } from "../program/route-program.js";
import { type BeforeSending, beforeSending } from "../program/sending.js";
import { certifyRoute, type RouteCertificate } from "../routing/certificate.js";
import type { RoutingGraph } from "../routing/graph.js";
import { type OpStackFeeParameters, opStackFeePerByte } from "../routing/l1-data-fee.js";
import type { PoolModels } from "../routing/pool-model.js";
import { findAdmittedRoute } from "../routing/search.js";

/** A route request, validated (the API parses it from `GET /v1/shortcuts/route`'s query). */
export type RouteRequest = {
  chainId: number | undefined;
  fromAddress: Address;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  receiver: Address | undefined;
  spender: Address;
  routingStrategy: RoutingStrategy;
  /** True when the deprecated `toEOA` was sent (answered with a Deprecation header). */
  usedToEOA: boolean;
  toEOA: boolean | undefined;
  priceImpact: boolean;
  slippage: number;
  fee: number | undefined;
  feeReceiver: Address | undefined;
  tokenInAmountToApprove: bigint | undefined;
  tokenInAmountToTransfer: bigint | undefined;
  maxHops: number;
  /** Last acceptable block timestamp; default: the simulated block's + 20 minutes. */
  deadline: bigint | undefined;
};

/** One step of a route as SPEC 2.6 shows it. */
export type RouteStep = {
  tokenIn: string[];
  positionInId: string[];
  tokenOut: string[];
  positionOutId: string[];
  protocol: string;
  action: string;
  primaryAddress: string;
  /** A Uniswap V4 step's pool: its PoolId in the pool manager named by `primaryAddress`. */
  poolId?: string;
  amountIn: string;
  amountOut: string;
  /** What the step leaves unused (a single-sided V2 add's dust), when it can. */
  leftovers?: { token: string; amount: string }[];
};

/** What an engine knows of each pool kind: its routing model and its program steps. */
export type PoolKindTables = { models: PoolModels; steps: HopStepsTable };

/**
 * SPEC 2.6 route steps, one per hop of every leg (a split lists each leg's hops in turn), or of
 * a flow in its execution order (a token split between hops shows each hop's part as its
 * `amountIn`; hops merging into a token show theirs as `amountOut`), for a quote through pools
 * of `kinds`.
 */
export function routeSteps(kinds: PoolKindTables, chainId: number, quote: RouteQuote): RouteStep[] {
  return routeHops(quote).map((hop) => {
    const tokenIn = displayAddress(hop.edge.tokenIn);
    const tokenOut = displayAddress(hop.edge.tokenOut);
    const leftovers = hopLeftovers(kinds.steps, hop);
    const named = kinds.models.stepPool(hop.edge.pool);
    return {
      tokenIn: [tokenIn],
      positionInId: [`${chainId}:${tokenIn}`],
      tokenOut: [tokenOut],
      positionOutId: [`${chainId}:${tokenOut}:${tokenIn}`],
      protocol: hop.edge.pool.protocol,
      action: hop.edge.action,
      primaryAddress: getAddress(named?.primaryAddress ?? hop.edge.pool.address),
      ...(named ? { poolId: named.poolId } : {}),
      amountIn: hop.amountIn.toString(),
      amountOut: hop.amountOut.toString(),
      ...(leftovers.length > 0
        ? {
            leftovers: leftovers.map((l) => ({
              token: getAddress(l.token),
              amount: l.amount.toString(),
            })),
          }
        : {}),
    };
  });
}

export type BuildRouteParameters = {
  chain: ChainSetup;
  contracts: ExecutionContracts;
  /** The routing graph, built with the pool models of the engine's protocols. */
  graph: RoutingGraph;
  /** The program steps of the engine's pool kinds. */
  steps: HopStepsTable;
  /** Prices the gas of each candidate route against its output. */
  gasPriceWei: bigint;
  /**
   * On a chain with an L1 data fee, its parameters at the graph's block: each candidate route is
   * also charged the fee of its estimated calldata.
   */
  l1Fee?: OpStackFeeParameters;
  request: RouteRequest;
};

/** A route found and ready to encode at any minimum and deadline. */
export type RouteBuild = {
  strategy: RoutingStrategy;
  from: Address;
  /** Where the program runs: the caller, its core wallet, or the router's executor. */
  account: Address;
  /** The caller's core wallet (deployed or not). */
  wallet: Address | undefined;
  receiver: Address;
  quote: RouteQuote;
  feeAmount: bigint;
  /** amountIn less the fee: what the route swaps. */
  routedIn: bigint;
  /** What a core wallet pulls from its owner (the input unless the wallet spends its own). */
  amountFromOwner: bigint;
  /** The account that must hold the input for the transaction to run, and who may spend it. */
  funded: { holder: Address; spender: Address | undefined };
  /** The output token as the chain reports balances of it (the native token: 0xeeee…). */
  outToken: Address;
  /** Milliseconds the route search took. */
  searchMs: number;
  /**
   * The route's certificate (certificate.ts): its gap to the best flow over the pools the search
   * chose from. Call it before the graph changes (it bounds over the graph as it is).
   */
  certify(): RouteCertificate;
  /**
   * The strategy's transaction with `minAmountOut` as its minimum and `deadline` as its last
   * block timestamp, and the program's calls (for revert decoding).
   * @throws UnsupportedByStrategyError when the strategy cannot execute a hop of the route.
   */
  encode(minAmountOut: bigint, deadline: bigint): { tx: EncodedTx; calls: PlannedCall[] };
  /** What the client must do before sending (approval or delegation). */
  beforeSending(): BeforeSending[];
};

/**
 * Checks the request against the graph, finds the best route and returns its encoder.
 * @throws UnknownTokenError, InvalidArgumentError, NoRouteError, InsufficientLiquidityError.
 * @example buildRoute({ chain, contracts, graph, gasPriceWei, request }).encode(min, deadline)
 */
export function buildRoute(params: BuildRouteParameters): RouteBuild {
  const { chain, contracts, graph, request: req } = params;
  const strategy = req.routingStrategy;
  const from = getAddress(req.fromAddress);
  const tokenIn = req.tokenIn;
  const tokenOut = req.tokenOut;
  for (const [name, t] of [
    ["tokenIn", tokenIn],
    ["tokenOut", tokenOut],
  ] as const) {
    if (!graph.holds(t)) {
      throw new UnknownTokenError(
        `Unknown token ${displayAddress(t)} (\`${name}\`): no indexed pool or vault on chain ${chain.id} holds it.`,
        { token: t },
      );
    }
  }
  const nativeIn = isNativeToken(tokenIn);
  if (req.spender !== req.fromAddress && strategy !== "corewallet") {
    throw new InvalidArgumentError(
      `Query parameter \`spender\` must equal \`fromAddress\` with routingStrategy=${strategy}: the input is spent from the sender's own account.`,
    );
  }
  const fee = req.fee ?? 0;
  if (fee > 0 && nativeIn && strategy !== "router") {
    throw new InvalidArgumentError(
      "Query parameter `fee`: a fee on a native-currency input needs routingStrategy=router.",
    );
  }
  const feeAmount = routeFeeAmount(req.amountIn, fee);
  const routedIn = req.amountIn - feeAmount;
  if (routedIn === 0n) {
    throw new InvalidArgumentError(
      "Query parameter `amountIn`: nothing is left to route after the fee.",
    );
  }

  // Where the program runs, and who gets the output (toEOA=false: the executing account).
  const { account, wallet } = executingAccount({ strategy, contracts, from });
  const receiver = getAddress(
    req.receiver ?? (req.toEOA === false && strategy !== "router" ? account : from),
  );

  // Only pools this strategy's account can swap (outside the router a V3 pool needs its
  // SwapRouter): the route is the best of what can be executed.
  const scope = {
    strategy,
    swapRouter: chain.uniswapV3?.swapRouter,
    forkSwapRouters: forkSwapRouters(chain),
    forkPoolDeployers: forkPoolDeployers(chain, contracts.untrustedV3Forks),
  };
  const started = performance.now();
  const search = {
    admits: (edge: Edge) => params.steps.executable(edge.pool, scope),
    graph,
    tokenIn,
    tokenOut,
    amountIn: routedIn,
    maxHops: req.maxHops,
    gasPriceWei: params.gasPriceWei,
    l1FeePerByteWei: params.l1Fee && opStackFeePerByte(params.l1Fee),
    weth: (chain.weth?.toLowerCase() ?? NATIVE_TOKEN_ADDRESS) as Address,
  };
  const found = findAdmittedRoute(search);
  const searchMs = performance.now() - started;
  if (!found.ok) {
    throw found.reason === "no-path"
      ? new NoRouteError(
          `No route from ${displayAddress(tokenIn)} to ${displayAddress(tokenOut)} on chain ${chain.id}.`,
          { tokenIn, tokenOut },
        )
      : new InsufficientLiquidityError(
          `The liquidity between ${displayAddress(tokenIn)} and ${displayAddress(tokenOut)} cannot fill an input of ${routedIn} wei; try a smaller amountIn.`,
          { tokenIn, tokenOut, amountIn: routedIn },
        );
  }
  const quote = found.quote;

  // What a wallet pulls from its owner (corewallet): the input unless the wallet spends its own.
  const pullsFromOwner = req.spender === req.fromAddress;
  const amountFromOwner = nativeIn
    ? (req.tokenInAmountToTransfer ?? (pullsFromOwner ? req.amountIn : 0n))
    : (req.tokenInAmountToApprove ?? (pullsFromOwner ? req.amountIn : 0n));
  const displayIn = displayAddress(tokenIn) as Address;

  const encode = (minAmountOut: bigint, deadline: bigint) => {
    try {
      const program = planRouteProgram({
        steps: params.steps,
        execution: contracts,
        ...scope,
        weth: chain.weth,
        account,
        receiver,
        refundTo: from,
        quote,
        bounds: { deadline, slippageBps: req.slippage },
        fee:
          strategy === "router"
            ? undefined
            : { amount: feeAmount, receiver: req.feeReceiver ?? from },
        minAmountOut,
      });
      if (strategy === "router") {
        return {
          calls: program.calls,
          tx: encodeRouterSwapTx({
            router: contracts.router,
            from,
            tokenIn: displayIn,
            amountIn: req.amountIn,
            tokenOut: displayAddress(tokenOut) as Address,
            minAmountOut,
            receiver,
            deadline,
            fee:
              fee > 0 && req.feeReceiver
                ? { bps: fee, receiver: getAddress(req.feeReceiver) }
                : undefined,
            program,
          }),
        };
      }
      if (strategy === "delegate") {
        return { calls: program.calls, tx: encodeDelegateTx({ from, program }) };
      }
      return {
        calls: program.calls,
        tx: encodeCoreWalletTx({
          walletFactory: contracts.walletFactory,
          from,
          tokenIn: displayIn,
          amountIn: amountFromOwner,
          program,
        }),
      };
    } catch (error) {
      if (error instanceof UnsupportedRouteError) {
        throw new UnsupportedByStrategyError(`${error.message}.`, { cause: error });
      }
      throw error;
    }
  };

  return {
    strategy,
    from,
    account,
    wallet,
    receiver,
    quote,
    feeAmount,
    routedIn,
    amountFromOwner,
    funded: inputHolder({
      strategy,
      contracts,
      from,
      wallet,
      walletSpendsOwn: req.spender !== req.fromAddress,
    }),
    outToken: displayAddress(tokenOut) as Address,
    searchMs,
    certify: () => certifyRoute(search, quote),
    encode,
    beforeSending: () =>
      beforeSending({
        strategy,
        contracts,
        from,
        input:
          strategy === "router"
            ? { token: tokenIn, amount: req.amountIn }
            : strategy === "corewallet"
              ? { token: tokenIn, amount: amountFromOwner }
              : undefined,
      }),
  };
}
