/**
 * Balancer V2 on a test chain: the devnet's pool tokens deployed beside a given WETH, the pools'
 * state read from the chain into the exact math's types, and the vault's own quote, which the
 * suites under test/protocols/ hold the off-chain math and routes against; and the deployer's
 * swaps, joins and exits through the vault, and the owner's changes to a pool, that suites
 * replay and start from.
 */
import {
  type Address,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  maxUint256,
  type PublicClient,
  parseAbi,
  zeroAddress,
} from "viem";
import { BalancerV2VaultAbi } from "../../abis/BalancerV2Vault.js";
import { DevRateProviderAbi } from "../../abis/generated/DevRateProvider.js";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { loadArtifact } from "../../contracts/build.js";
import {
  BALANCER_FEE_TYPE,
  BALANCER_SWAP_KIND,
  type BalancerV2DevnetTokens,
  type BalancerV2Pool,
  balancerV2Abis,
  joinBalancerV2Pool,
} from "../../devnet/balancer-v2.js";
import type { Deployer } from "../../devnet/world.js";
import { decimalScalingFactor } from "../../engine/protocols/balancer-v2/base-pool.js";
import {
  type ComposableStablePoolState,
  rateAtSwap,
} from "../../engine/protocols/balancer-v2/composable-stable-pool.js";
import { ONE } from "../../engine/protocols/balancer-v2/fixed-point.js";
import type { WeightedPoolState } from "../../engine/protocols/balancer-v2/weighted-pool.js";

/** The DevTokens the devnet's Balancer pools hold, with their real decimals, beside `weth`. */
export async function deployBalancerV2Tokens(
  d: Deployer,
  weth: Address,
): Promise<BalancerV2DevnetTokens> {
  const devToken = loadArtifact("DevToken");
  const token = (name: string, symbol: string, decimals: number) =>
    d.deploy(devToken.abi, devToken.bytecode, [name, symbol, decimals]);
  return {
    WETH: weth,
    BAL: await token("Balancer", "BAL", 18),
    USDC: await token("USD Coin", "USDC", 6),
    USDT: await token("Tether USD", "USDT", 6),
    DAI: await token("Dai Stablecoin", "DAI", 18),
    WBTC: await token("Wrapped BTC", "WBTC", 8),
    wstETH: await token("Wrapped liquid staked Ether", "wstETH", 18),
  };
}

const erc20Decimals = parseAbi(["function decimals() view returns (uint8)"]);

/** The pool's balances in the vault, in its token order. */
async function poolBalances(
  client: PublicClient,
  vault: Address,
  pool: BalancerV2Pool,
): Promise<readonly bigint[]> {
  const [, balances] = await client.readContract({
    address: vault,
    abi: BalancerV2VaultAbi,
    functionName: "getPoolTokens",
    args: [pool.poolId],
  });
  return balances;
}

/** A weighted pool's state: the vault's balances and the pool's own views. */
export async function readWeightedPoolState(
  client: PublicClient,
  vault: Address,
  pool: BalancerV2Pool,
): Promise<WeightedPoolState> {
  const read = <
    F extends
      | "getNormalizedWeights"
      | "getScalingFactors"
      | "getSwapFeePercentage"
      | "getActualSupply",
  >(
    functionName: F,
  ) =>
    client.readContract({ address: pool.address, abi: balancerV2Abis.WeightedPool, functionName });
  return {
    tokens: pool.tokens,
    balances: await poolBalances(client, vault, pool),
    scalingFactors: await read("getScalingFactors"),
    normalizedWeights: await read("getNormalizedWeights"),
    swapFeePercentage: await read("getSwapFeePercentage"),
    actualSupply: await read("getActualSupply"),
  };
}

/**
 * A composable stable pool's state as a swap in the next block sees it: `rates` picks, per
 * token, the cached rate or the provider's (see `rateAtSwap`).
 */
export async function readComposableStablePoolState(
  client: PublicClient,
  vault: Address,
  pool: BalancerV2Pool,
  rates: "at-swap" | "cached",
): Promise<ComposableStablePoolState> {
  const csp = { address: pool.address, abi: balancerV2Abis.ComposableStablePool } as const;
  const balances = await poolBalances(client, vault, pool);
  const bptIndex = Number(await client.readContract({ ...csp, functionName: "getBptIndex" }));
  const providers = await client.readContract({ ...csp, functionName: "getRateProviders" });
  const latest = await client.getBlock();
  const perToken = await Promise.all(
    pool.tokens.map(async (token, i) => {
      if (i === bptIndex) {
        return { factor: ONE, rate: ONE, oldRate: ONE, provider: false, exempt: false };
      }
      const decimals = await client.readContract({
        address: token,
        abi: erc20Decimals,
        functionName: "decimals",
      });
      const provider = providers[i] ?? zeroAddress;
      const exempt = await client.readContract({
        ...csp,
        functionName: "isTokenExemptFromYieldProtocolFee",
        args: [token],
      });
      if (provider === zeroAddress) {
        return {
          factor: decimalScalingFactor(decimals),
          rate: ONE,
          oldRate: ONE,
          provider: false,
          exempt,
        };
      }
      const [rate, oldRate, duration, expires] = await client.readContract({
        ...csp,
        functionName: "getTokenRateCache",
        args: [token],
      });
      const providerRate = await client.readContract({
        address: provider,
        abi: DevRateProviderAbi,
        functionName: "getRate",
      });
      const swapRate =
        rates === "cached"
          ? rate
          : rateAtSwap({
              cache: { rate, oldRate, duration, expires },
              providerRate,
              timestamp: latest.timestamp + 1n,
            });
      return {
        factor: decimalScalingFactor(decimals),
        rate: swapRate,
        oldRate,
        provider: true,
        exempt,
      };
    }),
  );
  const [amp] = await client.readContract({ ...csp, functionName: "getAmplificationParameter" });
  const [lastJoinExitAmp, lastPostJoinExitInvariant] = await client.readContract({
    ...csp,
    functionName: "getLastJoinExitData",
  });
  const feeCache = (feeType: bigint) =>
    client.readContract({ ...csp, functionName: "getProtocolFeePercentageCache", args: [feeType] });
  return {
    address: pool.address,
    tokens: pool.tokens,
    bptIndex,
    balances,
    decimalScalingFactors: perToken.map((t) => t.factor),
    tokenRates: perToken.map((t) => t.rate),
    oldRates: perToken.map((t) => t.oldRate),
    hasRateProvider: perToken.map((t) => t.provider),
    exemptFromYieldProtocolFee: perToken.map((t) => t.exempt),
    amp,
    swapFeePercentage: await client.readContract({ ...csp, functionName: "getSwapFeePercentage" }),
    totalSupply: await client.readContract({ ...csp, functionName: "totalSupply" }),
    protocolFees: {
      lastJoinExitAmp,
      lastPostJoinExitInvariant,
      swapFeePercentage: await feeCache(BALANCER_FEE_TYPE.SWAP),
      yieldFeePercentage: await feeCache(BALANCER_FEE_TYPE.YIELD),
    },
  };
}

/**
 * The vault's `queryBatchSwap` of one GIVEN_IN step through `pool`: what goes in and what comes
 * out, as the vault's deltas say (it reverts as the swap would). With `timestamp`, as a swap in a
 * block of that time would see it (an amp update under way, a rate cache expiring).
 */
export async function queryVaultExactIn(
  client: PublicClient,
  vault: Address,
  swap: {
    pool: Pick<BalancerV2Pool, "poolId">;
    tokenIn: Address;
    tokenOut: Address;
    amountIn: bigint;
  },
  timestamp?: bigint,
): Promise<{ amountIn: bigint; amountOut: bigint }> {
  const args = [
    BALANCER_SWAP_KIND.GIVEN_IN,
    [
      {
        poolId: swap.pool.poolId,
        assetInIndex: 0n,
        assetOutIndex: 1n,
        amount: swap.amountIn,
        userData: "0x",
      },
    ],
    [swap.tokenIn, swap.tokenOut],
    {
      sender: zeroAddress,
      fromInternalBalance: false,
      recipient: zeroAddress,
      toInternalBalance: false,
    },
  ] as const;
  const call = { abi: BalancerV2VaultAbi, functionName: "queryBatchSwap", args } as const;
  // A revert surfaces as simulateContract's typed error (its BAL# reason), which the math suite
  // compares; a swap time needs block overrides, which only a plain call takes.
  let deltas: readonly bigint[];
  if (timestamp === undefined) {
    ({ result: deltas } = await client.simulateContract({ address: vault, ...call }));
  } else {
    const { data } = await client.call({
      to: vault,
      data: encodeFunctionData(call),
      blockOverrides: { time: timestamp },
    });
    if (!data) throw new Error("queryBatchSwap answered nothing");
    deltas = decodeFunctionResult({ ...call, data });
  }
  return { amountIn: deltas[0] ?? 0n, amountOut: -(deltas[1] ?? 0n) };
}

/**
 * A weighted pool's single-token join (`EXACT_TOKENS_IN_FOR_BPT_OUT`, `tokenOut` its BPT) or exit
 * (`EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`, `tokenIn` its BPT) as the helpers' `queryJoin` and
 * `queryExit` answer it, by simulating it through the pool. A revert surfaces as
 * simulateContract's typed error (its BAL# reason).
 */
export async function queryWeightedJoinExit(
  client: PublicClient,
  balancerHelpers: Address,
  step: {
    pool: Pick<BalancerV2Pool, "poolId" | "address" | "tokens">;
    tokenIn: Address;
    tokenOut: Address;
    amountIn: bigint;
  },
): Promise<{ amountIn: bigint; amountOut: bigint }> {
  const { pool, amountIn } = step;
  const account = pool.address; // any sender: the queries move nothing.
  const lowerTokens = pool.tokens.map((t) => t.toLowerCase());
  const isBpt = (t: Address) => t.toLowerCase() === pool.address.toLowerCase();
  if (isBpt(step.tokenOut)) {
    const index = lowerTokens.indexOf(step.tokenIn.toLowerCase());
    const amountsIn = pool.tokens.map((_, i) => (i === index ? amountIn : 0n));
    const { result } = await client.simulateContract({
      address: balancerHelpers,
      abi: balancerV2Abis.BalancerHelpers,
      functionName: "queryJoin",
      args: [
        pool.poolId,
        account,
        account,
        {
          assets: pool.tokens,
          maxAmountsIn: amountsIn,
          userData: encodeAbiParameters(
            [{ type: "uint256" }, { type: "uint256[]" }, { type: "uint256" }],
            [EXACT_TOKENS_IN_FOR_BPT_OUT, amountsIn, 0n],
          ),
          fromInternalBalance: false,
        },
      ],
    });
    const [bptOut, joined] = result;
    return { amountIn: joined[index] ?? 0n, amountOut: bptOut };
  }
  if (!isBpt(step.tokenIn)) throw new Error("neither side of the step is the pool's BPT");
  const index = lowerTokens.indexOf(step.tokenOut.toLowerCase());
  const { result } = await client.simulateContract({
    address: balancerHelpers,
    abi: balancerV2Abis.BalancerHelpers,
    functionName: "queryExit",
    args: [
      pool.poolId,
      account,
      account,
      {
        assets: pool.tokens,
        minAmountsOut: pool.tokens.map(() => 0n),
        userData: encodeAbiParameters(
          [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }],
          [WEIGHTED_EXACT_BPT_IN_FOR_ONE_TOKEN_OUT, amountIn, BigInt(index)],
        ),
        toInternalBalance: false,
      },
    ],
  });
  const [bptIn, paid] = result;
  return { amountIn: bptIn, amountOut: paid[index] ?? 0n };
}

/**
 * The vault's `queryBatchSwap` of consecutive GIVEN_IN steps, each spending what the step before
 * it made (amount 0 in the vault's encoding): the pools' state carries from step to step, as a
 * swap through the same pool twice (into a composable stable pool's BPT and out of it) needs.
 */
export async function queryVaultPathExactIn(
  client: PublicClient,
  vault: Address,
  path: { pool: Pick<BalancerV2Pool, "poolId">; tokenIn: Address; tokenOut: Address }[],
  amountIn: bigint,
): Promise<bigint> {
  const first = path[0];
  if (!first) throw new Error("an empty path has no quote");
  const assets = [first.tokenIn, ...path.map((s) => s.tokenOut)];
  const { result: deltas } = await client.simulateContract({
    address: vault,
    abi: BalancerV2VaultAbi,
    functionName: "queryBatchSwap",
    args: [
      BALANCER_SWAP_KIND.GIVEN_IN,
      path.map((step, i) => ({
        poolId: step.pool.poolId,
        assetInIndex: BigInt(i),
        assetOutIndex: BigInt(i + 1),
        amount: i === 0 ? amountIn : 0n,
        userData: "0x" as const,
      })),
      assets,
      {
        sender: zeroAddress,
        fromInternalBalance: false,
        recipient: zeroAddress,
        toInternalBalance: false,
      },
    ],
  });
  return -(deltas[path.length] ?? 0n);
}

/** What the pools' owner may change (`BasePoolAuthorization`: the owner's own actions). */
export const balancerV2OwnerAbi = parseAbi([
  "function setSwapFeePercentage(uint256 swapFeePercentage)",
  "function startAmplificationParameterUpdate(uint256 rawEndValue, uint256 endTime)",
  "function stopAmplificationParameterUpdate()",
]);

/** Join and exit kinds (`WeightedPoolUserData`, `StablePoolUserData`). */
const EXACT_TOKENS_IN_FOR_BPT_OUT = 1n;
const WEIGHTED_EXACT_BPT_IN_FOR_ONE_TOKEN_OUT = 0n;
const WEIGHTED_EXACT_BPT_IN_FOR_TOKENS_OUT = 1n;
const STABLE_EXACT_BPT_IN_FOR_ALL_TOKENS_OUT = 2n;

/** The deployer's actions on the devnet's Balancer pools, through `vault` (which it approved). */
export function balancerV2Actions(d: Deployer, vault: Address, weth: Address) {
  const funds = {
    sender: d.address,
    fromInternalBalance: false,
    recipient: d.address,
    toInternalBalance: false,
  };
  /** Mints (or wraps) `amount` of `token` to the deployer. */
  const fund = async (token: Address, amount: bigint) => {
    if (token === weth) await d.write(weth, WETH9Abi, "deposit", [], amount);
    else await d.write(token, DevTokenAbi, "mint", [d.address, amount]);
  };
  return {
    /** `amountIn` of `tokenIn` for `tokenOut`, one GIVEN_IN swap. */
    swap: async (pool: BalancerV2Pool, tokenIn: Address, tokenOut: Address, amountIn: bigint) => {
      await fund(tokenIn, amountIn);
      const single = {
        poolId: pool.poolId,
        kind: BALANCER_SWAP_KIND.GIVEN_IN,
        assetIn: tokenIn,
        assetOut: tokenOut,
        amount: amountIn,
        userData: "0x",
      };
      await d.write(vault, BalancerV2VaultAbi, "swap", [single, funds, 0n, maxUint256]);
    },
    /** A join with `amounts` of the pool's tokens (by address; the others none) for its BPT. */
    join: async (pool: BalancerV2Pool, amounts: ReadonlyMap<Address, bigint>) => {
      const tokens = pool.tokens.filter((t) => t !== pool.address);
      for (const t of tokens) await fund(t, amounts.get(t) ?? 0n);
      const userData = encodeAbiParameters(
        [{ type: "uint256" }, { type: "uint256[]" }, { type: "uint256" }],
        [EXACT_TOKENS_IN_FOR_BPT_OUT, tokens.map((t) => amounts.get(t) ?? 0n), 0n],
      );
      await joinBalancerV2Pool(d, vault, pool, userData);
    },
    /** An exit of `bptIn` of the deployer's BPT for every token of the pool, in proportion. */
    exit: async (pool: BalancerV2Pool, bptIn: bigint) => {
      const stable = pool.tokens.includes(pool.address);
      const userData = encodeAbiParameters(
        [{ type: "uint256" }, { type: "uint256" }],
        [
          stable ? STABLE_EXACT_BPT_IN_FOR_ALL_TOKENS_OUT : WEIGHTED_EXACT_BPT_IN_FOR_TOKENS_OUT,
          bptIn,
        ],
      );
      await d.write(vault, BalancerV2VaultAbi, "exitPool", [
        pool.poolId,
        d.address,
        d.address,
        {
          assets: pool.tokens,
          minAmountsOut: pool.tokens.map(() => 0n),
          userData,
          toInternalBalance: false,
        },
      ]);
    },
    /** The pool's swap fee (18 decimals), set by its owner. */
    setSwapFee: (pool: BalancerV2Pool, swapFeePercentage: bigint) =>
      d.write(pool.address, balancerV2OwnerAbi, "setSwapFeePercentage", [swapFeePercentage]),
    /** An amp update to A = `endValue` by `endTime` (seconds), started by the pool's owner. */
    startAmpUpdate: (pool: BalancerV2Pool, endValue: bigint, endTime: bigint) =>
      d.write(pool.address, balancerV2OwnerAbi, "startAmplificationParameterUpdate", [
        endValue,
        endTime,
      ]),
    stopAmpUpdate: (pool: BalancerV2Pool) =>
      d.write(pool.address, balancerV2OwnerAbi, "stopAmplificationParameterUpdate", []),
    /** A `DevRateProvider`'s rate (18 decimals). */
    setRate: (provider: Address, rate: bigint) =>
      d.write(provider, DevRateProviderAbi, "setRate", [rate]),
  };
}
