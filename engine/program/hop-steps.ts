/**
 * What programs need of one kind of pool — the steps of a hop through it and what a hop leaves
 * behind — and the table of them a program compiler is given. The program layer knows no
 * protocol: each protocol's folder writes the steps of its pools, and an engine
 * (`engine/index.ts`) installs them in its own table.
 */
import { PoolKindConflictError, UnknownPoolKindError } from "../core/errors.js";
import type { Address, Edge, Pool } from "../core/types.js";
import type { HopContext, HopOptions } from "./hop-context.js";
import type { ProgramPlanner, ProgramValue } from "./planner.js";

/** An amount of a token a hop leaves with the account that runs it. */
export type Leftover = { token: Address; amount: bigint };

/** An edge through a pool of kind `P`. */
type HopEdge<P extends Pool> = Omit<Edge, "pool"> & { pool: P };

/** The program steps of one kind of pool. */
export type HopSteps<P extends Pool> = {
  kind: P["kind"];
  /**
   * Adds the hop's program steps, paying `recipient`.
   * @returns the hop's output amount (a program value, or the input itself for wrap/unwrap).
   */
  addHop: (
    planner: ProgramPlanner,
    context: HopContext,
    hop: { edge: HopEdge<P>; amountIn: bigint; amountOut: bigint },
    amountIn: bigint | ProgramValue,
    recipient: Address,
    options: HopOptions,
  ) => ProgramValue | bigint;
  /**
   * What a hop of `amountIn` leaves unused with the account that runs it (a single-sided V2
   * add's rounding dust), exactly; absent or empty for a hop that spends all its input.
   */
  leftovers?: (edge: HopEdge<P>, amountIn: bigint) => Leftover[];
  /** Under the router, a last hop through it can pay the receiver itself (no sweep needed). */
  paysReceiverUnderRouter: boolean;
  /**
   * Whether {@link addHop} can execute a hop through `pool` in `scope` (absent: always): a
   * search for a route to execute there leaves out the pools it cannot.
   */
  executable?: (pool: P, scope: ExecutionScope) => boolean;
};

/** What decides which pools an account can swap: its strategy and the chain's periphery. */
export type ExecutionScope = Pick<
  HopContext,
  "strategy" | "swapRouter" | "forkSwapRouters" | "forkPoolDeployers"
>;

/**
 * The hop steps a program compiler is given: each pool kind's. An engine (`engine/index.ts`)
 * fills one with the steps of its protocols.
 */
export class HopStepsTable {
  readonly #steps = new Map<string, HopSteps<Pool>>();

  /**
   * Installs the hop steps of a pool kind (one implementation per kind).
   * @throws PoolKindConflictError
   */
  install<P extends Pool>(hopSteps: HopSteps<P>): void {
    const known = this.#steps.get(hopSteps.kind);
    if (known && known !== (hopSteps as unknown)) {
      throw new PoolKindConflictError(hopSteps.kind, "hop steps");
    }
    this.#steps.set(hopSteps.kind, hopSteps as unknown as HopSteps<Pool>);
  }

  /**
   * The hop steps of `pool`'s kind.
   * @throws UnknownPoolKindError
   */
  of(pool: Pool): HopSteps<Pool> {
    const found = this.#steps.get(pool.kind);
    if (!found) throw new UnknownPoolKindError(pool.kind);
    return found;
  }

  /**
   * Whether a hop through `pool` can be executed in `scope`.
   * @throws UnknownPoolKindError
   */
  executable(pool: Pool, scope: ExecutionScope): boolean {
    const executable = this.of(pool).executable;
    return executable === undefined || executable(pool, scope);
  }
}
