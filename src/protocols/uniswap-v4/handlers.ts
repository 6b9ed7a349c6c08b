import { type Context, ponder } from "ponder:registry";
import { v4Pool, v4Tick } from "ponder:schema";
import { type Hex, hexToBigInt } from "viem";
import { PoolManagerAbi } from "../../../abis/PoolManager.js";
import type { Address } from "../../../engine/index.js";
import {
  getAmount0Delta,
  getAmount1Delta,
  getSqrtRatioAtTick,
  NATIVE_TOKEN_ADDRESS,
  V4_DYNAMIC_FEE_FLAG,
} from "../../../engine/index.js";
import { sqrtPriceRatio } from "../../analytics/pricing.js";
import { recordLiquidityEvent, recordPoolEvent, registerPool } from "../../analytics/record.js";
import { ensureNativeToken, ensureTokens } from "../../tokens/tokens.js";
import { tickAfterChange } from "../concentrated-liquidity.js";
import { catalogueToken, poolStateSlot } from "./state.js";

/**
 * The pool's protocol fee as the manager holds it in slot0 (bits 184–207). `Initialize` does not
 * report it, and a protocol fee controller may have set one when the pool was created.
 */
async function protocolFeeAt(context: Context, manager: Address, id: Hex, block: bigint) {
  const word = await context.client.readContract({
    abi: PoolManagerAbi,
    address: manager,
    functionName: "extsload",
    args: [poolStateSlot(id)],
    blockNumber: block,
  });
  return Number((hexToBigInt(word) >> 184n) & 0xffffffn);
}

ponder.on("PoolManager:setup", async ({ context }) => {
  await ensureNativeToken(context, 0n);
});

// Pools initialized from the chain's start on (contracts.ts); those before it are read at the
// start (src/state-start/).
ponder.on("PoolManager:Initialize", async ({ event, context }) => {
  const { id, currency0, currency1, fee, tickSpacing, hooks, sqrtPriceX96, tick } = event.args;
  const block = event.block.number;
  const manager = event.log.address.toLowerCase() as Address;
  const token0 = catalogueToken(currency0.toLowerCase() as Address);
  const token1 = catalogueToken(currency1.toLowerCase() as Address);
  await ensureTokens(
    context,
    [token0, token1].filter((t) => t !== NATIVE_TOKEN_ADDRESS).map((address) => ({ address })),
    block,
  );
  const protocolFee = await protocolFeeAt(context, manager, id, block);
  await context.db
    .insert(v4Pool)
    .values({
      chainId: context.chain.id,
      poolId: id,
      poolManager: manager,
      currency0,
      currency1,
      token0,
      token1,
      fee,
      tickSpacing,
      hooks,
      protocolFee,
      lastSwapFee: null,
      sqrtPriceX96,
      tick,
      liquidity: 0n,
      createdBlock: block,
      updatedBlock: block,
    })
    .onConflictDoNothing();
  await registerPool(context, {
    address: id,
    protocolSlug: "uniswap-v4",
    token0,
    token1,
    // A dynamic fee changes with every swap (each swap's own fee counts in its fees_usd).
    fee: fee === V4_DYNAMIC_FEE_FLAG ? 0 : fee,
    block,
  });
  await recordPoolEvent(context, event, {
    pool: id,
    price: sqrtPriceRatio(sqrtPriceX96),
  });
});

ponder.on("PoolManager:Swap", async ({ event, context }) => {
  const { id, sender, amount0, amount1, sqrtPriceX96, liquidity, tick, fee } = event.args;
  await context.db
    .update(v4Pool, { chainId: context.chain.id, poolId: id })
    .set({ sqrtPriceX96, liquidity, tick, lastSwapFee: fee, updatedBlock: event.block.number });
  // The event's amounts are the swapper's balance changes; the pool's are their opposite.
  await recordPoolEvent(context, event, {
    pool: id,
    balances: { delta0: -amount0, delta1: -amount1 },
    price: sqrtPriceRatio(sqrtPriceX96),
    // What the swap paid: the LP fee (a dynamic fee's included) with the protocol fee.
    swap: { sender, recipient: sender, amount0: -amount0, amount1: -amount1, feePpm: fee },
  });
});

ponder.on("PoolManager:ProtocolFeeUpdated", async ({ event, context }) => {
  await context.db
    .update(v4Pool, { chainId: context.chain.id, poolId: event.args.id })
    .set({ protocolFee: event.args.protocolFee, updatedBlock: event.block.number });
});

// Tokens given to the pool's in-range positions: they change its holdings, not its price.
ponder.on("PoolManager:Donate", async ({ event, context }) => {
  await recordPoolEvent(context, event, {
    pool: event.args.id,
    balances: { delta0: event.args.amount0, delta1: event.args.amount1 },
  });
});

/**
 * What a liquidity change moves in or out of the pool, as `Pool.modifyLiquidity` computes it:
 * below the range only currency0, above it only currency1, inside it both (rounded up when
 * adding, down when removing).
 */
function liquidityAmounts(
  pool: { sqrtPriceX96: bigint; tick: number },
  tickLower: number,
  tickUpper: number,
  liquidityDelta: bigint,
): { amount0: bigint; amount1: bigint } {
  const lower = getSqrtRatioAtTick(tickLower);
  const upper = getSqrtRatioAtTick(tickUpper);
  const adding = liquidityDelta > 0n;
  const l = adding ? liquidityDelta : -liquidityDelta;
  const sign = adding ? 1n : -1n;
  if (pool.tick < tickLower) {
    return { amount0: sign * getAmount0Delta(lower, upper, l, adding), amount1: 0n };
  }
  if (pool.tick < tickUpper) {
    return {
      amount0: sign * getAmount0Delta(pool.sqrtPriceX96, upper, l, adding),
      amount1: sign * getAmount1Delta(lower, pool.sqrtPriceX96, l, adding),
    };
  }
  return { amount0: 0n, amount1: sign * getAmount1Delta(lower, upper, l, adding) };
}

// A position's liquidity change, as the pool applies it: both boundary ticks gain gross
// liquidity, the lower one adds to `liquidityNet` and the upper one subtracts, and the in-range
// liquidity changes when the current tick lies inside the range.
ponder.on("PoolManager:ModifyLiquidity", async ({ event, context }) => {
  const { id, sender, tickLower, tickUpper, liquidityDelta } = event.args;
  if (liquidityDelta === 0n) return; // a poke to collect fees
  const chainId = context.chain.id;
  const block = event.block.number;
  for (const [tick, netDelta] of [
    [tickLower, liquidityDelta],
    [tickUpper, -liquidityDelta],
  ] as const) {
    const key = { chainId, poolId: id, tick };
    const row = await context.db.find(v4Tick, key);
    const next = tickAfterChange(row ?? undefined, liquidityDelta, netDelta);
    if (!next) continue;
    if (row) await context.db.update(v4Tick, key).set({ ...next, updatedBlock: block });
    else await context.db.insert(v4Tick).values({ ...key, ...next, updatedBlock: block });
  }
  const pool = await context.db.find(v4Pool, { chainId, poolId: id });
  if (!pool) return;
  const inRange = tickLower <= pool.tick && pool.tick < tickUpper;
  await context.db
    .update(v4Pool, { chainId, poolId: id })
    .set(
      inRange
        ? { liquidity: pool.liquidity + liquidityDelta, updatedBlock: block }
        : { updatedBlock: block },
    );
  const { amount0, amount1 } = liquidityAmounts(pool, tickLower, tickUpper, liquidityDelta);
  const valuation = await recordPoolEvent(context, event, {
    pool: id,
    balances: { delta0: amount0, delta1: amount1 },
  });
  await recordLiquidityEvent(context, event, {
    pool: id,
    kind: liquidityDelta > 0n ? "mint" : "burn",
    sender,
    owner: sender,
    amount0: amount0 < 0n ? -amount0 : amount0,
    amount1: amount1 < 0n ? -amount1 : amount1,
    liquidity: liquidityDelta > 0n ? liquidityDelta : -liquidityDelta,
    tickLower,
    tickUpper,
    ...(liquidityDelta > 0n ? { valuation } : {}),
  });
});
