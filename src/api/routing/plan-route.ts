/**
 * From a validated route request to the answer: find the best route in the chain's graph, build
 * the transaction of the requested strategy, simulate it against the latest block with the
 * caller given the input (and approval) it may not have yet, and report what the simulation
 * delivered. Failures are the core's typed errors (engine/errors.ts); the API gives them statuses.
 */
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  type PublicClient,
} from "viem";
import { MinAmountOutCheckAbi } from "../../../abis/generated/MinAmountOutCheck.js";
import {
  ChainUnavailableError,
  ExecutionNotDeployedError,
  InputNotSimulatableError,
  InsufficientLiquidityError,
  InvalidArgumentError,
  NoRouteError,
  SimulationRevertedError,
  UnknownTokenError,
  UnsupportedByStrategyError,
} from "../../../engine/errors.js";
import type { ChainSetup } from "../../../protocols/chains.js";
import { EXECUTION_ADDRESS_NAMES } from "../../../protocols/execution-addresses.js";
import { isNativeToken, NATIVE_TOKEN_ADDRESS } from "../../../protocols/native.js";
import {
  type EncodedTx,
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterSwapTx,
  routeFeeAmount,
} from "../bundling/encode.js";
import { executingAccount } from "../bundling/executingAccount.js";
import { describeRevert } from "../bundling/revert.js";
import {
  type BeforeSending,
  beforeSending,
  DEFAULT_DEADLINE_SECONDS,
  gasLimit,
  PROVISIONAL_DEADLINE,
} from "../bundling/sending.js";
import { calldataGas } from "../chain/calldata-gas.js";
import {
  type AccountOverride,
  type SimulationCall,
  SimulationUnavailableError,
  simulateCalls,
  simulationUnavailable,
} from "../chain/simulate.js";
import { fundingStateDiff, SlotNotFoundError, type TokenSlotFinder } from "../chain/slots.js";
import { recordRouteSearch, recordSimulation } from "../ops/metrics.js";
import type { RouteRequest } from "../v1/route-query.js";
import type { RoutingGraph } from "./graph.js";
import { type ExecutionContracts, minimumOf, UnsupportedRouteError } from "./hop-context.js";
import { priceImpactBps, usdPrices } from "./prices.js";
import { planRouteProgram } from "./route-program.js";
import { findRoute } from "./search.js";
import type { RouteQuote } from "./types.js";

export type PlanRouteContext = {
  chain: ChainSetup;
  client: PublicClient;
  graph: RoutingGraph;
  slots: TokenSlotFinder;
  gasPriceWei: bigint;
  /** USD stablecoins of the chain, for price impact. */
  stablecoins: Address[];
};

export type RouteStep = {
  tokenIn: string[];
  positionInId: string[];
  tokenOut: string[];
  positionOutId: string[];
  protocol: string;
  action: string;
  primaryAddress: string;
  amountIn: string;
  amountOut: string;
};

export type RouteAnswer = {
  route: RouteStep[];
  gas: string;
  gasUsed: string;
  amountOut: string;
  minAmountOut: string;
  priceImpact: number | null;
  createdAt: number;
  blockNumber: number;
  deadline: number;
  tx: { data: Hex; to: string; from: string; value: string };
  beforeSending: BeforeSending[];
  feeAmount?: string[];
};

/** Chains whose deterministic execution layer was found: it stays found. */
const deterministicLayerChains = new Set<number>();

/**
 * Whether every deterministic address holds code. Read at first use; a chain without it is
 * read again on each request (each one answers 503 meanwhile), so a deployment made while the
 * service runs is picked up without a restart.
 */
async function deterministicLayerFound(
  chainId: number,
  client: PublicClient,
  addresses: ExecutionContracts,
): Promise<boolean> {
  if (deterministicLayerChains.has(chainId)) return true;
  const codes = await Promise.all(
    EXECUTION_ADDRESS_NAMES.map((n) => client.getCode({ address: addresses[n] })),
  ).catch((cause: unknown) => {
    throw new ChainUnavailableError(
      `The RPC node of chain ${chainId} is unreachable; try again shortly.`,
      { chainId, cause },
    );
  });
  const found = codes.every((code) => code !== undefined && code !== "0x");
  if (found) deterministicLayerChains.add(chainId);
  return found;
}

/**
 * The chain's execution contracts: those `EXECUTION_<id>` names, or, without it, the
 * deterministic addresses of `npm run deploy` once code is found at every one of them (read
 * from the chain at first use, not at configuration time).
 * @throws ExecutionNotDeployedError when they are not deployed there; ChainUnavailableError
 * when the node does not answer.
 */
export async function executionContracts(
  chain: ChainSetup,
  client: PublicClient,
): Promise<ExecutionContracts> {
  const deterministic = chain.deterministicExecution;
  if (
    deterministic !== undefined &&
    (await deterministicLayerFound(chain.id, client, deterministic))
  ) {
    return { ...deterministic };
  }
  const missing = EXECUTION_ADDRESS_NAMES.filter((n) => chain.execution[n] === undefined);
  if (missing.length > 0) {
    throw new ExecutionNotDeployedError(
      deterministic !== undefined
        ? `The execution contracts are not deployed on chain ${chain.id}: EXECUTION_${chain.id} is not set and the deterministic addresses (router ${deterministic.router}) hold no code; routes cannot be executed there.`
        : `The execution contracts are not deployed on chain ${chain.id} (missing: ${missing.join(", ")}); routes cannot be executed there.`,
      { chainId: chain.id, missing },
    );
  }
  return Object.fromEntries(
    EXECUTION_ADDRESS_NAMES.map((n) => [n, chain.execution[n]]),
  ) as ExecutionContracts;
}

/** Whether any indexed pool or vault of the graph holds `token` (lowercase). */
export function graphHasToken(graph: RoutingGraph, token: Address): boolean {
  return graph.edgesFrom(token).length > 0 || graph.edgesInto(token).length > 0;
}

function displayAddress(a: string): string {
  return isNativeToken(a) ? NATIVE_TOKEN_ADDRESS : getAddress(a);
}

/** SPEC 2.6 route steps, one per hop of every leg (a split lists each leg's hops in turn). */
export function routeSteps(chainId: number, quote: RouteQuote): RouteStep[] {
  return quote.legs.flatMap((leg) =>
    leg.hops.map((hop) => {
      const tokenIn = displayAddress(hop.edge.tokenIn);
      const tokenOut = displayAddress(hop.edge.tokenOut);
      return {
        tokenIn: [tokenIn],
        positionInId: [`${chainId}:${tokenIn}`],
        tokenOut: [tokenOut],
        positionOutId: [`${chainId}:${tokenOut}:${tokenIn}`],
        protocol: hop.edge.pool.protocol,
        action: hop.edge.action,
        primaryAddress: getAddress(hop.edge.pool.address),
        amountIn: hop.amountIn.toString(),
        amountOut: hop.amountOut.toString(),
      };
    }),
  );
}

async function inputOverrides(
  ctx: PlanRouteContext,
  params: { token: Address; holder: Address; amount: bigint; spender?: Address },
): Promise<Record<Address, AccountOverride>> {
  if (isNativeToken(params.token)) {
    // Enough for the value sent; gas is not charged in the simulation.
    return { [params.holder]: { balance: params.amount } };
  }
  try {
    return { [params.token]: { stateDiff: await fundingStateDiff(ctx.slots, ctx.client, params) } };
  } catch (error) {
    if (error instanceof SimulationUnavailableError) {
      throw simulationUnavailable(ctx.chain.id, error);
    }
    if (error instanceof SlotNotFoundError) {
      throw new InputNotSimulatableError(
        `Cannot simulate with ${error.token} as tokenIn: its ${error.what} storage could not be located for the state override.${error.remedy}`,
        { token: params.token, cause: error },
      );
    }
    throw error;
  }
}

function mergeOverrides(
  ...parts: Record<Address, AccountOverride>[]
): Record<Address, AccountOverride> {
  const out: Record<Address, AccountOverride> = {};
  for (const part of parts) {
    for (const [address, o] of Object.entries(part) as [Address, AccountOverride][]) {
      const prev = out[address] ?? {};
      out[address] = {
        ...prev,
        ...o,
        stateDiff:
          prev.stateDiff || o.stateDiff ? { ...prev.stateDiff, ...o.stateDiff } : undefined,
      };
    }
  }
  return out;
}

function balanceCall(
  contracts: ExecutionContracts,
  token: Address,
  account: Address,
): SimulationCall {
  return {
    from: "0x0000000000000000000000000000000000000000",
    to: contracts.minAmountOutCheck,
    data: encodeFunctionData({
      abi: MinAmountOutCheckAbi,
      functionName: "balanceOf",
      args: [token, account],
    }),
  };
}

function decodeBalance(data: Hex): bigint {
  return decodeFunctionResult({ abi: MinAmountOutCheckAbi, functionName: "balanceOf", data });
}

/**
 * Plans, encodes and simulates a route.
 * @throws UnknownTokenError, InvalidArgumentError, NoRouteError, InsufficientLiquidityError,
 * UnsupportedByStrategyError, InputNotSimulatableError, SimulationRevertedError,
 * ChainUnavailableError, ExecutionNotDeployedError.
 */
export async function planRoute(ctx: PlanRouteContext, req: RouteRequest): Promise<RouteAnswer> {
  const contracts = await executionContracts(ctx.chain, ctx.client);
  const strategy = req.routingStrategy;
  const from = getAddress(req.fromAddress);
  const tokenIn = req.tokenIn;
  const tokenOut = req.tokenOut;
  for (const [name, t] of [
    ["tokenIn", tokenIn],
    ["tokenOut", tokenOut],
  ] as const) {
    if (!graphHasToken(ctx.graph, t)) {
      throw new UnknownTokenError(
        `Unknown token ${displayAddress(t)} (\`${name}\`): no indexed pool or vault on chain ${ctx.chain.id} holds it.`,
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

  const started = performance.now();
  const found = findRoute({
    graph: ctx.graph,
    tokenIn,
    tokenOut,
    amountIn: routedIn,
    maxHops: req.maxHops,
    gasPriceWei: ctx.gasPriceWei,
    weth: (ctx.chain.weth?.toLowerCase() ?? NATIVE_TOKEN_ADDRESS) as Address,
  });
  recordRouteSearch(performance.now() - started);
  if (!found.ok) {
    throw found.reason === "no-path"
      ? new NoRouteError(
          `No route from ${displayAddress(tokenIn)} to ${displayAddress(tokenOut)} on chain ${ctx.chain.id}.`,
          { tokenIn, tokenOut },
        )
      : new InsufficientLiquidityError(
          `The liquidity between ${displayAddress(tokenIn)} and ${displayAddress(tokenOut)} cannot fill an input of ${routedIn} wei; try a smaller amountIn.`,
          { tokenIn, tokenOut, amountIn: routedIn },
        );
  }
  const quote = found.quote;
  const minFor = (amountOut: bigint) => minimumOf(amountOut, req.slippage);

  // What a wallet pulls from its owner (corewallet): the input unless the wallet spends its own.
  const pullsFromOwner = req.spender === req.fromAddress;
  const amountFromOwner = nativeIn
    ? (req.tokenInAmountToTransfer ?? (pullsFromOwner ? req.amountIn : 0n))
    : (req.tokenInAmountToApprove ?? (pullsFromOwner ? req.amountIn : 0n));

  const buildTx = (
    minAmountOut: bigint,
    deadline: bigint,
  ): { tx: EncodedTx; calls: ReturnType<typeof planRouteProgram>["calls"] } => {
    try {
      const program = planRouteProgram({
        strategy,
        execution: contracts,
        swapRouter: ctx.chain.uniswapV3?.swapRouter,
        weth: ctx.chain.weth,
        account,
        receiver,
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
            tokenIn: nativeIn ? NATIVE_TOKEN_ADDRESS : getAddress(tokenIn),
            amountIn: req.amountIn,
            tokenOut: isNativeToken(tokenOut) ? NATIVE_TOKEN_ADDRESS : getAddress(tokenOut),
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
          tokenIn: nativeIn ? NATIVE_TOKEN_ADDRESS : getAddress(tokenIn),
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

  const simulatedDeadline = req.deadline ?? PROVISIONAL_DEADLINE;
  let { tx, calls } = buildTx(minFor(quote.amountOut), simulatedDeadline);

  // The caller may not hold or have approved the input yet: give it for the simulation.
  const funded =
    strategy === "corewallet" && req.spender !== req.fromAddress ? (wallet as Address) : from;
  const spenderOfInput =
    strategy === "router"
      ? contracts.router
      : strategy === "corewallet" && funded === from
        ? wallet
        : undefined;
  let overrides = await inputOverrides(ctx, {
    token: tokenIn,
    holder: funded,
    amount: req.amountIn,
    spender: spenderOfInput,
  });
  if (strategy === "delegate") {
    // An EIP-7702 account delegating to the delegate executor.
    overrides = mergeOverrides(overrides, {
      [from]: { code: `0xef0100${contracts.delegateExecutor.slice(2).toLowerCase()}` as Hex },
    });
  }
  const outToken = (
    isNativeToken(tokenOut) ? NATIVE_TOKEN_ADDRESS : getAddress(tokenOut)
  ) as Address;
  const simStarted = performance.now();
  const sentCall = { from: tx.from, to: tx.to, data: tx.data, value: tx.value };
  let simulation: Awaited<ReturnType<typeof simulateCalls>>;
  try {
    simulation = await simulateCalls(ctx.client, {
      calls: [
        balanceCall(contracts, outToken, receiver),
        sentCall,
        balanceCall(contracts, outToken, receiver),
      ],
      overrides,
    });
  } catch (error) {
    if (error instanceof SimulationUnavailableError) {
      throw simulationUnavailable(ctx.chain.id, error);
    }
    throw error;
  }
  recordSimulation(performance.now() - simStarted, simulation.results[1]?.ok === true);
  const [before, sent, after] = simulation.results;
  if (!before?.ok || !after?.ok || !sent) {
    throw new ChainUnavailableError("The chain node returned an incomplete simulation.", {
      chainId: ctx.chain.id,
    });
  }
  if (!sent.ok) {
    const reason = describeRevert({ data: sent.revertData, calls });
    throw new SimulationRevertedError(
      `The route's transaction reverted in simulation: ${reason.message}.`,
      {
        blockNumber: simulation.blockNumber,
        revertData: sent.revertData,
        details: { blockNumber: Number(simulation.blockNumber) },
      },
    );
  }
  const amountOut = decodeBalance(after.returnData) - decodeBalance(before.returnData);
  const minAmountOut = minFor(amountOut);
  const deadline = req.deadline ?? simulation.timestamp + DEFAULT_DEADLINE_SECONDS;
  // The chain moved since the snapshot: the minimum follows what the chain delivers now; and
  // the deadline counts from the simulated block. Only those words of the calldata change, so
  // only the calldata's gas does.
  const simulatedTx = tx;
  if (amountOut !== quote.amountOut || deadline !== simulatedDeadline) {
    ({ tx, calls } = buildTx(minAmountOut, deadline));
  }
  const gasUsed = sent.gasUsed + calldataGas(tx.data) - calldataGas(simulatedTx.data);
  const gas = gasLimit({ gasUsed, strategy });

  let priceImpact: number | null = null;
  if (req.priceImpact) {
    const prices = usdPrices({ graph: ctx.graph, stablecoins: ctx.stablecoins });
    priceImpact = priceImpactBps({ prices, tokenIn, amountIn: routedIn, tokenOut, amountOut });
  }
  return {
    route: routeSteps(ctx.chain.id, quote),
    gas: gas.toString(),
    gasUsed: gasUsed.toString(),
    amountOut: amountOut.toString(),
    minAmountOut: minAmountOut.toString(),
    priceImpact,
    createdAt: Number(simulation.blockNumber),
    blockNumber: Number(simulation.blockNumber),
    deadline: Number(deadline),
    tx: {
      data: tx.data,
      to: getAddress(tx.to),
      from: getAddress(tx.from),
      value: tx.value.toString(),
    },
    beforeSending: beforeSending({
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
    ...(req.fee !== undefined ? { feeAmount: [feeAmount.toString()] } : {}),
  };
}
