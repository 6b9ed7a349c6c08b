import type { Context } from "ponder:registry";
import { BaseError, ContractFunctionZeroDataError } from "viem";
import { AaveV3PoolAbi } from "../../../abis/AaveV3Pool.js";
import type { Address } from "../../../engine/index.js";
import { stateReadError } from "../../state-start/reads.js";
import { aavePoolOf, listReserve } from "./reserve.js";

/**
 * The state start's reserves: every reserve the pool lists at the end of `block`
 * (`getReservesList`), with its tokens and state read there. Nothing when the market is deployed
 * (or set up) after `block`.
 */
export async function readAaveState(
  context: Context,
  block: bigint,
  deployedAt: number,
): Promise<void> {
  const pool = aavePoolOf(context.chain.id);
  if (!pool || block < BigInt(deployedAt)) return;
  let assets: readonly Address[];
  try {
    assets = await context.client.readContract({
      abi: AaveV3PoolAbi,
      address: pool,
      functionName: "getReservesList",
      blockNumber: block,
    });
  } catch (error) {
    // No market at that block yet: the pool (or its implementation) is deployed after it.
    if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionZeroDataError))
      return;
    throw stateReadError(context.chain, block, error);
  }
  for (const asset of assets) await listReserve(context, asset.toLowerCase() as Address, block);
}
