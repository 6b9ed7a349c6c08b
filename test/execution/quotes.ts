/** Exact expected amounts, read independently of the execution layer (reserves, QuoterV2, ERC4626 previews). */
import type { Address } from "viem";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { QuoterV2Abi } from "../../abis/QuoterV2.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import type { ExecutionWorld, V2Pair, V3Pool } from "./world.js";

/** Uniswap V2 output for `amountIn` at the pair's current reserves (0.3% fee). */
export async function quoteV2(
  world: ExecutionWorld,
  pair: V2Pair,
  tokenIn: Address,
  amountIn: bigint,
): Promise<bigint> {
  const [reserve0, reserve1] = await world.client.readContract({
    address: pair.address,
    abi: UniswapV2PairAbi,
    functionName: "getReserves",
  });
  const zeroForOne = pair.token0.toLowerCase() === tokenIn.toLowerCase();
  const [reserveIn, reserveOut] = zeroForOne ? [reserve0, reserve1] : [reserve1, reserve0];
  const amountInWithFee = amountIn * 997n;
  return (amountInWithFee * reserveOut) / (reserveIn * 1000n + amountInWithFee);
}

/** Uniswap V3 exact-input output from QuoterV2 at the current state. */
export async function quoteV3(
  world: ExecutionWorld,
  pool: V3Pool,
  tokenIn: Address,
  amountIn: bigint,
): Promise<bigint> {
  const tokenOut = pool.token0.toLowerCase() === tokenIn.toLowerCase() ? pool.token1 : pool.token0;
  const { result } = await world.client.simulateContract({
    address: world.uniswapV3.quoterV2,
    abi: QuoterV2Abi,
    functionName: "quoteExactInputSingle",
    args: [{ tokenIn, tokenOut, amountIn, fee: pool.fee, sqrtPriceLimitX96: 0n }],
  });
  return result[0];
}

/** Shares an ERC4626 deposit of `assets` mints now. */
export async function previewDeposit(
  world: ExecutionWorld,
  vault: Address,
  assets: bigint,
): Promise<bigint> {
  return await world.client.readContract({
    address: vault,
    abi: DevVaultAbi,
    functionName: "previewDeposit",
    args: [assets],
  });
}
