import { type Context, ponder } from "ponder:registry";
import { v3Pool, v3Tick } from "ponder:schema";
import type { Address } from "viem";
import { indexedChains } from "../../../chains.js";
import { sqrtPriceRatio } from "../../analytics/pricing.js";
import {
  type EventMeta,
  recordLiquidityEvent,
  recordPoolEvent,
  registerPool,
} from "../../analytics/record.js";
import { ensureNativeToken, ensureTokens } from "../../tokens/tokens.js";
import { tickAfterChange } from "../concentrated-liquidity.js";
import { type V3Factory, v3FactoriesOf } from "./factories.js";

/**
 * The handlers of the V3 family's two pool contracts (contracts.ts): `UniswapV3*` for Uniswap's
 * pool contract (Uniswap V3's and forks that deploy it unchanged), `PancakeV3*` for PancakeSwap's.
 * Both hold the same state and emit the same events but for `Swap`, whose PancakeSwap form adds
 * the protocol fees it took (already out of the amounts, not read here).
 */

/** Each chain's factories of the family, by lowercase address: looked up at every pool created. */
const factoriesByChain = new Map(
  indexedChains().map((c) => [
    c.id,
    new Map(v3FactoriesOf(c).map((f) => [f.factory.toLowerCase(), f])),
  ]),
);

/** The indexed factory at `address` on the context's chain (only those are listened to). */
function factoryOf(context: Context, address: Address): V3Factory {
  const factory = factoriesByChain.get(context.chain.id)?.get(address.toLowerCase());
  if (!factory) {
    throw new Error(`Chain ${context.chain.id}: ${address} is not a configured V3 factory.`);
  }
  return factory;
}

/** A pool event as both pool contracts' handlers receive it. */
type PoolEvent<Args> = EventMeta & { args: Args; log: { address: Address } };

type PoolCreatedArgs = {
  token0: Address;
  token1: Address;
  fee: number;
  tickSpacing: number;
  pool: Address;
};
type InitializeArgs = { sqrtPriceX96: bigint; tick: number };
type SwapArgs = {
  sender: Address;
  recipient: Address;
  amount0: bigint;
  amount1: bigint;
  sqrtPriceX96: bigint;
  liquidity: bigint;
  tick: number;
};
type Range = { tickLower: number; tickUpper: number };
type MintArgs = Range & {
  sender: Address;
  owner: Address;
  amount: bigint;
  amount0: bigint;
  amount1: bigint;
};
type BurnArgs = Range & { owner: Address; amount: bigint; amount0: bigint; amount1: bigint };
type CollectArgs = Range & { owner: Address; recipient: Address; amount0: bigint; amount1: bigint };
type FlashArgs = { paid0: bigint; paid1: bigint };
type CollectProtocolArgs = { amount0: bigint; amount1: bigint };

async function onPoolCreated(context: Context, event: PoolEvent<PoolCreatedArgs>) {
  const { token0, token1, fee, tickSpacing, pool } = event.args;
  const block = event.block.number;
  const { protocolSlug } = factoryOf(context, event.log.address);
  await ensureTokens(context, [{ address: token0 }, { address: token1 }], block);
  await context.db
    .insert(v3Pool)
    .values({
      chainId: context.chain.id,
      address: pool,
      protocol: protocolSlug,
      factory: event.log.address,
      token0,
      token1,
      fee,
      tickSpacing,
      sqrtPriceX96: 0n,
      tick: null,
      liquidity: 0n,
      createdBlock: block,
      updatedBlock: block,
    })
    .onConflictDoNothing();
  await registerPool(context, { address: pool, protocolSlug, token0, token1, fee, block });
}

async function onInitialize(context: Context, event: PoolEvent<InitializeArgs>) {
  await context.db.update(v3Pool, { chainId: context.chain.id, address: event.log.address }).set({
    sqrtPriceX96: event.args.sqrtPriceX96,
    tick: event.args.tick,
    updatedBlock: event.block.number,
  });
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    price: sqrtPriceRatio(event.args.sqrtPriceX96),
  });
}

async function onSwap(context: Context, event: PoolEvent<SwapArgs>) {
  const { sqrtPriceX96, liquidity, tick, sender, recipient, amount0, amount1 } = event.args;
  await context.db
    .update(v3Pool, { chainId: context.chain.id, address: event.log.address })
    .set({ sqrtPriceX96, liquidity, tick, updatedBlock: event.block.number });
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    balances: { delta0: amount0, delta1: amount1 },
    price: sqrtPriceRatio(sqrtPriceX96),
    swap: { sender, recipient, amount0, amount1 },
  });
}

/**
 * Applies a position's liquidity change as the pool does in `_modifyPosition`: both boundary
 * ticks gain gross liquidity, the lower one adds to `liquidityNet` and the upper one subtracts,
 * and the active liquidity changes when the current tick lies inside the range.
 */
async function modifyPosition(
  context: Context,
  pool: Address,
  range: { tickLower: number; tickUpper: number },
  liquidityDelta: bigint,
  block: bigint,
): Promise<void> {
  const { tickLower, tickUpper } = range;
  if (liquidityDelta === 0n) return; // a poke to collect fees
  const chainId = context.chain.id;
  for (const [tick, netDelta] of [
    [tickLower, liquidityDelta],
    [tickUpper, -liquidityDelta],
  ] as const) {
    const key = { chainId, pool, tick };
    const row = await context.db.find(v3Tick, key);
    const next = tickAfterChange(row ?? undefined, liquidityDelta, netDelta);
    if (!next) continue;
    if (row) await context.db.update(v3Tick, key).set({ ...next, updatedBlock: block });
    else await context.db.insert(v3Tick).values({ ...key, ...next, updatedBlock: block });
  }
  await context.db.update(v3Pool, { chainId, address: pool }).set((row) => {
    const inRange = row.tick !== null && tickLower <= row.tick && row.tick < tickUpper;
    return inRange
      ? { liquidity: row.liquidity + liquidityDelta, updatedBlock: block }
      : { updatedBlock: block };
  });
}

// A mint adds its amount of liquidity to the position's range; a burn takes it away.
async function onMint(context: Context, event: PoolEvent<MintArgs>) {
  const { sender, owner, tickLower, tickUpper, amount, amount0, amount1 } = event.args;
  await modifyPosition(context, event.log.address, event.args, amount, event.block.number);
  const valuation = await recordPoolEvent(context, event, {
    pool: event.log.address,
    balances: { delta0: amount0, delta1: amount1 },
  });
  await recordLiquidityEvent(context, event, {
    pool: event.log.address,
    kind: "mint",
    sender,
    owner,
    amount0,
    amount1,
    liquidity: amount,
    tickLower,
    tickUpper,
    valuation,
  });
}

// A burn moves the position's tokens to what it is owed: they stay in the pool until collected.
async function onBurn(context: Context, event: PoolEvent<BurnArgs>) {
  const { owner, tickLower, tickUpper, amount, amount0, amount1 } = event.args;
  await modifyPosition(context, event.log.address, event.args, -amount, event.block.number);
  await recordLiquidityEvent(context, event, {
    pool: event.log.address,
    kind: "burn",
    sender: owner,
    owner,
    amount0,
    amount1,
    liquidity: amount,
    tickLower,
    tickUpper,
  });
}

async function onCollect(context: Context, event: PoolEvent<CollectArgs>) {
  const { owner, recipient, tickLower, tickUpper, amount0, amount1 } = event.args;
  const valuation = await recordPoolEvent(context, event, {
    pool: event.log.address,
    balances: { delta0: -amount0, delta1: -amount1 },
  });
  await recordLiquidityEvent(context, event, {
    pool: event.log.address,
    kind: "collect",
    sender: owner,
    owner,
    recipient,
    amount0,
    amount1,
    tickLower,
    tickUpper,
    valuation,
  });
}

// Tokens in and out of the pool that no swap, mint or collect shows: flash loan fees paid in,
// protocol fees taken out.
async function onFlash(context: Context, event: PoolEvent<FlashArgs>) {
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    balances: { delta0: event.args.paid0, delta1: event.args.paid1 },
  });
}

async function onCollectProtocol(context: Context, event: PoolEvent<CollectProtocolArgs>) {
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    balances: { delta0: -event.args.amount0, delta1: -event.args.amount1 },
  });
}

ponder.on("UniswapV3Factory:setup", ({ context }) => ensureNativeToken(context, 0n));
ponder.on("UniswapV3Factory:PoolCreated", ({ event, context }) => onPoolCreated(context, event));
ponder.on("UniswapV3Pool:Initialize", ({ event, context }) => onInitialize(context, event));
ponder.on("UniswapV3Pool:Swap", ({ event, context }) => onSwap(context, event));
ponder.on("UniswapV3Pool:Mint", ({ event, context }) => onMint(context, event));
ponder.on("UniswapV3Pool:Burn", ({ event, context }) => onBurn(context, event));
ponder.on("UniswapV3Pool:Collect", ({ event, context }) => onCollect(context, event));
ponder.on("UniswapV3Pool:Flash", ({ event, context }) => onFlash(context, event));
ponder.on("UniswapV3Pool:CollectProtocol", ({ event, context }) =>
  onCollectProtocol(context, event),
);

ponder.on("PancakeV3Factory:setup", ({ context }) => ensureNativeToken(context, 0n));
ponder.on("PancakeV3Factory:PoolCreated", ({ event, context }) => onPoolCreated(context, event));
ponder.on("PancakeV3Pool:Initialize", ({ event, context }) => onInitialize(context, event));
ponder.on("PancakeV3Pool:Swap", ({ event, context }) => onSwap(context, event));
ponder.on("PancakeV3Pool:Mint", ({ event, context }) => onMint(context, event));
ponder.on("PancakeV3Pool:Burn", ({ event, context }) => onBurn(context, event));
ponder.on("PancakeV3Pool:Collect", ({ event, context }) => onCollect(context, event));
ponder.on("PancakeV3Pool:Flash", ({ event, context }) => onFlash(context, event));
ponder.on("PancakeV3Pool:CollectProtocol", ({ event, context }) =>
  onCollectProtocol(context, event),
);
