/**
 * Balancer V2 pools as routing edges: a swap through the vault between any two of a pool's
 * tokens, exact (the pools' own math, engine/protocols/balancer-v2/*-pool.ts) and as floats. A
 * composable stable pool's BPT is one of its registered tokens, so swaps into and out of it are
 * ordinary edges: a route can end in the BPT, start from it, or pass through it. A weighted
 * pool's BPT is not: its single-token joins and exits (`Vault.joinPool`, `exitPool`) are
 * terminal edges, a route's first or last step.
 */
import { type Address, type Hex, maxUint256 } from "viem";
import { EXCEEDS_LIQUIDITY, outputQuote } from "../../core/quote.js";
import type {
  BalancerV2Pool,
  BalancerV2StablePool,
  BalancerV2WeightedPool,
  ComposableStablePoolState,
  Edge,
  WeightedPoolState,
} from "../../core/types.js";
import { minimumOf, programValuesContract } from "../../program/hop-context.js";
import type { EdgeOf, PoolKind } from "../pool-kind.js";
import { perToken, tokenIndex } from "./base-pool.js";
import {
  actualSupply,
  composableStableScalingFactors,
  quoteComposableStableExactIn,
  upscaledWithoutBpt,
} from "./composable-stable-pool.js";
import { BalancerMathError } from "./errors.js";
import { ONE } from "./fixed-point.js";
import {
  ampTimesTotal,
  type StableFloatModel,
  stableExitOut,
  stableInvariant,
  stableJoinOut,
  stableMarginalValue,
  stableSwapOut,
  type WeightedFloatModel,
  weightedExitOut,
  weightedJoinOut,
  weightedOut,
} from "./float-model.js";
import {
  BALANCER_V2_STABLE_EXIT_SWAP_GAS,
  BALANCER_V2_STABLE_JOIN_SWAP_GAS,
  BALANCER_V2_STABLE_SWAP_GAS,
  BALANCER_V2_WEIGHTED_EXIT_GAS,
  BALANCER_V2_WEIGHTED_JOIN_GAS,
  BALANCER_V2_WEIGHTED_SWAP_GAS,
} from "./gas.js";
import { AMP_PRECISION, calculateInvariant } from "./stable-math.js";
import { addBalancerV2Swap, addBalancerV2WeightedJoinExit } from "./steps.js";
import {
  quoteWeightedExactIn,
  quoteWeightedExitExactBptIn,
  quoteWeightedJoinExactTokenIn,
} from "./weighted-pool.js";

export type { BalancerV2Pool, BalancerV2StablePool, BalancerV2WeightedPool };

/** The pool kind of Balancer V2 pools (`BalancerV2Pool` in the engine's `Pool` union). */
export const BALANCER_V2_POOL_KIND = "balancer-v2";

/** The exact GIVEN_IN output of `amountIn` through `edge`; throws `BalancerMathError` where the pool reverts. */
function exactOut(edge: EdgeOf<BalancerV2Pool>, amountIn: bigint): bigint {
  const pool = edge.pool;
  const swap = { tokenIn: edge.tokenIn, tokenOut: edge.tokenOut, amountIn };
  if (pool.type !== "weighted") return quoteComposableStableExactIn({ pool: pool.state, ...swap });
  if (edge.action === "deposit") {
    return quoteWeightedJoinExactTokenIn({ pool: pool.state, tokenIn: edge.tokenIn, amountIn });
  }
  if (edge.action === "redeem") {
    return quoteWeightedExitExactBptIn({
      pool: pool.state,
      tokenOut: edge.tokenOut,
      bptIn: amountIn,
    });
  }
  return quoteWeightedExactIn({ pool: pool.state, ...swap });
}

/**
 * A weighted pool's single-token joins and exits: each of its tokens into its BPT and back, once
 * the pool has a supply to price them against.
 */
function weightedJoinExitEdges(pool: BalancerV2Pool): Edge[] {
  if (pool.type !== "weighted" || pool.state.actualSupply <= 0n) return [];
  return pool.state.tokens.flatMap((token): Edge[] => [
    { pool, tokenIn: token, tokenOut: pool.address, action: "deposit" },
    { pool, tokenIn: pool.address, tokenOut: token, action: "redeem" },
  ]);
}

/** The float output of `amountIn` through a weighted pool's edge, by its token indices. */
function weightedApprox(
  m: WeightedFloatModel,
  action: Edge["action"],
  i: number,
  o: number,
  amountIn: number,
): number {
  if (action === "deposit") return weightedJoinOut(m, i, amountIn);
  if (action === "redeem") return weightedExitOut(m, o, amountIn);
  return weightedOut(m, i, o, amountIn);
}

const weightedModels = new WeakMap<WeightedPoolState, WeightedFloatModel>();

function weightedModel(state: WeightedPoolState): WeightedFloatModel {
  let m = weightedModels.get(state);
  if (!m) {
    m = {
      balances: Float64Array.from(state.balances, Number),
      weights: Float64Array.from(state.normalizedWeights, Number),
      gamma: 1 - Number(state.swapFeePercentage) / 1e18,
      supply: Number(state.actualSupply),
    };
    weightedModels.set(state, m);
  }
  return m;
}

/** A stable pool's float model and, for exact spot prices, its upscaled state. */
type StableModel = StableFloatModel & {
  exact: { scalingFactors: bigint[]; balances: bigint[]; invariant: bigint; supply: bigint };
};

const stableModels = new WeakMap<ComposableStablePoolState, StableModel>();

function stableModel(state: ComposableStablePoolState): StableModel {
  let m = stableModels.get(state);
  if (!m) {
    const scalingFactors = composableStableScalingFactors(state);
    const balances = upscaledWithoutBpt(state, scalingFactors);
    const supply = actualSupply(state, balances);
    const floatBalances = Float64Array.from(balances, Number);
    const total = ampTimesTotal(state.amp, balances.length);
    m = {
      balances: floatBalances,
      scales: Float64Array.from(
        scalingFactors.filter((_, i) => i !== state.bptIndex),
        (factor) => Number(factor) / 1e18,
      ),
      ampTimesTotal: total,
      invariant: stableInvariant({ balances: floatBalances, ampTimesTotal: total }, -1, 0),
      supply: Number(supply),
      fee: Number(state.swapFeePercentage) / 1e18,
      exact: {
        scalingFactors,
        balances,
        invariant: calculateInvariant(state.amp, balances),
        supply,
      },
    };
    stableModels.set(state, m);
  }
  return m;
}

/** Where `token` is among a stable pool's tokens without its BPT; -1 for the BPT. */
function withoutBptIndex(state: ComposableStablePoolState, token: Address): number {
  const index = state.tokens.indexOf(token);
  if (index === state.bptIndex) return -1;
  return index < state.bptIndex ? index : index - 1;
}

/** The float output of `amountIn` through a stable pool, from token `i` to `o` (-1: the BPT). */
function stableApprox(m: StableFloatModel, i: number, o: number, amountIn: number): number {
  if (i < 0) return stableExitOut(m, o, amountIn) / (m.scales[o] as number);
  const upscaled = amountIn * (m.scales[i] as number);
  if (o < 0) return stableJoinOut(m, i, upscaled);
  return stableSwapOut(m, i, o, upscaled) / (m.scales[o] as number);
}

/**
 * The float output of `amountIn` through `edge`, its model and token indices looked up (the
 * graph's tokens are lowercase, as the pool's: found without allocating).
 */
function approxOut(edge: EdgeOf<BalancerV2Pool>, amountIn: number): number {
  const pool = edge.pool;
  if (pool.type === "weighted") {
    const tokens = pool.state.tokens;
    return weightedApprox(
      weightedModel(pool.state),
      edge.action,
      tokens.indexOf(edge.tokenIn),
      tokens.indexOf(edge.tokenOut),
      amountIn,
    );
  }
  return stableApprox(
    stableModel(pool.state),
    withoutBptIndex(pool.state, edge.tokenIn),
    withoutBptIndex(pool.state, edge.tokenOut),
    amountIn,
  );
}

/**
 * What one token unit of `token` is worth against the pool at the margin, as an exact fraction
 * (its numerator and denominator) in a unit common to the pool's tokens: for a weighted pool
 * weight / balance; for a stable pool the invariant's growth per token unit (the scaling factor
 * times ∂D/∂x), and the invariant per BPT for its BPT.
 */
function marginalValue(pool: BalancerV2Pool, token: Address): [bigint, bigint] {
  if (pool.type === "weighted") {
    // Weights sum to ONE: a BPT's share of the pool is worth ONE / supply in the same unit.
    if (token === pool.address) return [ONE, pool.state.actualSupply];
    const i = tokenIndex(pool.state.tokens, token);
    return [
      perToken(pool.state.normalizedWeights, i, "weight"),
      perToken(pool.state.balances, i, "balance"),
    ];
  }
  const state = pool.state;
  const { exact } = stableModel(state);
  const k = withoutBptIndex(state, token);
  const D = exact.invariant;
  if (k < 0) return [D, exact.supply];
  const n = BigInt(exact.balances.length);
  let dP = D;
  for (const balance of exact.balances) dP = (dP * D) / (balance * n);
  const amp = state.amp;
  const x = perToken(exact.balances, k, "balance");
  const factor = perToken(exact.scalingFactors, tokenIndex(state.tokens, token), "scaling factor");
  // ∂D/∂x = (A·n·x + D_P) / x over (A·n − 1 + (n+1)·D_P / D), `amp` being A times its
  // precision; the scaling factor (18 decimals) turns token units into upscaled ones.
  const slope = amp * n * D - AMP_PRECISION * D + AMP_PRECISION * (n + 1n) * dP;
  return [factor * (amp * n * x + AMP_PRECISION * dP) * D, ONE * x * slope];
}

/** {@link marginalValue} from the float models. */
function floatValue(pool: BalancerV2Pool, token: Address): number {
  if (pool.type === "weighted") {
    const m = weightedModel(pool.state);
    if (token === pool.address) return 1e18 / m.supply;
    const i = pool.state.tokens.indexOf(token);
    return (m.weights[i] as number) / (m.balances[i] as number);
  }
  const m = stableModel(pool.state);
  const k = withoutBptIndex(pool.state, token);
  return k < 0 ? m.invariant / m.supply : (m.scales[k] as number) * stableMarginalValue(m, k);
}

export const balancerV2Pool: PoolKind<BalancerV2Pool> = {
  kind: BALANCER_V2_POOL_KIND,
  // Every ordered pair of registered tokens: the vault swaps any of them for any other. Into a
  // composable stable pool's own BPT (a registered token) that is a single-token join, a
  // `deposit`; out of it an exit, a `redeem`.
  edges: (pool) =>
    pool.state.tokens.flatMap((tokenIn) =>
      pool.state.tokens
        .filter((tokenOut) => tokenOut !== tokenIn)
        .map(
          (tokenOut): Edge => ({
            pool,
            tokenIn,
            tokenOut,
            action:
              tokenOut === pool.address ? "deposit" : tokenIn === pool.address ? "redeem" : "swap",
          }),
        ),
    ),
  terminalEdges: weightedJoinExitEdges,
  quote: (edge, amountIn) => {
    try {
      return outputQuote(exactOut(edge, amountIn));
    } catch (error) {
      // The pool would revert: past a weighted pool's 30% of its balance in (BAL#304), an exit
      // of more BPT than exists, or an amount that leaves no balance to converge on.
      if (error instanceof BalancerMathError) return EXCEEDS_LIQUIDITY;
      throw error;
    }
  },
  approx: (edge, amountIn, result) => {
    result.out = approxOut(edge, amountIn);
    result.ticksCrossed = 0;
    return result;
  },
  approxQuoter: (edge) => {
    const pool = edge.pool;
    if (pool.type === "weighted") {
      const m = weightedModel(pool.state);
      const i = pool.state.tokens.indexOf(edge.tokenIn);
      const o = pool.state.tokens.indexOf(edge.tokenOut);
      const action = edge.action;
      return (amountIn, result) => {
        result.out = weightedApprox(m, action, i, o, amountIn);
        result.ticksCrossed = 0;
        return result;
      };
    }
    const m = stableModel(pool.state);
    const i = withoutBptIndex(pool.state, edge.tokenIn);
    const o = withoutBptIndex(pool.state, edge.tokenOut);
    return (amountIn, result) => {
      result.out = stableApprox(m, i, o, amountIn);
      result.ticksCrossed = 0;
      return result;
    };
  },
  approxSpot: (edge, result) => {
    // tokenOut per tokenIn: the ratio of their values per unit.
    result.rate = floatValue(edge.pool, edge.tokenIn) / floatValue(edge.pool, edge.tokenOut);
    result.depthIn = balancerV2Pool.depth(edge, "in");
    return result;
  },
  depth: (edge, side) => {
    const pool = edge.pool;
    const token = side === "in" ? edge.tokenIn : edge.tokenOut;
    if (pool.type === "composable-stable" && token === pool.address) {
      return stableModel(pool.state).supply;
    }
    if (pool.type === "weighted" && token === pool.address) return Number(pool.state.actualSupply);
    return Number(perToken(pool.state.balances, tokenIndex(pool.state.tokens, token), "balance"));
  },
  priceAcross: (edge, price) => {
    const [inNum, inDen] = marginalValue(edge.pool, edge.tokenIn);
    const [outNum, outDen] = marginalValue(edge.pool, edge.tokenOut);
    // Value for value: price_out = price_in · value_out / value_in.
    const denominator = outDen * inNum;
    return denominator > 0n ? (price * outNum * inDen) / denominator : 0n;
  },
  gas: (edge) => {
    const pool = edge.pool;
    if (pool.type === "weighted") {
      if (edge.action === "deposit") return BALANCER_V2_WEIGHTED_JOIN_GAS;
      if (edge.action === "redeem") return BALANCER_V2_WEIGHTED_EXIT_GAS;
      return BALANCER_V2_WEIGHTED_SWAP_GAS;
    }
    if (edge.tokenOut === pool.address) return BALANCER_V2_STABLE_JOIN_SWAP_GAS;
    if (edge.tokenIn === pool.address) return BALANCER_V2_STABLE_EXIT_SWAP_GAS;
    return BALANCER_V2_STABLE_SWAP_GAS;
  },
  addHop: (planner, context, hop, amountIn, recipient) => {
    const { edge } = hop;
    const pool = edge.pool;
    const limit =
      context.bounds && hop.amountOut > 0n
        ? minimumOf(hop.amountOut, context.bounds.slippageBps)
        : 0n;
    if (pool.type === "weighted" && edge.action !== "swap") {
      const deposit = edge.action === "deposit";
      return addBalancerV2WeightedJoinExit(planner, {
        side: deposit ? "join" : "exit",
        vault: pool.vault,
        poolId: pool.poolId,
        pool: pool.address,
        tokens: pool.state.tokens,
        token: deposit ? edge.tokenIn : edge.tokenOut,
        amountIn,
        sender: context.account,
        recipient,
        limit,
        programValues: programValuesContract(context),
        minAmountOutCheck: context.execution.minAmountOutCheck,
      });
    }
    return addBalancerV2Swap(planner, {
      vault: pool.vault,
      poolId: pool.poolId,
      tokenIn: edge.tokenIn,
      tokenOut: edge.tokenOut,
      amountIn,
      sender: context.account,
      approve: edge.tokenIn !== pool.address,
      recipient,
      limit,
      deadline: context.bounds?.deadline ?? maxUint256,
    });
  },
  stateless: false,
  paysReceiverUnderRouter: true,
  // A weighted pool's BPT is not one of its tokens: no swap reaches it, so it is priced at its
  // share of the balances, against the supply a join mints against.
  backing: (pool) =>
    pool.type === "weighted" && pool.state.actualSupply > 0n
      ? {
          token: pool.address,
          supply: pool.state.actualSupply,
          reserves: pool.state.tokens.map((token, i) => ({
            token,
            amount: perToken(pool.state.balances, i, "balance"),
          })),
        }
      : undefined,
};

/** What {@link balancerV2PoolOf} makes a pool of: its addresses and state as the chain gives them. */
export type BalancerV2PoolParameters = { address: Address; poolId: Hex; vault: Address } & (
  | { type: "weighted"; state: WeightedPoolState }
  | { type: "composable-stable"; state: ComposableStablePoolState }
);

/**
 * A pool of the graph from its state as read from the chain (addresses in any case): its
 * addresses, tokens included, lowercase as the engine keeps them.
 */
export function balancerV2PoolOf(params: BalancerV2PoolParameters): BalancerV2Pool {
  const base = {
    kind: BALANCER_V2_POOL_KIND,
    protocol: "balancer-v2",
    address: lower(params.address),
    poolId: params.poolId,
    vault: lower(params.vault),
  } as const;
  const tokens = params.state.tokens.map(lower);
  return params.type === "weighted"
    ? { ...base, type: "weighted", state: { ...params.state, tokens } }
    : {
        ...base,
        type: "composable-stable",
        state: { ...params.state, address: lower(params.state.address), tokens },
      };
}

function lower(address: Address): Address {
  return address.toLowerCase() as Address;
}
