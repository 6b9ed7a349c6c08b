/**
 * The devnet's deployment file: what the devnet world deployed and where, as `chains.ts` reads it
 * to index the devnet. Here, not under devnet/, because the service (indexer and API) reads it and
 * loads no devnet code; `devnet/deployment.ts` writes it.
 */

import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Address, Hex } from "viem";
import { z } from "zod";
import { readConfig } from "./config.js";
import type { UniswapV4PoolKey } from "./engine/index.js";

const root = dirname(fileURLToPath(import.meta.url));

/** One ERC20 of the devnet world. */
export type DeployedToken = {
  address: Address;
  name: string;
  symbol: string;
  decimals: number;
  /** Reference USD price used to seed pools (not read by the service). */
  usdPrice: number;
};

export type DeployedVault = {
  address: Address;
  /** Protocol slug from `engine/protocols/` this vault belongs to. */
  protocolSlug: string;
  asset: Address;
  name: string;
  symbol: string;
};

/** The project's execution-layer contracts (router, executors, wallet factory, helpers). */
export type ExecutionLayerAddresses = Record<string, Address>;

export type { UniswapV4PoolKey };

/** Uniswap V4 on the devnet: the singleton manager, its periphery and the pools in it. */
export type UniswapV4Deployment = {
  poolManager: Address;
  stateView: Address;
  quoter: Address;
  /** Adds and removes liquidity for its callers (`contracts/devnet/V4LiquidityHelper.sol`). */
  liquidityHelper: Address;
  /** Swaps on one pool for its caller (`contracts/devnet/V4SwapHelper.sol`). */
  swapHelper: Address;
  hooks: {
    /** `afterSwap` only, no delta returned: its pools swap as hookless ones. */
    afterSwap: Address;
    /** `beforeSwap` + `beforeSwapReturnDelta`: keeps 1% of each exact input. */
    returnsDelta: Address;
  };
  /** Every pool the world initialized, with its PoolId. */
  pools: (UniswapV4PoolKey & { id: Hex })[];
};

/** One Aave V3 reserve of the devnet: the asset, the tokens the pool issues for it, its feed. */
export type AaveV3Reserve = {
  symbol: string;
  asset: Address;
  aToken: Address;
  variableDebtToken: Address;
  stableDebtToken: Address;
  /** The `DevPriceFeed` (USD, 8 decimals) the market's oracle reads for this asset. */
  priceFeed: Address;
};

/** Aave V3 on the devnet: one market, its proxies, oracle and data provider, and its reserves. */
export type AaveV3Deployment = {
  poolAddressesProvider: Address;
  /** The Pool's proxy: what every caller uses. */
  pool: Address;
  /** The PoolConfigurator's proxy. */
  poolConfigurator: Address;
  aclManager: Address;
  /** AaveOracle: prices in USD with 8 decimals. */
  oracle: Address;
  /** AaveProtocolDataProvider. */
  dataProvider: Address;
  /** In the order the pool lists them (`getReservesList`). */
  reserves: AaveV3Reserve[];
};

/** A Balancer V2 pool of the devnet: its address (its BPT), vault id and registered tokens. */
export type BalancerV2DeployedPool = {
  address: Address;
  poolId: Hex;
  /** In the vault's order; a composable stable pool's include its BPT. */
  tokens: Address[];
};

/** Balancer V2 on the devnet: the vault, the two pool factories and the pools they created. */
export type BalancerV2Deployment = {
  vault: Address;
  weightedPoolFactory: Address;
  composableStablePoolFactory: Address;
  /** The `DevRateProvider` of the staked ETH token (the deployer sets its rate). */
  stakedEthRateProvider: Address;
  pools: Record<string, BalancerV2DeployedPool>;
};

/** A fork of Uniswap V3 on the devnet: its factory, pool deployer, periphery and pools. */
export type UniswapV3ForkDeployment = {
  slug: string;
  factory: Address;
  /** The contract that creates the factory's pools (their CREATE2 deployer). */
  poolDeployer: Address;
  positionManager: Address;
  swapRouter: Address;
  quoterV2: Address;
  pools: Address[];
};

/** Everything deployed on the devnet; written as JSON where `ponder.config.ts` reads it. */
export type Deployment = {
  chainId: number;
  /** Hash of block 0: tells this chain apart from an earlier devnet with the same id. */
  genesisHash: Hex;
  /** First block holding a deployment of this world (indexing starts there). */
  startBlock: number;
  deployer: Address;
  weth: Address;
  tokens: DeployedToken[];
  uniswapV2: { factory: Address; router02: Address; pairs: Address[] };
  /**
   * Forks of Uniswap V2 deployed beside it, each under a known fork's slug (absent from the
   * files of worlds deployed before the devnet had them).
   */
  uniswapV2Forks?: { slug: string; factory: Address; pairs: Address[] }[];
  uniswapV3: {
    factory: Address;
    positionManager: Address;
    swapRouter: Address;
    quoterV2: Address;
    pools: Address[];
  };
  /**
   * Forks of Uniswap V3 deployed beside it, each under a known fork's slug, with the fork's own
   * periphery (absent from the files of worlds deployed before the devnet had them).
   */
  uniswapV3Forks?: UniswapV3ForkDeployment[];
  /** Absent from the files of worlds deployed before the devnet had Uniswap V4. */
  uniswapV4?: UniswapV4Deployment;
  /** Absent from the files of worlds deployed before the devnet had Aave V3. */
  aaveV3?: AaveV3Deployment;
  /** Absent from the files of worlds deployed without Balancer V2. */
  balancerV2?: BalancerV2Deployment;
  vaults: DeployedVault[];
  execution: ExecutionLayerAddresses;
};

/** Where the devnet deployment file lives: `DEVNET_DEPLOYMENT` or `.devnet/deployment.json`. */
export function deploymentPath(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(root, readConfig(env).devnet.deploymentFile ?? ".devnet/deployment.json");
}

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 20-byte hex address");
const word = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 32-byte hex value");
const uint = z.number().int().nonnegative();

/** The file's shape; fields the service does not read are kept as they are. */
const deploymentSchema = z.looseObject({
  chainId: uint,
  genesisHash: word,
  startBlock: uint,
  deployer: address,
  weth: address,
  tokens: z.array(
    z.looseObject({
      address,
      name: z.string(),
      symbol: z.string(),
      decimals: uint.max(255),
      usdPrice: z.number(),
    }),
  ),
  uniswapV2: z.looseObject({ factory: address, router02: address, pairs: z.array(address) }),
  uniswapV2Forks: z
    .array(z.looseObject({ slug: z.string(), factory: address, pairs: z.array(address) }))
    .optional(),
  uniswapV3: z.looseObject({
    factory: address,
    positionManager: address,
    swapRouter: address,
    quoterV2: address,
    pools: z.array(address),
  }),
  uniswapV3Forks: z
    .array(
      z.looseObject({
        slug: z.string(),
        factory: address,
        poolDeployer: address,
        positionManager: address,
        swapRouter: address,
        quoterV2: address,
        pools: z.array(address),
      }),
    )
    .optional(),
  uniswapV4: z
    .looseObject({
      poolManager: address,
      stateView: address,
      quoter: address,
      liquidityHelper: address,
      swapHelper: address,
      hooks: z.looseObject({ afterSwap: address, returnsDelta: address }),
      pools: z.array(
        z.looseObject({
          id: word,
          currency0: address,
          currency1: address,
          fee: uint,
          tickSpacing: z.number().int(),
          hooks: address,
        }),
      ),
    })
    .optional(),
  aaveV3: z
    .looseObject({
      poolAddressesProvider: address,
      pool: address,
      poolConfigurator: address,
      aclManager: address,
      oracle: address,
      dataProvider: address,
      reserves: z.array(
        z.looseObject({
          symbol: z.string(),
          asset: address,
          aToken: address,
          variableDebtToken: address,
          stableDebtToken: address,
          priceFeed: address,
        }),
      ),
    })
    .optional(),
  balancerV2: z
    .looseObject({
      vault: address,
      weightedPoolFactory: address,
      composableStablePoolFactory: address,
      stakedEthRateProvider: address,
      pools: z.record(
        z.string(),
        z.looseObject({ address, poolId: word, tokens: z.array(address) }),
      ),
    })
    .optional(),
  vaults: z.array(
    z.looseObject({
      address,
      protocolSlug: z.string(),
      asset: address,
      name: z.string(),
      symbol: z.string(),
    }),
  ),
  execution: z.record(z.string(), address),
});

/** A deployment file that cannot be read as one: not JSON, or a field missing or malformed. */
export class InvalidDeploymentFileError extends Error {
  override readonly name = "InvalidDeploymentFileError";
  constructor(path: string, problem: string) {
    super(
      `The devnet deployment file ${path} is not a deployment: ${problem}. Delete it and run \`npm start\` to deploy a fresh world, or point DEVNET_DEPLOYMENT at the file the world was deployed with.`,
    );
  }
}

/**
 * Reads the deployment file, or `undefined` when there is none.
 * @throws InvalidDeploymentFileError naming the first field that is missing or malformed.
 */
export function readDeployment(path = deploymentPath()): Deployment | undefined {
  if (!existsSync(path)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new InvalidDeploymentFileError(
      path,
      `it is not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const parsed = deploymentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = (issue?.path ?? [])
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("")
      .replace(/^\./, "");
    throw new InvalidDeploymentFileError(
      path,
      `${at || "the file"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return json as Deployment;
}
