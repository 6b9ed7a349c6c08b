import { type Context, ponder } from "ponder:registry";
import { aaveEvent } from "ponder:schema";
import type { Address } from "../../../engine/index.js";
import { listReserve, refreshReserve } from "./reserve.js";

ponder.on("AaveV3PoolConfigurator:ReserveInitialized", async ({ event, context }) => {
  await listReserve(context, event.args.asset.toLowerCase() as Address, event.block.number);
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
