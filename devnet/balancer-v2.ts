/**
 * Balancer V2 in the devnet world, from the bytecode of its npm release
 * (`@balancer-labs/v2-deployments`): the 2021 Authorizer and Vault, the ProtocolFeePercentagesProvider
 * the pool factories read their protocol fees from, and the newest weighted and composable stable
 * pool factories the release ships (2023-02-06, version 3 of each). Pools are created through the
 * factories and initialized by a join through the vault, as on mainnet.
 *
 * The deployer is the Authorizer's admin, so it can grant itself the fee setters' roles
 * ({@link setBalancerV2ProtocolFees}).
 */
import {
  type Address,
  encodeAbiParameters,
  getAddress,
  type Hex,
  maxUint256,
  parseAbi,
  toFunctionSelector,
} from "viem";
import { BalancerV2VaultAbi } from "../abis/BalancerV2Vault.js";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { WETH9Abi } from "../abis/WETH9.js";
import { loadArtifact } from "../contracts/build.js";
import { BALANCER_V2_TASKS, type NpmArtifactName, readNpmArtifact } from "./artifacts.js";
import type { BalancerV2DeployedPool } from "./deployment.js";
import type { Deployer } from "./world.js";

/**
 * The functions and events the devnet and its tests call on the contracts `abis/` has no module
 * for (the vault's is `BalancerV2VaultAbi`), in viem's human-readable form;
 * `test/protocols/balancer-v2-math.test.ts` holds each to the release's ABI by selector.
 */
export const balancerV2Abis = {
  Authorizer: parseAbi(["function grantRole(bytes32 role, address account)"]),
  BalancerHelpers: parseAbi([
    "struct JoinPoolRequest { address[] assets; uint256[] maxAmountsIn; bytes userData; bool fromInternalBalance; }",
    "function queryJoin(bytes32 poolId, address sender, address recipient, JoinPoolRequest request) returns (uint256 bptOut, uint256[] amountsIn)",
    "struct ExitPoolRequest { address[] assets; uint256[] minAmountsOut; bytes userData; bool toInternalBalance; }",
    "function queryExit(bytes32 poolId, address sender, address recipient, ExitPoolRequest request) returns (uint256 bptIn, uint256[] amountsOut)",
  ]),
  ProtocolFeePercentagesProvider: parseAbi([
    "function setFeeTypePercentage(uint256 feeType, uint256 newValue)",
    "function getActionId(bytes4 selector) view returns (bytes32)",
  ]),
  ProtocolFeesCollector: parseAbi([
    "function setSwapFeePercentage(uint256 newSwapFeePercentage)",
    "function getActionId(bytes4 selector) view returns (bytes32)",
  ]),
  WeightedPoolFactory: parseAbi([
    "function create(string name, string symbol, address[] tokens, uint256[] normalizedWeights, address[] rateProviders, uint256 swapFeePercentage, address owner) returns (address)",
    "event PoolCreated(address indexed pool)",
  ]),
  ComposableStablePoolFactory: parseAbi([
    "function create(string name, string symbol, address[] tokens, uint256 amplificationParameter, address[] rateProviders, uint256[] tokenRateCacheDurations, bool[] exemptFromYieldProtocolFeeFlags, uint256 swapFeePercentage, address owner) returns (address)",
    "event PoolCreated(address indexed pool)",
  ]),
  WeightedPool: parseAbi([
    "function getPoolId() view returns (bytes32)",
    "function getNormalizedWeights() view returns (uint256[])",
    "function getScalingFactors() view returns (uint256[])",
    "function getSwapFeePercentage() view returns (uint256)",
    "function getActualSupply() view returns (uint256)",
  ]),
  ComposableStablePool: parseAbi([
    "function getPoolId() view returns (bytes32)",
    "function getBptIndex() view returns (uint256)",
    "function getScalingFactors() view returns (uint256[])",
    "function getSwapFeePercentage() view returns (uint256)",
    "function getActualSupply() view returns (uint256)",
    "function totalSupply() view returns (uint256)",
    "function getRate() view returns (uint256)",
    "function getAmplificationParameter() view returns (uint256 value, bool isUpdating, uint256 precision)",
    "function getRateProviders() view returns (address[])",
    "function getTokenRateCache(address token) view returns (uint256 rate, uint256 oldRate, uint256 duration, uint256 expires)",
    "function getLastJoinExitData() view returns (uint256 lastJoinExitAmplification, uint256 lastPostJoinExitInvariant)",
    "function getProtocolFeePercentageCache(uint256 feeType) view returns (uint256)",
    "function isTokenExemptFromYieldProtocolFee(address token) view returns (bool)",
    "function updateProtocolFeePercentageCache()",
  ]),
} as const;

/** `ProtocolFeeType`: the ids the provider and the pools' fee caches use. */
export const BALANCER_FEE_TYPE = { SWAP: 0n, FLASH_LOAN: 1n, YIELD: 2n, AUM: 3n } as const;

/** `IVault.SwapKind`. */
export const BALANCER_SWAP_KIND = { GIVEN_IN: 0, GIVEN_OUT: 1 } as const;

/** The protocol's fee caps the mainnet provider was deployed with: 50% of yield and of AUM. */
const MAX_YIELD_FEE = 5n * 10n ** 17n;
const MAX_AUM_FEE = 5n * 10n ** 17n;

export type BalancerV2Contracts = {
  authorizer: Address;
  vault: Address;
  /** Deployed by the vault's constructor. */
  protocolFeesCollector: Address;
  protocolFeePercentagesProvider: Address;
  /** Answers `queryJoin` (and `queryExit`) by simulating them through the pool. */
  balancerHelpers: Address;
  weightedPoolFactory: Address;
  composableStablePoolFactory: Address;
};

/** A factory's or its pools' version string, in the release's format. */
function version(name: string, deployment: string): string {
  return JSON.stringify({ name, version: 3, deployment });
}

/**
 * Deploys the vault, its authorizer (the deployer its admin), the fee provider, the query
 * helpers and the two pool factories.
 * @example const balancer = await deployBalancerV2(d, { weth });
 */
export async function deployBalancerV2(
  d: Deployer,
  params: { weth: Address },
): Promise<BalancerV2Contracts> {
  const deploy = async (name: NpmArtifactName, args: readonly unknown[]) => {
    const { abi, bytecode } = readNpmArtifact(name);
    return await d.deploy(abi, bytecode, args);
  };
  const authorizer = await deploy("BalancerV2Authorizer", [d.address]);
  // No pause window: the devnet vault can never be paused.
  const vault = await deploy("BalancerV2Vault", [authorizer, params.weth, 0n, 0n]);
  const protocolFeesCollector = await d.client.readContract({
    address: vault,
    abi: BalancerV2VaultAbi,
    functionName: "getProtocolFeesCollector",
  });
  const protocolFeePercentagesProvider = await deploy("BalancerV2ProtocolFeePercentagesProvider", [
    vault,
    MAX_YIELD_FEE,
    MAX_AUM_FEE,
  ]);
  const balancerHelpers = await deploy("BalancerV2Helpers", [vault]);
  const weightedPoolFactory = await deploy("BalancerV2WeightedPoolFactory", [
    vault,
    protocolFeePercentagesProvider,
    version("WeightedPoolFactory", BALANCER_V2_TASKS.weightedPool),
    version("WeightedPool", BALANCER_V2_TASKS.weightedPool),
  ]);
  const composableStablePoolFactory = await deploy("BalancerV2ComposableStablePoolFactory", [
    vault,
    protocolFeePercentagesProvider,
    version("ComposableStablePoolFactory", BALANCER_V2_TASKS.composableStablePool),
    version("ComposableStablePool", BALANCER_V2_TASKS.composableStablePool),
  ]);
  return {
    authorizer,
    vault,
    protocolFeesCollector: getAddress(protocolFeesCollector),
    protocolFeePercentagesProvider,
    balancerHelpers,
    weightedPoolFactory,
    composableStablePoolFactory,
  };
}

/** A pool the devnet created: its address (its BPT), its vault id and its registered tokens. */
export type BalancerV2Pool = BalancerV2DeployedPool;

/** A token the devnet puts in a pool, and how much of it the initial join brings. */
export type BalancerV2PoolToken = {
  address: Address;
  /** In token units. WETH is wrapped from the deployer's ether; any other token is a DevToken it mints. */
  amount: bigint;
};

export type CreateWeightedPoolParameters = {
  name: string;
  symbol: string;
  tokens: (BalancerV2PoolToken & { weight: bigint })[];
  swapFeePercentage: bigint;
};

export type CreateComposableStablePoolParameters = {
  name: string;
  symbol: string;
  tokens: (BalancerV2PoolToken & {
    rateProvider?: Address;
    /** Seconds the pool keeps a rate before it reads its provider again. */
    rateCacheDuration?: bigint;
    exemptFromYieldProtocolFee?: boolean;
  })[];
  /** The amplification parameter A (the factory stores A · 1000). */
  amplification: bigint;
  swapFeePercentage: bigint;
};

function byAddress<T extends { address: Address }>(tokens: readonly T[]): T[] {
  return [...tokens].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
}

/** Creates a weighted pool through the factory and initializes it with the tokens' amounts. */
export async function createWeightedPool(
  d: Deployer,
  balancer: BalancerV2Contracts,
  params: CreateWeightedPoolParameters,
): Promise<BalancerV2Pool> {
  const tokens = byAddress(params.tokens);
  const address = await createdPool(d, balancer.weightedPoolFactory, () =>
    d.write(balancer.weightedPoolFactory, balancerV2Abis.WeightedPoolFactory, "create", [
      params.name,
      params.symbol,
      tokens.map((t) => t.address),
      tokens.map((t) => t.weight),
      tokens.map(() => "0x0000000000000000000000000000000000000000"),
      params.swapFeePercentage,
      d.address,
    ]),
  );
  const pool = await poolOf(d, address);
  await initializePool(d, balancer, pool, tokens);
  return pool;
}

/**
 * Creates a composable stable pool through the factory and initializes it: the initial join
 * names the pool's BPT among its assets, and the pool takes back all the preminted BPT but the
 * invariant's worth it mints to the deployer.
 */
export async function createComposableStablePool(
  d: Deployer,
  balancer: BalancerV2Contracts,
  params: CreateComposableStablePoolParameters,
): Promise<BalancerV2Pool> {
  const tokens = byAddress(params.tokens);
  const address = await createdPool(d, balancer.composableStablePoolFactory, () =>
    d.write(
      balancer.composableStablePoolFactory,
      balancerV2Abis.ComposableStablePoolFactory,
      "create",
      [
        params.name,
        params.symbol,
        tokens.map((t) => t.address),
        params.amplification,
        tokens.map((t) => t.rateProvider ?? "0x0000000000000000000000000000000000000000"),
        tokens.map((t) => t.rateCacheDuration ?? 0n),
        tokens.map((t) => t.exemptFromYieldProtocolFee ?? false),
        params.swapFeePercentage,
        d.address,
      ],
    ),
  );
  const pool = await poolOf(d, address);
  await initializePool(d, balancer, pool, [...tokens, { address, amount: 0n }]);
  return pool;
}

/** Runs `create` and returns the pool it made: the factory's latest `PoolCreated`. */
async function createdPool(
  d: Deployer,
  factory: Address,
  create: () => Promise<void>,
): Promise<Address> {
  await create();
  // From the first block: a block number read here may be a cached one, older than the create.
  const events = await d.client.getContractEvents({
    address: factory,
    abi: balancerV2Abis.WeightedPoolFactory,
    eventName: "PoolCreated",
    fromBlock: 0n,
    toBlock: "latest",
  });
  const pool = events.at(-1)?.args.pool;
  if (pool === undefined) throw new Error(`factory ${factory} created no pool`);
  return getAddress(pool);
}

async function poolOf(d: Deployer, address: Address): Promise<BalancerV2Pool> {
  const poolId = await d.client.readContract({
    address,
    abi: balancerV2Abis.WeightedPool,
    functionName: "getPoolId",
  });
  const [tokens] = await d.client.readContract({
    address: (await vaultOfPool(d, address)) as Address,
    abi: BalancerV2VaultAbi,
    functionName: "getPoolTokens",
    args: [poolId],
  });
  return { address, poolId, tokens: tokens.map((t) => getAddress(t)) };
}

async function vaultOfPool(d: Deployer, pool: Address): Promise<Address> {
  return await d.client.readContract({
    address: pool,
    abi: parseAbi(["function getVault() view returns (address)"]),
    functionName: "getVault",
  });
}

/** Brings the deployer's balance of `token` up by `amount`: wraps ether, or mints a DevToken. */
async function fund(d: Deployer, weth: Address, token: Address, amount: bigint): Promise<void> {
  if (amount === 0n) return;
  if (token === weth) await d.write(weth, WETH9Abi, "deposit", [], amount);
  else await d.write(token, DevTokenAbi, "mint", [d.address, amount]);
}

/** The `INIT` join (join kind 0) with the pool's registered tokens' amounts. */
async function initializePool(
  d: Deployer,
  balancer: BalancerV2Contracts,
  pool: BalancerV2Pool,
  tokens: readonly BalancerV2PoolToken[],
): Promise<void> {
  const weth = await d.client.readContract({
    address: balancer.vault,
    abi: parseAbi(["function WETH() view returns (address)"]),
    functionName: "WETH",
  });
  const amounts = pool.tokens.map((address) => {
    const token = tokens.find((t) => t.address === address);
    if (token === undefined) throw new Error(`no amount for ${address} in pool ${pool.address}`);
    return token.amount;
  });
  for (const [i, address] of pool.tokens.entries()) {
    if (address === pool.address) continue;
    await fund(d, getAddress(weth), address, amounts[i] ?? 0n);
    await d.write(address, DevTokenAbi, "approve", [balancer.vault, maxUint256]);
  }
  const userData = encodeAbiParameters([{ type: "uint256" }, { type: "uint256[]" }], [0n, amounts]);
  await joinBalancerV2Pool(d, balancer.vault, pool, userData);
}

/**
 * The deployer's join of `pool` through `vault`, for itself, as `userData` says (the join's kind
 * and amounts), taking whatever of each token the pool asks (the vault is approved for them).
 */
export async function joinBalancerV2Pool(
  d: Deployer,
  vault: Address,
  pool: BalancerV2Pool,
  userData: Hex,
): Promise<void> {
  await d.write(vault, BalancerV2VaultAbi, "joinPool", [
    pool.poolId,
    d.address,
    d.address,
    {
      assets: pool.tokens,
      maxAmountsIn: pool.tokens.map(() => maxUint256),
      userData,
      fromInternalBalance: false,
    },
  ]);
}

/**
 * Sets the protocol's share of swap fees and of yield (18 decimals), granting the deployer the
 * two setters' roles on the way, and has each listed pool re-read them into its fee cache.
 */
export async function setBalancerV2ProtocolFees(
  d: Deployer,
  balancer: BalancerV2Contracts,
  params: { swap: bigint; yield: bigint; pools: readonly Address[] },
): Promise<void> {
  const grant = async (target: Address, signature: string, account: Address) => {
    const role = await d.client.readContract({
      address: target,
      abi: balancerV2Abis.ProtocolFeesCollector,
      functionName: "getActionId",
      args: [toFunctionSelector(signature)],
    });
    await d.write(balancer.authorizer, balancerV2Abis.Authorizer, "grantRole", [role, account]);
  };
  // The provider passes the swap fee on to the collector, which checks the provider's role.
  await grant(
    balancer.protocolFeesCollector,
    "setSwapFeePercentage(uint256)",
    balancer.protocolFeePercentagesProvider,
  );
  await grant(
    balancer.protocolFeePercentagesProvider,
    "setFeeTypePercentage(uint256,uint256)",
    d.address,
  );
  const provider = balancer.protocolFeePercentagesProvider;
  const set = (feeType: bigint, value: bigint) =>
    d.write(provider, balancerV2Abis.ProtocolFeePercentagesProvider, "setFeeTypePercentage", [
      feeType,
      value,
    ]);
  await set(BALANCER_FEE_TYPE.SWAP, params.swap);
  await set(BALANCER_FEE_TYPE.YIELD, params.yield);
  for (const pool of params.pools) {
    await d.write(
      pool,
      balancerV2Abis.ComposableStablePool,
      "updateProtocolFeePercentageCache",
      [],
    );
  }
}

/** The devnet's Balancer pools, by what they are. */
export type BalancerV2DevnetPools = {
  /** 80% BAL, 20% WETH: the protocol's own pool shape. */
  weighted8020: BalancerV2Pool;
  /** 50% WETH, 50% USDC. */
  weighted5050: BalancerV2Pool;
  /** 50% WETH, 25% WBTC, 25% USDC. */
  weightedThreeToken: BalancerV2Pool;
  /** USDC, USDT and DAI at A = 200. */
  stableUsd: BalancerV2Pool;
  /** WETH and a staked ETH token priced by a rate provider, at A = 50. */
  stableEth: BalancerV2Pool;
  /** The staked ETH token's rate provider (`DevRateProvider`; the deployer sets its rate). */
  stakedEthRateProvider: Address;
};

/** The tokens the devnet's pools hold (DevTokens the deployer mints, and WETH9). */
export type BalancerV2DevnetTokens = Record<
  "WETH" | "BAL" | "USDC" | "USDT" | "DAI" | "WBTC" | "wstETH",
  Address
>;

/** The staked ETH token's rate at deployment, and how long the pool caches it. */
export const STAKED_ETH_INITIAL_RATE = 1_150_000_000_000_000_000n;
export const STAKED_ETH_RATE_CACHE_DURATION = 3_600n;

const E18 = 10n ** 18n;
const units = (whole: number, decimals: number) => BigInt(whole) * 10n ** BigInt(decimals);

/**
 * Creates the devnet's five Balancer pools at realistic sizes (ETH at $3,000, BTC at $60,000,
 * BAL at $5) and fees: three weighted pools and two composable stable ones, one with a rate
 * provider.
 */
export async function createBalancerV2DevnetPools(
  d: Deployer,
  balancer: BalancerV2Contracts,
  tokens: BalancerV2DevnetTokens,
): Promise<BalancerV2DevnetPools> {
  const weighted8020 = await createWeightedPool(d, balancer, {
    name: "Balancer 80 BAL 20 WETH",
    symbol: "B-80BAL-20WETH",
    tokens: [
      { address: tokens.BAL, amount: units(480_000, 18), weight: 8n * 10n ** 17n },
      { address: tokens.WETH, amount: units(200, 18), weight: 2n * 10n ** 17n },
    ],
    swapFeePercentage: E18 / 100n,
  });
  const weighted5050 = await createWeightedPool(d, balancer, {
    name: "Balancer 50 WETH 50 USDC",
    symbol: "B-50WETH-50USDC",
    tokens: [
      { address: tokens.WETH, amount: units(1_000, 18), weight: 5n * 10n ** 17n },
      { address: tokens.USDC, amount: units(3_000_000, 6), weight: 5n * 10n ** 17n },
    ],
    swapFeePercentage: (3n * E18) / 1_000n,
  });
  const weightedThreeToken = await createWeightedPool(d, balancer, {
    name: "Balancer 50 WETH 25 WBTC 25 USDC",
    symbol: "B-50WETH-25WBTC-25USDC",
    tokens: [
      { address: tokens.WETH, amount: units(500, 18), weight: 5n * 10n ** 17n },
      { address: tokens.WBTC, amount: units(12, 8) + units(5, 7), weight: 25n * 10n ** 16n },
      { address: tokens.USDC, amount: units(750_000, 6), weight: 25n * 10n ** 16n },
    ],
    swapFeePercentage: (25n * E18) / 10_000n,
  });
  const stableUsd = await createComposableStablePool(d, balancer, {
    name: "Balancer USDC-USDT-DAI Stable",
    symbol: "bb-USD",
    tokens: [
      { address: tokens.USDC, amount: units(4_000_000, 6) },
      { address: tokens.USDT, amount: units(3_500_000, 6) },
      { address: tokens.DAI, amount: units(4_200_000, 18) },
    ],
    amplification: 200n,
    swapFeePercentage: E18 / 10_000n,
  });
  const devRateProvider = loadArtifact("DevRateProvider");
  const stakedEthRateProvider = await d.deploy(devRateProvider.abi, devRateProvider.bytecode, [
    STAKED_ETH_INITIAL_RATE,
  ]);
  const stableEth = await createComposableStablePool(d, balancer, {
    name: "Balancer wstETH-WETH Stable",
    symbol: "wstETH-WETH-BPT",
    tokens: [
      { address: tokens.WETH, amount: units(2_300, 18) },
      {
        address: tokens.wstETH,
        amount: units(2_000, 18),
        rateProvider: stakedEthRateProvider,
        rateCacheDuration: STAKED_ETH_RATE_CACHE_DURATION,
      },
    ],
    amplification: 50n,
    swapFeePercentage: E18 / 10_000n,
  });
  return {
    weighted8020,
    weighted5050,
    weightedThreeToken,
    stableUsd,
    stableEth,
    stakedEthRateProvider,
  };
}
