/**
 * Turns a quoted route into a program for the command VM and the unsigned transaction of the
 * requested routing strategy.
 *
 * - `router`: the router pulls amountIn (and the fee) from the caller into its executor; the
 *   program runs each leg with the executor as the intermediate holder and sweeps tokenOut to
 *   the receiver; the router checks the receiver's balance growth on chain.
 * - `delegate` / `corewallet`: the program runs as the caller's account (EIP-7702 delegation) or
 *   in the caller's wallet; V3 hops go through Uniswap's SwapRouter (no callback there), the
 *   last hop pays the receiver, and the program checks the receiver's balance growth itself.
 */
import type { Address } from "viem";
import type { ExecutionAddresses } from "../../../protocols/execution-addresses.js";
import {
  addBalanceSnapshot,
  addDeadlineCheck,
  addMinAmountOutCheck,
  addSweep,
} from "../bundling/executionSteps.js";
import { type PlannedProgram, ProgramPlanner, type ProgramValue } from "../bundling/planner.js";
import {
  addErc4626Deposit,
  addErc4626Redeem,
  addExecutorUniswapV2Swap,
  addTransfer,
  addUniswapV2Swap,
  addUniswapV3PoolSwap,
  addUniswapV3RouterSwap,
  addUnwrapNative,
  addWrapNative,
} from "../bundling/protocolSteps.js";
import type { QuotedHop, RouteQuote } from "./types.js";

export type RoutingStrategy = "router" | "delegate" | "corewallet";

/** The execution-layer contracts of a chain, by name (as `deployExecutionLayer` returns). */
export type ExecutionContracts = ExecutionAddresses;

/** What a hop's steps depend on. */
export type HopContext = {
  strategy: RoutingStrategy;
  execution: ExecutionContracts;
  /** Uniswap V3 SwapRouter, for V3 hops outside the router. */
  swapRouter: Address | undefined;
  /** The account the program runs as: the executor, the caller (delegate) or its wallet. */
  account: Address;
  /**
   * Outside the router: the transaction's deadline and slippage, passed to the protocol steps
   * that take a deadline and a minimum of their own (SwapRouter), each hop's minimum being its
   * quoted output less the slippage.
   */
  bounds?: { deadline: bigint; slippageBps: number };
};

/** `amount` less `slippageBps`, at least 1 wei. */
export function minimumOf(amount: bigint, slippageBps: number): bigint {
  const min = (amount * BigInt(10_000 - slippageBps)) / 10_000n;
  return min > 0n ? min : 1n;
}

export type RouteProgramParameters = HopContext & {
  weth: Address | undefined;
  receiver: Address;
  quote: RouteQuote;
  /** Only outside the router (which takes the fee itself): fee paid from tokenIn first. */
  fee?: { amount: bigint; receiver: Address };
  /** Only outside the router: the minimum the program itself enforces. */
  minAmountOut?: bigint;
};

/** A route that the requested strategy cannot execute, with the reason for the client. */
export class UnsupportedRouteError extends Error {
  override readonly name = "UnsupportedRouteError";
}

/**
 * Adds one hop's steps, paying `recipient`.
 * @returns the hop's output amount (a program value, or the input itself for wrap/unwrap).
 */
export function addRouteHop(
  planner: ProgramPlanner,
  p: HopContext,
  hop: QuotedHop,
  amountIn: bigint | ProgramValue,
  recipient: Address,
  options: {
    /**
     * Nothing reads the hop's output and the router's own checks cover its input (a single-hop
     * leg under the router: the input is tokenIn): a V3 hop then skips reading its output.
     */
    outputUnused?: boolean;
  } = {},
): ProgramValue | bigint {
  const { edge } = hop;
  const pool = edge.pool;
  const inRouter = p.strategy === "router";
  switch (pool.kind) {
    case "v2":
      return inRouter
        ? addExecutorUniswapV2Swap(planner, {
            executor: p.execution.executor,
            pair: pool.address,
            tokenIn: edge.tokenIn,
            tokenOut: edge.tokenOut,
            amountIn,
            recipient,
          })
        : addUniswapV2Swap(planner, {
            pair: pool.address,
            tokenIn: edge.tokenIn,
            tokenOut: edge.tokenOut,
            amountIn,
            recipient,
            programValues: p.execution.programValues,
          });
    case "v3":
      if (inRouter) {
        const swap = {
          executor: p.execution.executor,
          pool: pool.address,
          tokenIn: edge.tokenIn,
          tokenOut: edge.tokenOut,
          fee: pool.feePpm,
          amountIn,
          recipient,
        };
        if (options.outputUnused) {
          // A partial fill would leave tokenIn in the executor, which the router refuses.
          addUniswapV3PoolSwap(planner, { ...swap, amountOut: false });
          return hop.amountOut;
        }
        return addUniswapV3PoolSwap(planner, swap);
      }
      if (!p.swapRouter)
        throw new UnsupportedRouteError("no Uniswap V3 SwapRouter is configured on this chain");
      return addUniswapV3RouterSwap(planner, {
        swapRouter: p.swapRouter,
        tokenIn: edge.tokenIn,
        tokenOut: edge.tokenOut,
        fee: pool.feePpm,
        amountIn,
        recipient,
        deadline: p.bounds?.deadline,
        amountOutMinimum:
          p.bounds && hop.amountOut > 0n
            ? minimumOf(hop.amountOut, p.bounds.slippageBps)
            : undefined,
      });
    case "erc4626":
      return edge.action === "deposit"
        ? addErc4626Deposit(planner, {
            vault: pool.address,
            asset: pool.asset,
            assets: amountIn,
            receiver: recipient,
          })
        : addErc4626Redeem(planner, {
            vault: pool.address,
            shares: amountIn,
            receiver: recipient,
            owner: p.account,
          });
    case "wrap":
      if (edge.action === "wrap") {
        addWrapNative(planner, { weth: pool.address, amount: amountIn });
        if (recipient.toLowerCase() !== p.account.toLowerCase()) {
          addTransfer(planner, { token: pool.address, to: recipient, amount: amountIn });
        }
        return amountIn;
      }
      if (recipient.toLowerCase() !== p.account.toLowerCase()) {
        throw new UnsupportedRouteError(
          `routingStrategy=${p.strategy} cannot pay native currency to a receiver other than the executing account; use routingStrategy=router`,
        );
      }
      addUnwrapNative(planner, { weth: pool.address, amount: amountIn });
      return amountIn;
  }
}

/**
 * Plans the program executing `quote`. The executing account holds every intermediate amount
 * and each leg's last hop pays the receiver directly (the router checks what arrived); under
 * the router a last hop that cannot pay someone else (unwrapping) leaves tokenOut in the
 * executor, which sweeps it to the receiver at the end.
 */
export function planRouteProgram(p: RouteProgramParameters): PlannedProgram {
  const planner = new ProgramPlanner();
  const inRouter = p.strategy === "router";
  let balanceBefore: ProgramValue | undefined;
  if (!inRouter) {
    // No router checks the deadline here: the program does, first.
    if (p.bounds) {
      addDeadlineCheck(planner, {
        minAmountOutCheck: p.execution.minAmountOutCheck,
        deadline: p.bounds.deadline,
      });
    }
    if (p.fee && p.fee.amount > 0n) {
      addTransfer(planner, {
        token: p.quote.tokenIn,
        to: p.fee.receiver,
        amount: p.fee.amount,
        label: "pay fee",
      });
    }
    balanceBefore = addBalanceSnapshot(planner, {
      minAmountOutCheck: p.execution.minAmountOutCheck,
      token: p.quote.tokenOut,
      account: p.receiver,
    });
  }
  let sweep = false;
  for (const leg of p.quote.legs) {
    let amount: bigint | ProgramValue = leg.amountIn;
    leg.hops.forEach((hop, i) => {
      const last = i === leg.hops.length - 1;
      // Paying the receiver from the pool saves a transfer (and a storage slot) per leg.
      const direct = last && !(inRouter && hop.edge.pool.kind === "wrap");
      if (last && !direct) sweep = true;
      amount = addRouteHop(planner, p, hop, amount, direct ? p.receiver : p.account, {
        outputUnused: inRouter && last && leg.hops.length === 1,
      });
    });
  }
  if (sweep) {
    addSweep(planner, { executor: p.execution.executor, token: p.quote.tokenOut, to: p.receiver });
  } else if (balanceBefore) {
    addMinAmountOutCheck(planner, {
      minAmountOutCheck: p.execution.minAmountOutCheck,
      token: p.quote.tokenOut,
      account: p.receiver,
      balanceBefore,
      minAmountOut: p.minAmountOut ?? 1n,
    });
  }
  return planner.plan();
}
