import type { Context } from "ponder:registry";
import { aaveReserve } from "ponder:schema";
import { erc20Abi } from "viem";
import { AaveV3ATokenAbi } from "../../../abis/AaveV3AToken.js";
import { AaveV3PoolAbi } from "../../../abis/AaveV3Pool.js";
import { indexedChains } from "../../../chains.js";
import type { Address } from "../../../engine/index.js";
import { aaveReserveState } from "../../../engine/index.js";
import { ensureTokens } from "../../tokens/tokens.js";

/** Each chain's Aave V3 Pool (lowercase), from chains.ts. */
const pools = new Map(
  indexedChains().flatMap((c) =>
    c.aaveV3 ? [[c.id, c.aaveV3.pool.toLowerCase() as Address]] : [],
  ),
);

/**
 * Reads the reserve of `asset` at `block` — `Pool.getReserveData` (its configuration word,
 * indexes, rates, tokens, treasury accrual), the aToken's scaled supply and what it holds of the
 * asset — and writes it. Every change of a reserve's state or configuration comes here: the
 * pool emits `ReserveDataUpdated` with each supply, withdrawal, borrow, repayment, liquidation
 * and flash loan, the configurator an event with each parameter it sets.
 */
export async function refreshReserve(
  context: Context,
  asset: Address,
  block: bigint,
): Promise<Address | undefined> {
  const pool = pools.get(context.chain.id);
  if (!pool) return undefined;
  const data = await context.client.readContract({
    abi: AaveV3PoolAbi,
    address: pool,
    functionName: "getReserveData",
    args: [asset],
    blockNumber: block,
  });
  const aToken = data.aTokenAddress.toLowerCase() as Address;
  const [scaledSupply, held] = await Promise.all([
    context.client.readContract({
      abi: AaveV3ATokenAbi,
      address: aToken,
      functionName: "scaledTotalSupply",
      blockNumber: block,
    }),
    context.client.readContract({
      abi: erc20Abi,
      address: asset,
      functionName: "balanceOf",
      args: [aToken],
      blockNumber: block,
    }),
  ]);
  const state = { pool, asset, ...aaveReserveState(data, scaledSupply, held), updatedBlock: block };
  await context.db
    .insert(aaveReserve)
    .values({ chainId: context.chain.id, ...state, createdBlock: block })
    .onConflictDoUpdate(state);
  return aToken;
}

/**
 * A reserve listed: its state read at `block`, its asset a base token, its aToken a position
 * token of the asset (the debt tokens are not listed: they cannot be transferred, so no route or
 * bundle moves them).
 */
export async function listReserve(context: Context, asset: Address, block: bigint): Promise<void> {
  const pool = pools.get(context.chain.id);
  const aToken = await refreshReserve(context, asset, block);
  if (!pool || !aToken) return;
  await ensureTokens(
    context,
    [
      { address: asset },
      {
        address: aToken,
        position: { protocolSlug: "aave-v3", underlyingTokens: [asset], primaryAddress: pool },
      },
    ],
    block,
  );
}

/** The chain's Aave V3 Pool (lowercase), if the chain has one. */
export function aavePoolOf(chainId: number): Address | undefined {
  return pools.get(chainId);
}
