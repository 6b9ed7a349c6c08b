/**
 * What the pool and vault protocols' handlers call to keep the history tables
 * (src/analytics/tables.ts): no RPC reads, only rows Ponder keeps in its indexing cache. Every
 * row is an `onchainTable` row: a reorg reverts it with the blocks that wrote it.
 *
 * A pool event reads three rows and writes seven or eight through Ponder's store, which copies
 * and normalizes every column a write passes, and answers `find` with a copy-on-write proxy of
 * the row (slow to spread, and copied whole by its first write). So each write passes only the
 * columns that change, and rows read are read field by field, never spread or written to: this
 * made a pool event's handler about a third cheaper than writing whole rows from spread copies.
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

/** The columns every event row starts with: the chain, and where the event stands in it. */
function eventColumns(context: Context, event: EventMeta) {
  return {
    chainId: context.chain.id,
    txHash: event.transaction.hash,
    logIndex: event.log.logIndex,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  };
}

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

/** What a new pool's market row holds: its identity, and no volume or swap yet. */
type NewPool = {
  address: Address;
  protocolSlug: string;
  token0: Address;
  token1: Address;
  fee: number;
};

/**
 * A new pool's market row, with its holdings and price as of `updatedBlock` (none at its
 * creation; what a state start reads, before it).
 */
function newPoolMarketRow(
  chainId: number,
  pool: NewPool,
  decimals: { decimals0: number | null; decimals1: number | null },
  state: { balance0: bigint; balance1: bigint; price: bigint },
  blocks: { createdBlock: bigint; updatedBlock: bigint },
): PoolRow {
  return {
    chainId,
    address: pool.address,
    protocolSlug: pool.protocolSlug,
    token0: pool.token0,
    token1: pool.token1,
    ...decimals,
    fee: pool.fee,
    ...state,
    volumeToken0: 0n,
    volumeToken1: 0n,
    volumeUsd: 0n,
    feesUsd: 0n,
    swapCount: 0,
    ...blocks,
  };
}

/** Adds a pool to the history tables when it is created (its tokens already in the catalogue). */
export async function registerPool(
  context: Context,
  params: NewPool & { block: bigint },
): Promise<void> {
  const chainId = context.chain.id;
  const [t0, t1] = await Promise.all([
    context.db.find(token, { chainId, address: params.token0 }),
    context.db.find(token, { chainId, address: params.token1 }),
  ]);
  await context.db
    .insert(poolMarket)
    .values(
      newPoolMarketRow(
        chainId,
        params,
        { decimals0: t0?.decimals ?? null, decimals1: t1?.decimals ?? null },
        { balance0: 0n, balance1: 0n, price: 0n },
        { createdBlock: params.block, updatedBlock: params.block },
      ),
    )
    .onConflictDoNothing();
}

/**
 * The pools read at a state start, in one write: each pool's market row with its holdings and
 * price then, and each token's value locked grown by what its pools hold (what the events before
 * the start would have added). No history row: the history tables begin at the start.
 */
export async function seedPoolMarkets(
  context: Context,
  pools: readonly (NewPool & {
    createdBlock: bigint;
    balance0: bigint;
    balance1: bigint;
    price: { numerator: bigint; denominator: bigint };
  })[],
  block: bigint,
): Promise<void> {
  const chainId = context.chain.id;
  const decimals = new Map<Address, number | null>();
  const held = new Map<Address, bigint>();
  for (const pool of pools) {
    for (const [address, amount] of [
      [pool.token0, pool.balance0],
      [pool.token1, pool.balance1],
    ] as const) {
      if (!decimals.has(address)) {
        decimals.set(
          address,
          (await context.db.find(token, { chainId, address }))?.decimals ?? null,
        );
      }
      if (amount !== 0n) held.set(address, (held.get(address) ?? 0n) + amount);
    }
  }
  if (pools.length > 0) {
    await context.db.insert(poolMarket).values(
      pools.map((pool) =>
        newPoolMarketRow(
          chainId,
          pool,
          {
            decimals0: decimals.get(pool.token0) ?? null,
            decimals1: decimals.get(pool.token1) ?? null,
          },
          {
            balance0: pool.balance0,
            balance1: pool.balance1,
            price: priceX128Of(pool.price.numerator, pool.price.denominator),
          },
          { createdBlock: pool.createdBlock, updatedBlock: block },
        ),
      ),
    );
  }
  for (const [address, amount] of held) {
    const market = await readTokenMarket(context, address);
    market.after.totalValueLocked += amount;
    await writeTokenMarket(context, market, block);
  }
}

/** The columns of a token's market row that pool events change. */
type TokenMarketState = Pick<
  TokenRow,
  "priceUsd" | "pricedBy" | "totalValueLocked" | "volume" | "volumeUsd"
>;

/** A token's market state before an event and after it, and whether its row exists yet. */
type TokenMarketChange = {
  address: Address;
  exists: boolean;
  before: TokenMarketState;
  after: TokenMarketState;
};

/** A token's market state as its row holds it, or as a new row starts (not yet written). */
async function readTokenMarket(context: Context, address: Address): Promise<TokenMarketChange> {
  const chainId = context.chain.id;
  const row = await context.db.find(tokenMarket, { chainId, address });
  const stable = anchorsByChain.get(chainId)?.stablecoins.has(address.toLowerCase()) ?? false;
  const before: TokenMarketState = row
    ? {
        priceUsd: row.priceUsd,
        pricedBy: row.pricedBy,
        totalValueLocked: row.totalValueLocked,
        volume: row.volume,
        volumeUsd: row.volumeUsd,
      }
    : {
        priceUsd: stable ? USD : null,
        pricedBy: null,
        totalValueLocked: 0n,
        volume: 0n,
        volumeUsd: 0n,
      };
  return { address, exists: row !== null, before, after: { ...before } };
}

/** Writes a token's market state after an event: the whole row when new, else what changed. */
async function writeTokenMarket(
  context: Context,
  token: TokenMarketChange,
  block: bigint,
): Promise<void> {
  const chainId = context.chain.id;
  if (!token.exists) {
    await context.db
      .insert(tokenMarket)
      .values({ chainId, address: token.address, ...token.after, updatedBlock: block });
    return;
  }
  await context.db
    .update(tokenMarket, { chainId, address: token.address })
    .set({ ...changedColumns(token.before, token.after), updatedBlock: block });
}

/** The columns of `after` whose values differ from `before` (what an update needs to pass). */
function changedColumns<T extends object>(before: T, after: T): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(after) as (keyof T)[]) {
    if (after[key] !== before[key]) changed[key] = after[key];
  }
  return changed;
}

const usdOrNull = (amount: bigint, price: bigint | null, decimals: number | null) =>
  price === null || decimals === null ? null : usdValue(amount, price, decimals);

export type PoolChange = {
  pool: Address;
  /** The pool's holdings after the event (V2 `Sync`), or what the event moved in (+) or out (−). */
  balances?: { balance0: bigint; balance1: bigint } | { delta0: bigint; delta1: bigint };
  /** The pool's price after the event, as an exact ratio token1/token0 (raw units). */
  price?: { numerator: bigint; denominator: bigint };
  swap?: {
    sender: Address;
    recipient: Address;
    amount0: bigint;
    amount1: bigint;
    /** The fee this swap paid, in millionths, when it is not the pool's own (a V4 swap's). */
    feePpm?: number;
  };
};

/** The columns of a pool's market row that pool events change. */
type PoolMarketState = Pick<
  PoolRow,
  | "balance0"
  | "balance1"
  | "price"
  | "volumeToken0"
  | "volumeToken1"
  | "volumeUsd"
  | "feesUsd"
  | "swapCount"
>;

/** A pool as its liquidity events are valued: its tokens' decimals and USD prices. */
export type PoolValuation = {
  pool: Pick<PoolRow, "address" | "protocolSlug" | "decimals0" | "decimals1">;
  price0: bigint | null;
  price1: bigint | null;
};

/** What a swap adds to the volume columns. */
type Volume = { token0: bigint; token1: bigint; usd: bigint; fees: bigint; swaps: number };
const NO_VOLUME: Volume = { token0: 0n, token1: 0n, usd: 0n, fees: 0n, swaps: 0 };

type PoolPeriodRow = typeof poolHour.$inferSelect;
type TokenDayRow = typeof tokenDay.$inferSelect;

/** The columns of a pool's existing hour or day row that an event at `price` changes. */
function poolPeriodUpdate(
  row: PoolPeriodRow,
  after: { price: bigint; tvlToken0: bigint; tvlToken1: bigint; tvlUsd: bigint; block: bigint },
  volume: Volume,
): Partial<PoolPeriodRow> {
  const { price } = after;
  const set: Partial<PoolPeriodRow> = {
    close: price,
    tvlToken0: after.tvlToken0,
    tvlToken1: after.tvlToken1,
    tvlUsd: after.tvlUsd,
    updatedBlock: after.block,
  };
  if (price > row.high) set.high = price;
  if (price < row.low) set.low = price;
  if (volume.swaps > 0) {
    set.volumeToken0 = row.volumeToken0 + volume.token0;
    set.volumeToken1 = row.volumeToken1 + volume.token1;
    set.volumeUsd = row.volumeUsd + volume.usd;
    set.feesUsd = row.feesUsd + volume.fees;
    set.swapCount = row.swapCount + volume.swaps;
  }
  return set;
}

/** The columns of a token's existing day row that an event at price `priceUsd` changes. */
function tokenDayUpdate(
  row: TokenDayRow,
  after: { priceUsd: bigint | null; totalValueLocked: bigint; tvlUsd: bigint; block: bigint },
  volume: { amount: bigint; usd: bigint; swaps: number },
): Partial<TokenDayRow> {
  const p = after.priceUsd;
  const set: Partial<TokenDayRow> = {
    totalValueLocked: after.totalValueLocked,
    tvlUsd: after.tvlUsd,
    updatedBlock: after.block,
  };
  if (volume.swaps > 0) {
    set.volume = row.volume + volume.amount;
    set.volumeUsd = row.volumeUsd + volume.usd;
    set.swapCount = row.swapCount + volume.swaps;
  }
  if (p !== null) {
    if (row.openUsd === null) set.openUsd = p;
    if (row.highUsd === null || row.highUsd < p) set.highUsd = p;
    if (row.lowUsd === null || row.lowUsd > p) set.lowUsd = p;
    set.closeUsd = p;
  }
  return set;
}

/**
 * Applies one pool event: the pool's holdings and price, the prices it sets (pricing.ts), the
 * swap row and volumes when it is a swap, then the pool's hour and day rows and both tokens' day
 * rows. USD values use the prices as they stand after the event's own pool update. Returns the
 * pool's valuation after the event (for a liquidity row of the same event), or undefined when
 * the pool is not registered.
 */
export async function recordPoolEvent(
  context: Context,
  event: EventMeta,
  change: PoolChange,
): Promise<PoolValuation | undefined> {
  const chainId = context.chain.id;
  const block = event.block.number;
  const row = await context.db.find(poolMarket, { chainId, address: change.pool });
  if (!row) return undefined;
  const pool = {
    address: row.address,
    protocolSlug: row.protocolSlug,
    token0: row.token0,
    token1: row.token1,
    decimals0: row.decimals0,
    decimals1: row.decimals1,
    fee: row.fee,
  };
  const before: PoolMarketState = {
    balance0: row.balance0,
    balance1: row.balance1,
    price: row.price,
    volumeToken0: row.volumeToken0,
    volumeToken1: row.volumeToken1,
    volumeUsd: row.volumeUsd,
    feesUsd: row.feesUsd,
    swapCount: row.swapCount,
  };
  const after: PoolMarketState = { ...before };
  if (change.balances && "delta0" in change.balances) {
    after.balance0 += change.balances.delta0;
    after.balance1 += change.balances.delta1;
  } else if (change.balances) {
    after.balance0 = change.balances.balance0;
    after.balance1 = change.balances.balance1;
  }
  if (change.price) after.price = priceX128Of(change.price.numerator, change.price.denominator);

  const [t0, t1] = await Promise.all([
    readTokenMarket(context, pool.token0),
    readTokenMarket(context, pool.token1),
  ]);
  t0.after.totalValueLocked += after.balance0 - before.balance0;
  t1.after.totalValueLocked += after.balance1 - before.balance1;
  const anchors = anchorsByChain.get(chainId) ?? NO_ANCHORS;
  const token0 = pool.token0.toLowerCase();
  const token1 = pool.token1.toLowerCase();
  const priced = priceFromPool(
    {
      token0,
      token1,
      decimals0: pool.decimals0,
      decimals1: pool.decimals1,
      balance0: after.balance0,
      balance1: after.balance1,
      price: after.price,
    },
    anchors,
    (t) => (t === token0 ? t0.after.priceUsd : t1.after.priceUsd),
  );
  if (priced) {
    const target = priced.token === token0 ? t0 : t1;
    target.after.priceUsd = priced.priceUsd;
    target.after.pricedBy = pool.address;
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

  let volume = NO_VOLUME;
  if (change.swap) {
    const { amount0, amount1 } = change.swap;
    const abs0 = amount0 < 0n ? -amount0 : amount0;
    const abs1 = amount1 < 0n ? -amount1 : amount1;
    const usd = swapUsd(
      usdOrNull(abs0, t0.after.priceUsd, pool.decimals0),
      usdOrNull(abs1, t1.after.priceUsd, pool.decimals1),
    );
    volume = {
      token0: abs0,
      token1: abs1,
      usd,
      fees: (usd * BigInt(change.swap.feePpm ?? pool.fee)) / 1_000_000n,
      swaps: 1,
    };
    await context.db.insert(swap).values({
      ...eventColumns(context, event),
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
      price: after.price,
    });
    after.volumeToken0 += abs0;
    after.volumeToken1 += abs1;
    after.volumeUsd += volume.usd;
    after.feesUsd += volume.fees;
    after.swapCount += 1;
    t0.after.volume += abs0;
    t1.after.volume += abs1;
    t0.after.volumeUsd += volume.usd;
    t1.after.volumeUsd += volume.usd;
  }

  await context.db
    .update(poolMarket, { chainId, address: pool.address })
    .set({ ...changedColumns(before, after), updatedBlock: block });
  await writeTokenMarket(context, t0, block);
  await writeTokenMarket(context, t1, block);

  // What the pool's hour and day rows close at.
  const closing = {
    price: after.price,
    tvlToken0: after.balance0,
    tvlToken1: after.balance1,
    tvlUsd:
      (usdOrNull(after.balance0, t0.after.priceUsd, pool.decimals0) ?? 0n) +
      (usdOrNull(after.balance1, t1.after.priceUsd, pool.decimals1) ?? 0n),
    block,
  };
  const periods = periodStarts(event.block.timestamp);
  const price = after.price;
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
        tvlToken0: closing.tvlToken0,
        tvlToken1: closing.tvlToken1,
        tvlUsd: closing.tvlUsd,
        updatedBlock: block,
      })
      .onConflictDoUpdate((existing) => poolPeriodUpdate(existing, closing, volume));
  }
  await writeTokenDay(context, t0, pool.decimals0, periods.day, block, {
    amount: volume.token0,
    usd: volume.usd,
    swaps: volume.swaps,
  });
  await writeTokenDay(context, t1, pool.decimals1, periods.day, block, {
    amount: volume.token1,
    usd: volume.usd,
    swaps: volume.swaps,
  });
  return { pool, price0: t0.after.priceUsd, price1: t1.after.priceUsd };
}

/**
 * A token's day row after an event: what all pools hold of it and its price then, and the
 * event's volume (none for a liquidity change).
 */
async function writeTokenDay(
  context: Context,
  t: TokenMarketChange,
  decimals: number | null,
  periodStart: number,
  block: bigint,
  volume: { amount: bigint; usd: bigint; swaps: number },
): Promise<void> {
  const p = t.after.priceUsd;
  const day = {
    priceUsd: p,
    totalValueLocked: t.after.totalValueLocked,
    tvlUsd: usdOrNull(t.after.totalValueLocked, p, decimals) ?? 0n,
    block,
  };
  await context.db
    .insert(tokenDay)
    .values({
      chainId: context.chain.id,
      token: t.address,
      periodStart,
      volume: volume.amount,
      volumeUsd: volume.usd,
      swapCount: volume.swaps,
      totalValueLocked: day.totalValueLocked,
      tvlUsd: day.tvlUsd,
      openUsd: p,
      highUsd: p,
      lowUsd: p,
      closeUsd: p,
      updatedBlock: block,
    })
    .onConflictDoUpdate((existing) => tokenDayUpdate(existing, day, volume));
}

/** A pool's valuation as its rows stand (no event applied), or undefined when not registered. */
async function readPoolValuation(
  context: Context,
  address: Address,
): Promise<PoolValuation | undefined> {
  const row = await context.db.find(poolMarket, { chainId: context.chain.id, address });
  if (!row) return undefined;
  const [t0, t1] = await Promise.all([
    readTokenMarket(context, row.token0),
    readTokenMarket(context, row.token1),
  ]);
  return {
    pool: {
      address: row.address,
      protocolSlug: row.protocolSlug,
      decimals0: row.decimals0,
      decimals1: row.decimals1,
    },
    price0: t0.before.priceUsd,
    price1: t1.before.priceUsd,
  };
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
    /** The pool's valuation when the same event has just updated it (`recordPoolEvent`'s). */
    valuation?: PoolValuation;
  },
): Promise<void> {
  const valued = params.valuation ?? (await readPoolValuation(context, params.pool));
  if (!valued) return;
  const { pool, price0, price1 } = valued;
  await context.db.insert(liquidityEvent).values({
    ...eventColumns(context, event),
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
      (usdOrNull(params.amount0, price0, pool.decimals0) ?? 0n) +
      (usdOrNull(params.amount1, price1, pool.decimals1) ?? 0n),
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
  const [assetToken, market] = await Promise.all([
    context.db.find(token, { chainId, address: params.asset }),
    readTokenMarket(context, params.asset),
  ]);
  await context.db.insert(vaultEvent).values({
    ...eventColumns(context, event),
    vault: params.vault,
    asset: params.asset,
    kind: params.kind,
    sender: params.sender,
    owner: params.owner,
    receiver: params.receiver ?? null,
    assets: params.assets,
    shares: params.shares,
    assetsUsd: usdOrNull(params.assets, market.before.priceUsd, assetToken?.decimals ?? null),
  });
}

/**
 * A swap through a pool the two-token tables do not hold (a Balancer V2 pool, which may hold
 * more than two tokens): its `swap` row, its two tokens ordered by address as a pool's are, and
 * their volume in `token_market` and `token_day`, valued at their prices as they stand (such a
 * pool sets no price). Its price is the swap's own: what it exchanged of token1 per token0,
 * fees included. No pool row is written (`pool_market`, `pool_hour` and `pool_day` are of
 * two-token pools), and what the pool holds is not counted in the tokens' value locked.
 */
export async function recordMultiTokenSwap(
  context: Context,
  event: EventMeta,
  swapped: {
    pool: Address;
    protocolSlug: string;
    tokenIn: Address;
    tokenOut: Address;
    amountIn: bigint;
    amountOut: bigint;
    /** The pool's swap fee, in millionths of the input. */
    feePpm: number;
    /** Who sent the transaction: the pool's event names neither sender nor recipient. */
    account: Address;
  },
): Promise<void> {
  const chainId = context.chain.id;
  const block = event.block.number;
  const inFirst = swapped.tokenIn.toLowerCase() < swapped.tokenOut.toLowerCase();
  const [token0, token1] = inFirst
    ? [swapped.tokenIn, swapped.tokenOut]
    : [swapped.tokenOut, swapped.tokenIn];
  const [amount0, amount1] = inFirst
    ? [swapped.amountIn, -swapped.amountOut]
    : [-swapped.amountOut, swapped.amountIn];
  const [abs0, abs1] = inFirst
    ? [swapped.amountIn, swapped.amountOut]
    : [swapped.amountOut, swapped.amountIn];
  const [t0, t1, c0, c1] = await Promise.all([
    readTokenMarket(context, token0),
    readTokenMarket(context, token1),
    context.db.find(token, { chainId, address: token0 }),
    context.db.find(token, { chainId, address: token1 }),
  ]);
  const decimals0 = c0?.decimals ?? null;
  const decimals1 = c1?.decimals ?? null;
  const usd = swapUsd(
    usdOrNull(abs0, t0.after.priceUsd, decimals0),
    usdOrNull(abs1, t1.after.priceUsd, decimals1),
  );
  const fees = (usd * BigInt(swapped.feePpm)) / 1_000_000n;
  await context.db.insert(swap).values({
    ...eventColumns(context, event),
    protocolSlug: swapped.protocolSlug,
    pool: swapped.pool,
    token0,
    token1,
    sender: swapped.account,
    recipient: swapped.account,
    amount0,
    amount1,
    amountUsd: usd,
    feesUsd: fees,
    price: priceX128Of(abs1, abs0),
  });
  const periodStart = periodStarts(event.block.timestamp).day;
  for (const [t, decimals, amount] of [
    [t0, decimals0, abs0],
    [t1, decimals1, abs1],
  ] as const) {
    t.after.volume += amount;
    t.after.volumeUsd += usd;
    await writeTokenMarket(context, t, block);
    await writeTokenDay(context, t, decimals, periodStart, block, { amount, usd, swaps: 1 });
  }
}
