/**
 * A Uniswap V3 fee-100 pool (tick spacing 1, the tier governance enabled on mainnet) on a devnet,
 * its ticks far apart: at MIN_TICK and MAX_TICK, a few near each end, and a few around its price.
 * Its bitmap spans every one of the 6,932 words tick spacing 1 allows, nearly all of them zero.
 */
import { type Address, getAddress, maxUint256 } from "viem";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { NonfungiblePositionManagerAbi } from "../../abis/NonfungiblePositionManager.js";
import { UniswapV3FactoryAbi } from "../../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import type { Deployment } from "../../devnet/deployment.js";
import { sqrtPriceX96FromPrice } from "../../devnet/price.js";
import { devnetDeployer } from "../../devnet/world.js";

/** `TickMath.MAX_TICK`. */
export const MAX_TICK = 887_272;

/** The pool, its initialized ticks (lowest first) and its tick when created. */
export type TickSpacing1Pool = { address: Address; ticks: number[]; tick: number };

/**
 * Enables fee 100 at the world's V3 factory (`enableFeeAmount(100, 1)`, as the factory's owner,
 * the deployer), creates the `symbols` pool at that fee at their reference prices and mints four
 * positions from the deployer: the full range (MIN_TICK to MAX_TICK), one near each end and one
 * around the price.
 * @example const pool = await addTickSpacing1Pool(anvil.url, deployment, ["USDC", "DAI"]);
 */
export async function addTickSpacing1Pool(
  rpcUrl: string,
  deployment: Deployment,
  symbols: [string, string],
): Promise<TickSpacing1Pool> {
  const d = await devnetDeployer(rpcUrl);
  const { factory, positionManager } = deployment.uniswapV3;
  const [t0, t1] = symbols
    .map((s) => {
      const token = deployment.tokens.find((t) => t.symbol === s);
      if (!token) throw new Error(`the devnet world has no ${s}`);
      return token;
    })
    .sort((a, b) => (a.address.toLowerCase() < b.address.toLowerCase() ? -1 : 1)) as [
    Deployment["tokens"][number],
    Deployment["tokens"][number],
  ];
  await d.write(factory, UniswapV3FactoryAbi, "enableFeeAmount", [100, 1]);
  await d.write(factory, UniswapV3FactoryAbi, "createPool", [t0.address, t1.address, 100]);
  const address = getAddress(
    await d.client.readContract({
      address: factory,
      abi: UniswapV3FactoryAbi,
      functionName: "getPool",
      args: [t0.address, t1.address, 100],
    }),
  );
  const sqrtPriceX96 = sqrtPriceX96FromPrice(t0, t1);
  await d.write(address, UniswapV3PoolAbi, "initialize", [sqrtPriceX96]);
  const [, tick] = await d.client.readContract({
    address,
    abi: UniswapV3PoolAbi,
    functionName: "slot0",
  });
  // Each position's deposit keeps its liquidity far below the tier's most per tick (~1.9e32):
  // near either end a raw unit of the one token it holds is already ~1e20 of liquidity.
  const positions: [number, number, bigint][] = [
    [-MAX_TICK, MAX_TICK, 10n ** 24n],
    [-MAX_TICK + 3, -MAX_TICK + 1_000, 1_000n],
    [tick - 3, tick + 2, 10n ** 18n],
    [MAX_TICK - 700, MAX_TICK - 1, 1_000n],
  ];
  for (const token of [t0, t1]) {
    await d.write(token.address, DevTokenAbi, "mint", [d.address, 10n ** 30n]);
    await d.write(token.address, DevTokenAbi, "approve", [positionManager, maxUint256]);
  }
  for (const [tickLower, tickUpper, deposit] of positions) {
    await d.write(positionManager, NonfungiblePositionManagerAbi, "mint", [
      {
        token0: t0.address,
        token1: t1.address,
        fee: 100,
        tickLower,
        tickUpper,
        amount0Desired: deposit,
        amount1Desired: deposit,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: d.address,
        deadline: maxUint256,
      },
    ]);
  }
  const ticks = [...positions.map((p) => p[0]), ...positions.map((p) => p[1])].sort(
    (a, b) => a - b,
  );
  return { address, ticks, tick };
}
