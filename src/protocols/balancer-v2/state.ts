/**
 * What a Balancer V2 pool's math needs and no event carries, read from the pool at a pinned
 * block (the block of the event being handled, or of a rate refresh).
 */
import type { Context } from "ponder:registry";
import { type Address, erc20Abi, type Hex, parseAbi, zeroAddress } from "viem";
import { BalancerV2ComposableStablePoolAbi } from "../../../abis/BalancerV2ComposableStablePool.js";
import { BalancerV2VaultAbi } from "../../../abis/BalancerV2Vault.js";
import { BalancerV2WeightedPoolAbi } from "../../../abis/BalancerV2WeightedPool.js";
import { decimalScalingFactor } from "../../../engine/index.js";

export type BalancerV2PoolType = "weighted" | "composable-stable";

const ONE = 10n ** 18n;
/** `getProtocolFeePercentageCache`'s fee types. */
const SWAP_FEE_TYPE = 0n;
const YIELD_FEE_TYPE = 2n;
const rateProviderAbi = parseAbi(["function getRate() view returns (uint256)"]);

/** The fields of a pool that a pinned read refreshes (supply, rates, amp, protocol fees). */
export type BalancerV2Dynamic = {
  totalSupply: bigint;
  actualSupply: bigint;
  scalingFactors?: bigint[];
  cachedRates: bigint[];
  oldRates: bigint[];
  rateExpires: bigint[];
  providerRates: bigint[];
  amp: bigint;
  lastJoinExitAmp: bigint;
  lastPostJoinExitInvariant: bigint;
  protocolSwapFeePercentage: bigint;
  protocolYieldFeePercentage: bigint;
};

/** What {@link readDynamic} needs to know of a pool. */
export type BalancerV2PoolShape = {
  address: Address;
  poolType: string;
  tokens: readonly Address[];
  rateProviders: readonly Address[];
};

/** Whether any of the pool's tokens has a rate provider: its rates move without events. */
export function hasRateProviders(pool: { rateProviders: readonly Address[] }): boolean {
  return pool.rateProviders.some((p) => p.toLowerCase() !== zeroAddress);
}

/**
 * The actual supply of a pool with BPT, 0 for one not yet initialized: its math has no invariant
 * of zero balances to grow from, and reverts (BAL#311).
 */
async function emptyOr(totalSupply: bigint, read: () => Promise<bigint>): Promise<bigint> {
  return totalSupply === 0n ? 0n : await read();
}

/** The pool's supply, rates, amp and protocol-fee state at the end of `blockNumber`. */
export async function readDynamic(
  context: Context,
  pool: BalancerV2PoolShape,
  blockNumber: bigint,
): Promise<BalancerV2Dynamic> {
  const at = { blockNumber } as const;
  if (pool.poolType === "weighted") {
    const weighted = { address: pool.address, abi: BalancerV2WeightedPoolAbi, ...at } as const;
    const totalSupply = await context.client.readContract({
      ...weighted,
      functionName: "totalSupply",
    });
    const [actualSupply, scalingFactors] = await Promise.all([
      emptyOr(totalSupply, () =>
        context.client.readContract({ ...weighted, functionName: "getActualSupply" }),
      ),
      hasRateProviders(pool)
        ? context.client.readContract({ ...weighted, functionName: "getScalingFactors" })
        : undefined,
    ]);
    const ones = pool.tokens.map(() => ONE);
    return {
      totalSupply,
      actualSupply,
      ...(scalingFactors ? { scalingFactors: [...scalingFactors] } : {}),
      cachedRates: ones,
      oldRates: ones,
      rateExpires: pool.tokens.map(() => 0n),
      providerRates: ones,
      amp: 0n,
      lastJoinExitAmp: 0n,
      lastPostJoinExitInvariant: 0n,
      protocolSwapFeePercentage: 0n,
      protocolYieldFeePercentage: 0n,
    };
  }
  const stable = { address: pool.address, abi: BalancerV2ComposableStablePoolAbi, ...at } as const;
  const totalSupply = await context.client.readContract({ ...stable, functionName: "totalSupply" });
  const [actualSupply, [amp], [lastJoinExitAmp, lastPostJoinExitInvariant], swapFee] =
    await Promise.all([
      emptyOr(totalSupply, () =>
        context.client.readContract({ ...stable, functionName: "getActualSupply" }),
      ),
      context.client.readContract({ ...stable, functionName: "getAmplificationParameter" }),
      context.client.readContract({ ...stable, functionName: "getLastJoinExitData" }),
      context.client.readContract({
        ...stable,
        functionName: "getProtocolFeePercentageCache",
        args: [SWAP_FEE_TYPE],
      }),
    ]);
  const yieldFee = await context.client.readContract({
    ...stable,
    functionName: "getProtocolFeePercentageCache",
    args: [YIELD_FEE_TYPE],
  });
  // A token without a provider has no rate cache (the pool reverts when asked for one).
  const rates = await Promise.all(
    pool.tokens.map(async (token, i) => {
      const provider = pool.rateProviders[i] ?? zeroAddress;
      if (provider.toLowerCase() === zeroAddress) {
        return { cached: ONE, old: ONE, expires: 0n, provider: ONE };
      }
      const [cache, providerRate] = await Promise.all([
        context.client.readContract({
          ...stable,
          functionName: "getTokenRateCache",
          args: [token],
        }),
        context.client.readContract({
          address: provider,
          abi: rateProviderAbi,
          functionName: "getRate",
          ...at,
        }),
      ]);
      const [rate, oldRate, , expires] = cache;
      return { cached: rate, old: oldRate, expires, provider: providerRate };
    }),
  );
  return {
    totalSupply,
    actualSupply,
    cachedRates: rates.map((r) => r.cached),
    oldRates: rates.map((r) => r.old),
    rateExpires: rates.map((r) => r.expires),
    providerRates: rates.map((r) => r.provider),
    amp,
    lastJoinExitAmp,
    lastPostJoinExitInvariant,
    protocolSwapFeePercentage: swapFee,
    protocolYieldFeePercentage: yieldFee,
  };
}

/** What never changes about a pool, read once when its factory creates it. */
export type BalancerV2Static = {
  poolId: Hex;
  vault: Address;
  tokens: Address[];
  rateProviders: Address[];
  normalizedWeights: bigint[];
  /** Weighted: `getScalingFactors()`; stable: the decimals' factors (the BPT's 1e18). */
  scalingFactors: bigint[];
  bptIndex: number;
  exemptFromYieldProtocolFee: boolean[];
  swapFeePercentage: bigint;
};

/** A new pool's identity, tokens and fixed parameters, read at the block that created it. */
export async function readStatic(
  context: Context,
  pool: Address,
  poolType: BalancerV2PoolType,
  blockNumber: bigint,
): Promise<BalancerV2Static> {
  const at = { blockNumber } as const;
  // Both pool types answer these the same way (`BasePool`).
  const base = { address: pool, abi: BalancerV2WeightedPoolAbi } as const;
  const [poolId, vault, swapFeePercentage] = await Promise.all([
    context.client.readContract({ ...base, functionName: "getPoolId", cache: "immutable" }),
    context.client.readContract({ ...base, functionName: "getVault", cache: "immutable" }),
    context.client.readContract({ ...base, functionName: "getSwapFeePercentage", ...at }),
  ]);
  const [registered] = await context.client.readContract({
    address: vault,
    abi: BalancerV2VaultAbi,
    functionName: "getPoolTokens",
    args: [poolId],
    ...at,
  });
  const tokens = registered.map((t) => t.toLowerCase() as Address);
  if (poolType === "weighted") {
    const [normalizedWeights, scalingFactors, rateProviders] = await Promise.all([
      context.client.readContract({
        ...base,
        functionName: "getNormalizedWeights",
        cache: "immutable",
      }),
      context.client.readContract({ ...base, functionName: "getScalingFactors", ...at }),
      context.client.readContract({
        ...base,
        functionName: "getRateProviders",
        cache: "immutable",
      }),
    ]);
    return {
      poolId,
      vault,
      tokens,
      rateProviders: rateProviders.map((p) => p.toLowerCase() as Address),
      normalizedWeights: [...normalizedWeights],
      scalingFactors: [...scalingFactors],
      bptIndex: 0,
      exemptFromYieldProtocolFee: tokens.map(() => false),
      swapFeePercentage,
    };
  }
  const stable = { address: pool, abi: BalancerV2ComposableStablePoolAbi } as const;
  const [bptIndex, rateProviders] = await Promise.all([
    context.client.readContract({ ...stable, functionName: "getBptIndex", cache: "immutable" }),
    context.client.readContract({
      ...stable,
      functionName: "getRateProviders",
      cache: "immutable",
    }),
  ]);
  const perToken = await Promise.all(
    tokens.map(async (token, i) => {
      if (i === Number(bptIndex)) return { factor: ONE, exempt: false };
      const [decimals, exempt] = await Promise.all([
        context.client.readContract({
          address: token,
          abi: erc20Abi,
          functionName: "decimals",
          cache: "immutable",
        }),
        context.client.readContract({
          ...stable,
          functionName: "isTokenExemptFromYieldProtocolFee",
          args: [token],
          cache: "immutable",
        }),
      ]);
      return { factor: decimalScalingFactor(decimals), exempt };
    }),
  );
  return {
    poolId,
    vault,
    tokens,
    rateProviders: rateProviders.map((p) => p.toLowerCase() as Address),
    normalizedWeights: [],
    scalingFactors: perToken.map((t) => t.factor),
    bptIndex: Number(bptIndex),
    exemptFromYieldProtocolFee: perToken.map((t) => t.exempt),
    swapFeePercentage,
  };
}
