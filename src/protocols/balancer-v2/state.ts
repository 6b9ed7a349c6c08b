/**
 * What a Balancer V2 pool's math needs and no event carries, read from the pool at a pinned
 * block: the block of the event being handled or of a rate refresh (`readsAt`, one request a
 * call), or the block before a state start (`coalescedReads`, every pool's calls batched).
 */
import { type Address, erc20Abi, type Hex, hexToBigInt, parseAbi, zeroAddress } from "viem";
import { BalancerV2ComposableStablePoolAbi } from "../../../abis/BalancerV2ComposableStablePool.js";
import { BalancerV2VaultAbi } from "../../../abis/BalancerV2Vault.js";
import { BalancerV2WeightedPoolAbi } from "../../../abis/BalancerV2WeightedPool.js";
import { decimalScalingFactor } from "../../../engine/index.js";
import type { PinnedRead } from "../../state-start/reads.js";
import type { TokenToEnsure } from "../../tokens/tokens.js";
import type { balancerV2Pool } from "./tables.js";

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

/** A composable stable pool's rate caches and its providers' rates, token by token. */
function stableRates(read: PinnedRead, pool: BalancerV2PoolShape) {
  const stable = { address: pool.address, abi: BalancerV2ComposableStablePoolAbi } as const;
  // A token without a provider has no rate cache (the pool reverts when asked for one).
  return Promise.all(
    pool.tokens.map(async (token, i) => {
      const provider = pool.rateProviders[i] ?? zeroAddress;
      if (provider.toLowerCase() === zeroAddress) {
        return { cached: ONE, old: ONE, expires: 0n, provider: ONE };
      }
      const [cache, providerRate] = await Promise.all([
        read({ ...stable, functionName: "getTokenRateCache", args: [token] }),
        read({ address: provider, abi: rateProviderAbi, functionName: "getRate" }),
      ]);
      const [rate, oldRate, , expires] = cache;
      return { cached: rate, old: oldRate, expires, provider: providerRate };
    }),
  );
}

/** The pool's supply, rates, amp and protocol-fee state at the end of the reads' block. */
export async function readDynamic(
  read: PinnedRead,
  pool: BalancerV2PoolShape,
): Promise<BalancerV2Dynamic> {
  if (pool.poolType === "weighted") {
    const weighted = { address: pool.address, abi: BalancerV2WeightedPoolAbi } as const;
    const totalSupply = await read({ ...weighted, functionName: "totalSupply" });
    const [actualSupply, scalingFactors, protocolSwapFee] = await Promise.all([
      emptyOr(totalSupply, () => read({ ...weighted, functionName: "getActualSupply" })),
      hasRateProviders(pool) ? read({ ...weighted, functionName: "getScalingFactors" }) : undefined,
      read({ ...weighted, functionName: "getProtocolFeePercentageCache", args: [SWAP_FEE_TYPE] }),
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
      protocolSwapFeePercentage: protocolSwapFee,
      protocolYieldFeePercentage: 0n,
    };
  }
  const stable = { address: pool.address, abi: BalancerV2ComposableStablePoolAbi } as const;
  // The rates are read beside the supply, so that batched reads take two rounds, not three.
  const supplyRead = read({ ...stable, functionName: "totalSupply" });
  const ratesRead = stableRates(read, pool);
  // Awaited below; observed now, so that a failed supply read leaves no unhandled rejection.
  ratesRead.catch(() => {});
  const totalSupply = await supplyRead;
  const [
    actualSupply,
    [amp],
    [lastJoinExitAmp, lastPostJoinExitInvariant],
    swapFee,
    yieldFee,
    rates,
  ] = await Promise.all([
    emptyOr(totalSupply, () => read({ ...stable, functionName: "getActualSupply" })),
    read({ ...stable, functionName: "getAmplificationParameter" }),
    read({ ...stable, functionName: "getLastJoinExitData" }),
    read({ ...stable, functionName: "getProtocolFeePercentageCache", args: [SWAP_FEE_TYPE] }),
    read({ ...stable, functionName: "getProtocolFeePercentageCache", args: [YIELD_FEE_TYPE] }),
    ratesRead,
  ]);
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

/**
 * What never changes about a pool, read once when its factory creates it (or a state start
 * finds it), and its swap fee and balances then.
 */
export type BalancerV2Static = {
  poolId: Hex;
  vault: Address;
  tokens: Address[];
  /** The vault's balances of `tokens` (cash plus managed) at the reads' block. */
  balances: bigint[];
  rateProviders: Address[];
  normalizedWeights: bigint[];
  /** Weighted: `getScalingFactors()`; stable: the decimals' factors (the BPT's 1e18). */
  scalingFactors: bigint[];
  bptIndex: number;
  exemptFromYieldProtocolFee: boolean[];
  swapFeePercentage: bigint;
};

/** A pool's identity, tokens and fixed parameters, read at the reads' block. */
export async function readStatic(
  read: PinnedRead,
  pool: Address,
  poolType: BalancerV2PoolType,
): Promise<BalancerV2Static> {
  // Both pool types answer these the same way (`BasePool`).
  const base = { address: pool, abi: BalancerV2WeightedPoolAbi } as const;
  const [poolId, vault, swapFeePercentage] = await Promise.all([
    read({ ...base, functionName: "getPoolId", immutable: true }),
    read({ ...base, functionName: "getVault", immutable: true }),
    read({ ...base, functionName: "getSwapFeePercentage" }),
  ]);
  const [registered, balances] = await read({
    address: vault,
    abi: BalancerV2VaultAbi,
    functionName: "getPoolTokens",
    args: [poolId],
  });
  const tokens = registered.map((t) => t.toLowerCase() as Address);
  if (poolType === "weighted") {
    const [normalizedWeights, scalingFactors, rateProviders] = await Promise.all([
      read({ ...base, functionName: "getNormalizedWeights", immutable: true }),
      read({ ...base, functionName: "getScalingFactors" }),
      read({ ...base, functionName: "getRateProviders", immutable: true }),
    ]);
    return {
      poolId,
      vault,
      tokens,
      balances: [...balances],
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
    read({ ...stable, functionName: "getBptIndex", immutable: true }),
    read({ ...stable, functionName: "getRateProviders", immutable: true }),
  ]);
  const perToken = await Promise.all(
    tokens.map(async (token, i) => {
      if (i === Number(bptIndex)) return { factor: ONE, exempt: false };
      const [decimals, exempt] = await Promise.all([
        read({ address: token, abi: erc20Abi, functionName: "decimals", immutable: true }),
        read({
          ...stable,
          functionName: "isTokenExemptFromYieldProtocolFee",
          args: [token],
          immutable: true,
        }),
      ]);
      return { factor: decimalScalingFactor(decimals), exempt };
    }),
  );
  return {
    poolId,
    vault,
    tokens,
    balances: [...balances],
    rateProviders: rateProviders.map((p) => p.toLowerCase() as Address),
    normalizedWeights: [],
    scalingFactors: perToken.map((t) => t.factor),
    bptIndex: Number(bptIndex),
    exemptFromYieldProtocolFee: perToken.map((t) => t.exempt),
    swapFeePercentage,
  };
}

/**
 * A stable pool's amp update as its events leave the row: `AmpUpdateStarted`'s start and end
 * values and times, or, with no update started since its creation or the last
 * `AmpUpdateStopped`, the amp it stays at and times of zero.
 */
export type BalancerV2AmpUpdate = {
  ampStartValue: bigint;
  ampEndValue: bigint;
  ampStartTime: bigint;
  ampEndTime: bigint;
};

/** No amp update under way: the amp stays at `amp` (a weighted pool's is 0). */
export function steadyAmp(amp: bigint): BalancerV2AmpUpdate {
  return { ampStartValue: amp, ampEndValue: amp, ampStartTime: 0n, ampEndTime: 0n };
}

/**
 * Where the composable stable pool the known factories create (`20230206-composable-stable-pool-v3`
 * of `@balancer-labs/v2-deployments`, the only version indexed) keeps `_packedAmplificationData`
 * (`StablePoolAmplification`): no view answers an update's start and end, only the amp now.
 */
export const AMP_DATA_SLOT = 9n;

/**
 * The row's amp update from the pool's `_packedAmplificationData`: 64 bits each, from the least
 * significant, start value, end value, start time, end time. The pool stores a stop (and its
 * constructor's initial amp) as start = end at the stop's own time, and an update as
 * `startAmpUpdate` takes it, which lasts at least a day (start time < end time).
 */
export function ampUpdateOfStorage(word: Hex): BalancerV2AmpUpdate {
  const packed = hexToBigInt(word);
  const field = (i: bigint) => (packed >> (64n * i)) & 0xffff_ffff_ffff_ffffn;
  const [startValue, endValue, startTime, endTime] = [field(0n), field(1n), field(2n), field(3n)];
  return startTime === endTime
    ? steadyAmp(endValue)
    : {
        ampStartValue: startValue,
        ampEndValue: endValue,
        ampStartTime: startTime,
        ampEndTime: endTime,
      };
}

/**
 * The catalogue's tokens of a pool: the tokens it holds, and its BPT as a position in them
 * whose primary address is the vault (a composable stable pool's own BPT is not among them).
 */
export function poolTokens(
  address: Address,
  fixed: Pick<BalancerV2Static, "tokens" | "vault">,
  seenAt?: bigint,
): TokenToEnsure[] {
  const underlying = fixed.tokens.filter((t) => t !== address);
  return [
    ...underlying.map((t) => ({ address: t, seenAt })),
    {
      address,
      position: {
        protocolSlug: "balancer-v2",
        underlyingTokens: underlying,
        primaryAddress: fixed.vault,
      },
      seenAt,
    },
  ];
}

/** A pool's row: what it is, what it held and answered at `updatedBlock`. */
export function poolRow(params: {
  chainId: number;
  address: Address;
  factory: Address;
  poolType: BalancerV2PoolType;
  fixed: BalancerV2Static;
  dynamic: BalancerV2Dynamic;
  balances: bigint[];
  ampUpdate: BalancerV2AmpUpdate;
  createdBlock: bigint;
  updatedBlock: bigint;
}): typeof balancerV2Pool.$inferInsert {
  const { fixed, dynamic } = params;
  return {
    chainId: params.chainId,
    address: params.address,
    poolId: fixed.poolId,
    vault: fixed.vault,
    factory: params.factory,
    poolType: params.poolType,
    tokens: fixed.tokens,
    balances: params.balances,
    normalizedWeights: fixed.normalizedWeights,
    rateProviders: fixed.rateProviders,
    swapFeePercentage: fixed.swapFeePercentage,
    bptIndex: fixed.bptIndex,
    exemptFromYieldProtocolFee: fixed.exemptFromYieldProtocolFee,
    ...dynamic,
    scalingFactors: dynamic.scalingFactors ?? fixed.scalingFactors,
    ...params.ampUpdate,
    createdBlock: params.createdBlock,
    updatedBlock: params.updatedBlock,
  };
}
