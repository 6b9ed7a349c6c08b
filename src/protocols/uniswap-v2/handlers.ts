import { type Context, ponder } from "ponder:registry";
import { v2Pair } from "ponder:schema";
import { type Address, zeroAddress } from "viem";
import { indexedChains } from "../../../chains.js";
import { recordLiquidityEvent, recordPoolEvent, registerPool } from "../../analytics/record.js";
import { ensureNativeToken, ensureTokens } from "../../tokens/tokens.js";
import { type V2Factory, v2FactoriesOf } from "./factories.js";
import { lpToken } from "./state.js";

/** Each chain's factories of the family, by lowercase address: looked up at every pair created. */
const factoriesByChain = new Map(
  indexedChains().map((c) => [
    c.id,
    new Map(v2FactoriesOf(c).map((f) => [f.factory.toLowerCase(), f])),
  ]),
);

/** The indexed factory at `address` on the context's chain (only those are listened to). */
function factoryOf(context: Context, address: Address): V2Factory {
  const factory = factoriesByChain.get(context.chain.id)?.get(address.toLowerCase());
  if (!factory) {
    throw new Error(`Chain ${context.chain.id}: ${address} is not a configured V2 factory.`);
  }
  return factory;
}

ponder.on("UniswapV2Factory:setup", async ({ context }) => {
  await ensureNativeToken(context, 0n);
});

ponder.on("UniswapV2Factory:PairCreated", async ({ event, context }) => {
  // The event's fourth argument is unnamed, so its arguments arrive as a tuple.
  const [token0, token1, pair] = event.args;
  const block = event.block.number;
  const factory = factoryOf(context, event.log.address);
  await ensureTokens(
    context,
    [{ address: token0 }, { address: token1 }, lpToken(factory, pair, token0, token1)],
    block,
  );
  await context.db
    .insert(v2Pair)
    .values({
      chainId: context.chain.id,
      address: pair,
      factory: event.log.address,
      protocol: factory.protocolSlug,
      token0,
      token1,
      reserve0: 0n,
      reserve1: 0n,
      fee: factory.feePpm,
      totalSupply: 0n,
      createdBlock: block,
      updatedBlock: block,
    })
    .onConflictDoNothing();
  await registerPool(context, {
    address: pair,
    protocolSlug: factory.protocolSlug,
    token0,
    token1,
    fee: factory.feePpm,
    block,
  });
});

ponder.on("UniswapV2Pair:Sync", async ({ event, context }) => {
  const { reserve0, reserve1 } = event.args;
  await context.db.update(v2Pair, { chainId: context.chain.id, address: event.log.address }).set({
    reserve0,
    reserve1,
    updatedBlock: event.block.number,
  });
  // A pair holds its reserves (between a transfer in and the `sync()`/swap that takes it in).
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    balances: { balance0: reserve0, balance1: reserve1 },
    price: { numerator: reserve1, denominator: reserve0 },
  });
});

// Every swap, mint and burn emits its `Sync` first: the pair's state is already recorded.
ponder.on("UniswapV2Pair:Swap", async ({ event, context }) => {
  const { sender, to, amount0In, amount1In, amount0Out, amount1Out } = event.args;
  await recordPoolEvent(context, event, {
    pool: event.log.address,
    swap: {
      sender,
      recipient: to,
      amount0: amount0In - amount0Out,
      amount1: amount1In - amount1Out,
    },
  });
});

ponder.on("UniswapV2Pair:Mint", async ({ event, context }) => {
  await recordLiquidityEvent(context, event, {
    pool: event.log.address,
    kind: "mint",
    sender: event.args.sender,
    amount0: event.args.amount0,
    amount1: event.args.amount1,
  });
});

ponder.on("UniswapV2Pair:Burn", async ({ event, context }) => {
  await recordLiquidityEvent(context, event, {
    pool: event.log.address,
    kind: "burn",
    sender: event.args.sender,
    recipient: event.args.to,
    amount0: event.args.amount0,
    amount1: event.args.amount1,
  });
});

/** Adds `delta` to the pair's LP supply. */
async function changeSupply(
  context: Context,
  pair: Address,
  delta: bigint,
  block: bigint,
): Promise<void> {
  await context.db
    .update(v2Pair, { chainId: context.chain.id, address: pair })
    .set((row) => ({ totalSupply: row.totalSupply + delta, updatedBlock: block }));
}

// The LP supply: transfers from the zero address mint, transfers to it burn (each source asks
// the node only for its side, contracts.ts). The first deposit's minimum liquidity is minted to
// the zero address itself, and matches both: the mint counts it, the burn side skips it.
ponder.on("UniswapV2LpMint:Transfer", async ({ event, context }) => {
  await changeSupply(context, event.log.address, event.args.value, event.block.number);
});

ponder.on("UniswapV2LpBurn:Transfer", async ({ event, context }) => {
  if (event.args.from === zeroAddress) return;
  await changeSupply(context, event.log.address, -event.args.value, event.block.number);
});
