/**
 * Compiles a bundle (an ordered list of actions) into one program: validates every action's
 * arguments, resolves `{ useOutputOfCallAt }` references to earlier outputs (VM state slots),
 * and hands over what the transaction made: under the router everything the executor holds is
 * swept to the receiver (the executor holds nobody's funds); elsewhere the account's growth
 * since the start of the transaction, never what it held before. Outside the router the program
 * also checks its deadline first and the caller's minimum outputs last.
 */
import type { Address } from "viem";
import { erc20Abi, getAbiItem } from "viem";
import type { z } from "zod";
import {
  EngineError,
  InvalidArgumentError,
  MissingArgumentError,
  UnknownActionError,
  UnsupportedByStrategyError,
} from "../errors.js";
import {
  addBalanceGrowth,
  addBalanceSnapshot,
  addDeadlineCheck,
  addMinAmountOutCheck,
  addSweep,
} from "../program/execution-steps.js";
import { UnsupportedRouteError } from "../program/hop-context.js";
import { addApprove, addTransfer } from "../program/protocol-steps.js";
import { addRouteHop, leftoverTokens } from "../program/route-program.js";
import { displayAddress, isNativeToken } from "../protocols/native.js";
import { protocols } from "../protocols/registry.js";
import { type RouteStep, routeSteps as routeStepsOf } from "../route.js";
import { quoteEdge } from "../routing/quote-edge.js";
import { type FindRouteResult, findRoute } from "../routing/search.js";
import { protocolActions } from "./actions/registry.js";
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
  type PlannedProgram,
  PlannerError,
  ProgramPlanner,
  type ProgramValue,
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

/** The routing engine the actions reach through their compile context. */
const ACTION_ROUTING: ActionRouting = {
  findRoute,
  addRouteHop,
  leftoverTokens,
  quoteEdge,
  routeSteps: routeStepsOf,
};

function listing(): string {
  return protocols
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
  // sweeps measure growth from); the second reads them there, first thing.
  const first = compilePass({ ...params, routeCache }, undefined);
  if (first.needed.size === 0) return first.compiled;
  return compilePass({ ...params, routeCache }, first.needed).compiled;
}

type Needed = Map<string, { token: Address; account: Address }>;

function compilePass(
  params: CompileBundleParameters & {
    routeCache: NonNullable<CompileBundleParameters["routeCache"]>;
  },
  atStart: Needed | undefined,
): { compiled: CompiledBundle; needed: Needed } {
  const { actions } = params;
  const planner = new ProgramPlanner();
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
  const touched = new Set<Address>();
  const kept = new Set<Address>();
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
    const protocol = protocols.find((p) => p.slug === slug);
    if (!protocol) {
      throw new UnknownActionError(
        `unknown protocol "${action.protocol}"; known protocols and actions: ${listing()}.`,
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
      routing: ACTION_ROUTING,
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
  });

  for (const token of params.extraTokens ?? []) touched.add(token);
  for (const token of kept) touched.delete(token);
  if (inRouter) {
    // The executor holds nobody's funds: everything it has goes to the receiver.
    for (const token of touched) {
      addSweep(planner, { executor: params.contracts.executor, token, to: params.receiver });
    }
    // No allowance of the shared executor may outlive the transaction.
    for (const reset of params.approvalResets ?? []) {
      addApprove(planner, { token: reset.token, spender: reset.spender, amount: 0n });
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
      touched,
      kept,
      deliveries,
      firstCall,
      lastOutputToken,
    },
    needed,
  };
}
