/**
 * From a validated route request to the answer: the engine finds the route and encodes the
 * strategy's transaction (engine/route/route.ts); here it is simulated against the latest block with
 * the caller given the input (and approval) it may not have yet, and the answer reports what
 * the simulation delivered. Failures are the engine's typed errors (engine/core/errors.ts); the API
 * gives them statuses.
 */
import type { Address, Hex, PublicClient } from "viem";
import { getAddress } from "viem";
import type {
  ChainSetup,
  OpStackFeeParameters,
  RouteQuote,
  RoutingGraph,
} from "../../../engine/index.js";
import {
  type BeforeSending,
  buildRoute,
  ChainUnavailableError,
  DEFAULT_DEADLINE_SECONDS,
  describeRevert,
  gasLimit,
  minimumOf,
  priceImpactBps,
  type RouteRequest,
  type RouteStep,
  routeSteps,
  SimulationRevertedError,
  usdPrices,
} from "../../../engine/index.js";
import { executionContracts } from "../chain/execution-contracts.js";
import { l1FeeCall, l1FeeOf } from "../chain/l1-fee.js";
import type { SimulationLog } from "../chain/simulate.js";
import {
  balanceCall,
  decodeBalance,
  fundingOverrides,
  runSimulation,
  simulatedBlock,
  simulationTarget,
  withDelegation,
} from "../chain/simulation-inputs.js";
import type { TokenSlotFinder } from "../chain/slots.js";
import { recordRouteSearch, sampleRouteCertificate } from "../ops/metrics.js";
import { deliversQuote, quotedByMath, quoteNotDelivered } from "./quote-delivered.js";

export type PlanRouteContext = {
  chain: ChainSetup;
  client: PublicClient;
  graph: RoutingGraph;
  slots: TokenSlotFinder;
  gasPriceWei: bigint;
  /** The chain's L1 fee parameters at the graph's block, where it charges one. */
  l1Fee?: OpStackFeeParameters;
  /** USD stablecoins of the chain, for price impact. */
  stablecoins: Address[];
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
  /** The L1 data fee of `tx.data` (wei), on a chain that charges one. */
  l1Fee?: string;
};

/**
 * The most simulations of a route's transaction on one block after the first, while each
 * delivers another amount than the one before (its minimum re-derived each time).
 */
const MAX_RESIMULATIONS = 3;

/**
 * Plans, encodes and simulates a route.
 * @throws UnknownTokenError, InvalidArgumentError, NoRouteError, InsufficientLiquidityError,
 * UnsupportedByStrategyError, InputNotSimulatableError, SimulationRevertedError,
 * QuoteNotDeliveredError,
 * ChainUnavailableError, ExecutionNotDeployedError.
 */
export async function planRoute(ctx: PlanRouteContext, req: RouteRequest): Promise<RouteAnswer> {
  const contracts = await executionContracts(ctx.chain, ctx.client);
  const route = buildRoute({ ...ctx, contracts, request: req });
  // The block whose state the quote was made on: the graph is brought up to date in place while
  // this request awaits the chain, so it is read now, with the search.
  const quotedAt = ctx.graph.blockNumber;
  recordRouteSearch(route.searchMs);
  // Now, on the graph the route was found on (it changes while the request awaits the chain).
  sampleRouteCertificate(() => route.certify());
  const { quote, receiver, strategy } = route;
  const minFor = (amountOut: bigint) => minimumOf(amountOut, req.slippage);

  // The transaction is encoded for the block it is simulated in (its default deadline counts from
  // that block's timestamp): the transaction returned is the one simulated, so its `gasUsed` is
  // the simulation's own. (Patching the calldata afterwards and its gas by the bytes' price is not
  // exact: the refund is capped at a fifth of the gas, and that cap moves with the calldata.)
  const target = simulationTarget(ctx, contracts);
  const block = await simulatedBlock(target);
  const deadline = req.deadline ?? block.timestamp + DEFAULT_DEADLINE_SECONDS;
  let { tx, calls } = route.encode(minFor(quote.amountOut), deadline);

  // The caller may not hold or have approved the input yet: give it for the simulation.
  let overrides = await fundingOverrides(target, {
    inputs: [[req.tokenIn, req.amountIn]],
    holder: route.funded.holder,
    spender: route.funded.spender,
    message: (error) =>
      `Cannot simulate with ${error.token} as tokenIn: its ${error.what} storage could not be located for the state override.${error.remedy}`,
  });
  if (strategy === "delegate") overrides = withDelegation(overrides, route.from, contracts);
  const read = balanceCall(contracts, route.outToken, receiver);
  // On a chain with an L1 data fee, the chain's own price of the calldata, in the same block.
  const simulate = (blockNumber: bigint) => {
    const feeCall = l1FeeCall(ctx.chain, tx.data);
    return runSimulation(target, {
      calls: [
        read,
        { from: tx.from, to: tx.to, data: tx.data, value: tx.value },
        read,
        ...(feeCall ? [feeCall] : []),
      ],
      overrides,
      sentIndex: 1,
      blockNumber,
    });
  };
  let simulation = await simulate(block.baseBlock);
  let [before, sent, after] = simulation.results;
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
  let amountOut = decodeBalance(after.returnData) - decodeBalance(before.returnData);
  if (quotedByMath(quote)) {
    await expectQuoteDelivered(ctx, {
      quote,
      quotedAt,
      tokenOut: route.outToken,
      simulated: { blockNumber: simulation.blockNumber, amountOut, logs: sent.logs },
      // The same transaction on the state the quote was made on, when the chain has moved.
      resimulate: async (blockNumber) => {
        const [b, s, a] = (await simulate(blockNumber)).results;
        if (!b?.ok || !a?.ok || !s?.ok) return { amountOut: 0n, logs: [] };
        return {
          amountOut: decodeBalance(a.returnData) - decodeBalance(b.returnData),
          logs: s.logs,
        };
      },
    });
  }
  // The amount the transaction's minimum was derived from: until the last simulation of the
  // transaction delivers it, the minimum follows what the chain delivered (the chain moved since
  // the snapshot) and the transaction with that minimum is simulated again on the same block, for
  // its gas. A node that ran the first simulation on a block it was mining meanwhile (its head's
  // state read as the next block's) answers the second run otherwise: each run follows the last,
  // a bounded number of times.
  let encodedFor = quote.amountOut;
  for (let runs = 1; amountOut !== encodedFor; runs++) {
    if (runs > MAX_RESIMULATIONS) {
      throw new ChainUnavailableError(
        `The chain node simulated the same transaction on block ${simulation.blockNumber} ${runs} times with different results.`,
        { chainId: ctx.chain.id },
      );
    }
    encodedFor = amountOut;
    ({ tx, calls } = route.encode(minFor(amountOut), deadline));
    simulation = await simulate(simulation.blockNumber);
    [before, sent, after] = simulation.results;
    if (!before?.ok || !after?.ok || !sent?.ok) {
      throw new ChainUnavailableError(
        `The chain node simulated the same transaction on block ${simulation.blockNumber} with different results: a later run reverted.`,
        { chainId: ctx.chain.id },
      );
    }
    amountOut = decodeBalance(after.returnData) - decodeBalance(before.returnData);
  }
  const minAmountOut = minFor(amountOut);
  const gasUsed = sent.gasUsed;
  const gas = gasLimit({ gasUsed, strategy });
  const l1Fee = ctx.chain.l1Fee ? l1FeeOf(ctx.chain, simulation.results[3]) : undefined;

  let priceImpact: number | null = null;
  if (req.priceImpact) {
    const prices = usdPrices({ graph: ctx.graph, stablecoins: ctx.stablecoins });
    priceImpact = priceImpactBps({
      prices,
      tokenIn: req.tokenIn,
      amountIn: route.routedIn,
      tokenOut: req.tokenOut,
      amountOut,
    });
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
    beforeSending: route.beforeSending(),
    ...(req.fee !== undefined ? { feeAmount: [route.feeAmount.toString()] } : {}),
    ...(l1Fee !== undefined ? { l1Fee: l1Fee.toString() } : {}),
  };
}

/**
 * Refuses a route whose pools are all taken by their math when its simulation delivers less than
 * the quote by more than rounding (`quote-delivered.ts`). The snapshot the quote was made on may
 * be a block or more behind the chain, whose moves legitimately change what the route delivers:
 * a shortfall is judged again by simulating on the snapshot's own block.
 * @throws QuoteNotDeliveredError (422)
 */
export async function expectQuoteDelivered(
  ctx: Pick<PlanRouteContext, "chain">,
  params: {
    quote: RouteQuote;
    /** The graph's block when the quote was made (0: unknown). */
    quotedAt: bigint;
    tokenOut: Address;
    simulated: { blockNumber: bigint; amountOut: bigint; logs: readonly SimulationLog[] };
    resimulate: (
      blockNumber: bigint,
    ) => Promise<{ amountOut: bigint; logs: readonly SimulationLog[] }>;
  },
): Promise<void> {
  const { quote, tokenOut } = params;
  let judged = params.simulated;
  if (deliversQuote({ quote, tokenOut, simulated: judged.amountOut, logs: judged.logs })) return;
  // The state the quote was made on: the snapshot's block when the chain has moved past it;
  // else the simulated block itself, run once more (a node mining its next block while it
  // simulated on its head may have run the first on the next block's state).
  const snapshotBlock = params.quotedAt;
  const judgedOn =
    snapshotBlock > 0n && snapshotBlock !== judged.blockNumber ? snapshotBlock : judged.blockNumber;
  judged = { blockNumber: judgedOn, ...(await params.resimulate(judgedOn)) };
  if (deliversQuote({ quote, tokenOut, simulated: judged.amountOut, logs: judged.logs })) return;
  throw quoteNotDelivered({
    chainId: ctx.chain.id,
    tokenOut,
    quoted: quote.amountOut,
    simulated: judged.amountOut,
    blockNumber: judged.blockNumber,
  });
}
