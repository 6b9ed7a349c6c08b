import { type Context, ponder } from "ponder:registry";
import { v3Pool, v3Tick } from "ponder:schema";
import type { Address } from "viem";
import { sqrtPriceRatio } from "../../analytics/pricing.js";
import { recordLiquidityEvent, recordPoolEvent, registerPool } from "../../analytics/record.js";
import { ensureNativeToken, ensureTokens } from "../../tokens/tokens.js";

ponder.on("UniswapV3Factory:setup", async ({ context }) => {
  await ensureNativeToken(context, 0n);
});

ponder.on("UniswapV3Factory:PoolCreated", async ({ event, context }) => {
  const { token0, token1, fee, tickSpacing, pool } = event.args;
  const block = event.block.number;
  await ensureTokens(context, [{ address: token0 }, { address: token1 }], block);
  await context.db
    .insert(v3Pool)
    .values({
      chainId: context.chain.id,
      address: pool,
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
  await registerPool(context, {
    address: pool,
    protocolSlug: "uniswap-v3",
    token0,
    token1,
    fee,
    block,
  });
});

ponder.on("UniswapV3Pool:Initialize", async ({ event, context }) => {
  await context.db.update(v3Pool, { chainId: context.chain.id, address: event.log.address }).set({
    sqrtPriceX96: event.args.sqrtPriceX96,
    tick: event.args.tick,
    updatedBlock: event.block.number,
  });
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    price: sqrtPriceRatio(event.args.sqrtPriceX96),
  });
});

ponder.on("UniswapV3Pool:Swap", async ({ event, context }) => {
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
});

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
    const liquidityGross = (row?.liquidityGross ?? 0n) + liquidityDelta;
    // A tick no position references any more is cleared, as the pool clears it.
    if (liquidityGross === 0n) {
      if (row) await context.db.delete(v3Tick, key);
      continue;
    }
    const liquidityNet = (row?.liquidityNet ?? 0n) + netDelta;
    if (row)
      await context.db
        .update(v3Tick, key)
        .set({ liquidityGross, liquidityNet, updatedBlock: block });
    else
      await context.db
        .insert(v3Tick)
        .values({ ...key, liquidityGross, liquidityNet, updatedBlock: block });
  }
  await context.db.update(v3Pool, { chainId, address: pool }).set((row) => {
    const inRange = row.tick !== null && tickLower <= row.tick && row.tick < tickUpper;
    return inRange
      ? { liquidity: row.liquidity + liquidityDelta, updatedBlock: block }
      : { updatedBlock: block };
  });
}

// A mint adds its amount of liquidity to the position's range; a burn takes it away.
ponder.on("UniswapV3Pool:Mint", async ({ event, context }) => {
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
});

// A burn moves the position's tokens to what it is owed: they stay in the pool until collected.
ponder.on("UniswapV3Pool:Burn", async ({ event, context }) => {
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
});

ponder.on("UniswapV3Pool:Collect", async ({ event, context }) => {
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
});

// Tokens in and out of the pool that no swap, mint or collect shows: flash loan fees paid in,
// protocol fees taken out.
ponder.on("UniswapV3Pool:Flash", async ({ event, context }) => {
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    balances: { delta0: event.args.paid0, delta1: event.args.paid1 },
  });
});

ponder.on("UniswapV3Pool:CollectProtocol", async ({ event, context }) => {
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    balances: { delta0: -event.args.amount0, delta1: -event.args.amount1 },
  });
});
