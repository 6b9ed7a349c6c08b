/**
 * Compares everything the indexer holds about pools and vaults with the chain's own views at
 * one block: every V2 pair's reserves and LP supply, every V3 pool's price, tick and liquidity,
 * every V4 pool's key, price, tick, protocol fee and liquidity (StateView), every indexed V3 and
 * V4 tick's liquidityGross/Net, every vault's totals, every Aave V3 reserve's state
 * (`getReserveData`, the aToken's scaled supply and holdings), and every row of the history tables
 * recomputed from the chain's event logs (analytics-model.ts). Shared by the catalogue and
 * reliability suites.
 */
import type { Address, Hex, PublicClient } from "viem";
import { expect } from "vitest";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { PancakeV3PoolAbi } from "../../abis/PancakeV3Pool.js";
import { PoolManagerAbi } from "../../abis/PoolManager.js";
import { StateViewAbi } from "../../abis/StateView.js";
import { UniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { uniswapV2Fork } from "../../engine/index.js";
import { readAaveReserveState } from "../routing/chain-graph.js";
import { expectAnalyticsMatchChain } from "./analytics-model.js";
import { graphqlQuery, type ServiceInstance } from "./service.js";

/**
 * Asserts that every indexed pair, pool, tick and vault, and every history row, equals the chain
 * at `blockNumber`.
 * @example await expectIndexMatchesChain(service, client, await client.getBlockNumber());
 */
export async function expectIndexMatchesChain(
  service: ServiceInstance,
  client: PublicClient,
  blockNumber: bigint,
): Promise<void> {
  const d = service.deployment;
  const at = { blockNumber };

  const pairs = await graphqlQuery<{
    v2Pairs: {
      items: {
        address: Address;
        protocol: string;
        fee: number;
        reserve0: string;
        reserve1: string;
        totalSupply: string;
      }[];
    };
  }>(
    service,
    `{ v2Pairs(limit: 1000) { items { address protocol fee reserve0 reserve1 totalSupply } } }`,
  );
  // Exactly the pairs Uniswap V2's factory and its forks' have created on this chain, no more (a
  // reorg may remove some), each under the protocol of its factory, at that protocol's fee.
  const factories = [
    { factory: d.uniswapV2.factory, protocol: "uniswap-v2", fee: 3000 },
    ...(d.uniswapV2Forks ?? []).map((f) => ({
      factory: f.factory,
      protocol: f.slug,
      fee: uniswapV2Fork(f.slug)?.feePpm,
    })),
  ];
  const factoryPairs = new Map<string, { protocol: string; fee: number | undefined }>();
  for (const { factory, protocol, fee } of factories) {
    const created = await client.readContract({
      address: factory,
      abi: UniswapV2FactoryAbi,
      functionName: "allPairsLength",
      ...at,
    });
    for (let i = 0n; i < created; i++) {
      const pair = await client.readContract({
        address: factory,
        abi: UniswapV2FactoryAbi,
        functionName: "allPairs",
        args: [i],
        ...at,
      });
      factoryPairs.set(pair.toLowerCase(), { protocol, fee });
    }
  }
  const deployed =
    d.uniswapV2.pairs.length + (d.uniswapV2Forks ?? []).flatMap((f) => f.pairs).length;
  expect(factoryPairs.size).toBeGreaterThanOrEqual(deployed);
  expect(pairs.v2Pairs.items.map((p) => p.address.toLowerCase()).sort()).toEqual(
    [...factoryPairs.keys()].sort(),
  );
  for (const row of pairs.v2Pairs.items) {
    const [r0, r1] = await client.readContract({
      address: row.address,
      abi: UniswapV2PairAbi,
      functionName: "getReserves",
      ...at,
    });
    const supply = await client.readContract({
      address: row.address,
      abi: UniswapV2PairAbi,
      functionName: "totalSupply",
      ...at,
    });
    expect(row).toEqual({
      address: row.address,
      ...factoryPairs.get(row.address.toLowerCase()),
      reserve0: r0.toString(),
      reserve1: r1.toString(),
      totalSupply: supply.toString(),
    });
  }

  const pools = await graphqlQuery<{
    v3Pools: {
      items: {
        address: Address;
        protocol: string;
        sqrtPriceX96: string;
        tick: number;
        liquidity: string;
      }[];
    };
  }>(
    service,
    `{ v3Pools(limit: 1000) { items { address protocol sqrtPriceX96 tick liquidity } } }`,
  );
  // Uniswap V3's pools and its forks' (PancakeSwap's pool contract answers the same reads).
  const protocolOf = new Map([
    ...d.uniswapV3.pools.map((p) => [p.toLowerCase(), "uniswap-v3"] as const),
    ...(d.uniswapV3Forks ?? []).flatMap((f) =>
      f.pools.map((p) => [p.toLowerCase(), f.slug] as const),
    ),
  ]);
  expect(pools.v3Pools.items).toHaveLength(protocolOf.size);
  for (const row of pools.v3Pools.items) {
    const abi = row.protocol === "pancakeswap-v3" ? PancakeV3PoolAbi : UniswapV3PoolAbi;
    const slot0 = await client.readContract({
      address: row.address,
      abi,
      functionName: "slot0",
      ...at,
    });
    const liquidity = await client.readContract({
      address: row.address,
      abi,
      functionName: "liquidity",
      ...at,
    });
    expect(row).toEqual({
      address: row.address,
      protocol: protocolOf.get(row.address.toLowerCase()),
      sqrtPriceX96: slot0[0].toString(),
      tick: slot0[1],
      liquidity: liquidity.toString(),
    });
  }

  const ticks = await graphqlQuery<{
    v3Ticks: {
      items: { pool: Address; tick: number; liquidityGross: string; liquidityNet: string }[];
    };
  }>(service, `{ v3Ticks(limit: 1000) { items { pool tick liquidityGross liquidityNet } } }`);
  expect(ticks.v3Ticks.items.length).toBeGreaterThan(30);
  // A row for every tick a mint or a burn of liquidity has named since the world's start: at
  // zero when no position references it any more (the pool's own slot then reads zero too).
  const range = { fromBlock: BigInt(d.startBlock), toBlock: blockNumber };
  const changes = await Promise.all(
    (["Mint", "Burn"] as const).map((eventName) =>
      client.getContractEvents({
        address: [...protocolOf.keys()] as Address[],
        abi: UniswapV3PoolAbi,
        eventName,
        strict: true,
        ...range,
      }),
    ),
  );
  const named = new Set<string>();
  for (const e of changes.flat()) {
    if (e.args.amount === 0n) continue;
    for (const tick of [e.args.tickLower, e.args.tickUpper]) {
      named.add(`${e.address.toLowerCase()}:${tick}`);
    }
  }
  const rows = ticks.v3Ticks.items.map((t) => `${t.pool.toLowerCase()}:${t.tick}`);
  expect(rows.sort()).toEqual([...named].sort());
  for (const row of ticks.v3Ticks.items) {
    const [gross, net] = await client.readContract({
      address: row.pool,
      abi: UniswapV3PoolAbi,
      functionName: "ticks",
      args: [row.tick],
      ...at,
    });
    expect(row).toEqual({
      pool: row.pool,
      tick: row.tick,
      liquidityGross: gross.toString(),
      liquidityNet: net.toString(),
    });
  }

  await expectV4MatchesChain(service, client, blockNumber);
  await expectAaveMatchesChain(service, client, blockNumber);

  const vaults = await graphqlQuery<{
    vaults: { items: { address: Address; totalAssets: string; totalSupply: string }[] };
  }>(service, `{ vaults(limit: 100) { items { address totalAssets totalSupply } } }`);
  expect(vaults.vaults.items).toHaveLength(d.vaults.length);
  for (const row of vaults.vaults.items) {
    const assets = await client.readContract({
      address: row.address,
      abi: DevVaultAbi,
      functionName: "totalAssets",
      ...at,
    });
    const supply = await client.readContract({
      address: row.address,
      abi: DevVaultAbi,
      functionName: "totalSupply",
      ...at,
    });
    expect(row).toEqual({
      address: row.address,
      totalAssets: assets.toString(),
      totalSupply: supply.toString(),
    });
  }
  await expectAnalyticsMatchChain(service, client, blockNumber);
}

type V4PoolRow = {
  chainId: number;
  poolId: Hex;
  poolManager: Address;
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
  protocolFee: number;
  lastSwapFee: number | null;
  sqrtPriceX96: string;
  tick: number;
  liquidity: string;
};

/**
 * Every `v4Pool` row against the pool manager's events and StateView at `blockNumber`: exactly
 * the pools its `Initialize` events created, each with its key, the fee of its last `Swap`,
 * and slot0 and liquidity as StateView reads them; then exactly the ticks its `ModifyLiquidity`
 * events touched, each with StateView's liquidityGross/Net.
 */
async function expectV4MatchesChain(
  service: ServiceInstance,
  client: PublicClient,
  blockNumber: bigint,
): Promise<void> {
  const d = service.deployment;
  const v4 = d.uniswapV4;
  const pools = await graphqlQuery<{ v4Pools: { items: V4PoolRow[] } }>(
    service,
    `{ v4Pools(limit: 1000) { items { chainId poolId poolManager currency0 currency1 fee tickSpacing hooks protocolFee lastSwapFee sqrtPriceX96 tick liquidity } } }`,
  );
  const ticks = await graphqlQuery<{
    v4Ticks: {
      items: {
        chainId: number;
        poolId: Hex;
        tick: number;
        liquidityGross: string;
        liquidityNet: string;
      }[];
    };
  }>(
    service,
    `{ v4Ticks(limit: 1000) { items { chainId poolId tick liquidityGross liquidityNet } } }`,
  );
  if (!v4) {
    // A world without V4: nothing may be indexed for it.
    expect({ pools: pools.v4Pools.items, ticks: ticks.v4Ticks.items }).toEqual({
      pools: [],
      ticks: [],
    });
    return;
  }
  const range = { fromBlock: BigInt(d.startBlock), toBlock: blockNumber };
  const manager = { address: v4.poolManager, abi: PoolManagerAbi } as const;
  const initialized = await client.getContractEvents({
    ...manager,
    eventName: "Initialize",
    strict: true,
    ...range,
  });
  const swaps = await client.getContractEvents({
    ...manager,
    eventName: "Swap",
    strict: true,
    ...range,
  });
  const modified = await client.getContractEvents({
    ...manager,
    eventName: "ModifyLiquidity",
    strict: true,
    ...range,
  });
  // Exactly the pools the manager has initialized by this block, no more (a reorg may remove some).
  expect(initialized.length).toBeGreaterThanOrEqual(v4.pools.length);
  expect(pools.v4Pools.items.map((p) => p.poolId).sort()).toEqual(
    initialized.map((e) => e.args.id).sort(),
  );
  const lastSwapFee = new Map<Hex, number>();
  for (const e of swaps) lastSwapFee.set(e.args.id, e.args.fee);
  const at = { address: v4.stateView, abi: StateViewAbi, blockNumber } as const;
  for (const e of initialized) {
    const { id } = e.args;
    const row = pools.v4Pools.items.find((p) => p.poolId === id);
    const [sqrtPriceX96, tick, protocolFee] = await client.readContract({
      ...at,
      functionName: "getSlot0",
      args: [id],
    });
    const liquidity = await client.readContract({
      ...at,
      functionName: "getLiquidity",
      args: [id],
    });
    expect(row).toEqual({
      chainId: d.chainId,
      poolId: id,
      poolManager: v4.poolManager.toLowerCase(),
      currency0: e.args.currency0.toLowerCase(),
      currency1: e.args.currency1.toLowerCase(),
      fee: e.args.fee,
      tickSpacing: e.args.tickSpacing,
      hooks: e.args.hooks.toLowerCase(),
      protocolFee,
      lastSwapFee: lastSwapFee.get(id) ?? null,
      sqrtPriceX96: sqrtPriceX96.toString(),
      tick,
      liquidity: liquidity.toString(),
    });
  }

  // Exactly the ticks a liquidity change has named (a poke, of zero liquidity, names none) that
  // some position still references at the block are indexed with liquidity; a cleared tick's row
  // stays at zero, as the pool's own slot reads (checked row by row below).
  const touched = new Map<string, { poolId: Hex; tick: number }>();
  for (const e of modified) {
    if (e.args.liquidityDelta === 0n) continue;
    for (const tick of [e.args.tickLower, e.args.tickUpper]) {
      touched.set(`${e.args.id}:${tick}`, { poolId: e.args.id, tick });
    }
  }
  expect(touched.size).toBeGreaterThanOrEqual(10 * v4.pools.length);
  const live: string[] = [];
  for (const [key, { poolId, tick }] of touched) {
    const [gross] = await client.readContract({
      ...at,
      functionName: "getTickLiquidity",
      args: [poolId, tick],
    });
    if (gross !== 0n) live.push(key);
  }
  expect(
    ticks.v4Ticks.items
      .filter((t) => t.liquidityGross !== "0")
      .map((t) => `${t.poolId}:${t.tick}`)
      .sort(),
  ).toEqual(live.sort());
  for (const row of ticks.v4Ticks.items) {
    const [gross, net] = await client.readContract({
      ...at,
      functionName: "getTickLiquidity",
      args: [row.poolId, row.tick],
    });
    expect(row).toEqual({
      chainId: d.chainId,
      poolId: row.poolId,
      tick: row.tick,
      liquidityGross: gross.toString(),
      liquidityNet: net.toString(),
    });
  }
}

/**
 * Every `aaveReserve` row against the Aave Pool at `blockNumber`: exactly the deployment's
 * reserves, each with the state `getReserveData` reports (configuration decoded, indexes, rates,
 * treasury accrual), its aToken's scaled supply and what the aToken holds of the asset.
 */
async function expectAaveMatchesChain(
  service: ServiceInstance,
  client: PublicClient,
  blockNumber: bigint,
): Promise<void> {
  const aave = service.deployment.aaveV3;
  if (!aave) return;
  const fields =
    "aToken pool asset stableDebtToken variableDebtToken interestRateStrategy decimals ltv liquidationThreshold liquidationBonus reserveFactor supplyCap borrowCap active frozen paused borrowingEnabled liquidityIndex variableBorrowIndex liquidityRate variableBorrowRate stableBorrowRate lastUpdateTimestamp accruedToTreasury scaledATokenSupply availableLiquidity";
  const rows = await graphqlQuery<{ aaveReserves: { items: Record<string, unknown>[] } }>(
    service,
    `{ aaveReserves(limit: 1000) { items { ${fields} } } }`,
  );
  const expected = [];
  for (const r of aave.reserves) {
    const state = await readAaveReserveState(client, aave.pool, r.asset, blockNumber);
    expected.push(
      Object.fromEntries(
        Object.entries(state).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]),
      ),
    );
  }
  const byToken = (x: Record<string, unknown>, y: Record<string, unknown>) =>
    String(x.aToken) < String(y.aToken) ? -1 : 1;
  expect(rows.aaveReserves.items.sort(byToken)).toEqual(expected.sort(byToken));
}
