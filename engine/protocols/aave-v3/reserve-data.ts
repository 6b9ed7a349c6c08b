/**
 * An Aave V3 reserve's state as `Pool.getReserveData` returns it, decoded: the configuration
 * word's fields (`ReserveConfiguration`'s bit layout), the indexes and rates, the tokens. Shared
 * by the indexer (which stores it) and whoever reads a reserve straight from the chain.
 */
import type { Address } from "viem";

/** What `Pool.getReserveData` returns (the fields read here). */
export type ReserveData = {
  configuration: { data: bigint };
  liquidityIndex: bigint;
  currentLiquidityRate: bigint;
  variableBorrowIndex: bigint;
  currentVariableBorrowRate: bigint;
  currentStableBorrowRate: bigint;
  lastUpdateTimestamp: number;
  aTokenAddress: Address;
  stableDebtTokenAddress: Address;
  variableDebtTokenAddress: Address;
  interestRateStrategyAddress: Address;
  accruedToTreasury: bigint;
};

/** Bits `from` to `from + width - 1` of a configuration word. */
const bits = (word: bigint, from: number, width: number) =>
  (word >> BigInt(from)) & ((1n << BigInt(width)) - 1n);

const lower = (a: string) => a.toLowerCase() as Address;

/**
 * The reserve's configuration and state, with its aToken's scaled supply and what the aToken
 * holds of the asset (`scaledATokenSupply`, `availableLiquidity`, read beside it).
 */
export function aaveReserveState(
  data: ReserveData,
  scaledATokenSupply: bigint,
  availableLiquidity: bigint,
) {
  const config = data.configuration.data;
  return {
    aToken: lower(data.aTokenAddress),
    stableDebtToken: lower(data.stableDebtTokenAddress),
    variableDebtToken: lower(data.variableDebtTokenAddress),
    interestRateStrategy: lower(data.interestRateStrategyAddress),
    ltv: Number(bits(config, 0, 16)),
    liquidationThreshold: Number(bits(config, 16, 16)),
    liquidationBonus: Number(bits(config, 32, 16)),
    decimals: Number(bits(config, 48, 8)),
    active: bits(config, 56, 1) === 1n,
    frozen: bits(config, 57, 1) === 1n,
    borrowingEnabled: bits(config, 58, 1) === 1n,
    paused: bits(config, 60, 1) === 1n,
    reserveFactor: Number(bits(config, 64, 16)),
    /** Whole tokens. */
    borrowCap: bits(config, 80, 36),
    supplyCap: bits(config, 116, 36),
    liquidityIndex: data.liquidityIndex,
    variableBorrowIndex: data.variableBorrowIndex,
    liquidityRate: data.currentLiquidityRate,
    variableBorrowRate: data.currentVariableBorrowRate,
    stableBorrowRate: data.currentStableBorrowRate,
    lastUpdateTimestamp: BigInt(data.lastUpdateTimestamp),
    accruedToTreasury: data.accruedToTreasury,
    scaledATokenSupply,
    availableLiquidity,
  };
}
