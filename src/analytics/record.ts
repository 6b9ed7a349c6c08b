/**
 * What the pool and vault protocols' handlers call to keep the history tables
 * (src/analytics/tables.ts): no RPC reads, only rows Ponder keeps in its indexing cache, so each
 * event costs a few in-memory lookups and writes. Every row is an `onchainTable` row: a reorg
 * reverts it with the blocks that wrote it.
 */
import type { Context } from "ponder:registry";
import {
  liquidityEvent,
  nativePrice,
  poolDay,
  poolHour,
  poolMarket,
  swap,
  token,
  tokenDay,
  tokenMarket,
  vaultEvent,
} from "ponder:schema";
import type { Address, Hex } from "viem";
import { indexedChains } from "../../chains.js";
import {
  type PricingAnchors,
  periodStarts,
  priceFromPool,
  priceX128Of,
  swapUsd,
  USD,
  usdValue,
} from "./pricing.js";

/** The parts of a Ponder event the history rows record. */
export type EventMeta = {
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: Hex };
  log: { logIndex: number };
};

/** Each chain's USD anchors (lowercase addresses), from chains.ts. */
const anchorsByChain = new Map<number, PricingAnchors>(
  indexedChains().map((c) => [
    c.id,
    {
      weth: c.weth?.toLowerCase(),
      stablecoins: new Set(c.stablecoins.map((s) => s.toLowerCase())),
    },
  ]),
);
const NO_ANCHORS: PricingAnchors = { weth: undefined, stablecoins: new Set() };

type PoolRow = typeof poolMarket.$inferSelect;
type TokenRow = typeof tokenMarket.$inferSelect;

/** Adds a pool to the history tables when it is created (its tokens already in the catalogue). */
export async function registerPool(
  context: Context,
  params: {
    address: Address;
    protocolSlug: string;
    token0: Address;
    token1: Address;
    fee: number;
    block: bigint;
  },
): Promise<void> {
  const chainId = context.chain.id;
  const [t0, t1] = await Promise.all([
    context.db.find(token, { chainId, address: params.token0 }),
    context.db.find(token, { chainId, address: params.token1 }),
  ]);
  await context.db
    .insert(poolMarket)
    .values({
      chainId,
      address: params.address,
      protocolSlug: params.protocolSlug,
      token0: params.token0,
      token1: params.token1,
      decimals0: t0?.decimals ?? null,
      decimals1: t1?.decimals ?? null,
      fee: params.fee,
      balance0: 0n,
      balance1: 0n,
      price: 0n,
      volumeToken0: 0n,
      volumeToken1: 0n,
      volumeUsd: 0n,
      feesUsd: 0n,
      swapCount: 0,
      createdBlock: params.block,
      updatedBlock: params.block,
    })
    .onConflictDoNothing();
}

/** A token's row, or the empty one it starts as (not yet written). */
async function tokenRow(context: Context, address: Address, block: bigint): Promise<TokenRow> {
  const chainId = context.chain.id;
  const found = await context.db.find(tokenMarket, { chainId, address });
  if (found) return found;
  const stable = anchorsByChain.get(chainId)?.stablecoins.has(address.toLowerCase()) ?? false;
  return {
    chainId,
    address,
    priceUsd: stable ? USD : null,
    pricedBy: null,
    totalValueLocked: 0n,
    volume: 0n,
    volumeUsd: 0n,
    updatedBlock: block,
  };
}

const usdOrNull = (amount: bigint, price: bigint | null, decimals: number | null) =>
  price === null || decimals === null ? null : usdValue(amount, price, decimals);

export type PoolChange = {
  pool: Address;
  /** The pool's holdings after the event (V2 `Sync`), or what the event moved in (+) or out (−). */
  balances?: { balance0: bigint; balance1: bigint } | { delta0: bigint; delta1: bigint };
  /** The pool's price after the event, as an exact ratio token1/token0 (raw units). */
  price?: { numerator: bigint; denominator: bigint };
  swap?: { sender: Address; recipient: Address; amount0: bigint; amount1: bigint };
};

/**
 * Applies one pool event: the pool's holdings and price, the prices it sets (pricing.ts), the
 * swap row and volumes when it is a swap, then the pool's hour and day rows and both tokens' day
 * rows. USD values use the prices as they stand after the event's own pool update.
 */
export async function recordPoolEvent(
  context: Context,
  event: EventMeta,
  change: PoolChange,
): Promise<void> {
  const chainId = context.chain.id;
  const block = event.block.number;
  const before = await context.db.find(poolMarket, { chainId, address: change.pool });
  if (!before) return;
  const pool: PoolRow = { ...before, updatedBlock: block };
  if (change.balances && "delta0" in change.balances) {
    pool.balance0 += change.balances.delta0;
    pool.balance1 += change.balances.delta1;
  } else if (change.balances) {
    pool.balance0 = change.balances.balance0;
    pool.balance1 = change.balances.balance1;
  }
  if (change.price) pool.price = priceX128Of(change.price.numerator, change.price.denominator);

  const [t0, t1] = await Promise.all([
    tokenRow(context, pool.token0, block),
    tokenRow(context, pool.token1, block),
  ]);
  t0.totalValueLocked += pool.balance0 - before.balance0;
  t1.totalValueLocked += pool.balance1 - before.balance1;
  const anchors = anchorsByChain.get(chainId) ?? NO_ANCHORS;
  const priced = priceFromPool(
    {
      ...pool,
      token0: pool.token0.toLowerCase(),
      token1: pool.token1.toLowerCase(),
    },
    anchors,
    (t) => (t === pool.token0.toLowerCase() ? t0.priceUsd : t1.priceUsd),
  );
  if (priced) {
    const target = priced.token === pool.token0.toLowerCase() ? t0 : t1;
    target.priceUsd = priced.priceUsd;
    target.pricedBy = pool.address;
    if (priced.token === anchors.weth) {
      await context.db
        .insert(nativePrice)
        .values({ chainId, priceUsd: priced.priceUsd, pricedBy: pool.address, updatedBlock: block })
        .onConflictDoUpdate({
          priceUsd: priced.priceUsd,
          pricedBy: pool.address,
          updatedBlock: block,
        });
    }
  }

  let volume = { token0: 0n, token1: 0n, usd: 0n, fees: 0n, swaps: 0 };
  if (change.swap) {
    const { amount0, amount1 } = change.swap;
    const abs0 = amount0 < 0n ? -amount0 : amount0;
    const abs1 = amount1 < 0n ? -amount1 : amount1;
    const usd = swapUsd(
      usdOrNull(abs0, t0.priceUsd, pool.decimals0),
      usdOrNull(abs1, t1.priceUsd, pool.decimals1),
    );
    volume = {
      token0: abs0,
      token1: abs1,
      usd,
      fees: (usd * BigInt(pool.fee)) / 1_000_000n,
      swaps: 1,
    };
    await context.db.insert(swap).values({
      chainId,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: block,
      timestamp: event.block.timestamp,
      protocolSlug: pool.protocolSlug,
      pool: pool.address,
      token0: pool.token0,
      token1: pool.token1,
      sender: change.swap.sender,
      recipient: change.swap.recipient,
      amount0,
      amount1,
      amountUsd: volume.usd,
      feesUsd: volume.fees,
      price: pool.price,
    });
    pool.volumeToken0 += abs0;
    pool.volumeToken1 += abs1;
    pool.volumeUsd += volume.usd;
    pool.feesUsd += volume.fees;
    pool.swapCount += 1;
    t0.volume += abs0;
    t1.volume += abs1;
    t0.volumeUsd += volume.usd;
    t1.volumeUsd += volume.usd;
  }

  const { chainId: _c, address: _a, ...poolFields } = pool;
  await context.db.update(poolMarket, { chainId, address: pool.address }).set(poolFields);
  for (const t of [t0, t1]) {
    t.updatedBlock = block;
    const { chainId: _tc, address: _ta, ...fields } = t;
    await context.db.insert(tokenMarket).values(t).onConflictDoUpdate(fields);
  }

  const tvlUsd =
    (usdOrNull(pool.balance0, t0.priceUsd, pool.decimals0) ?? 0n) +
    (usdOrNull(pool.balance1, t1.priceUsd, pool.decimals1) ?? 0n);
  const periods = periodStarts(event.block.timestamp);
  const price = pool.price;
  for (const [table, periodStart] of [
    [poolHour, periods.hour],
    [poolDay, periods.day],
  ] as const) {
    await context.db
      .insert(table)
      .values({
        chainId,
        pool: pool.address,
        periodStart,
        protocolSlug: pool.protocolSlug,
        token0: pool.token0,
        token1: pool.token1,
        open: price,
        high: price,
        low: price,
        close: price,
        volumeToken0: volume.token0,
        volumeToken1: volume.token1,
        volumeUsd: volume.usd,
        feesUsd: volume.fees,
        swapCount: volume.swaps,
        tvlToken0: pool.balance0,
        tvlToken1: pool.balance1,
        tvlUsd,
        updatedBlock: block,
      })
      .onConflictDoUpdate((row) => ({
        high: price > row.high ? price : row.high,
        low: price < row.low ? price : row.low,
        close: price,
        volumeToken0: row.volumeToken0 + volume.token0,
        volumeToken1: row.volumeToken1 + volume.token1,
        volumeUsd: row.volumeUsd + volume.usd,
        feesUsd: row.feesUsd + volume.fees,
        swapCount: row.swapCount + volume.swaps,
        tvlToken0: pool.balance0,
        tvlToken1: pool.balance1,
        tvlUsd,
        updatedBlock: block,
      }));
  }
  for (const [t, decimals, amount] of [
    [t0, pool.decimals0, volume.token0],
    [t1, pool.decimals1, volume.token1],
  ] as const) {
    const p = t.priceUsd;
    const tvl = t.totalValueLocked;
    const tokenTvlUsd = usdOrNull(tvl, p, decimals) ?? 0n;
    await context.db
      .insert(tokenDay)
      .values({
        chainId,
        token: t.address,
        periodStart: periods.day,
        volume: amount,
        volumeUsd: volume.usd,
        swapCount: volume.swaps,
        totalValueLocked: tvl,
        tvlUsd: tokenTvlUsd,
        openUsd: p,
        highUsd: p,
        lowUsd: p,
        closeUsd: p,
        updatedBlock: block,
      })
      .onConflictDoUpdate((row) => ({
        volume: row.volume + amount,
        volumeUsd: row.volumeUsd + volume.usd,
        swapCount: row.swapCount + volume.swaps,
        totalValueLocked: tvl,
        tvlUsd: tokenTvlUsd,
        openUsd: row.openUsd ?? p,
        highUsd: p === null || (row.highUsd !== null && row.highUsd >= p) ? row.highUsd : p,
        lowUsd: p === null || (row.lowUsd !== null && row.lowUsd <= p) ? row.lowUsd : p,
        closeUsd: p ?? row.closeUsd,
        updatedBlock: block,
      }));
  }
}

/** One liquidity change's row, both amounts valued at the pool's tokens' current prices. */
export async function recordLiquidityEvent(
  context: Context,
  event: EventMeta,
  params: {
    pool: Address;
    kind: "mint" | "burn" | "collect";
    sender: Address;
    owner?: Address;
    recipient?: Address;
    amount0: bigint;
    amount1: bigint;
    liquidity?: bigint;
    tickLower?: number;
    tickUpper?: number;
  },
): Promise<void> {
  const chainId = context.chain.id;
  const block = event.block.number;
  const pool = await context.db.find(poolMarket, { chainId, address: params.pool });
  if (!pool) return;
  const [t0, t1] = await Promise.all([
    tokenRow(context, pool.token0, block),
    tokenRow(context, pool.token1, block),
  ]);
  await context.db.insert(liquidityEvent).values({
    chainId,
    txHash: event.transaction.hash,
    logIndex: event.log.logIndex,
    blockNumber: block,
    timestamp: event.block.timestamp,
    protocolSlug: pool.protocolSlug,
    pool: pool.address,
    kind: params.kind,
    sender: params.sender,
    owner: params.owner ?? null,
    recipient: params.recipient ?? null,
    amount0: params.amount0,
    amount1: params.amount1,
    liquidity: params.liquidity ?? null,
    tickLower: params.tickLower ?? null,
    tickUpper: params.tickUpper ?? null,
    amountUsd:
      (usdOrNull(params.amount0, t0.priceUsd, pool.decimals0) ?? 0n) +
      (usdOrNull(params.amount1, t1.priceUsd, pool.decimals1) ?? 0n),
  });
}

/** One vault `Deposit` or `Withdraw`, its assets valued at the asset's current price. */
export async function recordVaultEvent(
  context: Context,
  event: EventMeta,
  params: {
    vault: Address;
    asset: Address;
    kind: "deposit" | "withdraw";
    sender: Address;
    owner: Address;
    receiver?: Address;
    assets: bigint;
    shares: bigint;
  },
): Promise<void> {
  const chainId = context.chain.id;
  const block = event.block.number;
  const [assetToken, market] = await Promise.all([
    context.db.find(token, { chainId, address: params.asset }),
    tokenRow(context, params.asset, block),
  ]);
  await context.db.insert(vaultEvent).values({
    chainId,
    txHash: event.transaction.hash,
    logIndex: event.log.logIndex,
    blockNumber: block,
    timestamp: event.block.timestamp,
    vault: params.vault,
    asset: params.asset,
    kind: params.kind,
    sender: params.sender,
    owner: params.owner,
    receiver: params.receiver ?? null,
    assets: params.assets,
    shares: params.shares,
    assetsUsd: usdOrNull(params.assets, market.priceUsd, assetToken?.decimals ?? null),
  });
}
