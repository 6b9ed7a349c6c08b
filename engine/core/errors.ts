/**
 * The failures of the routing and bundling core, one class per kind, modelled on viem's
 * `BaseError`: a `shortMessage` (the reason, without where it happened), the `path` of the
 * request field it is about (`actions[2].args.amountIn`), the bundle action it happened in, the
 * values a client may act on (`details`) and the underlying `cause`. They say what went wrong
 * in the domain; which HTTP status each one answers is decided by the API layer alone.
 */

import type { Address, Hex } from "viem";

export type EngineErrorParameters = {
  /** The request field the failure is about: `args.tokenOut` inside an action, `actions[2].args.amountIn` for a bundle. */
  path?: string | undefined;
  /** The bundle action the failure happened in. */
  actionIndex?: number | undefined;
  /** Values the client may act on (the block simulated, the failing action), in the order given. */
  details?: Record<string, unknown> | undefined;
  cause?: unknown;
};

/**
 * Base of every core failure. `message` is what a client reads: `${path}: ${shortMessage}`, or
 * the short message alone when the failure has no path.
 * @example
 * try { compileBundle(params) } catch (e) { if (e instanceof EngineError) console.log(e.path, e.shortMessage) }
 */
export abstract class EngineError<F extends object = object> extends Error {
  abstract override readonly name: EngineErrorType["name"];
  readonly shortMessage: string;
  readonly path: string | undefined;
  readonly actionIndex: number | undefined;
  readonly details: Record<string, unknown> | undefined;

  /**
   * `parameters` holds the common fields and the subclass's own (`F`), which land on the error
   * as they are (each subclass `declare`s them, so no field initializer overwrites them).
   */
  constructor(
    shortMessage: string,
    // The parameters may be left out only by a class without fields of its own.
    ...[parameters]: object extends F
      ? [parameters?: EngineErrorParameters]
      : [parameters: EngineErrorParameters & F]
  ) {
    const { path, actionIndex, details, cause, ...fields } = parameters ?? {};
    super(shortMessage, cause === undefined ? undefined : { cause });
    this.shortMessage = shortMessage;
    this.path = path;
    this.actionIndex = actionIndex;
    this.details = details;
    Object.assign(this, fields);
    this.message = this.describe();
  }

  /** The sentence a client reads, from the short message and the path. */
  protected describe(): string {
    return this.path === undefined ? this.shortMessage : `${this.path}: ${this.shortMessage}`;
  }

  /**
   * The same failure, placed inside bundle action `actionIndex`: its path gains the
   * `actions[i]` prefix (or becomes it). Class, cause, details and stack are kept.
   */
  inAction(actionIndex: number): this {
    const where = `actions[${actionIndex}]`;
    const located = Object.create(Object.getPrototypeOf(this)) as this;
    Object.defineProperties(located, Object.getOwnPropertyDescriptors(this));
    Object.defineProperties(located, {
      path: { value: this.path === undefined ? where : `${where}.${this.path}` },
      actionIndex: { value: actionIndex },
    });
    located.message = located.describe();
    return located;
  }
}

/** A request argument has the wrong shape or value, or arguments contradict each other. */
export class InvalidArgumentError extends EngineError {
  override readonly name = "InvalidArgumentError";
}

/** A required argument is absent. */
export class MissingArgumentError extends EngineError {
  override readonly name = "MissingArgumentError";
  constructor(parameters: EngineErrorParameters & { path: string }) {
    super("a required argument is missing", parameters);
  }
  protected override describe(): string {
    return `${this.path} is required.`;
  }
}

/** A bundle action names a protocol, or an action of a protocol, that does not exist. */
export class UnknownActionError extends EngineError<{ protocol: string; action?: string }> {
  override readonly name = "UnknownActionError";
  declare readonly protocol: string;
  /** Absent when the protocol itself is unknown. */
  declare readonly action: string | undefined;
}

/** A token that no indexed pool or vault holds. */
export class UnknownTokenError extends EngineError<{ token: Address }> {
  override readonly name = "UnknownTokenError";
  declare readonly token: Address;
}

/** The chain lacks what the request needs (a wrapped native token, a Uniswap V2 Router02). */
export class UnsupportedOnChainError extends EngineError {
  override readonly name = "UnsupportedOnChainError";
}

/** The routing strategy cannot carry out what was asked (a hop it cannot encode, outputs it cannot check). */
export class UnsupportedByStrategyError extends EngineError {
  override readonly name = "UnsupportedByStrategyError";
}

/** An address that is not an indexed pool of the kind asked for, or a pool that cannot do the step. */
export class UnknownPoolError extends EngineError<{ pool: Address }> {
  override readonly name = "UnknownPoolError";
  declare readonly pool: Address;
}

/** No path joins the tokens, or no route can be planned for the amount. */
export class NoRouteError extends EngineError<{ tokenIn: Address; tokenOut: Address }> {
  override readonly name = "NoRouteError";
  declare readonly tokenIn: Address;
  declare readonly tokenOut: Address;
}

/** A path exists but its liquidity cannot fill the amount. */
export class InsufficientLiquidityError extends EngineError<{
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
}> {
  override readonly name = "InsufficientLiquidityError";
  declare readonly tokenIn: Address;
  declare readonly tokenOut: Address;
  /** What was to be routed, in wei of `tokenIn`. */
  declare readonly amountIn: bigint;
}

/** The transaction reverted in simulation; `details` carry the block and, for a bundle, the action. */
export class SimulationRevertedError extends EngineError<{ blockNumber: bigint; revertData: Hex }> {
  override readonly name = "SimulationRevertedError";
  /** The block the simulation ran on top of. */
  declare readonly blockNumber: bigint;
  declare readonly revertData: Hex;
}

/**
 * A route whose pools are all taken by their math delivered less in simulation than that math
 * gives, by more than rounding: some code on the route does not act as its state says (or acts
 * differently when the transaction is real), so neither amount can bound the transaction.
 */
export class QuoteNotDeliveredError extends EngineError<{ quoted: bigint; simulated: bigint }> {
  override readonly name = "QuoteNotDeliveredError";
  declare readonly quoted: bigint;
  declare readonly simulated: bigint;
}

/**
 * The simulated transaction would leave an account unsafe in a protocol (an Aave position with a
 * health factor below 1, which anyone may liquidate).
 */
export class UnsafePositionError extends EngineError<{ account: Address }> {
  override readonly name = "UnsafePositionError";
  declare readonly account: Address;
}

/** The simulation cannot be set up: the caller's input cannot be given to it by a state override. */
export class InputNotSimulatableError extends EngineError<{ token: Address }> {
  override readonly name = "InputNotSimulatableError";
  declare readonly token: Address;
}

/** The chain's node did not answer, or answered with an incomplete simulation. */
export class ChainUnavailableError extends EngineError<{ chainId: number }> {
  override readonly name = "ChainUnavailableError";
  declare readonly chainId: number;
}

/** The execution contracts are not deployed on the chain, so nothing can be executed there. */
export class ExecutionNotDeployedError extends EngineError<{
  chainId: number;
  /** The execution contract names without an address. */
  missing: readonly string[];
}> {
  override readonly name = "ExecutionNotDeployedError";
  declare readonly chainId: number;
  declare readonly missing: readonly string[];
}

/** A pool of a kind no installed protocol implements (an engine assembled without it). */
export class UnknownPoolKindError extends EngineError<{ kind: string }> {
  override readonly name = "UnknownPoolKindError";
  declare readonly kind: string;
  constructor(kind: string) {
    super(`no protocol implements the pool kind ${kind}`, { kind });
  }
}

/** Two protocols installed with different implementations of one pool kind. */
export class PoolKindConflictError extends EngineError<{ kind: string }> {
  override readonly name = "PoolKindConflictError";
  declare readonly kind: string;
  constructor(kind: string, what: string) {
    super(`two protocols implement the ${what} of pool kind ${kind} differently`, { kind });
  }
}

/** A protocol installed under a slug another protocol holds already. */
export class DuplicateProtocolError extends EngineError<{ slug: string }> {
  override readonly name = "DuplicateProtocolError";
  declare readonly slug: string;
  constructor(slug: string) {
    super(`a protocol with the slug ${slug} is installed already`, { slug });
  }
}

/** A routing graph built with another engine's pool models passed to an engine's compiler. */
export class ForeignGraphError extends EngineError<Record<string, never>> {
  override readonly name = "ForeignGraphError";
  constructor() {
    super(
      "the routing graph was built with another engine's pool models: build it with this engine's createGraph()",
      {},
    );
  }
}

/** Every failure the core throws. */
export type EngineErrorType =
  | InvalidArgumentError
  | MissingArgumentError
  | UnknownActionError
  | UnknownTokenError
  | UnknownPoolError
  | UnsupportedOnChainError
  | NoRouteError
  | InsufficientLiquidityError
  | UnsupportedByStrategyError
  | InputNotSimulatableError
  | SimulationRevertedError
  | QuoteNotDeliveredError
  | UnsafePositionError
  | ChainUnavailableError
  | ExecutionNotDeployedError
  | DuplicateProtocolError
  | UnknownPoolKindError
  | PoolKindConflictError
  | ForeignGraphError;
