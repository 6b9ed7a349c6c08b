/**
 * What a route hop's program steps depend on: the routing strategy, the chain's execution
 * contracts, the account the program runs as and the transaction's bounds. Shared by the route
 * program and every pool kind's steps.
 */
import type { Address } from "viem";
import type { ExecutionAddresses } from "../core/execution-addresses.js";

export type RoutingStrategy = "router" | "delegate" | "corewallet";

/**
 * The execution-layer contracts of a chain, by name (as `deployExecutionLayer` returns), and the
 * Uniswap V3 forks of the chain whose pools its router executor does not pay: a layer deployed
 * before they were known to the chain. Under the router their pools are left out.
 */
export type ExecutionContracts = ExecutionAddresses & { untrustedV3Forks?: readonly string[] };

/** What a hop's steps depend on. */
export type HopContext = {
  strategy: RoutingStrategy;
  execution: ExecutionContracts;
  /** Uniswap V3 SwapRouter, for V3 hops outside the router. */
  swapRouter: Address | undefined;
  /** The SwapRouter of each fork of Uniswap V3 configured with one, by the fork's slug. */
  forkSwapRouters?: Readonly<Record<string, Address>>;
  /**
   * The pool deployer of each fork of Uniswap V3 whose pools the router executor pays from its
   * swap callback, by the fork's slug: under the router, those pools are swapped directly.
   */
  forkPoolDeployers?: Readonly<Record<string, Address>>;
  /** The account the program runs as: the executor, the caller (delegate) or its wallet. */
  account: Address;
  /**
   * Outside the router: the transaction's deadline and slippage, passed to the protocol steps
   * that take a deadline and a minimum of their own (SwapRouter), each hop's minimum being its
   * quoted output less the slippage.
   */
  bounds?: { deadline: bigint; slippageBps: number };
};

/** How a hop is placed in its route. */
export type HopOptions = {
  /**
   * Nothing reads the hop's output and the router's own checks cover its input (a single-hop
   * leg under the router: the input is tokenIn): a V3 hop then skips reading its output.
   */
  outputUnused?: boolean;
};

/**
 * The contract carrying the ProgramValues helpers a program calls (tuple words, pool outputs):
 * under the router its executor, elsewhere the standalone ProgramValues contract.
 */
export function programValuesContract(
  context: Pick<HopContext, "strategy" | "execution">,
): Address {
  return context.strategy === "router"
    ? context.execution.executor
    : context.execution.programValues;
}

/** `amount` less `slippageBps`, at least 1 wei. */
export function minimumOf(amount: bigint, slippageBps: number): bigint {
  const min = (amount * BigInt(10_000 - slippageBps)) / 10_000n;
  return min > 0n ? min : 1n;
}

/** A route that the requested strategy cannot execute, with the reason for the client. */
export class UnsupportedRouteError extends Error {
  override readonly name = "UnsupportedRouteError";
}
