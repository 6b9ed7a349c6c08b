/**
 * The engine's one public door and its composition root. The layers below know no protocol:
 * `core/` and `math/` at the bottom; `routing/` (graph, search, prices) and `program/`
 * (command-VM programs) above them, side by side; `route/` over both; `bundle/` over `route/`;
 * and `protocols/<slug>/` on top, each folder holding all of its protocol's code. Importing this
 * module installs the built-in protocols (`protocols/registry.ts`) in the layers' tables;
 * `createEngine` adds more. The service, `devnet/` and `scripts/` import the engine only here
 * (`npm run lint:deps` holds them to it).
 */

import { buildBundle } from "./bundle/build.js";
import { aaveV3 } from "./protocols/aave-v3/protocol.js";
import { core } from "./protocols/core/protocol.js";
import { findProtocol, installProtocol, protocols } from "./protocols/registry.js";
import { savingsVaults } from "./protocols/savings-vaults/protocol.js";
import type { Protocol } from "./protocols/types.js";
import { uniswapV2 } from "./protocols/uniswap-v2/protocol.js";
import { uniswapV3 } from "./protocols/uniswap-v3/protocol.js";
import { uniswapV4 } from "./protocols/uniswap-v4/protocol.js";
import { wrappedNative } from "./protocols/wrapped-native/protocol.js";
import { yieldVaults } from "./protocols/yield-vaults/protocol.js";
import { buildRoute } from "./route/route.js";
import { findRoute } from "./routing/search.js";

export { addressArg, amountArg, bpsArg } from "./bundle/actions/args.js";
export { describeActions } from "./bundle/actions/describe.js";
export { hopAction, literalInput, namedEdge } from "./bundle/actions/pool-action.js";
export type { ActionSpec, CompileContext, OutputValue } from "./bundle/actions/types.js";
export {
  type BundleBuild,
  type BundleRequest,
  buildBundle,
  type OutputCheck,
  seenInLogs,
} from "./bundle/build.js";
export { type CompiledBundle, compileBundle, MAX_BUNDLE_ACTIONS } from "./bundle/compile.js";
export type { ChainSetup, VaultConfig } from "./core/chain-setup.js";
export {
  ChainUnavailableError,
  DuplicateProtocolError,
  EngineError,
  type EngineErrorType,
  ExecutionNotDeployedError,
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
  type TokenMetadata,
  tokenMetadataCall,
} from "./core/token-metadata.js";
export type {
  AaveReservePool,
  Address,
  Edge,
  Pool,
  QuotedLeg,
  RouteQuote,
  V2Pool,
  V3Pool,
  V3Tick,
  V4Pool,
  VaultPool,
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
export { planRouteProgram } from "./program/route-program.js";
export {
  type BeforeSending,
  DEFAULT_DEADLINE_SECONDS,
  gasLimit,
  inputSpender,
  PROVISIONAL_DEADLINE,
} from "./program/sending.js";
export { aaveReserveState } from "./protocols/aave-v3/reserve-data.js";
export { addAaveSupply, addAaveWithdraw } from "./protocols/aave-v3/steps.js";
export { addErc4626Deposit, addErc4626Redeem } from "./protocols/erc4626/steps.js";
export type { EdgeOf, Leftover, PoolKind } from "./protocols/pool-kind.js";
export { swapsBothWays } from "./protocols/pool-kind.js";
export { findProtocol, protocols } from "./protocols/registry.js";
export type { AccountCheck, PoolSource, Protocol } from "./protocols/types.js";
export { floorSqrt } from "./protocols/uniswap-v2/math.js";
export {
  addExecutorUniswapV2Swap,
  addUniswapV2ZapIn,
  addUniswapV2ZapOut,
} from "./protocols/uniswap-v2/steps.js";
export { addUniswapV3PoolSwap } from "./protocols/uniswap-v3/steps.js";
export { uniswapV4Admission } from "./protocols/uniswap-v4/hooks.js";
export { uniswapV4ExactIn, V4_DYNAMIC_FEE_FLAG } from "./protocols/uniswap-v4/math.js";
export { uniswapV4PoolKey } from "./protocols/uniswap-v4/pool.js";
export type { UniswapV4PoolKey } from "./protocols/uniswap-v4/steps.js";
export { addExecutorUniswapV4Swap } from "./protocols/uniswap-v4/steps.js";
export { addUnwrapNative, addWrapNative } from "./protocols/wrapped-native/steps.js";
export { buildRoute, type RouteRequest, type RouteStep, routeSteps } from "./route/route.js";
export { routeGas } from "./routing/gas.js";
export { RoutingGraph } from "./routing/graph.js";
export { priceImpactBps, usdPrices, usdSpotPrices } from "./routing/prices.js";
export { quoteEdge, simulateEdge } from "./routing/quote-edge.js";
export { quotePath, quotePathOut } from "./routing/quote-path.js";
export { findRoute, prepareRouteSearch } from "./routing/search.js";
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
  uniswapV3,
  uniswapV4,
  savingsVaults,
  yieldVaults,
  aaveV3,
  wrappedNative,
];
for (const protocol of builtinProtocols) installProtocol(protocol);

/** An engine: the protocols it knows and the functions that route and bundle through them. */
export type Engine = {
  /** Every protocol, built-in ones first, then the ones added, in order. */
  protocols: readonly Protocol[];
  findProtocol: typeof findProtocol;
  findRoute: typeof findRoute;
  buildRoute: typeof buildRoute;
  buildBundle: typeof buildBundle;
};

export type CreateEngineParameters = {
  /**
   * Protocols to add to the built-in ones: each is installed in every layer that needs it (its
   * pool model in routing, its hop steps in programs, its actions in bundles). A slug already
   * taken by another protocol is refused; the same protocol passed again is kept once.
   */
  protocols?: readonly Protocol[];
};

/**
 * The engine with the built-in protocols and `params.protocols`. The layers' tables belong to
 * the process: a protocol added here is known to every caller of the engine in it.
 * @example
 * const engine = createEngine({ protocols: [constantSum] });
 * engine.findRoute(graph, { tokenIn, tokenOut, amountIn });
 */
export function createEngine(params: CreateEngineParameters = {}): Engine {
  for (const protocol of params.protocols ?? []) installProtocol(protocol);
  return { protocols, findProtocol, findRoute, buildRoute, buildBundle };
}
