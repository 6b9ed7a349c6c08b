import type { Context } from "ponder:registry";
import { v2Pair } from "ponder:schema";
import { type Address, getAbiItem } from "viem";
import { UniswapV2FactoryAbi } from "../../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../../abis/UniswapV2Pair.js";
import { creationLogs, lowercase } from "../../state-start/discover.js";
import { inGroups } from "../../state-start/groups.js";
import { answerOf, type StateReader, type StateSeed } from "../../state-start/reads.js";
import { releaseIndexingCache } from "../../state-start/release.js";
import { ensureTokens, type TokenToEnsure } from "../../tokens/tokens.js";
import type { V2Factory } from "./factories.js";

/**
 * A pair's LP token, a position of the protocol whose factory created it in its two tokens (its
 * metadata, constants of the pair contract, needs no read).
 */
export function lpToken(
  factory: V2Factory,
  pair: Address,
  token0: Address,
  token1: Address,
): TokenToEnsure {
  return {
    address: pair,
    position: {
      protocolSlug: factory.protocolSlug,
      underlyingTokens: [token0, token1],
      primaryAddress: pair,
      metadata: factory.lp,
    },
  };
}

/**
 * Every pair each of the family's factories (factories.ts) created before the chain's start.
 */
export async function readV2FamilyState(
  context: Context,
  reader: StateReader,
  factories: readonly V2Factory[],
): Promise<StateSeed> {
  const seeds: StateSeed = [];
  for (const factory of factories) seeds.push(...(await readV2State(context, reader, factory)));
  return seeds;
}

/**
 * Every pair the factory created before the chain's start (its `PairCreated` logs from the
 * factory's deployment to the reader's block), read at the end of that block: reserves
 * (`getReserves`) and LP supply (`totalSupply`), two calls per pair in the batched reads, group
 * by group (`readGroups`). Each pair and its LP token are written as its creation and events
 * would have left them.
 */
async function readV2State(
  context: Context,
  reader: StateReader,
  where: V2Factory,
): Promise<StateSeed> {
  // The event's fourth argument is unnamed, so its arguments arrive as a tuple. Addresses as
  // the tables hold them (lowercase), so that a token is one key wherever it is named. Only the
  // records are kept: the decoded logs (~0.7 KB each) are garbage once mapped.
  const pairs = (
    await creationLogs(context, {
      address: where.factory,
      event: getAbiItem({ abi: UniswapV2FactoryAbi, name: "PairCreated" }),
      fromBlock: BigInt(where.startBlock),
      toBlock: reader.block,
    })
  ).map((log) => {
    const [token0, token1, pair] = log.args as unknown as readonly [Address, Address, Address];
    return {
      address: lowercase(pair),
      token0: lowercase(token0),
      token1: lowercase(token1),
      factory: lowercase(log.address),
      createdBlock: log.blockNumber,
    };
  });
  return await inGroups(
    pairs,
    () => 2,
    (group) => readV2Pairs(context, reader, where, group),
  );
}

type V2PairCreated = {
  address: Address;
  token0: Address;
  token1: Address;
  factory: Address;
  createdBlock: bigint;
};

/** One group of pairs (`readGroups`): their state read, their rows and LP tokens written. */
async function readV2Pairs(
  context: Context,
  reader: StateReader,
  factory: V2Factory,
  pairs: readonly V2PairCreated[],
): Promise<StateSeed> {
  const chainId = context.chain.id;
  const answers = await reader.read(
    pairs.flatMap((p) => [
      { address: p.address, abi: UniswapV2PairAbi, functionName: "getReserves" } as const,
      { address: p.address, abi: UniswapV2PairAbi, functionName: "totalSupply" } as const,
    ]),
  );
  await ensureTokens(
    context,
    pairs.map((p) => ({
      ...lpToken(factory, p.address, p.token0, p.token1),
      seenAt: p.createdBlock,
    })),
    reader.block,
  );
  const seed: StateSeed = [];
  const rows = pairs.map((p, i) => {
    const reserves = answerOf<readonly [bigint, bigint, number]>(answers[2 * i]);
    const totalSupply = answerOf<bigint>(answers[2 * i + 1]);
    if (reserves === undefined || totalSupply === undefined) {
      throw new Error(
        `Chain ${chainId}: pair ${p.address} did not answer getReserves/totalSupply at block ${reader.block}`,
      );
    }
    const [reserve0, reserve1] = reserves;
    seed.push({
      address: p.address,
      protocolSlug: factory.protocolSlug,
      token0: p.token0,
      token1: p.token1,
      fee: factory.feePpm,
      createdBlock: p.createdBlock,
      balance0: reserve0,
      balance1: reserve1,
      price: { numerator: reserve1, denominator: reserve0 },
    });
    return {
      chainId,
      address: p.address,
      factory: p.factory,
      protocol: factory.protocolSlug,
      token0: p.token0,
      token1: p.token1,
      reserve0,
      reserve1,
      fee: factory.feePpm,
      totalSupply,
      createdBlock: p.createdBlock,
      updatedBlock: reader.block,
    };
  });
  if (rows.length > 0) await context.db.insert(v2Pair).values(rows);
  await releaseIndexingCache(context);
  return seed;
}
