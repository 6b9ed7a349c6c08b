import type { Context } from "ponder:registry";
import { v4Pool, v4Tick } from "ponder:schema";
import {
  encodeAbiParameters,
  getAbiItem,
  type Hex,
  hexToBigInt,
  keccak256,
  numberToHex,
  zeroAddress,
} from "viem";
import { PoolManagerAbi } from "../../../abis/PoolManager.js";
import { readConfig } from "../../../config.js";
import { type Address, NATIVE_TOKEN_ADDRESS, V4_DYNAMIC_FEE_FLAG } from "../../../engine/index.js";
import { sqrtPriceRatio } from "../../analytics/pricing.js";
import { BITMAP_WORDS_PER_CALL, readBitmapWords } from "../../state-start/bitmap-reader.js";
import { creationLogs, lowercase } from "../../state-start/discover.js";
import { inGroups } from "../../state-start/groups.js";
import { answerOf, type StateReader, type StateSeed } from "../../state-start/reads.js";
import { releaseIndexingCache } from "../../state-start/release.js";
import { bitmapWords, ticksOfWord } from "../../state-start/tick-bitmap.js";

/** `StateLibrary.POOLS_SLOT`: the pool manager's mapping from PoolId to pool state. */
const POOLS_SLOT = 6n;
/** Offsets in a pool's state (`Pool.State`): slot0, …, liquidity, ticks, tickBitmap. */
const LIQUIDITY_OFFSET = 3n;
const TICKS_OFFSET = 4n;
const BITMAP_OFFSET = 5n;

const U128 = (1n << 128n) - 1n;

function mappingSlot(keyType: "bytes32" | "int24", key: Hex | number, slot: bigint) {
  return keccak256(encodeAbiParameters([{ type: keyType }, { type: "uint256" }], [key, slot]));
}

/** Where the pool manager keeps a pool's state (its slot0 first), as `StateLibrary` finds it. */
export function poolStateSlot(poolId: Hex): Hex {
  return mappingSlot("bytes32", poolId, POOLS_SLOT);
}

/** A currency as the catalogue lists it: the zero address is the native currency. */
export function catalogueToken(currency: Address): Address {
  return currency === zeroAddress ? NATIVE_TOKEN_ADDRESS : currency;
}

const toSigned = (value: bigint, bits: bigint) =>
  value >= 1n << (bits - 1n) ? value - (1n << bits) : value;

/**
 * Reads `slots` of the pool manager at the reader's block, in `extsload(bytes32[])` calls batched
 * together.
 */
async function readSlots(
  reader: StateReader,
  manager: Address,
  slots: readonly Hex[],
): Promise<bigint[]> {
  // A slot costs what one of the cheapest calls does (a cold storage read): an `extsload` reads
  // as many as a request holds calls, so a smaller STATE_READ_BATCH shrinks these requests too
  // (1,000 slots: about 2.1 M gas of cold reads and a 32 KB answer).
  const slotsPerCall = readConfig().stateReadBatch;
  const calls = [];
  for (let i = 0; i < slots.length; i += slotsPerCall) {
    calls.push({
      address: manager,
      abi: PoolManagerAbi,
      functionName: "extsload",
      args: [slots.slice(i, i + slotsPerCall)],
    } as const);
  }
  // Each extsload is a full request of its own.
  const answers = await reader.read(calls, { weight: Number.POSITIVE_INFINITY });
  return answers.flatMap((a, i) => {
    const words = answerOf<readonly Hex[]>(a);
    if (!words)
      throw new Error(`extsload of ${manager} reverted at block ${reader.block} (call ${i})`);
    return words.map((w) => hexToBigInt(w));
  });
}

/**
 * Every pool the manager initialized before the chain's start (its `Initialize` logs from its
 * deployment to the reader's block), read at the end of that block from the manager's storage
 * (`extsload`, as `StateLibrary` reads it): slot0 (price, tick, protocol and LP fee), liquidity,
 * and every initialized tick through the pool's tick bitmap (its words through the deployless
 * bitmap reader, which answers only those that are not zero). Two rounds of batched reads, group
 * by group (`readGroups`). Each pool and its ticks are written as its initialization and events
 * would have left them.
 */
export async function readV4State(
  context: Context,
  reader: StateReader,
  where: { poolManager: Address; startBlock: number },
): Promise<StateSeed> {
  // Only the records are kept: the decoded logs are garbage once mapped.
  const pools = (
    await creationLogs(context, {
      address: where.poolManager,
      event: getAbiItem({ abi: PoolManagerAbi, name: "Initialize" }),
      fromBlock: BigInt(where.startBlock),
      toBlock: reader.block,
    })
  ).map(({ args, address, blockNumber }) => ({
    poolId: args.id,
    poolManager: lowercase(address),
    currency0: args.currency0,
    currency1: args.currency1,
    token0: catalogueToken(lowercase(args.currency0)),
    token1: catalogueToken(lowercase(args.currency1)),
    fee: args.fee,
    tickSpacing: args.tickSpacing,
    hooks: args.hooks,
    createdBlock: blockNumber,
  }));
  return await inGroups(
    pools,
    (p) => 2 + bitmapWords(p.tickSpacing).length / BITMAP_WORDS_PER_CALL,
    (group) => readV4Pools(context, reader, where.poolManager, group),
  );
}

type V4PoolInitialized = {
  poolId: Hex;
  poolManager: Address;
  currency0: Address;
  currency1: Address;
  token0: Address;
  token1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
  createdBlock: bigint;
};

/**
 * One group of pools (`readGroups`), every one of them the one manager's (its `Initialize`
 * logs): their state read, their rows written.
 */
async function readV4Pools(
  context: Context,
  reader: StateReader,
  manager: Address,
  pools: readonly V4PoolInitialized[],
): Promise<StateSeed> {
  const chainId = context.chain.id;
  const seed: StateSeed = [];
  const bases = pools.map((p) => hexToBigInt(poolStateSlot(p.poolId)));
  const [first, bitmaps] = await Promise.all([
    readSlots(
      reader,
      manager,
      bases.flatMap((base) => [
        numberToHex(base, { size: 32 }),
        numberToHex(base + LIQUIDITY_OFFSET, { size: 32 }),
      ]),
    ),
    readBitmapWords(
      reader,
      pools.map((p, i) => {
        const words = bitmapWords(p.tickSpacing);
        return {
          target: manager,
          bitmapSlot: numberToHex((bases[i] ?? 0n) + BITMAP_OFFSET, { size: 32 }),
          firstWord: words[0] ?? 0,
          words: words.length,
        };
      }),
    ),
  ]);
  const heads = pools.map((_, i) => ({
    slot0: first[2 * i] ?? 0n,
    liquidity: (first[2 * i + 1] ?? 0n) & U128,
  }));
  const ticksOf = pools.map((p, i) =>
    (bitmaps[i] ?? []).flatMap(({ word, bits }) => ticksOfWord(word, bits, p.tickSpacing)),
  );
  const tickWords = await readSlots(
    reader,
    manager,
    pools.flatMap((_, i) =>
      (ticksOf[i] ?? []).map((t) => mappingSlot("int24", t, (bases[i] ?? 0n) + TICKS_OFFSET)),
    ),
  );
  let at = 0;
  const poolRows = [];
  const tickRows = [];
  for (const [i, p] of pools.entries()) {
    const { slot0, liquidity } = heads[i] ?? { slot0: 0n, liquidity: 0n };
    const sqrtPriceX96 = slot0 & ((1n << 160n) - 1n);
    const tick = Number(toSigned((slot0 >> 160n) & 0xffffffn, 24n));
    const protocolFee = Number((slot0 >> 184n) & 0xffffffn);
    const lpFee = Number((slot0 >> 208n) & 0xffffffn);
    poolRows.push({
      chainId,
      ...p,
      sqrtPriceX96,
      tick,
      protocolFee,
      liquidity,
      // A dynamic-fee pool's next swap pays its stored LP fee unless its hook overrides it:
      // the estimate until a swap reports its own fee (a static pool's fee is its key's).
      lastSwapFee: p.fee === V4_DYNAMIC_FEE_FLAG ? lpFee : null,
      updatedBlock: reader.block,
    });
    for (const t of ticksOf[i] ?? []) {
      const info = tickWords[at++] ?? 0n;
      const liquidityGross = info & U128;
      if (liquidityGross === 0n) continue;
      tickRows.push({
        chainId,
        poolId: p.poolId,
        tick: t,
        liquidityGross,
        liquidityNet: toSigned(info >> 128n, 128n),
        updatedBlock: reader.block,
      });
    }
    seed.push({
      address: p.poolId,
      protocolSlug: "uniswap-v4",
      token0: p.token0,
      token1: p.token1,
      fee: p.fee === V4_DYNAMIC_FEE_FLAG ? 0 : p.fee,
      createdBlock: p.createdBlock,
      // The manager holds every pool's tokens together: a pool's own holdings are not read.
      balance0: 0n,
      balance1: 0n,
      price: sqrtPriceRatio(sqrtPriceX96),
    });
  }
  if (poolRows.length > 0) await context.db.insert(v4Pool).values(poolRows);
  if (tickRows.length > 0) await context.db.insert(v4Tick).values(tickRows);
  await releaseIndexingCache(context);
  return seed;
}
