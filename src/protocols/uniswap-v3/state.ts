import type { Context } from "ponder:registry";
import { v3Pool, v3Tick } from "ponder:schema";
import { type Address, getAbiItem, zeroHash } from "viem";
import { PancakeV3PoolAbi } from "../../../abis/PancakeV3Pool.js";
import { UniswapV3FactoryAbi } from "../../../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../../../abis/UniswapV3Pool.js";
import { sqrtPriceRatio } from "../../analytics/pricing.js";
import { BITMAP_WORDS_PER_CALL, readBitmapWords } from "../../state-start/bitmap-reader.js";
import { creationLogs, lowercase } from "../../state-start/discover.js";
import { inGroups } from "../../state-start/groups.js";
import { answerOf, type StateReader, type StateSeed } from "../../state-start/reads.js";
import { releaseIndexingCache } from "../../state-start/release.js";
import { bitmapWords, ticksOfWord } from "../../state-start/tick-bitmap.js";
import type { V3Factory } from "./factories.js";

/**
 * Every pool the family's factories created before the chain's start (each factory's
 * `PoolCreated` logs from its deployment to the reader's block), read at the end of that block,
 * all factories' pools batched together: `slot0`,
 * `liquidity` and every initialized tick with its liquidity (`tickBitmap` over every word the
 * pool's spacing allows, through the deployless bitmap reader, which answers only the words that
 * are not zero; then `ticks` of each tick a word marks): two rounds of batched reads, group by
 * group (`readGroups`). Each pool and its ticks are written as its creation and events
 * would have left them.
 */
export async function readV3State(
  context: Context,
  reader: StateReader,
  factories: readonly V3Factory[],
): Promise<StateSeed> {
  // PancakeSwap's pools answer the same reads; their slot0's protocol fee is wider (uint32).
  const pancakePools = new Set<Address>();
  const pools: V3PoolCreated[] = [];
  for (const where of factories) {
    // Addresses as the tables hold them (lowercase): a token is one key wherever it is named.
    // Only the records are kept: the decoded logs are garbage once mapped.
    const logs = await creationLogs(context, {
      address: where.factory,
      event: getAbiItem({ abi: UniswapV3FactoryAbi, name: "PoolCreated" }),
      fromBlock: BigInt(where.startBlock),
      toBlock: reader.block,
    });
    for (const { args, address, blockNumber } of logs) {
      const pool = lowercase(args.pool);
      if (where.poolContract === "pancakeswap") pancakePools.add(pool);
      pools.push({
        address: pool,
        protocol: where.protocolSlug,
        factory: lowercase(address),
        token0: lowercase(args.token0),
        token1: lowercase(args.token1),
        fee: args.fee,
        tickSpacing: args.tickSpacing,
        createdBlock: blockNumber,
      });
    }
  }
  // In the order they were created, whichever factory created them (the batches pack them so).
  pools.sort((x, y) =>
    x.createdBlock < y.createdBlock ? -1 : x.createdBlock > y.createdBlock ? 1 : 0,
  );
  const poolAbi = (pool: Address) => (pancakePools.has(pool) ? PancakeV3PoolAbi : UniswapV3PoolAbi);
  return await inGroups(
    pools,
    (p) => 2 + bitmapWords(p.tickSpacing).length / BITMAP_WORDS_PER_CALL,
    (group) => readV3Pools(context, reader, group, poolAbi),
  );
}

type V3PoolCreated = {
  address: Address;
  protocol: string;
  factory: Address;
  token0: Address;
  token1: Address;
  fee: number;
  tickSpacing: number;
  createdBlock: bigint;
};

/** One group of pools (`readGroups`): their state read, their rows written. */
async function readV3Pools(
  context: Context,
  reader: StateReader,
  pools: readonly V3PoolCreated[],
  poolAbi: (pool: Address) => typeof UniswapV3PoolAbi | typeof PancakeV3PoolAbi,
): Promise<StateSeed> {
  const chainId = context.chain.id;
  const [first, bitmaps] = await Promise.all([
    reader.read(
      pools.flatMap((p) => [
        { address: p.address, abi: poolAbi(p.address), functionName: "slot0" } as const,
        { address: p.address, abi: poolAbi(p.address), functionName: "liquidity" } as const,
      ]),
    ),
    readBitmapWords(
      reader,
      pools.map((p) => {
        const words = bitmapWords(p.tickSpacing);
        return {
          target: p.address,
          bitmapSlot: zeroHash,
          firstWord: words[0] ?? 0,
          words: words.length,
        };
      }),
    ),
  ]);
  // The ticks each pool's bitmap marks.
  const heads = pools.map((_, i) => ({
    slot0: answerOf(first[2 * i]),
    liquidity: answerOf(first[2 * i + 1]),
  }));
  const ticksOf = pools.map((p, i) =>
    (bitmaps[i] ?? []).flatMap(({ word, bits }) => ticksOfWord(word, bits, p.tickSpacing)),
  );
  const second = await reader.read(
    pools.flatMap((p, i) =>
      (ticksOf[i] ?? []).map(
        (tick) =>
          ({
            address: p.address,
            abi: poolAbi(p.address),
            functionName: "ticks",
            args: [tick],
          }) as const,
      ),
    ),
  );
  const seed: StateSeed = [];
  const poolRows = [];
  const tickRows = [];
  let at = 0;
  for (const [i, p] of pools.entries()) {
    const head = heads[i];
    const slot0 = head?.slot0 as readonly [bigint, number, ...unknown[]] | undefined;
    const liquidity = head?.liquidity as bigint | undefined;
    if (slot0 === undefined || liquidity === undefined) {
      throw new Error(
        `Chain ${chainId}: V3 pool ${p.address} did not answer slot0/liquidity at block ${reader.block}`,
      );
    }
    const [sqrtPriceX96, tick] = slot0;
    const initialized = sqrtPriceX96 !== 0n;
    poolRows.push({
      chainId,
      ...p,
      sqrtPriceX96,
      tick: initialized ? tick : null,
      liquidity,
      updatedBlock: reader.block,
    });
    for (const t of ticksOf[i] ?? []) {
      const info = answerOf<readonly [bigint, bigint, ...unknown[]]>(second[at++]);
      if (!info || info[0] === 0n) continue;
      tickRows.push({
        chainId,
        pool: p.address,
        tick: t,
        liquidityGross: info[0],
        liquidityNet: info[1],
        updatedBlock: reader.block,
      });
    }
    seed.push({
      address: p.address,
      protocolSlug: p.protocol,
      token0: p.token0,
      token1: p.token1,
      fee: p.fee,
      createdBlock: p.createdBlock,
      // Only the pool's own code is called: a token's `balanceOf` could burn a whole batch's
      // gas. What the pool held before the start is not counted (analysts.md).
      balance0: 0n,
      balance1: 0n,
      price: initialized ? sqrtPriceRatio(sqrtPriceX96) : { numerator: 0n, denominator: 0n },
    });
  }
  if (poolRows.length > 0) await context.db.insert(v3Pool).values(poolRows);
  if (tickRows.length > 0) await context.db.insert(v3Tick).values(tickRows);
  await releaseIndexingCache(context);
  return seed;
}
