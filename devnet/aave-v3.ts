/**
 * Aave V3 in the devnet world, from the bytecode of its npm release (@aave/core-v3): one market
 * ("Devnet") with WETH, USDC, DAI and WBTC listed at realistic risk parameters and interest-rate
 * curves, priced by the project's own `DevPriceFeed`s at the world's reference prices, and seeded
 * by the deployer (supplies and variable-rate borrows), so that rates and indexes move from the
 * first block on.
 *
 * The Pool and the PoolConfigurator call external libraries: their implementations are deployed
 * with the libraries' addresses linked into their bytecode (`readLinkedNpmArtifact`). The
 * PoolAddressesProvider creates their proxies and initializes them.
 */
import { type Address, getAddress, parseUnits, zeroAddress } from "viem";
import { AaveV3ACLManagerAbi } from "../abis/AaveV3ACLManager.js";
import { AaveV3PoolAbi } from "../abis/AaveV3Pool.js";
import { AaveV3PoolAddressesProviderAbi } from "../abis/AaveV3PoolAddressesProvider.js";
import { AaveV3PoolConfiguratorAbi } from "../abis/AaveV3PoolConfigurator.js";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { loadArtifact } from "../contracts/build.js";
import { type NpmArtifactName, readLinkedNpmArtifact, readNpmArtifact } from "./artifacts.js";
import type { AaveV3Deployment, AaveV3Reserve } from "./deployment.js";
import { amountForUsd } from "./price.js";
import type { Deployer } from "./world.js";

/** The market id the PoolAddressesProvider carries. */
export const AAVE_V3_MARKET_ID = "Devnet";

/** `DataTypes.InterestRateMode.VARIABLE`: the only borrowing mode the devnet uses. */
export const AAVE_VARIABLE_RATE_MODE = 2n;

/** A `DefaultReserveInterestRateStrategy`'s parameters, in basis points (the contract's are rays). */
export type AaveV3RateCurve = {
  optimalUsage: number;
  baseVariableRate: number;
  variableSlope1: number;
  variableSlope2: number;
  /** Stable-rate parameters: set as the contract requires them, though stable borrowing is off. */
  stableSlope1: number;
  stableSlope2: number;
  baseStableRateOffset: number;
  stableRateExcessOffset: number;
  optimalStableToTotalDebt: number;
};

export type AaveV3ReserveSpec = {
  symbol: string;
  rates: AaveV3RateCurve;
  /** Loan to value, liquidation threshold and bonus, reserve factor: basis points. */
  ltv: number;
  liquidationThreshold: number;
  liquidationBonus: number;
  reserveFactor: number;
  /** Caps in whole tokens, as the configurator takes them. */
  supplyCap: bigint;
  borrowCap: bigint;
  /** What the deployer supplies and then borrows at variable rate, in USD. */
  seed: { supplyUsd: number; borrowUsd: number };
};

// Curves of the shapes Aave's own markets use for each kind of asset: stablecoins are cheap to
// borrow up to a high usage and steep beyond it; WBTC is mostly collateral, so its kink is low.
const STABLECOIN_CURVE: AaveV3RateCurve = {
  optimalUsage: 9_000,
  baseVariableRate: 0,
  variableSlope1: 400,
  variableSlope2: 6_000,
  stableSlope1: 50,
  stableSlope2: 6_000,
  baseStableRateOffset: 100,
  stableRateExcessOffset: 800,
  optimalStableToTotalDebt: 2_000,
};

/** The reserves of the devnet market, in the order they are listed. */
export const AAVE_V3_RESERVES: readonly AaveV3ReserveSpec[] = [
  {
    symbol: "WETH",
    rates: {
      optimalUsage: 8_000,
      baseVariableRate: 0,
      variableSlope1: 380,
      variableSlope2: 8_000,
      stableSlope1: 400,
      stableSlope2: 8_000,
      baseStableRateOffset: 200,
      stableRateExcessOffset: 500,
      optimalStableToTotalDebt: 2_000,
    },
    ltv: 8_050,
    liquidationThreshold: 8_300,
    liquidationBonus: 10_500,
    reserveFactor: 1_500,
    supplyCap: 1_800_000n,
    borrowCap: 1_400_000n,
    seed: { supplyUsd: 6_000_000, borrowUsd: 2_000_000 },
  },
  {
    symbol: "USDC",
    rates: STABLECOIN_CURVE,
    ltv: 7_700,
    liquidationThreshold: 8_000,
    liquidationBonus: 10_450,
    reserveFactor: 1_000,
    supplyCap: 2_000_000_000n,
    borrowCap: 1_800_000_000n,
    seed: { supplyUsd: 8_000_000, borrowUsd: 4_000_000 },
  },
  {
    symbol: "DAI",
    rates: STABLECOIN_CURVE,
    ltv: 6_700,
    liquidationThreshold: 7_700,
    liquidationBonus: 10_400,
    reserveFactor: 1_000,
    supplyCap: 300_000_000n,
    borrowCap: 270_000_000n,
    seed: { supplyUsd: 4_000_000, borrowUsd: 2_000_000 },
  },
  {
    symbol: "WBTC",
    rates: {
      optimalUsage: 4_500,
      baseVariableRate: 0,
      variableSlope1: 400,
      variableSlope2: 30_000,
      stableSlope1: 700,
      stableSlope2: 30_000,
      baseStableRateOffset: 200,
      stableRateExcessOffset: 500,
      optimalStableToTotalDebt: 2_000,
    },
    ltv: 7_300,
    liquidationThreshold: 7_800,
    liquidationBonus: 10_500,
    reserveFactor: 2_000,
    supplyCap: 43_000n,
    borrowCap: 28_000n,
    seed: { supplyUsd: 4_000_000, borrowUsd: 800_000 },
  },
];

/** Basis points as a ray (1e27 = 100%). */
export function rayFromBps(bps: number): bigint {
  return BigInt(bps) * 10n ** 23n;
}

/** A reference USD price as a feed answer: 8 decimals. */
export function feedAnswer(usdPrice: number): bigint {
  return parseUnits(usdPrice.toString(), 8);
}

/** A token of the world, as `deployAaveV3` needs it. */
export type AaveV3Asset = { address: Address; symbol: string; decimals: number; usdPrice: number };

export type DeployAaveV3Parameters = {
  deployer: Deployer;
  /** The world's tokens by symbol (WETH included). */
  token: (symbol: string) => AaveV3Asset;
  /** The reserves to list, in order: `AAVE_V3_RESERVES` unless a world lacks some of their tokens. */
  reserves?: readonly AaveV3ReserveSpec[];
};

/**
 * Deploys Aave V3, lists the world's reserves and seeds them from the deployer's inventory. The
 * deployer owns the addresses provider, is the ACL admin, a pool and risk admin, and receives
 * the reserves' treasury share.
 * @example const aaveV3 = await deployAaveV3({ deployer, token });
 */
export async function deployAaveV3(params: DeployAaveV3Parameters): Promise<AaveV3Deployment> {
  const d = params.deployer;

  const providerArt = readNpmArtifact("AaveV3PoolAddressesProvider");
  const provider = await d.deploy(providerArt.abi, providerArt.bytecode, [
    AAVE_V3_MARKET_ID,
    d.address,
  ]);
  // The proxies the provider created (it is their admin).
  const providerAddress = (functionName: "getPool" | "getPoolConfigurator") =>
    d.client.readContract({ address: provider, abi: AaveV3PoolAddressesProviderAbi, functionName });
  // The ACL manager's constructor makes the provider's ACL admin its own admin.
  await d.write(provider, AaveV3PoolAddressesProviderAbi, "setACLAdmin", [d.address]);
  const aclArt = readNpmArtifact("AaveV3ACLManager");
  const aclManager = await d.deploy(aclArt.abi, aclArt.bytecode, [provider]);
  await d.write(provider, AaveV3PoolAddressesProviderAbi, "setACLManager", [aclManager]);
  await d.write(aclManager, AaveV3ACLManagerAbi, "addPoolAdmin", [d.address]);
  await d.write(aclManager, AaveV3ACLManagerAbi, "addRiskAdmin", [d.address]);

  const deployLibrary = async (
    artifact: NpmArtifactName,
    links: Record<string, Address> = {},
  ): Promise<Address> => {
    const linked = readLinkedNpmArtifact(artifact, links);
    return await d.deploy(linked.abi, linked.bytecode);
  };
  const borrowLogic = await deployLibrary("AaveV3BorrowLogic");
  const poolLibraries = {
    BorrowLogic: borrowLogic,
    BridgeLogic: await deployLibrary("AaveV3BridgeLogic"),
    EModeLogic: await deployLibrary("AaveV3EModeLogic"),
    // A library that itself calls another.
    FlashLoanLogic: await deployLibrary("AaveV3FlashLoanLogic", { BorrowLogic: borrowLogic }),
    LiquidationLogic: await deployLibrary("AaveV3LiquidationLogic"),
    PoolLogic: await deployLibrary("AaveV3PoolLogic"),
    SupplyLogic: await deployLibrary("AaveV3SupplyLogic"),
  };
  const configuratorLogic = await deployLibrary("AaveV3ConfiguratorLogic");
  const poolArt = readLinkedNpmArtifact("AaveV3Pool", poolLibraries);
  const poolImpl = await d.deploy(poolArt.abi, poolArt.bytecode, [provider]);
  await d.write(provider, AaveV3PoolAddressesProviderAbi, "setPoolImpl", [poolImpl]);
  const pool = getAddress(await providerAddress("getPool"));
  const configuratorArt = readLinkedNpmArtifact("AaveV3PoolConfigurator", {
    ConfiguratorLogic: configuratorLogic,
  });
  const configuratorImpl = await d.deploy(configuratorArt.abi, configuratorArt.bytecode);
  await d.write(provider, AaveV3PoolAddressesProviderAbi, "setPoolConfiguratorImpl", [
    configuratorImpl,
  ]);
  const poolConfigurator = getAddress(await providerAddress("getPoolConfigurator"));

  // Implementations behind each reserve's token proxies (the configurator creates those).
  const tokenImplementation = async (artifact: NpmArtifactName): Promise<Address> => {
    const art = readNpmArtifact(artifact);
    return await d.deploy(art.abi, art.bytecode, [pool]);
  };
  const aTokenImpl = await tokenImplementation("AaveV3AToken");
  const stableDebtTokenImpl = await tokenImplementation("AaveV3StableDebtToken");
  const variableDebtTokenImpl = await tokenImplementation("AaveV3VariableDebtToken");

  const feedArt = loadArtifact("DevPriceFeed");
  const listed: { spec: AaveV3ReserveSpec; asset: AaveV3Asset; feed: Address }[] = [];
  for (const spec of params.reserves ?? AAVE_V3_RESERVES) {
    const asset = params.token(spec.symbol);
    const feed = await d.deploy(feedArt.abi, feedArt.bytecode, [
      `${asset.symbol} / USD`,
      feedAnswer(asset.usdPrice),
    ]);
    listed.push({ spec, asset, feed });
  }
  const oracleArt = readNpmArtifact("AaveV3Oracle");
  // Base currency USD: address 0 and one dollar as 1e8, the feeds' unit.
  const oracle = await d.deploy(oracleArt.abi, oracleArt.bytecode, [
    provider,
    listed.map((l) => l.asset.address),
    listed.map((l) => l.feed),
    zeroAddress,
    zeroAddress,
    10n ** 8n,
  ]);
  await d.write(provider, AaveV3PoolAddressesProviderAbi, "setPriceOracle", [oracle]);
  const dataProviderArt = readNpmArtifact("AaveV3ProtocolDataProvider");
  const dataProvider = await d.deploy(dataProviderArt.abi, dataProviderArt.bytecode, [provider]);
  await d.write(provider, AaveV3PoolAddressesProviderAbi, "setPoolDataProvider", [dataProvider]);

  const strategyArt = readNpmArtifact("AaveV3DefaultReserveInterestRateStrategy");
  const reserves: AaveV3Reserve[] = [];
  for (const { spec, asset, feed } of listed) {
    const r = spec.rates;
    const strategy = await d.deploy(strategyArt.abi, strategyArt.bytecode, [
      provider,
      rayFromBps(r.optimalUsage),
      rayFromBps(r.baseVariableRate),
      rayFromBps(r.variableSlope1),
      rayFromBps(r.variableSlope2),
      rayFromBps(r.stableSlope1),
      rayFromBps(r.stableSlope2),
      rayFromBps(r.baseStableRateOffset),
      rayFromBps(r.stableRateExcessOffset),
      rayFromBps(r.optimalStableToTotalDebt),
    ]);
    // One reserve per call: each creates three proxies for about 2.3M gas, and four would pass
    // the 8M gas the deployer gives a call.
    await d.write(poolConfigurator, AaveV3PoolConfiguratorAbi, "initReserves", [
      [
        {
          aTokenImpl,
          stableDebtTokenImpl,
          variableDebtTokenImpl,
          underlyingAssetDecimals: asset.decimals,
          interestRateStrategyAddress: strategy,
          underlyingAsset: asset.address,
          treasury: d.address,
          incentivesController: zeroAddress,
          aTokenName: `Aave Devnet ${asset.symbol}`,
          aTokenSymbol: `aDev${asset.symbol}`,
          variableDebtTokenName: `Aave Devnet Variable Debt ${asset.symbol}`,
          variableDebtTokenSymbol: `variableDebtDev${asset.symbol}`,
          stableDebtTokenName: `Aave Devnet Stable Debt ${asset.symbol}`,
          stableDebtTokenSymbol: `stableDebtDev${asset.symbol}`,
          params: "0x",
        },
      ],
    ]);
    const configure = (functionName: string, args: readonly unknown[]) =>
      d.write(poolConfigurator, AaveV3PoolConfiguratorAbi, functionName, [asset.address, ...args]);
    await configure("configureReserveAsCollateral", [
      BigInt(spec.ltv),
      BigInt(spec.liquidationThreshold),
      BigInt(spec.liquidationBonus),
    ]);
    // Variable-rate borrowing only: stable-rate borrowing stays off, as on Aave's V3 markets.
    await configure("setReserveBorrowing", [true]);
    await configure("setSupplyCap", [spec.supplyCap]);
    await configure("setBorrowCap", [spec.borrowCap]);
    await configure("setReserveFactor", [BigInt(spec.reserveFactor)]);
    const data = await d.client.readContract({
      address: pool,
      abi: AaveV3PoolAbi,
      functionName: "getReserveData",
      args: [asset.address],
    });
    reserves.push({
      symbol: asset.symbol,
      asset: asset.address,
      aToken: getAddress(data.aTokenAddress),
      variableDebtToken: getAddress(data.variableDebtTokenAddress),
      stableDebtToken: getAddress(data.stableDebtTokenAddress),
      priceFeed: feed,
    });
  }

  // Every supply first (they are the collateral), then the borrows.
  for (const { spec, asset } of listed) {
    const amount = amountForUsd(asset, spec.seed.supplyUsd);
    await d.write(asset.address, DevTokenAbi, "approve", [pool, amount]);
    await d.write(pool, AaveV3PoolAbi, "supply", [asset.address, amount, d.address, 0]);
  }
  for (const { spec, asset } of listed) {
    await d.write(pool, AaveV3PoolAbi, "borrow", [
      asset.address,
      amountForUsd(asset, spec.seed.borrowUsd),
      AAVE_VARIABLE_RATE_MODE,
      0,
      d.address,
    ]);
  }

  return {
    poolAddressesProvider: provider,
    pool,
    poolConfigurator,
    aclManager,
    oracle,
    dataProvider,
    reserves,
  };
}
