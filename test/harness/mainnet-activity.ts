/**
 * Activity on the mainnet-shaped world (mainnet-world.ts) on both sides of a block, for the proof
 * that an index started there holds what a full replay holds: pools created before and after it,
 * positions minted before it and burned after it, swaps through the odd tokens, Uniswap V4 pools
 * (native ether among them) on the canonical PoolManager, a rebase, and the vault's deposits,
 * redemptions and yield (assets sent to it without an event of its own), and, when the world has
 * its Aave V3 market, supplies, variable-rate borrows, repayments and withdrawals on both sides
 * (interest accruing from block to block between them).
 *
 * Uniswap V4 liquidity and swaps go through the devnet's helpers (`contracts/devnet/`), deployed
 * here against the canonical PoolManager: the world itself has the manager but no pool.
 */
import { type Address, maxUint256, parseUnits, zeroAddress } from "viem";
import { AaveV3PoolAbi } from "../../abis/AaveV3Pool.js";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { RebasingTokenAbi } from "../../abis/generated/RebasingToken.js";
import { V4LiquidityHelperAbi } from "../../abis/generated/V4LiquidityHelper.js";
import { V4SwapHelperAbi } from "../../abis/generated/V4SwapHelper.js";
import { NonfungiblePositionManagerAbi } from "../../abis/NonfungiblePositionManager.js";
import { PoolManagerAbi } from "../../abis/PoolManager.js";
import { SwapRouterAbi } from "../../abis/SwapRouter.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { loadArtifact } from "../../contracts/build.js";
import { AAVE_VARIABLE_RATE_MODE } from "../../devnet/aave-v3.js";
import { sqrtPriceX96FromPrice, tickFromSqrtPriceX96 } from "../../devnet/price.js";
import { liquidityForAmounts } from "../../devnet/uniswap-v4.js";
import { amountForUsd, type Deployer, devnetDeployer } from "../../devnet/world.js";
import { getSqrtRatioAtTick } from "../../engine/math/tick-math.js";
import {
  bareErc20Abi,
  MAINNET,
  type MainnetWorld,
  seedV2Pair,
  seedV3Pool,
} from "./mainnet-world.js";

type WorldSymbol = keyof MainnetWorld["tokens"];
type V4Currency = { address: Address; decimals: number; usdPrice: number };
type V4Key = {
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
};
type V4Position = { key: V4Key; tickLower: number; tickUpper: number; liquidity: bigint };

/** What the activity left on the chain. */
export type MainnetActivity = {
  /** The first block after the activity before it: pools and positions exist on both sides. */
  middle: bigint;
};

/** Whole-token amounts of the world's tokens, in their decimals. */
const amount = (world: MainnetWorld, symbol: WorldSymbol, whole: string) =>
  parseUnits(whole, world.tokens[symbol].decimals);

/**
 * Runs the activity: what comes before the middle block, then what comes after it.
 * @example const { middle } = await runMainnetActivity({ rpcUrl: anvil.url, world });
 */
export async function runMainnetActivity(params: {
  rpcUrl: string;
  world: MainnetWorld;
}): Promise<MainnetActivity> {
  const { world } = params;
  const d = await devnetDeployer(params.rpcUrl);
  const t = (symbol: WorldSymbol) => world.tokens[symbol];
  const ether: V4Currency = { address: zeroAddress, decimals: 18, usdPrice: t("WETH").usdPrice };

  const liquidityArt = loadArtifact("V4LiquidityHelper");
  const swapArt = loadArtifact("V4SwapHelper");
  const liquidityHelper = await d.deploy(liquidityArt.abi, liquidityArt.bytecode, [
    MAINNET.uniswapV4PoolManager,
  ]);
  const swapHelper = await d.deploy(swapArt.abi, swapArt.bytecode, [MAINNET.uniswapV4PoolManager]);
  for (const [symbol, spender] of [
    ["USDC", liquidityHelper],
    ["DAI", liquidityHelper],
    ["USDC", swapHelper],
    ["DAI", swapHelper],
    ["DAI", MAINNET.positionManager],
    ["WETH", MAINNET.swapRouter],
    ["USDC", MAINNET.swapRouter],
    ["USDT", MAINNET.swapRouter],
    ["WETH", MAINNET.uniswapV2Router02],
    ["USDT", MAINNET.uniswapV2Router02],
    ["FEE", MAINNET.uniswapV2Router02],
    ["REBASE", MAINNET.uniswapV2Router02],
    ["MKR", MAINNET.uniswapV2Router02],
    ["USDC", world.vault],
  ] as const) {
    await d.write(t(symbol).address, bareErc20Abi, "approve", [spender, maxUint256]);
  }
  const aavePool = world.aaveV3?.pool;
  const aave = async (
    action: "supply" | "borrow" | "repay" | "withdraw",
    symbol: WorldSymbol,
    whole: string,
  ) => {
    if (!aavePool) return;
    const asset = t(symbol).address;
    const value = amount(world, symbol, whole);
    const args = {
      supply: [asset, value, d.address, 0],
      borrow: [asset, value, AAVE_VARIABLE_RATE_MODE, 0, d.address],
      repay: [asset, value, AAVE_VARIABLE_RATE_MODE, d.address],
      withdraw: [asset, value, d.address],
    }[action];
    await d.write(aavePool, AaveV3PoolAbi, action, args);
  };
  if (aavePool) {
    for (const symbol of ["WETH", "USDC", "DAI"] as const) {
      await d.write(t(symbol).address, bareErc20Abi, "approve", [aavePool, maxUint256]);
    }
  }

  const v2Swap = async (path: WorldSymbol[], whole: string) => {
    const first = path[0] as WorldSymbol;
    await d.write(
      MAINNET.uniswapV2Router02,
      UniswapV2Router02Abi,
      "swapExactTokensForTokensSupportingFeeOnTransferTokens",
      [amount(world, first, whole), 0n, path.map((s) => t(s).address), d.address, maxUint256],
    );
  };
  const v3Swap = async (
    tokenIn: WorldSymbol,
    tokenOut: WorldSymbol,
    fee: number,
    whole: string,
  ) => {
    await d.write(MAINNET.swapRouter, SwapRouterAbi, "exactInputSingle", [
      {
        tokenIn: t(tokenIn).address,
        tokenOut: t(tokenOut).address,
        fee,
        recipient: d.address,
        deadline: maxUint256,
        amountIn: amount(world, tokenIn, whole),
        amountOutMinimum: 0n,
        sqrtPriceLimitX96: 0n,
      },
    ]);
  };
  const v4Positions: V4Position[] = [];
  const v4Pools: V4Key[] = [];

  // Before the middle: a V4 pool of native ether with two positions, swaps on every protocol,
  // a position minted, a vault deposit.
  v4Pools.push(await initializeV4Pool(d, ether, t("USDC"), 3000, 60));
  v4Positions.push(
    await addV4Liquidity(d, liquidityHelper, v4Pools[0] as V4Key, ether, t("USDC"), 12, 500_000),
    await addV4Liquidity(d, liquidityHelper, v4Pools[0] as V4Key, ether, t("USDC"), 60, 1_000_000),
  );
  await v2Swap(["WETH", "REBASE"], "10");
  await v2Swap(["USDT", "WETH", "MKR"], "30000");
  await v3Swap("USDC", "WETH", 500, "250000");
  await v4Swap(d, swapHelper, v4Pools[0] as V4Key, false, amount(world, "USDC", "40000"));
  // Token ids 1 to 9 are the world's positions: this one is 10.
  await d.write(MAINNET.positionManager, NonfungiblePositionManagerAbi, "mint", [
    {
      token0: t("USDC").address,
      token1: t("WETH").address,
      fee: 500,
      tickLower: -887_270,
      tickUpper: 887_270,
      amount0Desired: amount(world, "USDC", "300000"),
      amount1Desired: amount(world, "WETH", "100"),
      amount0Min: 0n,
      amount1Min: 0n,
      recipient: d.address,
      deadline: maxUint256,
    },
  ]);
  await d.write(world.vault, DevVaultAbi, "deposit", [amount(world, "USDC", "50000"), d.address]);
  await aave("supply", "USDC", "1000000");
  await aave("borrow", "DAI", "300000");
  await aave("borrow", "WETH", "40");

  const middle = (await d.client.getBlockNumber({ cacheTime: 0 })) + 1n;

  // After it: new V2 pairs of odd tokens, a new V3 pool and a new V4 pool; the positions minted
  // before it burned; swaps (fee on transfer bought, a rebase between them); vault yield.
  await seedV2Pair(d, t("DAI"), t("MKR"), 200_000);
  await seedV2Pair(d, t("USDC"), t("WHOLE"), 50_000);
  await seedV3Pool(d, t("WETH"), t("DAI"), 3000, 1_000_000);
  v4Pools.push(await initializeV4Pool(d, t("DAI"), t("USDC"), 500, 10));
  v4Positions.push(
    await addV4Liquidity(d, liquidityHelper, v4Pools[1] as V4Key, t("DAI"), t("USDC"), 60, 800_000),
  );
  for (const tokenId of [1n, 10n]) await burnV3Position(d, tokenId);
  await removeV4Liquidity(d, liquidityHelper, v4Positions[0] as V4Position);
  await v2Swap(["WETH", "FEE"], "5");
  await v2Swap(["WETH", "DAI", "MKR"], "3");
  await d.write(t("REBASE").address, RebasingTokenAbi, "rebase", [1_020_000_000_000_000_000n]);
  await v2Swap(["REBASE", "WETH"], "1000");
  await v3Swap("WETH", "USDT", 3000, "40");
  await v3Swap("WETH", "DAI", 3000, "25");
  await v4Swap(d, swapHelper, v4Pools[0] as V4Key, true, parseUnits("12", 18));
  await v4Swap(d, swapHelper, v4Pools[1] as V4Key, true, amount(world, "DAI", "30000"));
  await d.write(t("USDC").address, bareErc20Abi, "transfer", [
    world.vault,
    amount(world, "USDC", "70000"),
  ]);
  await d.write(world.vault, DevVaultAbi, "redeem", [
    parseUnits("20000", t("USDC").decimals),
    d.address,
    d.address,
  ]);
  await aave("repay", "DAI", "120000");
  await aave("supply", "WETH", "25");
  await aave("borrow", "USDC", "250000");
  await aave("withdraw", "USDC", "100000");
  return { middle };
}

/** Initializes a hookless V4 pool of two currencies at their USD prices. */
async function initializeV4Pool(
  d: Deployer,
  a: V4Currency,
  b: V4Currency,
  fee: number,
  tickSpacing: number,
): Promise<V4Key> {
  const [c0, c1] = a.address.toLowerCase() < b.address.toLowerCase() ? [a, b] : [b, a];
  const key = {
    currency0: c0.address,
    currency1: c1.address,
    fee,
    tickSpacing,
    hooks: zeroAddress,
  };
  await d.write(MAINNET.uniswapV4PoolManager, PoolManagerAbi, "initialize", [
    key,
    sqrtPriceX96FromPrice(c0, c1),
  ]);
  return key;
}

/**
 * Adds `usd` worth of each currency around the initial price (`halfWidth` tick spacings each
 * side); native ether is sent twice over and the helper refunds what is left.
 */
async function addV4Liquidity(
  d: Deployer,
  helper: Address,
  key: V4Key,
  a: V4Currency,
  b: V4Currency,
  halfWidth: number,
  usd: number,
): Promise<V4Position> {
  const [c0, c1] = a.address === key.currency0 ? [a, b] : [b, a];
  const sqrtPriceX96 = sqrtPriceX96FromPrice(c0, c1);
  const s = key.tickSpacing;
  const center = Math.floor(tickFromSqrtPriceX96(sqrtPriceX96) / s) * s;
  const [tickLower, tickUpper] = [center - halfWidth * s, center + (halfWidth + 1) * s];
  const amount0 = amountForUsd(c0, usd);
  const liquidity = liquidityForAmounts(
    sqrtPriceX96,
    getSqrtRatioAtTick(tickLower),
    getSqrtRatioAtTick(tickUpper),
    amount0,
    amountForUsd(c1, usd),
  );
  const value = c0.address === zeroAddress ? 2n * amount0 : undefined;
  await d.write(
    helper,
    V4LiquidityHelperAbi,
    "modifyLiquidity",
    [key, tickLower, tickUpper, liquidity, `0x${"0".repeat(64)}`],
    value,
  );
  return { key, tickLower, tickUpper, liquidity };
}

async function removeV4Liquidity(d: Deployer, helper: Address, p: V4Position): Promise<void> {
  await d.write(helper, V4LiquidityHelperAbi, "modifyLiquidity", [
    p.key,
    p.tickLower,
    p.tickUpper,
    -p.liquidity,
    `0x${"0".repeat(64)}`,
  ]);
}

/** Exact input on a V4 pool (a negative amount specified); native ether input sent as value. */
async function v4Swap(
  d: Deployer,
  helper: Address,
  key: V4Key,
  zeroForOne: boolean,
  amountIn: bigint,
): Promise<void> {
  const native = zeroForOne && key.currency0 === zeroAddress;
  await d.write(
    helper,
    V4SwapHelperAbi,
    "swap",
    [key, zeroForOne, -amountIn, 0n],
    native ? amountIn : undefined,
  );
}

/** Burns a V3 position of the deployer whole: its liquidity removed, what it holds collected. */
async function burnV3Position(d: Deployer, tokenId: bigint): Promise<void> {
  const position = await d.client.readContract({
    address: MAINNET.positionManager,
    abi: NonfungiblePositionManagerAbi,
    functionName: "positions",
    args: [tokenId],
  });
  await d.write(MAINNET.positionManager, NonfungiblePositionManagerAbi, "decreaseLiquidity", [
    { tokenId, liquidity: position[7], amount0Min: 0n, amount1Min: 0n, deadline: maxUint256 },
  ]);
  const maxUint128 = (1n << 128n) - 1n;
  await d.write(MAINNET.positionManager, NonfungiblePositionManagerAbi, "collect", [
    { tokenId, recipient: d.address, amount0Max: maxUint128, amount1Max: maxUint128 },
  ]);
}
