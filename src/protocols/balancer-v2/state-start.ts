/**
 * Balancer V2 in a state start: the pools the known factories created before the start, found
 * from the factories' `PoolCreated` logs and read at the end of the block before it, each as
 * its creation and the vault's and its own events would have left its row.
 */
import type { Context } from "ponder:registry";
import { balancerV2Pool } from "ponder:schema";
import { type Address, getAbiItem, toHex } from "viem";
import { BalancerV2WeightedPoolFactoryAbi } from "../../../abis/BalancerV2WeightedPoolFactory.js";
import type { ChainSetup } from "../../../engine/index.js";
import { creationLogs, lowercase } from "../../state-start/discover.js";
import { inGroups } from "../../state-start/groups.js";
import {
  coalescedReads,
  StateCallFailedError,
  type StateReader,
  stateReadError,
} from "../../state-start/reads.js";
import { releaseIndexingCache } from "../../state-start/release.js";
import { ensureTokens } from "../../tokens/tokens.js";
import { forgetRatePools } from "./rate-pools.js";
import {
  AMP_DATA_SLOT,
  ampUpdateOfStorage,
  type BalancerV2PoolType,
  poolRow,
  poolTokens,
  readDynamic,
  readStatic,
  steadyAmp,
} from "./state.js";

// Both factories' `PoolCreated` (`BasePoolFactory`).
const poolCreated = getAbiItem({ abi: BalancerV2WeightedPoolFactoryAbi, name: "PoolCreated" });

/**
 * Calls one pool's read makes, for the groups' sizes: 8 for a weighted pool, 11 and 2 to 4 a
 * token for a composable stable one.
 */
const CALLS_PER_POOL = 16;

/**
 * How many of the cheapest calls (a storage read) one of a pool's costs in a request: pools'
 * views compute (a weighted pool's `getActualSupply` its invariant, a stable pool's its
 * invariant and rates, a rate provider's `getRate` whatever its token does), up to tens of
 * thousands of gas each, so a request holds a tenth of `STATE_READ_BATCH` of them.
 */
const CALL_WEIGHT = 10;

type PoolCreated = {
  address: Address;
  factory: Address;
  poolType: BalancerV2PoolType;
  createdBlock: bigint;
};

/** Each pool the state start read: when it was created, and the tokens it holds. */
export type BalancerV2Seed = { createdBlock: bigint; tokens: Address[] }[];

/**
 * Every pool the known factories created from the vault's deployment to the reader's block,
 * read at the end of that block (`readStatic` and `readDynamic`, every pool's calls of a group
 * batched, `coalescedReads`; a stable pool's amp update from its storage), group by group: its
 * row and its tokens written, its BPT a position in them. A pool whose calls revert then is left
 * out, with a line in the log.
 */
export async function readBalancerV2State(
  context: Context,
  reader: StateReader,
  where: NonNullable<ChainSetup["balancerV2"]>,
): Promise<BalancerV2Seed> {
  const factories = [
    ...where.weightedPoolFactories.map((f) => ({ factory: f, poolType: "weighted" as const })),
    ...where.composableStablePoolFactories.map((f) => ({
      factory: f,
      poolType: "composable-stable" as const,
    })),
  ];
  const found = await Promise.all(
    factories.map(async ({ factory, poolType }) =>
      (
        await creationLogs(context, {
          address: factory,
          event: poolCreated,
          fromBlock: BigInt(where.startBlock),
          toBlock: reader.block,
        })
      ).map(
        (log): PoolCreated => ({
          address: lowercase(log.args.pool),
          factory: lowercase(log.address),
          poolType,
          createdBlock: log.blockNumber,
        }),
      ),
    ),
  );
  // In creation order, as a replay meets them.
  const pools = found.flat().sort((a, b) => Number(a.createdBlock - b.createdBlock));
  return await inGroups(
    pools,
    () => CALLS_PER_POOL,
    (group) => readPools(context, reader, group),
  );
}

/** One group of pools: their state read, their rows and tokens written. */
async function readPools(
  context: Context,
  reader: StateReader,
  pools: readonly PoolCreated[],
): Promise<BalancerV2Seed> {
  const chainId = context.chain.id;
  const read = coalescedReads(reader, { weight: CALL_WEIGHT });
  const [states, ampUpdates] = await Promise.all([
    Promise.all(
      pools.map(async ({ address, poolType }) => {
        try {
          const fixed = await readStatic(read, address, poolType);
          const dynamic = await readDynamic(read, { address, poolType, ...fixed });
          return { fixed, dynamic };
        } catch (error) {
          if (!(error instanceof StateCallFailedError)) throw error;
          console.warn(
            `Chain ${chainId}: Balancer V2 pool ${address} is left out of the state start: ${error.message}.`,
          );
          return undefined;
        }
      }),
    ),
    Promise.all(
      pools.map((p) =>
        p.poolType === "composable-stable"
          ? readAmpUpdate(context, p.address, reader.block)
          : undefined,
      ),
    ),
  ]);
  const seed: BalancerV2Seed = [];
  const rows = pools.flatMap((pool, i) => {
    const state = states[i];
    if (state === undefined) return [];
    const { fixed, dynamic } = state;
    const tokens = poolTokens(pool.address, fixed, pool.createdBlock);
    seed.push({
      createdBlock: pool.createdBlock,
      tokens: tokens.flatMap((t) => (t.position ? [] : [t.address])),
    });
    return [
      {
        tokens,
        row: poolRow({
          chainId,
          ...pool,
          fixed,
          dynamic,
          balances: fixed.balances,
          ampUpdate: ampUpdates[i] ?? steadyAmp(dynamic.amp),
          updatedBlock: reader.block,
        }),
      },
    ];
  });
  // BPTs first: a BPT another pool of the group holds is a position, as its own pool's
  // creation, which came first, made it.
  const tokens = rows.flatMap((r) => r.tokens);
  await ensureTokens(
    context,
    [...tokens.filter((t) => t.position), ...tokens.filter((t) => !t.position)],
    reader.block,
  );
  if (rows.length > 0) await context.db.insert(balancerV2Pool).values(rows.map((r) => r.row));
  forgetRatePools(chainId);
  await releaseIndexingCache(context);
  return seed;
}

/** A stable pool's amp update at the end of `block`, from its storage (`AMP_DATA_SLOT`). */
async function readAmpUpdate(context: Context, pool: Address, block: bigint) {
  try {
    const word = await context.client.getStorageAt({
      address: pool,
      slot: toHex(AMP_DATA_SLOT),
      blockNumber: block,
    });
    return ampUpdateOfStorage(word ?? "0x0");
  } catch (error) {
    throw stateReadError(context.chain, block, error);
  }
}
