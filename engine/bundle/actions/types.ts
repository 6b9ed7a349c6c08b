/**
 * The bundle action model: each action of a protocol validates its `args`, adds its steps to
 * the program, and yields outputs later actions can reference with `{ useOutputOfCallAt }`.
 */
import type { Address } from "viem";
import type { z } from "zod";
import type { ChainSetup } from "../../core/chain-setup.js";
import type { ExecutionContracts, RoutingStrategy } from "../../program/hop-context.js";
import type { HopStepsTable } from "../../program/hop-steps.js";
import type { ProgramPlanner, ProgramValue } from "../../program/planner.js";
import type { addFlowHops, addRouteHop, leftoverTokens } from "../../program/route-program.js";
import type { RouteStep, routeSteps } from "../../route/route.js";
import type { RoutingGraph } from "../../routing/graph.js";
import type { PoolModels } from "../../routing/pool-model.js";
import type { FindRouteResult, findRoute } from "../../routing/search.js";

/** An amount argument after validation: a literal or a reference to an earlier output. */
export type AmountArg = bigint | { ref: number; index: number };

/** A resolved amount: what the program uses, and the best off-chain estimate of it. */
export type ResolvedAmount = { value: bigint | ProgramValue; estimate: bigint | undefined };

/** One value an action yields. `amount` values can stand where an amount is expected. */
export type OutputValue = {
  kind: "amount" | "value";
  value: bigint | ProgramValue;
  estimate: bigint | undefined;
  /** The token the amount is of, when known. */
  token: Address | undefined;
};

/** A function of the engine without its first parameter (the tables the compiler holds). */
type Bound<F> = F extends (first: never, ...rest: infer A) => infer R ? (...args: A) => R : never;

/**
 * The routing engine as bundle actions use it, bound to the compiler's protocols (their pool
 * models and hop steps). It is handed to them in the compile context rather than imported:
 * the actions belong to the protocol folders, which sit above every engine layer.
 */
export type ActionRouting = {
  findRoute: typeof findRoute;
  addRouteHop: Bound<typeof addRouteHop>;
  addFlowHops: Bound<typeof addFlowHops>;
  leftoverTokens: Bound<typeof leftoverTokens>;
  quoteEdge: PoolModels["quote"];
  routeSteps: Bound<typeof routeSteps>;
  /** Whether a hop through a pool can be executed in a scope (the engine's hop steps say). */
  executable: HopStepsTable["executable"];
};

/** Where a bundle's program runs and for whom: what the compiler and each action know of it. */
export type ProgramTarget = {
  strategy: RoutingStrategy;
  contracts: ExecutionContracts;
  chain: ChainSetup;
  graph: RoutingGraph;
  gasPriceWei: bigint;
  /** The account the program runs as (router executor, the caller, or its wallet). */
  account: Address;
  /** Where leftovers go at the end. */
  receiver: Address;
  from: Address;
};

/** What the compiler knows while adding one action's steps. */
export type CompileContext = ProgramTarget & {
  /** The slug of the protocol the action is of (a pool it names must be that protocol's). */
  protocol: string;
  /** The route search, route steps and quotes (see ActionRouting). */
  routing: ActionRouting;
  planner: ProgramPlanner;
  /** Resolves an amount argument (a literal, or a reference checked beforehand). */
  amount: (arg: AmountArg, field: string) => ResolvedAmount;
  /** Collects the steps of `route` actions for the response. */
  routeSteps: RouteStep[];
  /** Tokens the program holds at some point (swept to the receiver at the end). */
  touched: Set<Address>;
  /**
   * Tokens that stay with the executing account: never handed to the receiver, even when the
   * logs show them arriving (an Aave borrow's collateral aTokens and its debt tokens).
   */
  kept: Set<Address>;
  /** Explicit deliveries (transfers to an address), for the response's amountsOut. */
  deliveries: { token: Address; to: Address }[];
  /**
   * `account`'s balance of `token` read at the very start of the transaction (a program value),
   * so that checks and sweeps measure what the transaction made. Undefined in the compiler's
   * first pass, which only collects which balances are needed.
   */
  balanceAtStart: (token: Address, account: Address) => ProgramValue | undefined;
  /** The bundle's slippage (bps): protocol steps' own minimums are their estimates less it. */
  slippageBps: number;
  /** Outside the router: the deadline and slippage passed to steps that take their own. */
  bounds: { deadline: bigint; slippageBps: number } | undefined;
  /** Route searches of this request, reused by the compiler's passes. */
  routeCache: Map<string, FindRouteResult>;
};

/** A token and the literal amount of it an action spends from the caller. */
export type ActionInput = { token: Address; amount: bigint };

/**
 * One bundle action of a protocol. Its functions are methods so that an action of any argument
 * schema is an `ActionSpec` (the compiler only ever calls them with what `args` parsed).
 */
export type ActionSpec<S extends z.ZodObject = z.ZodObject> = {
  /** Validates `args` (amount fields accept output references). */
  args: S;
  /** Names of the args holding amounts, and whether an output reference is allowed there. */
  amountFields: readonly string[];
  /**
   * The caller's tokens and literal amounts this action consumes, if any (pulled at the start):
   * one, or several for an action that spends two tokens (adding liquidity).
   */
  input?(
    args: z.infer<S>,
    ctx: { chain: ChainSetup },
  ): ActionInput | readonly ActionInput[] | undefined;
  /** Adds the steps; returns the outputs later actions may reference (index 0, 1, …). */
  compile(ctx: CompileContext, args: z.infer<S>): OutputValue[];
};
