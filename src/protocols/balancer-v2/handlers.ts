/**
 * Balancer V2 pools of the known factories: created by the factories' `PoolCreated` (a pool
 * another factory registers in the vault is never inserted, so its vault events find no row and
 * are skipped), balances from the vault's `Swap`, `PoolBalanceChanged` and `PoolBalanceManaged`,
 * swap fees and amp updates from the pools' own events, and everything else the math needs read
 * at the block of the event that changes it (supply, rate caches, protocol-fee state). Rates
 * move without events: `BalancerV2RateRefresh` reads the pools with rate providers again.
 */
import { type Context, ponder } from "ponder:registry";
import { balancerV2Pool } from "ponder:schema";
import { type Address, type Hex, slice } from "viem";
import { recordMultiTokenSwap } from "../../analytics/record.js";
import { coalescedReads, readsAt, stateReader } from "../../state-start/reads.js";
import { ensureTokens } from "../../tokens/tokens.js";
import { poolsWithRates, rememberRatePool } from "./rate-pools.js";
import {
  type BalancerV2Dynamic,
  type BalancerV2PoolType,
  hasRateProviders,
  poolRow,
  poolTokens,
  readDynamic,
  readStatic,
  steadyAmp,
} from "./state.js";

type PoolRow = typeof balancerV2Pool.$inferSelect;

const lower = (address: Address) => address.toLowerCase() as Address;

/** A pool's address from its vault id: the id's first 20 bytes (`PoolRegistry._toPoolId`). */
function poolAddress(poolId: Hex): Address {
  return slice(poolId, 0, 20).toLowerCase() as Address;
}

async function createPool(
  context: Context,
  event: { args: { pool: Address }; log: { address: Address }; block: { number: bigint } },
  poolType: BalancerV2PoolType,
): Promise<void> {
  const address = lower(event.args.pool);
  const block = event.block.number;
  const read = readsAt(context, block);
  const fixed = await readStatic(read, address, poolType);
  const dynamic = await readDynamic(read, {
    address,
    poolType,
    tokens: fixed.tokens,
    rateProviders: fixed.rateProviders,
  });
  await ensureTokens(context, poolTokens(address, fixed), block);
  await context.db
    .insert(balancerV2Pool)
    .values(
      poolRow({
        chainId: context.chain.id,
        address,
        factory: lower(event.log.address),
        poolType,
        fixed,
        dynamic,
        // A pool is created empty: its first join is a `PoolBalanceChanged` of its own.
        balances: fixed.tokens.map(() => 0n),
        // No amp update is under way at creation: the amp stays where it is.
        ampUpdate: steadyAmp(dynamic.amp),
        createdBlock: block,
        updatedBlock: block,
      }),
    )
    .onConflictDoNothing();
  // Once the refresh's list is read, the pools created after it join it here.
  if (hasRateProviders(fixed)) rememberRatePool(context.chain.id, address);
}

/** Whether a pool's row already holds what a refresh read. */
function sameDynamic(row: PoolRow, dynamic: BalancerV2Dynamic): boolean {
  return Object.entries(dynamic).every(([key, value]) => {
    const held = row[key as keyof BalancerV2Dynamic];
    if (!Array.isArray(value)) return held === value;
    return (
      Array.isArray(held) && held.length === value.length && held.every((v, i) => v === value[i])
    );
  });
}

ponder.on("BalancerV2WeightedPoolFactory:PoolCreated", async ({ event, context }) => {
  await createPool(context, event, "weighted");
});

ponder.on("BalancerV2ComposableStablePoolFactory:PoolCreated", async ({ event, context }) => {
  await createPool(context, event, "composable-stable");
});

/**
 * Adds `deltas` (by token, lowercase) to an indexed pool's balances and, for what the change
 * moves beyond them (a stable pool's supply and rate caches on every swap; any pool's supply on
 * a join or exit), reads the pool at the event's block. Skips a pool no known factory created.
 * @returns the pool's row as it stood before, or undefined when the pool is not indexed.
 */
async function applyBalances(
  context: Context,
  poolId: Hex,
  deltas: ReadonlyMap<Address, bigint>,
  blockNumber: bigint,
  read: (row: PoolRow) => boolean,
): Promise<PoolRow | undefined> {
  const key = { chainId: context.chain.id, address: poolAddress(poolId) };
  const row = await context.db.find(balancerV2Pool, key);
  if (!row) return undefined;
  const balances = row.tokens.map(
    (token, i) => (row.balances[i] ?? 0n) + (deltas.get(token.toLowerCase() as Address) ?? 0n),
  );
  const dynamic = read(row) ? await readDynamic(readsAt(context, blockNumber), row) : {};
  await context.db
    .update(balancerV2Pool, key)
    .set({ balances, ...dynamic, updatedBlock: blockNumber });
  return row;
}

/** A swap fee of 18 decimals (1e18 = 100%) in millionths, rounded down. */
const feePpmOf = (swapFeePercentage: bigint) => Number(swapFeePercentage / 10n ** 12n);

ponder.on("BalancerV2Vault:Swap", async ({ event, context }) => {
  const { poolId, tokenIn, tokenOut, amountIn, amountOut } = event.args;
  const deltas = new Map([
    [lower(tokenIn), amountIn],
    [lower(tokenOut), -amountOut],
  ]);
  const row = await applyBalances(
    context,
    poolId,
    deltas,
    event.block.number,
    // A stable pool's rates and fee state, and the actual supply of a weighted pool that owes
    // its protocol a share of the swap's fee, move with the swap.
    (row) => row.poolType === "composable-stable" || row.protocolSwapFeePercentage > 0n,
  );
  if (!row) return;
  await recordMultiTokenSwap(context, event, {
    pool: row.address,
    protocolSlug: "balancer-v2",
    tokenIn: lower(tokenIn),
    tokenOut: lower(tokenOut),
    amountIn,
    amountOut,
    feePpm: feePpmOf(row.swapFeePercentage),
    account: lower(event.transaction.from),
  });
});

// A join's or exit's amounts less the protocol's swap fees the vault paid from them (zero for
// the 2023 pools, which pay the protocol in BPT).
ponder.on("BalancerV2Vault:PoolBalanceChanged", async ({ event, context }) => {
  const { poolId, tokens, deltas, protocolFeeAmounts } = event.args;
  const changes = new Map(
    tokens.map((token, i) => [lower(token), (deltas[i] ?? 0n) - (protocolFeeAmounts[i] ?? 0n)]),
  );
  await applyBalances(context, poolId, changes, event.block.number, () => true);
});

// An asset manager's move between cash and managed keeps the total; its gains and losses change it.
ponder.on("BalancerV2Vault:PoolBalanceManaged", async ({ event, context }) => {
  const { poolId, token, cashDelta, managedDelta } = event.args;
  const changes = new Map([[lower(token), cashDelta + managedDelta]]);
  await applyBalances(context, poolId, changes, event.block.number, () => false);
});

/** Sets fields of the pool that emitted an event, if it is indexed (its constructor's events come before its `PoolCreated`). */
async function updatePool(
  context: Context,
  address: Address,
  blockNumber: bigint,
  fields: (row: PoolRow) => Promise<Partial<PoolRow>> | Partial<PoolRow>,
): Promise<void> {
  const key = { chainId: context.chain.id, address: lower(address) };
  const row = await context.db.find(balancerV2Pool, key);
  if (!row) return;
  await context.db
    .update(balancerV2Pool, key)
    .set({ ...(await fields(row)), updatedBlock: blockNumber });
}

ponder.on("BalancerV2WeightedPool:SwapFeePercentageChanged", async ({ event, context }) => {
  const { swapFeePercentage } = event.args;
  await updatePool(context, event.log.address, event.block.number, () => ({ swapFeePercentage }));
});

ponder.on("BalancerV2ComposableStablePool:SwapFeePercentageChanged", async ({ event, context }) => {
  const { swapFeePercentage } = event.args;
  await updatePool(context, event.log.address, event.block.number, () => ({ swapFeePercentage }));
});

// The amp moves linearly in time from start to end (`_getAmplificationParameter`): the reader
// computes it at the graph's timestamp from these.
ponder.on("BalancerV2ComposableStablePool:AmpUpdateStarted", async ({ event, context }) => {
  const { startValue, endValue, startTime, endTime } = event.args;
  await updatePool(context, event.log.address, event.block.number, async (row) => ({
    ...(await readDynamic(readsAt(context, event.block.number), row)),
    ampStartValue: startValue,
    ampEndValue: endValue,
    ampStartTime: startTime,
    ampEndTime: endTime,
  }));
});

ponder.on("BalancerV2ComposableStablePool:AmpUpdateStopped", async ({ event, context }) => {
  const { currentValue } = event.args;
  await updatePool(context, event.log.address, event.block.number, async (row) => ({
    ...(await readDynamic(readsAt(context, event.block.number), row)),
    ...steadyAmp(currentValue),
  }));
});

// A rate cache refreshed outside a swap (`updateTokenRateCache`), a protocol fee re-read: the
// pool's state is read again.
for (const name of [
  "BalancerV2ComposableStablePool:TokenRateCacheUpdated",
  "BalancerV2ComposableStablePool:ProtocolFeePercentageCacheUpdated",
  "BalancerV2WeightedPool:ProtocolFeePercentageCacheUpdated",
] as const) {
  ponder.on(name, async ({ event, context }) => {
    await updatePool(context, event.log.address, event.block.number, (row) =>
      readDynamic(readsAt(context, event.block.number), row),
    );
  });
}

ponder.on("BalancerV2RateRefresh:block", async ({ event, context }) => {
  const chainId = context.chain.id;
  const rows: PoolRow[] = [];
  for (const address of await poolsWithRates(context)) {
    const row = await context.db.find(balancerV2Pool, { chainId, address });
    // A pool a reorg took out of the table.
    if (row) rows.push(row);
  }
  if (rows.length === 0) return;
  // Every pool's reads of one step go out in one request: a handful a block, not ten a pool.
  const read = coalescedReads(await stateReader(context, event.block.number));
  const dynamics = await Promise.all(rows.map((row) => readDynamic(read, row)));
  for (const [i, row] of rows.entries()) {
    const dynamic = dynamics[i] as BalancerV2Dynamic;
    // Unchanged rows are left as they are: the routing snapshot re-reads every row written.
    if (sameDynamic(row, dynamic)) continue;
    await context.db
      .update(balancerV2Pool, { chainId, address: row.address })
      .set({ ...dynamic, updatedBlock: event.block.number });
  }
});
