/**
 * The engine's one public door and its composition root. The layers below know no protocol:
 * `core/` and `math/` at the bottom; `routing/` (graph, search, prices) and `program/`
 * (command-VM programs) above them, side by side; `route/` over both; `bundle/` over `route/`;
 * and `protocols/<slug>/` on top, each folder holding all of its protocol's code. An engine
 * (`createEngine`) installs its protocols in tables of its own (`protocols/registry.ts`): the
 * routing graphs it builds hold its pool models, and its route and bundle compilers are given
 * its hop steps and actions. The functions exported here by name are those of the engine of the
 * built-in protocols (`engine`). The service, `devnet/` and `scripts/` import the engine only
 * here (`npm run lint:deps` holds them to it).
 */

import {
  type BuildBundleParameters,
  type BundleBuild,
  buildBundle as buildBundleWith,
} from "./bundle/build.js";
import {
  type CompileBundleParameters,
  type CompiledBundle,
  compileBundle as compileBundleWith,
} from "./bundle/compile.js";
import { ForeignGraphError } from "./core/errors.js";
import type { EdgeQuote } from "./core/quote.js";
import type { Edge, QuotedHop, RouteQuote } from "./core/types.js";
import type { Leftover } from "./program/hop-steps.js";
import type { PlannedProgram } from "./program/planner.js";
import {
  hopLeftovers as hopLeftoversWith,
  planRouteProgram as planRouteProgramWith,
  type RouteProgramParameters,
} from "./program/route-program.js";
import { aaveV3 } from "./protocols/aave-v3/protocol.js";
import { balancerV2 } from "./protocols/balancer-v2/protocol.js";
import { core } from "./protocols/core/protocol.js";
import { ProtocolRegistry } from "./protocols/registry.js";
import { savingsVaults } from "./protocols/savings-vaults/protocol.js";
import type { Protocol } from "./protocols/types.js";
import { uniswapV2Forks } from "./protocols/uniswap-v2/forks.js";
import { uniswapV2 } from "./protocols/uniswap-v2/protocol.js";
import { uniswapV3Forks } from "./protocols/uniswap-v3/forks.js";
import { uniswapV3 } from "./protocols/uniswap-v3/protocol.js";
import { uniswapV4 } from "./protocols/uniswap-v4/protocol.js";
import { wrappedNative } from "./protocols/wrapped-native/protocol.js";
import { yieldVaults } from "./protocols/yield-vaults/protocol.js";
import {
  type BuildRouteParameters,
  buildRoute as buildRouteWith,
  type RouteBuild,
  type RouteStep,
  routeSteps as routeStepsWith,
} from "./route/route.js";
import { RoutingGraph } from "./routing/graph.js";
import type { PoolModels } from "./routing/pool-model.js";
import { type FlowPlan, type FlowQuote, quoteFlow as quoteFlowWith } from "./routing/quote-flow.js";
import {
  type PathQuote,
  quotePathOut as quotePathOutWith,
  quotePath as quotePathWith,
} from "./routing/quote-path.js";
import { findRoute } from "./routing/search.js";

export { addressArg, amountArg, bpsArg } from "./bundle/actions/args.js";
export { describeActions } from "./bundle/actions/describe.js";
export {
  hopAction,
  literalInput,
  namedEdge,
  poolHop,
  poolHopTo,
} from "./bundle/actions/pool-action.js";
export type { ActionSpec, CompileContext, OutputValue } from "./bundle/actions/types.js";
export {
  type BundleBuild,
  type BundleRequest,
  type OutputCheck,
  seenInLogs,
} from "./bundle/build.js";
export { type CompiledBundle, MAX_BUNDLE_ACTIONS } from "./bundle/compile.js";
export type {
  ChainSetup,
  L1FeeSetup,
  UniswapV2ForkDeployment,
  UniswapV3ForkDeployment,
  VaultConfig,
} from "./core/chain-setup.js";
export {
  eventsFrom,
  forkPoolDeployers,
  forkSwapRouters,
  MULTICALL3_ADDRESS,
  multicall3TryAggregateAbi,
  stateReadBlock,
  v3ForkPoolDeployers,
} from "./core/chain-setup.js";
export {
  ChainUnavailableError,
  DuplicateProtocolError,
  EngineError,
  type EngineErrorType,
  ExecutionNotDeployedError,
  ForeignGraphError,
  InputNotSimulatableError,
  InvalidArgumentError,
  PoolKindConflictError,
  QuoteNotDeliveredError,
  SimulationRevertedError,
  UnknownPoolKindError,
  UnsafePositionError,
} from "./core/errors.js";
export {
  CANONICAL_UNISWAP_V3_FACTORY,
  CANONICAL_UNISWAP_V4_POOL_MANAGER,
  DETERMINISTIC_DEPLOYMENT_PROXY,
  deterministicExecutionAddresses,
  EXECUTION_ADDRESS_NAMES,
  EXECUTION_CONTRACT_NAMES,
  EXECUTION_SALT,
  type ExecutionAddresses,
  type ExecutionCreationCode,
  executionInitCodes,
  executionVariable,
  type V3PoolDeployer,
} from "./core/execution-addresses.js";
export { displayAddress, isNativeToken, NATIVE_TOKEN_ADDRESS } from "./core/native.js";
export {
  type ApproxQuote,
  type ApproxSpot,
  type EdgeQuote,
  outputQuote,
  ZERO_OUTPUT,
} from "./core/quote.js";
export {
  decodeTokenMetadata,
  decodeTokenMetadataBatch,
  TOKEN_METADATA_BATCH,
  type TokenMetadata,
  tokenMetadataBatchCall,
  tokenMetadataCall,
} from "./core/token-metadata.js";
export {
  type AaveReservePool,
  type Address,
  type BalancerV2Pool,
  type ComposableStablePoolState,
  type Edge,
  type FlowHop,
  type Pool,
  type QuotedFlow,
  type QuotedLeg,
  type RouteQuote,
  routeHops,
  type V2Pool,
  type V3Pool,
  type V3Tick,
  type V4Pool,
  type VaultPool,
  type WeightedPoolState,
} from "./core/types.js";
export { getAmount0Delta, getAmount1Delta } from "./math/sqrt-price-math.js";
export {
  getSqrtRatioAtTick,
  getTickAtSqrtRatio,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
} from "./math/tick-math.js";
export { uniswapV3ExactIn } from "./math/uniswap-v3.js";
export { predictCoreWalletAddress } from "./program/core-wallet-address.js";
export {
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterSwapTx,
  MAX_FEE_BPS,
} from "./program/encode.js";
export { executingAccount } from "./program/executing-account.js";
export { addSweep } from "./program/execution-steps.js";
export { type ExecutionContracts, minimumOf, type RoutingStrategy } from "./program/hop-context.js";
export { ProgramPlanner, type ProgramValue } from "./program/planner.js";
export { describeRevert } from "./program/revert.js";
export {
  type BeforeSending,
  DEFAULT_DEADLINE_SECONDS,
  gasLimit,
  inputSpender,
  PROVISIONAL_DEADLINE,
} from "./program/sending.js";
export { aaveReserveState } from "./protocols/aave-v3/reserve-data.js";
export { addAaveSupply, addAaveWithdraw } from "./protocols/aave-v3/steps.js";
export { decimalScalingFactor } from "./protocols/balancer-v2/base-pool.js";
export {
  actualSupply as balancerV2ActualSupply,
  composableStableScalingFactors,
  rateAtSwap,
  upscaledWithoutBpt,
} from "./protocols/balancer-v2/composable-stable-pool.js";
export {
  type BalancerV2PoolParameters,
  balancerV2PoolOf,
} from "./protocols/balancer-v2/pool.js";
export { addErc4626Deposit, addErc4626Redeem } from "./protocols/erc4626/steps.js";
export type { EdgeOf, Leftover, PoolKind } from "./protocols/pool-kind.js";
export { swapsBothWays } from "./protocols/pool-kind.js";
export type { AccountCheck, PoolSource, Protocol } from "./protocols/types.js";
export {
  UNISWAP_V2_FORKS,
  type UniswapV2Fork,
  uniswapV2Fork,
} from "./protocols/uniswap-v2/forks.js";
export { floorSqrt } from "./protocols/uniswap-v2/math.js";
export {
  addExecutorUniswapV2Swap,
  addUniswapV2ZapIn,
  addUniswapV2ZapOut,
} from "./protocols/uniswap-v2/steps.js";
export {
  UNISWAP_V3_FORKS,
  type UniswapV3Fork,
  uniswapV3Fork,
} from "./protocols/uniswap-v3/forks.js";
export { addUniswapV3PoolSwap, addUniswapV3RouterSwap } from "./protocols/uniswap-v3/steps.js";
export { uniswapV4Admission } from "./protocols/uniswap-v4/hooks.js";
export { uniswapV4ExactIn, V4_DYNAMIC_FEE_FLAG } from "./protocols/uniswap-v4/math.js";
export { uniswapV4PoolKey } from "./protocols/uniswap-v4/pool.js";
export type { UniswapV4PoolKey } from "./protocols/uniswap-v4/steps.js";
export { addExecutorUniswapV4Swap } from "./protocols/uniswap-v4/steps.js";
export { addUnwrapNative, addWrapNative } from "./protocols/wrapped-native/steps.js";
export type { RouteRequest, RouteStep } from "./route/route.js";
export { certifyRoute, type RouteCertificate } from "./routing/certificate.js";
export { type FlowBound, flowBound } from "./routing/flow-bound.js";
export { routeGas } from "./routing/gas.js";
export { RoutingGraph } from "./routing/graph.js";
export {
  fastLzCompressedLength,
  OP_STACK_GAS_PRICE_ORACLE,
  OP_STACK_L1_FEE_VAULT,
  type OpStackFeeParameters,
  opStackFeePerByte,
  opStackL1Fee,
  opStackL1FeeBound,
} from "./routing/l1-data-fee.js";
export type { PoolModel, PoolModels } from "./routing/pool-model.js";
export { priceImpactBps, usdPrices, usdSpotPrices } from "./routing/prices.js";
export {
  ALL_PPB,
  checkFlowPlan,
  type FlowPlan,
  type FlowPlanHop,
  type FlowQuote,
  InvalidFlowError,
  quoteFlow as quoteFlowBy,
  splitByShares,
} from "./routing/quote-flow.js";
export type { PathQuote } from "./routing/quote-path.js";
export { candidateEdges, findRoute, prepareRouteSearch } from "./routing/search.js";
export {
  PRICE_SCALE,
  priceStaleness,
  type SpotPriceStep,
  spotPrices,
  staleSpotPrices,
} from "./routing/spot-prices.js";

/**
 * The protocols built into the engine, installed when this module is loaded. Adding one is
 * adding its folder under `engine/protocols/` and a line here (docs/adding-a-protocol.md).
 */
export const builtinProtocols: readonly Protocol[] = [
  core,
  uniswapV2,
  ...uniswapV2Forks,
  uniswapV3,
  ...uniswapV3Forks,
  uniswapV4,
  savingsVaults,
  yieldVaults,
  aaveV3,
  balancerV2,
  wrappedNative,
];

/**
 * An engine: its protocols and the functions that route and bundle through them, bound to its
 * own tables. A graph it builds holds its pool models; its compilers use its hop steps and
 * actions.
 */
export type Engine = {
  /** Every protocol, built-in ones first, then the ones added, in order. */
  protocols: readonly Protocol[];
  findProtocol: (slug: string) => Protocol | undefined;
  /** The pool models of its protocols: what the graphs it builds ask of each pool. */
  models: PoolModels;
  /** An empty routing graph of its pool models. */
  createGraph: () => RoutingGraph;
  findRoute: typeof findRoute;
  buildRoute: (params: Omit<BuildRouteParameters, "steps">) => RouteBuild;
  routeSteps: (chainId: number, quote: RouteQuote) => RouteStep[];
  /** What `hop` leaves unused with the account that runs it (a single-sided V2 add's dust). */
  hopLeftovers: (hop: QuotedHop) => Leftover[];
  planRouteProgram: (params: Omit<RouteProgramParameters, "steps">) => PlannedProgram;
  buildBundle: (params: Omit<BuildBundleParameters, "protocols" | "steps">) => BundleBuild;
  compileBundle: (params: Omit<CompileBundleParameters, "protocols" | "steps">) => CompiledBundle;
  /** The exact quote of `amountIn` through `edge`, or why it cannot be had. */
  simulateEdge: (edge: Edge, amountIn: bigint) => EdgeQuote;
  /** The exact output of `amountIn` through `edge`, or undefined when the pool cannot fill it. */
  quoteEdge: (edge: Edge, amountIn: bigint) => bigint | undefined;
  quotePath: (edges: readonly Edge[], amountIn: bigint) => PathQuote;
  quotePathOut: (edges: readonly Edge[], amountIn: bigint) => bigint | undefined;
  /**
   * The exact quote of a flow (a route split and merged at any token) as its program runs it.
   * @throws InvalidFlowError when the plan is not a flow a program can run.
   */
  quoteFlow: (plan: FlowPlan) => FlowQuote;
};

export type CreateEngineParameters = {
  /**
   * Protocols to add to the built-in ones: each is installed in every table of the engine that
   * needs it (its pool model for routing, its hop steps for programs, its actions for bundles).
   * A slug already taken by another protocol is refused; the same protocol passed again is kept
   * once.
   */
  protocols?: readonly Protocol[];
};

/**
 * An engine of the built-in protocols and `params.protocols`, in tables of its own: a protocol
 * added here is known to this engine only. Its route and bundle builders take graphs it built
 * (`createGraph`), and refuse others with a ForeignGraphError.
 * @throws DuplicateProtocolError, PoolKindConflictError
 * @example
 * const engine = createEngine({ protocols: [constantSum] });
 * const graph = engine.createGraph();
 * graph.upsertPool(sumPool);
 * engine.findRoute({ graph, tokenIn, tokenOut, amountIn, gasPriceWei, weth });
 */
export function createEngine(params: CreateEngineParameters = {}): Engine {
  const registry = new ProtocolRegistry();
  for (const protocol of [...builtinProtocols, ...(params.protocols ?? [])]) {
    registry.install(protocol);
  }
  const { models, steps, bundles } = registry;
  const kinds = { models, steps };
  /** `graph`, when it holds this engine's models (else its pools' kinds and steps could part). */
  const own = (graph: RoutingGraph): RoutingGraph => {
    if (graph.models !== models) throw new ForeignGraphError();
    return graph;
  };
  return {
    protocols: registry.protocols,
    findProtocol: (slug) => registry.find(slug),
    models,
    createGraph: () => new RoutingGraph({ models }),
    findRoute,
    buildRoute: (p) => buildRouteWith({ ...p, graph: own(p.graph), steps }),
    routeSteps: (chainId, quote) => routeStepsWith(kinds, chainId, quote),
    hopLeftovers: (hop) => hopLeftoversWith(steps, hop),
    planRouteProgram: (p) => planRouteProgramWith({ ...p, steps }),
    buildBundle: (p) => buildBundleWith({ ...p, graph: own(p.graph), protocols: bundles, steps }),
    compileBundle: (p) =>
      compileBundleWith({ ...p, graph: own(p.graph), protocols: bundles, steps }),
    simulateEdge: (edge, amountIn) => models.simulate(edge, amountIn),
    quoteEdge: (edge, amountIn) => models.quote(edge, amountIn),
    quotePath: (edges, amountIn) => quotePathWith(models, edges, amountIn),
    quotePathOut: (edges, amountIn) => quotePathOutWith(models, edges, amountIn),
    quoteFlow: (plan) => quoteFlowWith(models, plan),
  };
}

/** The engine of the built-in protocols: the one the service runs. */
export const engine: Engine = createEngine();

/** An empty routing graph of the built-in protocols' pools. */
export const createRoutingGraph = engine.createGraph;
export const {
  protocols,
  findProtocol,
  buildRoute,
  routeSteps,
  hopLeftovers,
  planRouteProgram,
  buildBundle,
  compileBundle,
  simulateEdge,
  quoteEdge,
  quotePath,
  quotePathOut,
  quoteFlow,
} = engine;
