/**
 * Compares everything the indexer holds about pools and vaults with the chain's own views at
 * one block: every V2 pair's reserves and LP supply, every V3 pool's price, tick and liquidity,
 * every indexed tick's liquidityGross/Net, every vault's totals, and every row of the history
 * tables recomputed from the chain's event logs (analytics-model.ts). Shared by the catalogue and
 * reliability suites.
 */
import type { Address, PublicClient } from "viem";
import { expect } from "vitest";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { UniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { expectAnalyticsMatchChain } from "./analytics-model.js";
import { graphqlQuery, type ServiceInstance } from "./service.js";

/**
 * Asserts that every indexed pair, pool, tick and vault, and every history row, equals the chain
 * at `blockNumber`.
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
      items: { address: Address; reserve0: string; reserve1: string; totalSupply: string }[];
    };
  }>(service, `{ v2Pairs(limit: 1000) { items { address reserve0 reserve1 totalSupply } } }`);
  // Exactly the pairs the factory has created on this chain, no more (a reorg may remove some).
  const created = await client.readContract({
    address: d.uniswapV2.factory,
    abi: UniswapV2FactoryAbi,
    functionName: "allPairsLength",
    ...at,
  });
  const factoryPairs: string[] = [];
  for (let i = 0n; i < created; i++) {
    factoryPairs.push(
      await client.readContract({
        address: d.uniswapV2.factory,
        abi: UniswapV2FactoryAbi,
        functionName: "allPairs",
        args: [i],
        ...at,
      }),
    );
  }
  expect(factoryPairs.length).toBeGreaterThanOrEqual(d.uniswapV2.pairs.length);
  expect(pairs.v2Pairs.items.map((p) => p.address.toLowerCase()).sort()).toEqual(
    factoryPairs.map((p) => p.toLowerCase()).sort(),
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
      reserve0: r0.toString(),
      reserve1: r1.toString(),
      totalSupply: supply.toString(),
    });
  }

  const pools = await graphqlQuery<{
    v3Pools: {
      items: { address: Address; sqrtPriceX96: string; tick: number; liquidity: string }[];
    };
  }>(service, `{ v3Pools(limit: 1000) { items { address sqrtPriceX96 tick liquidity } } }`);
  expect(pools.v3Pools.items).toHaveLength(d.uniswapV3.pools.length);
  for (const row of pools.v3Pools.items) {
    const slot0 = await client.readContract({
      address: row.address,
      abi: UniswapV3PoolAbi,
      functionName: "slot0",
      ...at,
    });
    const liquidity = await client.readContract({
      address: row.address,
      abi: UniswapV3PoolAbi,
      functionName: "liquidity",
      ...at,
    });
    expect(row).toEqual({
      address: row.address,
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
