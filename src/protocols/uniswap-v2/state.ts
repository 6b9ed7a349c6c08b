import type { Context } from "ponder:registry";
import { v2Pair } from "ponder:schema";
import { eq } from "ponder";
import { UniswapV2PairAbi } from "../../../abis/UniswapV2Pair.js";
import { answerOf, type StateReader, type StateSeed } from "../../state-start/reads.js";

/**
 * Every pair recorded before the chain's start, read at its end: reserves (`getReserves`) and LP
 * supply (`totalSupply`), two calls per pair in the batched reads.
 */
export async function readV2State(context: Context, reader: StateReader): Promise<StateSeed> {
  const pairs = await context.db.sql
    .select({
      address: v2Pair.address,
      token0: v2Pair.token0,
      token1: v2Pair.token1,
      fee: v2Pair.fee,
      createdBlock: v2Pair.createdBlock,
    })
    .from(v2Pair)
    .where(eq(v2Pair.chainId, context.chain.id))
    .orderBy(v2Pair.createdBlock);
  const answers = await reader.read(
    pairs.flatMap((p) => [
      { address: p.address, abi: UniswapV2PairAbi, functionName: "getReserves" } as const,
      { address: p.address, abi: UniswapV2PairAbi, functionName: "totalSupply" } as const,
    ]),
  );
  const seed: StateSeed = [];
  for (const [i, p] of pairs.entries()) {
    const reserves = answerOf<readonly [bigint, bigint, number]>(answers[2 * i]);
    const totalSupply = answerOf<bigint>(answers[2 * i + 1]);
    if (reserves === undefined || totalSupply === undefined) {
      throw new Error(
        `Chain ${context.chain.id}: pair ${p.address} did not answer getReserves/totalSupply at block ${reader.block}`,
      );
    }
    const [reserve0, reserve1] = reserves;
    await context.db
      .update(v2Pair, { chainId: context.chain.id, address: p.address })
      .set({ reserve0, reserve1, totalSupply, updatedBlock: reader.block });
    seed.push({
      address: p.address,
      protocolSlug: "uniswap-v2",
      token0: p.token0,
      token1: p.token1,
      fee: p.fee,
      createdBlock: p.createdBlock,
      balance0: reserve0,
      balance1: reserve1,
      price: { numerator: reserve1, denominator: reserve0 },
    });
  }
  return seed;
}
