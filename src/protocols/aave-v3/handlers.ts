import { type Context, ponder } from "ponder:registry";
import { aaveEvent, aaveReserve } from "ponder:schema";
import { erc20Abi } from "viem";
import { AaveV3ATokenAbi } from "../../../abis/AaveV3AToken.js";
import { AaveV3PoolAbi } from "../../../abis/AaveV3Pool.js";
import { indexedChains } from "../../../chains.js";
import type { Address } from "../../../engine/index.js";
import { aaveReserveState } from "../../../engine/index.js";
import { ensureTokens } from "../../tokens/tokens.js";

/** Each chain's Aave V3 Pool (lowercase), from chains.ts. */
const pools = new Map(
  indexedChains().flatMap((c) =>
    c.aaveV3 ? [[c.id, c.aaveV3.pool.toLowerCase() as Address]] : [],
  ),
);

/**
 * Reads the reserve of `asset` at `block` — `Pool.getReserveData` (its configuration word,
 * indexes, rates, tokens, treasury accrual), the aToken's scaled supply and what it holds of the
 * asset — and writes it. Every change of a reserve's state or configuration comes here: the
 * pool emits `ReserveDataUpdated` with each supply, withdrawal, borrow, repayment, liquidation
 * and flash loan, the configurator an event with each parameter it sets.
 */
async function refreshReserve(context: Context, asset: Address, block: bigint): Promise<void> {
  const pool = pools.get(context.chain.id);
  if (!pool) return;
  const data = await context.client.readContract({
    abi: AaveV3PoolAbi,
    address: pool,
    functionName: "getReserveData",
    args: [asset],
    blockNumber: block,
  });
  const aToken = data.aTokenAddress.toLowerCase() as Address;
  const [scaledSupply, held] = await Promise.all([
    context.client.readContract({
      abi: AaveV3ATokenAbi,
      address: aToken,
      functionName: "scaledTotalSupply",
      blockNumber: block,
    }),
    context.client.readContract({
      abi: erc20Abi,
      address: asset,
      functionName: "balanceOf",
      args: [aToken],
      blockNumber: block,
    }),
  ]);
  const state = { pool, asset, ...aaveReserveState(data, scaledSupply, held), updatedBlock: block };
  await context.db
    .insert(aaveReserve)
    .values({ chainId: context.chain.id, ...state, createdBlock: block })
    .onConflictDoUpdate(state);
}

// A reserve listed: its asset is a base token, its aToken a position token of the asset (the
// debt tokens are not listed: they cannot be transferred, so no route or bundle moves them).
ponder.on("AaveV3PoolConfigurator:ReserveInitialized", async ({ event, context }) => {
  const pool = pools.get(context.chain.id);
  if (!pool) return;
  const asset = event.args.asset.toLowerCase() as Address;
  const aToken = event.args.aToken.toLowerCase() as Address;
  const block = event.block.number;
  await ensureTokens(
    context,
    [
      { address: asset },
      {
        address: aToken,
        position: { protocolSlug: "aave-v3", underlyingTokens: [asset], primaryAddress: pool },
      },
    ],
    block,
  );
  await refreshReserve(context, asset, block);
});

for (const name of [
  "CollateralConfigurationChanged",
  "ReserveBorrowing",
  "SupplyCapChanged",
  "BorrowCapChanged",
  "ReserveActive",
  "ReserveFrozen",
  "ReservePaused",
  "ReserveFactorChanged",
  "ReserveInterestRateStrategyChanged",
] as const) {
  ponder.on(`AaveV3PoolConfigurator:${name}`, async ({ event, context }) => {
    await refreshReserve(context, event.args.asset.toLowerCase() as Address, event.block.number);
  });
}

ponder.on("AaveV3Pool:ReserveDataUpdated", async ({ event, context }) => {
  await refreshReserve(context, event.args.reserve.toLowerCase() as Address, event.block.number);
});

ponder.on("AaveV3Pool:MintedToTreasury", async ({ event, context }) => {
  await refreshReserve(context, event.args.reserve.toLowerCase() as Address, event.block.number);
});

type EventMeta = {
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: `0x${string}` };
  log: { logIndex: number; address: `0x${string}` };
};

async function recordAaveEvent(
  context: Context,
  event: EventMeta,
  row: {
    kind: "supply" | "withdraw" | "borrow" | "repay" | "liquidation";
    asset: Address;
    user: Address;
    onBehalfOf: Address;
    amount: bigint;
    to?: Address;
    debtAsset?: Address;
    debtToCover?: bigint;
  },
): Promise<void> {
  await context.db
    .insert(aaveEvent)
    .values({
      chainId: context.chain.id,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
      pool: event.log.address.toLowerCase() as Address,
      to: null,
      debtAsset: null,
      debtToCover: null,
      ...row,
    })
    .onConflictDoNothing();
}

const lower = (a: string) => a.toLowerCase() as Address;

ponder.on("AaveV3Pool:Supply", async ({ event, context }) => {
  const { reserve, user, onBehalfOf, amount } = event.args;
  await recordAaveEvent(context, event, {
    kind: "supply",
    asset: lower(reserve),
    user: lower(user),
    onBehalfOf: lower(onBehalfOf),
    amount,
  });
});

ponder.on("AaveV3Pool:Withdraw", async ({ event, context }) => {
  const { reserve, user, to, amount } = event.args;
  await recordAaveEvent(context, event, {
    kind: "withdraw",
    asset: lower(reserve),
    user: lower(user),
    onBehalfOf: lower(user),
    to: lower(to),
    amount,
  });
});

ponder.on("AaveV3Pool:Borrow", async ({ event, context }) => {
  const { reserve, user, onBehalfOf, amount } = event.args;
  await recordAaveEvent(context, event, {
    kind: "borrow",
    asset: lower(reserve),
    user: lower(user),
    onBehalfOf: lower(onBehalfOf),
    amount,
  });
});

ponder.on("AaveV3Pool:Repay", async ({ event, context }) => {
  const { reserve, user, repayer, amount } = event.args;
  await recordAaveEvent(context, event, {
    kind: "repay",
    asset: lower(reserve),
    user: lower(repayer),
    onBehalfOf: lower(user),
    amount,
  });
});

ponder.on("AaveV3Pool:LiquidationCall", async ({ event, context }) => {
  const { collateralAsset, debtAsset, user, debtToCover, liquidatedCollateralAmount, liquidator } =
    event.args;
  await recordAaveEvent(context, event, {
    kind: "liquidation",
    asset: lower(collateralAsset),
    user: lower(liquidator),
    onBehalfOf: lower(user),
    amount: liquidatedCollateralAmount,
    debtAsset: lower(debtAsset),
    debtToCover,
  });
});
