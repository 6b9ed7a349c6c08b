/**
 * Compiles a bundle (an ordered list of actions) into one program: validates every action's
 * arguments, resolves `{ useOutputOfCallAt }` references to earlier outputs (VM state slots),
 * and hands over what the transaction made: under the router everything the executor holds is
 * swept to the receiver (the executor holds nobody's funds), each token right after the last
 * action that may use it; elsewhere the account's growth since the start of the transaction,
 * never what it held before. Outside the router the program also checks its deadline first and
 * the caller's minimum outputs last.
 */
import type { AbiFunction, Address } from "viem";
import { erc20Abi, getAbiItem } from "viem";
import type { z } from "zod";
import {
  EngineError,
  InvalidArgumentError,
  MissingArgumentError,
  UnknownActionError,
  UnsupportedByStrategyError,
} from "../core/errors.js";
import { displayAddress, isNativeToken } from "../core/native.js";
import {
  addBalanceGrowth,
  addBalanceSnapshot,
  addDeadlineCheck,
  addMinAmountOutCheck,
  addSweep,
} from "../program/execution-steps.js";
import { UnsupportedRouteError } from "../program/hop-context.js";
import type { HopStepsTable } from "../program/hop-steps.js";
import { addApprove, addTransfer } from "../program/protocol-steps.js";
import { addFlowHops, addRouteHop, leftoverTokens } from "../program/route-program.js";
import { type RouteStep, routeSteps as routeStepsOf } from "../route/route.js";
import type { RoutingGraph } from "../routing/graph.js";
import { type FindRouteResult, findAdmittedRoute } from "../routing/search.js";
import { type BundleProtocols, protocolActions } from "./actions/registry.js";
import type {
  ActionRouting,
  AmountArg,
  CompileContext,
  OutputValue,
  ProgramTarget,
  ResolvedAmount,
} from "./actions/types.js";

const balanceOfFn = getAbiItem({ abi: erc20Abi, name: "balanceOf" });

import {
  type AddCallParameters,
  type PlannedProgram,
  PlannerError,
  ProgramPlanner,
  ProgramValue,
} from "../program/planner.js";

/**
 * Other names a bundle may give a protocol, for existing clients of this API family: `enso`
 * is the built-in protocol's name there. The echo and every output say `core`.
 */
const PROTOCOL_ALIASES: Readonly<Record<string, string>> = { enso: "core" };

/** Most actions one bundle may hold. */
export const MAX_BUNDLE_ACTIONS = 32;

export type BundleAction = { protocol: string; action: string; args: Record<string, unknown> };

export type CompiledBundle = {
  program: PlannedProgram;
  /** The actions as understood, defaults filled (echoed in the response). */
  bundle: { protocol: string; action: string; args: Record<string, unknown> }[];
  /** Caller tokens consumed with literal amounts, summed per token (pulled at the start). */
  inputs: Map<Address, bigint>;
  routeSteps: RouteStep[];
  touched: Set<Address>;
  /** Tokens that stay with the executing account (an Aave position's aTokens and debt). */
  kept: Set<Address>;
  deliveries: { token: Address; to: Address }[];
  /** Command index of each action's first call (to name the failing action). */
  firstCall: number[];
  /** Token of the last amount an action produced (what the bundle ends with). */
  lastOutputToken: Address | undefined;
};

export type CompileBundleParameters = ProgramTarget & {
  /** The protocols whose actions the bundle may name (an engine's). */
  protocols: BundleProtocols;
  /** The program steps of the engine's pool kinds (the graph holds their models). */
  steps: HopStepsTable;
  /** The request body's actions as sent: each is checked here, its mistakes named by path. */
  actions: readonly unknown[];
  /** The transaction's deadline (checked by the program outside the router). */
  deadline: bigint;
  /** Slippage of the bundle's own checks and of protocol steps' minimums, in basis points. */
  slippageBps: number;
  /** Outside the router: outputs the program checks last (growth since the start). */
  checks?: readonly { token: Address; account: Address; min: bigint }[];
  /** Tokens the program was seen to receive that no action names (a call's output). */
  extraTokens?: readonly Address[];
  /** Router: allowances the executor was seen to grant, reset to zero at the end. */
  approvalResets?: readonly { token: Address; spender: Address }[];
  /** Route searches of this request, reused across compilations. */
  routeCache?: Map<string, FindRouteResult>;
};

/** Lowercase, for comparing addresses wherever they came from. */
const lower = (a: string) => a.toLowerCase() as Address;

/** Every address literal among a call's arguments (tokens, pools, recipients), lowercase. */
function addressLiterals(value: unknown, into: Set<Address>): void {
  if (value instanceof ProgramValue) return;
  if (typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value)) into.add(lower(value));
  else if (Array.isArray(value)) for (const v of value) addressLiterals(v, into);
  else if (value && typeof value === "object") {
    for (const v of Object.values(value)) addressLiterals(v, into);
  }
}

/**
 * A planner that also notes which addresses each call names (its target and address arguments)
 * and which ERC20 allowances the program leaves open: what an action may use of the executor's
 * tokens, to sweep each token once nothing later may use it.
 */
class UsePlanner extends ProgramPlanner {
  /** Addresses named since the last `take()`. */
  named = new Set<Address>();
  /** Allowances granted and not set back to 0 by a literal 0, as `token:spender`. */
  readonly open = new Set<string>();

  override add<const fn extends AbiFunction>(params: AddCallParameters<fn>): ProgramValue {
    this.named.add(lower(params.target));
    addressLiterals(params.args, this.named);
    const [spender, amount] = params.args as readonly unknown[];
    if (
      params.fn.name === "approve" &&
      params.fn.inputs.length === 2 &&
      params.fn.inputs[0]?.type === "address" &&
      typeof spender === "string"
    ) {
      const key = `${lower(params.target)}:${lower(spender)}`;
      if (amount === 0n) this.open.delete(key);
      else this.open.add(key);
    }
    return super.add(params);
  }

  /**
   * The addresses named since the last call, and every token with an allowance still open: its
   * spender may pull it during any later call (a proxy a later call uses), so it stays in use.
   */
  take(): Set<Address> {
    const used = this.named;
    for (const key of this.open) used.add(key.split(":")[0] as Address);
    this.named = new Set();
    return used;
  }
}

/** A set, created empty, that also collects what is added to it since the last `take()`. */
class AddedSet extends Set<Address> {
  #added = new Set<Address>();
  override add(value: Address): this {
    this.#added.add(lower(value));
    return super.add(value);
  }
  take(): Set<Address> {
    const added = this.#added;
    this.#added = new Set();
    return added;
  }
}

/** The routing engine the actions reach through their compile context, bound to its tables. */
function actionRouting(graph: RoutingGraph, steps: HopStepsTable): ActionRouting {
  const kinds = { models: graph.models, steps };
  return {
    findRoute: findAdmittedRoute,
    addRouteHop: (...args) => addRouteHop(steps, ...args),
    addFlowHops: (...args) => addFlowHops(steps, ...args),
    leftoverTokens: (quote) => leftoverTokens(steps, quote),
    quoteEdge: (edge, amountIn) => graph.models.quote(edge, amountIn),
    routeSteps: (chainId, quote) => routeStepsOf(kinds, chainId, quote),
    executable: (pool, scope) => steps.executable(pool, scope),
  };
}

function listing(protocols: BundleProtocols): string {
  return protocols
    .list()
    .map((p) => `${p.slug} (${Object.keys(protocolActions(p)).join(", ")})`)
    .join("; ");
}

function zodPath(issue: z.core.$ZodIssue | undefined): string {
  return (issue?.path ?? [])
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("");
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let at = root;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** Serializable echo of parsed args, defaults included (bigints as decimal strings). */
function echo(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  // Addresses arrive lowercased by the argument schemas; the echo shows them checksummed.
  if (typeof value === "string" && /^0x[0-9a-f]{40}$/.test(value)) {
    return displayAddress(value as Address);
  }
  if (Array.isArray(value)) return value.map(echo);
  if (value && typeof value === "object") {
    if ("ref" in value && "index" in value) {
      const r = value as { ref: number; index: number };
      return { useOutputOfCallAt: r.ref, index: r.index };
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echo(v)]));
  }
  return value;
}

/**
 * Compiles `actions`; every client mistake is an engine error whose `path` names
 * `actions[i].args.field` and whose `actionIndex` is the action's.
 * @example compileBundle({ actions, strategy: "router", contracts, chain, graph, gasPriceWei, account, receiver, from })
 */
export function compileBundle(params: CompileBundleParameters): CompiledBundle {
  const { actions } = params;
  if (actions.length === 0) {
    throw new InvalidArgumentError("The bundle is empty: send at least one action.");
  }
  if (actions.length > MAX_BUNDLE_ACTIONS) {
    throw new InvalidArgumentError(
      `The bundle has ${actions.length} actions; at most ${MAX_BUNDLE_ACTIONS} are accepted.`,
    );
  }
  const routeCache = params.routeCache ?? new Map();
  // The first pass learns which balances the program must read at its start (what checks and
  // sweeps measure growth from), and under the router the last action that may use each token;
  // the second reads those balances first thing and sweeps each token after its last use.
  const first = compilePass({ ...params, routeCache }, undefined, undefined);
  const inRouter = params.strategy === "router";
  if (first.needed.size === 0 && !inRouter) return first.compiled;
  // Only what the router sweeps at all: touched and not kept with the account.
  const swept = new Set([...first.compiled.touched].map(lower));
  const lastUse = new Map([...first.lastUse].filter(([token]) => swept.has(token)));
  return compilePass({ ...params, routeCache }, first.needed, inRouter ? lastUse : undefined)
    .compiled;
}

type Needed = Map<string, { token: Address; account: Address }>;

function compilePass(
  params: CompileBundleParameters & {
    routeCache: NonNullable<CompileBundleParameters["routeCache"]>;
  },
  atStart: Needed | undefined,
  /** Router, second pass: the last action that may use each token (lowercase), from the first. */
  lastUse: ReadonlyMap<Address, number> | undefined,
): { compiled: CompiledBundle; needed: Needed; lastUse: Map<Address, number> } {
  const { actions } = params;
  const planner = new UsePlanner();
  const routing = actionRouting(params.graph, params.steps);
  const inRouter = params.strategy === "router";
  if (!inRouter) {
    addDeadlineCheck(planner, {
      minAmountOutCheck: params.contracts.minAmountOutCheck,
      deadline: params.deadline,
    });
  }
  const needed: Needed = new Map();
  const startBalances = new Map<string, ProgramValue>();
  for (const [key, need] of atStart ?? []) {
    startBalances.set(
      key,
      addBalanceSnapshot(planner, {
        minAmountOutCheck: params.contracts.minAmountOutCheck,
        token: need.token,
        account: need.account,
      }),
    );
  }
  const balanceAtStart = (token: Address, account: Address): ProgramValue | undefined => {
    const key = `${token.toLowerCase()}:${account.toLowerCase()}`;
    needed.set(key, { token, account });
    return startBalances.get(key);
  };
  const outputs: OutputValue[][] = [];
  const inputs = new Map<Address, bigint>();
  const routeSteps: RouteStep[] = [];
  const touched = new AddedSet();
  const kept = new Set<Address>();
  // Router: the last action that may use each token, and the tokens already swept after theirs.
  const usedLast = new Map<Address, number>();
  const sweptEarly = new Set<Address>();
  const extra = new Set((params.extraTokens ?? []).map(lower));
  const deliveries: { token: Address; to: Address }[] = [];
  const bundle: CompiledBundle["bundle"] = [];
  const firstCall: number[] = [];
  let lastOutputToken: Address | undefined;

  actions.forEach((sent, i) => {
    const where = `actions[${i}]`;
    const at = (field: string) => ({ path: `${where}${field}`, actionIndex: i });
    if (typeof sent !== "object" || sent === null || Array.isArray(sent)) {
      throw new InvalidArgumentError("expected an object { protocol, action, args }.", at(""));
    }
    const action: { protocol?: unknown; action?: unknown; args?: unknown } = sent;
    if (typeof action.protocol !== "string") {
      throw new InvalidArgumentError("expected a protocol slug string.", at(".protocol"));
    }
    if (typeof action.action !== "string") {
      throw new InvalidArgumentError("expected an action name string.", at(".action"));
    }
    const slug = PROTOCOL_ALIASES[action.protocol] ?? action.protocol;
    const protocol = params.protocols.find(slug);
    if (!protocol) {
      throw new UnknownActionError(
        `unknown protocol "${action.protocol}"; known protocols and actions: ${listing(params.protocols)}.`,
        { ...at(".protocol"), protocol: action.protocol },
      );
    }
    // Own keys only: names such as `constructor` or `__proto__` are not actions.
    const known = protocolActions(protocol);
    const spec = Object.hasOwn(known, action.action) ? known[action.action] : undefined;
    if (!spec) {
      throw new UnknownActionError(
        `${protocol.slug} has no action "${action.action}"; its actions: ${Object.keys(protocolActions(protocol)).join(", ")}.`,
        { ...at(".action"), protocol: protocol.slug, action: action.action },
      );
    }
    const rawArgs = action.args === undefined ? {} : action.args;
    if (typeof rawArgs !== "object" || rawArgs === null || Array.isArray(rawArgs)) {
      throw new InvalidArgumentError(
        `expected an object of named arguments, got ${rawArgs === null ? "null" : Array.isArray(rawArgs) ? "an array" : `a ${typeof rawArgs}`}.`,
        at(".args"),
      );
    }
    // Every argument must be one the action reads: a misspelt one is not silently dropped.
    const names = Object.keys(spec.args.shape);
    const unknown = Object.keys(rawArgs).find((name) => !names.includes(name));
    if (unknown !== undefined) {
      throw new InvalidArgumentError(
        `unknown argument; the arguments of ${protocol.slug} ${action.action} are ${names.join(", ")}.`,
        at(`.args.${unknown}`),
      );
    }
    const parsed = spec.args.safeParse(rawArgs);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const location = at(`.args${zodPath(issue)}`);
      const missing = valueAt(action.args, issue?.path ?? []) === undefined;
      throw missing
        ? new MissingArgumentError({ ...location, cause: parsed.error })
        : new InvalidArgumentError(`${issue?.message ?? "invalid value"}.`, {
            ...location,
            cause: parsed.error,
          });
    }
    const args = parsed.data as Record<string, unknown>;
    const literal = spec.input?.(args as never, { chain: params.chain });
    for (const one of literal === undefined ? [] : "token" in literal ? [literal] : literal) {
      inputs.set(one.token, (inputs.get(one.token) ?? 0n) + one.amount);
    }

    const resolve = (arg: AmountArg, field: string): ResolvedAmount => {
      if (typeof arg === "bigint") return { value: arg, estimate: arg };
      const location = at(`.args.${field}`);
      if (arg.ref >= i) {
        throw new InvalidArgumentError(
          `useOutputOfCallAt ${arg.ref} does not point to an earlier action (this is action ${i}).`,
          location,
        );
      }
      const produced = outputs[arg.ref] ?? [];
      const out = produced[arg.index];
      if (!out) {
        throw new InvalidArgumentError(
          produced.length === 0
            ? `action ${arg.ref} (${bundle[arg.ref]?.protocol} ${bundle[arg.ref]?.action}) has no output to use.`
            : `action ${arg.ref} has ${produced.length} output${produced.length === 1 ? "" : "s"}; index ${arg.index} does not exist.`,
          location,
        );
      }
      if (out.kind !== "amount") {
        throw new InvalidArgumentError(
          `output ${arg.index} of action ${arg.ref} is not an amount.`,
          location,
        );
      }
      return { value: out.value, estimate: out.estimate };
    };
    const ctx: CompileContext = {
      protocol: protocol.slug,
      routing,
      planner,
      strategy: params.strategy,
      contracts: params.contracts,
      chain: params.chain,
      graph: params.graph,
      gasPriceWei: params.gasPriceWei,
      account: params.account,
      receiver: params.receiver,
      from: params.from,
      amount: resolve,
      routeSteps,
      touched,
      kept,
      deliveries,
      balanceAtStart,
      slippageBps: params.slippageBps,
      bounds: inRouter ? undefined : { deadline: params.deadline, slippageBps: params.slippageBps },
      routeCache: params.routeCache,
    };
    firstCall.push(planner.length);
    const deliveredBefore = deliveries.length;
    try {
      const produced = spec.compile(ctx, args as never);
      outputs.push(produced);
      lastOutputToken =
        produced.findLast((o) => o.kind === "amount" && o.token)?.token ?? lastOutputToken;
    } catch (error) {
      // An action's own errors are relative to it (`args.amountIn`): place them in the bundle.
      if (error instanceof EngineError) {
        throw error.actionIndex === undefined ? error.inAction(i) : error;
      }
      if (error instanceof PlannerError) {
        throw new InvalidArgumentError(`${error.message}.`, { ...at(""), cause: error });
      }
      if (error instanceof UnsupportedRouteError) {
        throw new UnsupportedByStrategyError(`${error.message}.`, { ...at(""), cause: error });
      }
      throw error;
    }
    bundle.push({
      protocol: protocol.slug,
      action: action.action,
      args: echo(args) as Record<string, unknown>,
    });
    const used = planner.take();
    for (const t of touched.take()) used.add(t);
    for (const d of deliveries.slice(deliveredBefore)) used.add(lower(d.token));
    for (const t of used) usedLast.set(t, i);
    if (inRouter && lastUse) {
      // Pay out what no later action may use now, not at the end: while a token waits in the
      // shared executor, code that runs later in the transaction (a hook, a token's callback)
      // could reach it. Native currency cannot be pulled by anyone, and a token the logs showed
      // (no action names it) has no known last use: both wait for the end.
      for (const token of touched) {
        const key = lower(token);
        if (
          lastUse.get(key) === i &&
          !sweptEarly.has(key) &&
          !kept.has(token) &&
          !isNativeToken(token) &&
          !extra.has(key)
        ) {
          addSweep(planner, { executor: params.contracts.executor, token, to: params.receiver });
          sweptEarly.add(key);
        }
      }
      // The sweeps are no use of the next action's.
      planner.take();
    }
  });

  for (const token of params.extraTokens ?? []) touched.add(token);
  for (const token of kept) touched.delete(token);
  if (inRouter) {
    // The executor holds nobody's funds: everything it still has goes to the receiver.
    for (const token of touched) {
      if (sweptEarly.has(lower(token))) continue;
      addSweep(planner, { executor: params.contracts.executor, token, to: params.receiver });
    }
    // No allowance of the shared executor may outlive the transaction (the executor reverts
    // AllowanceLeft otherwise): every `approve` the program makes and does not itself set back to
    // 0 is reset here, whether or not its spender used it up; and any the logs showed.
    const reset = new Set<string>();
    for (const key of [...planner.open]) {
      const [token, spender] = key.split(":") as [Address, Address];
      addApprove(planner, { token, spender, amount: 0n });
      reset.add(key);
    }
    for (const seen of params.approvalResets ?? []) {
      if (reset.has(`${lower(seen.token)}:${lower(seen.spender)}`)) continue;
      addApprove(planner, { token: seen.token, spender: seen.spender, amount: 0n });
    }
  } else if (params.account.toLowerCase() !== params.receiver.toLowerCase()) {
    // A wallet (or a delegated account paying someone else) hands over the ERC20s this
    // transaction made, never what the account held before it; native currency stays.
    for (const token of touched) {
      if (isNativeToken(token)) continue;
      const before = balanceAtStart(token, params.account);
      const made = before
        ? addBalanceGrowth(planner, {
            minAmountOutCheck: params.contracts.minAmountOutCheck,
            token,
            account: params.account,
            balanceBefore: before,
          })
        : planner.add({ target: token, fn: balanceOfFn, args: [params.account], label: "read" });
      addTransfer(planner, { token, to: params.receiver, amount: made, label: "sweep" });
    }
  }
  if (!inRouter) {
    for (const check of params.checks ?? []) {
      const before = balanceAtStart(check.token, check.account);
      addMinAmountOutCheck(planner, {
        minAmountOutCheck: params.contracts.minAmountOutCheck,
        token: check.token,
        account: check.account,
        balanceBefore: before ?? 0n,
        minAmountOut: check.min,
      });
    }
  }
  let program: PlannedProgram;
  try {
    program = planner.plan();
  } catch (error) {
    if (error instanceof PlannerError) {
      throw new InvalidArgumentError(`The bundle cannot be compiled: ${error.message}.`, {
        cause: error,
      });
    }
    throw error;
  }
  return {
    compiled: {
      program,
      bundle,
      inputs,
      routeSteps,
      touched: new Set(touched),
      kept,
      deliveries,
      firstCall,
      lastOutputToken,
    },
    needed,
    lastUse: usedLast,
  };
}
