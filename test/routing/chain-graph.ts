/**
 * Reads pool state straight from a chain into the routing engine's vocabulary, for the tests
 * and benchmarks that hold the engine against the real contracts: V2 reserves, V3 slot0,
 * liquidity and the initialized ticks (found from the pool's Mint events, then `ticks(t)`),
 * vault totals. Everything lowercase.
 */
import { type Address, erc20Abi, type Hex, type PublicClient, zeroAddress } from "viem";
import { AaveV3ATokenAbi } from "../../abis/AaveV3AToken.js";
import { AaveV3PoolAbi } from "../../abis/AaveV3Pool.js";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { PoolManagerAbi } from "../../abis/PoolManager.js";
import { StateViewAbi } from "../../abis/StateView.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import type {
  BalancerV2DeployedPool,
  Deployment,
  UniswapV4PoolKey,
} from "../../devnet/deployment.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import type {
  AaveReservePool,
  V2Pool,
  V3Pool,
  V3Tick,
  V4Pool,
  VaultPool,
  WrapperPool,
} from "../../engine/core/types.js";
import { balancerV2PoolOf, createRoutingGraph } from "../../engine/index.js";
import { aaveReserveState } from "../../engine/protocols/aave-v3/reserve-data.js";
import { uniswapV4Admission } from "../../engine/protocols/uniswap-v4/hooks.js";
import type { RoutingGraph } from "../../engine/routing/graph.js";
import { aaveReservePoolOf } from "../../src/api/protocols/aave-v3.js";
import { AddressInterner } from "../../src/api/snapshot/address-interner.js";
import {
  readComposableStablePoolState,
  readWeightedPoolState,
} from "../protocols/balancer-v2-chain.js";

const lower = (a: string) => a.toLowerCase() as Address;

export async function readV2Pool(client: PublicClient, address: Address): Promise<V2Pool> {
  const [token0, token1, reserves, totalSupply] = await Promise.all([
    client.readContract({ address, abi: UniswapV2PairAbi, functionName: "token0" }),
    client.readContract({ address, abi: UniswapV2PairAbi, functionName: "token1" }),
    client.readContract({ address, abi: UniswapV2PairAbi, functionName: "getReserves" }),
    client.readContract({ address, abi: UniswapV2PairAbi, functionName: "totalSupply" }),
  ]);
  return {
    kind: "v2",
    protocol: "uniswap-v2",
    address: lower(address),
    token0: lower(token0),
    token1: lower(token1),
    reserve0: reserves[0],
    reserve1: reserves[1],
    feePpm: 3000,
    totalSupply,
  };
}

/** A V3-family pool (Uniswap's, or a fork's under `protocol`: the same reads) from the chain. */
export async function readV3Pool(
  client: PublicClient,
  address: Address,
  protocol = "uniswap-v3",
): Promise<V3Pool> {
  const [token0, token1, fee, tickSpacing, slot0, liquidity, mints] = await Promise.all([
    client.readContract({ address, abi: UniswapV3PoolAbi, functionName: "token0" }),
    client.readContract({ address, abi: UniswapV3PoolAbi, functionName: "token1" }),
    client.readContract({ address, abi: UniswapV3PoolAbi, functionName: "fee" }),
    client.readContract({ address, abi: UniswapV3PoolAbi, functionName: "tickSpacing" }),
    client.readContract({ address, abi: UniswapV3PoolAbi, functionName: "slot0" }),
    client.readContract({ address, abi: UniswapV3PoolAbi, functionName: "liquidity" }),
    client.getContractEvents({ address, abi: UniswapV3PoolAbi, eventName: "Mint", fromBlock: 0n }),
  ]);
  const candidates = new Set<number>();
  for (const log of mints) {
    if (log.args.tickLower !== undefined) candidates.add(log.args.tickLower);
    if (log.args.tickUpper !== undefined) candidates.add(log.args.tickUpper);
  }
  const ticks: V3Tick[] = [];
  const infos = await Promise.all(
    [...candidates].map(async (tick) => ({
      tick,
      info: await client.readContract({
        address,
        abi: UniswapV3PoolAbi,
        functionName: "ticks",
        args: [tick],
      }),
    })),
  );
  for (const { tick, info } of infos) {
    // ticks() returns liquidityGross first, liquidityNet second.
    if (info[0] > 0n) ticks.push({ tick, liquidityNet: info[1] });
  }
  ticks.sort((a, b) => a.tick - b.tick);
  return {
    kind: "v3",
    protocol,
    address: lower(address),
    token0: lower(token0),
    token1: lower(token1),
    feePpm: fee,
    tickSpacing,
    sqrtPriceX96: slot0[0],
    tick: slot0[1],
    liquidity,
    ticks,
  };
}

/** The V3 pool of `a` and `b` at `feePpm` among `pools`, read from the chain. */
export async function findV3Pool(
  client: PublicClient,
  pools: readonly Address[],
  params: { a: Address; b: Address; feePpm: number },
): Promise<V3Pool> {
  const wanted = [params.a.toLowerCase(), params.b.toLowerCase()].sort().join();
  for (const address of pools) {
    const pool = await readV3Pool(client, address);
    if (pool.feePpm === params.feePpm && [pool.token0, pool.token1].sort().join() === wanted) {
      return pool;
    }
  }
  throw new Error(`no V3 pool of ${params.a} and ${params.b} at ${params.feePpm} ppm`);
}

/**
 * A V4 pool from the pool manager through StateView: slot0 (price, tick, protocol and LP fee),
 * the in-range liquidity, and the initialized ticks (found from the manager's ModifyLiquidity
 * events for the pool, then `getTickLiquidity`). The admission follows the hook policy with an
 * empty allow-list.
 */
export async function readV4Pool(
  client: PublicClient,
  v4: { poolManager: Address; stateView: Address },
  key: UniswapV4PoolKey & { id: Hex },
): Promise<V4Pool> {
  const stateView = v4.stateView;
  const [slot0, liquidity, modifications] = await Promise.all([
    client.readContract({
      address: stateView,
      abi: StateViewAbi,
      functionName: "getSlot0",
      args: [key.id],
    }),
    client.readContract({
      address: stateView,
      abi: StateViewAbi,
      functionName: "getLiquidity",
      args: [key.id],
    }),
    client.getContractEvents({
      address: v4.poolManager,
      abi: PoolManagerAbi,
      eventName: "ModifyLiquidity",
      args: { id: key.id },
      fromBlock: 0n,
    }),
  ]);
  const candidates = new Set<number>();
  for (const log of modifications) {
    if (log.args.tickLower !== undefined) candidates.add(log.args.tickLower);
    if (log.args.tickUpper !== undefined) candidates.add(log.args.tickUpper);
  }
  const ticks: V3Tick[] = [];
  for (const tick of candidates) {
    const [gross, net] = await client.readContract({
      address: stateView,
      abi: StateViewAbi,
      functionName: "getTickLiquidity",
      args: [key.id, tick],
    });
    if (gross > 0n) ticks.push({ tick, liquidityNet: net });
  }
  ticks.sort((a, b) => a.tick - b.tick);
  const token = (currency: Address) =>
    currency === zeroAddress ? NATIVE_TOKEN_ADDRESS : lower(currency);
  const hooks = lower(key.hooks);
  const admission = uniswapV4Admission({ hooks, keyFee: key.fee }, []);
  return {
    kind: "v4",
    protocol: "uniswap-v4",
    address: lower(key.id),
    poolManager: lower(v4.poolManager),
    token0: token(key.currency0),
    token1: token(key.currency1),
    feePpm: slot0[3],
    keyFee: key.fee,
    protocolFee: slot0[2],
    tickSpacing: key.tickSpacing,
    hooks,
    admission: admission === "excluded" ? "simulated" : admission,
    sqrtPriceX96: slot0[0],
    tick: slot0[1],
    liquidity,
    ticks,
  };
}

/**
 * An Aave V3 reserve's state at `blockNumber` (default: latest) as the indexer keeps it: the
 * pool's `getReserveData` decoded, the aToken's scaled supply and what it holds of the asset.
 */
export async function readAaveReserveState(
  client: PublicClient,
  pool: Address,
  asset: Address,
  blockNumber?: bigint,
) {
  const at = blockNumber === undefined ? {} : { blockNumber };
  const data = await client.readContract({
    address: pool,
    abi: AaveV3PoolAbi,
    functionName: "getReserveData",
    args: [asset],
    ...at,
  });
  const [scaled, held] = await Promise.all([
    client.readContract({
      address: data.aTokenAddress,
      abi: AaveV3ATokenAbi,
      functionName: "scaledTotalSupply",
      ...at,
    }),
    client.readContract({
      address: asset,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [data.aTokenAddress],
      ...at,
    }),
  ]);
  return { ...aaveReserveState(data, scaled, held), pool: lower(pool), asset: lower(asset) };
}

/** An Aave V3 reserve from the chain, its quotes accruing to the latest block's timestamp. */
export async function readAaveReserve(
  client: PublicClient,
  pool: Address,
  asset: Address,
): Promise<AaveReservePool> {
  const [state, block] = await Promise.all([
    readAaveReserveState(client, pool, asset),
    client.getBlock(),
  ]);
  return aaveReservePoolOf(state, block.timestamp, new AddressInterner());
}

export async function readVault(
  client: PublicClient,
  address: Address,
  protocol: string,
): Promise<VaultPool> {
  const [asset, totalAssets, totalSupply] = await Promise.all([
    client.readContract({ address, abi: DevVaultAbi, functionName: "asset" }),
    client.readContract({ address, abi: DevVaultAbi, functionName: "totalAssets" }),
    client.readContract({ address, abi: DevVaultAbi, functionName: "totalSupply" }),
  ]);
  // OpenZeppelin's default `_decimalsOffset()`; DevVault does not override it.
  return {
    kind: "erc4626",
    protocol,
    address: lower(address),
    asset: lower(asset),
    totalAssets,
    totalSupply,
    decimalsOffset: 0,
  };
}

export function wrapperPool(weth: Address): WrapperPool {
  return { kind: "wrap", protocol: "wrapped-native", address: lower(weth) };
}

/**
 * A Balancer V2 pool of the devnet as a swap in the next block sees it: a composable stable pool
 * (its BPT among its tokens) or a weighted one, read from the vault and the pool.
 */
async function readBalancerV2Pool(
  client: PublicClient,
  vault: Address,
  pool: BalancerV2DeployedPool,
) {
  const base = { address: pool.address, poolId: pool.poolId, vault };
  const stable = pool.tokens.some((t) => t.toLowerCase() === pool.address.toLowerCase());
  return stable
    ? balancerV2PoolOf({
        ...base,
        type: "composable-stable",
        state: await readComposableStablePoolState(client, vault, pool, "at-swap"),
      })
    : balancerV2PoolOf({
        ...base,
        type: "weighted",
        state: await readWeightedPoolState(client, vault, pool),
      });
}

/**
 * The whole devnet world as a routing graph at the chain's latest block; with `forks`, the pools
 * of its forks of Uniswap V3 too, each under its fork's slug (left out by default: a route
 * through them needs the forks' SwapRouters in its context).
 */
export async function readDevnetGraph(
  client: PublicClient,
  deployment: Deployment,
  options: { forks?: boolean } = {},
): Promise<RoutingGraph> {
  const graph = createRoutingGraph();
  const v4 = deployment.uniswapV4;
  const forks = options.forks ? (deployment.uniswapV3Forks ?? []) : [];
  const [blockNumber, v2, v3, v4Pools, vaults] = await Promise.all([
    client.getBlockNumber(),
    Promise.all(deployment.uniswapV2.pairs.map((p) => readV2Pool(client, p))),
    Promise.all([
      ...deployment.uniswapV3.pools.map((p) => readV3Pool(client, p)),
      ...forks.flatMap((f) => f.pools.map((p) => readV3Pool(client, p, f.slug))),
    ]),
    Promise.all(
      (v4?.pools ?? []).map((key) => readV4Pool(client, v4 as NonNullable<typeof v4>, key)),
    ),
    Promise.all(deployment.vaults.map((v) => readVault(client, v.address, v.protocolSlug))),
  ]);
  const aave = deployment.aaveV3;
  const reserves = await Promise.all(
    (aave?.reserves ?? []).map((r) =>
      readAaveReserve(client, (aave as NonNullable<typeof aave>).pool, r.asset),
    ),
  );
  const balancer = deployment.balancerV2;
  const balancerPools = balancer
    ? await Promise.all(
        Object.values(balancer.pools).map((p) => readBalancerV2Pool(client, balancer.vault, p)),
      )
    : [];
  // The graph's default policy: pools whose hook may change a swap's amounts stay out.
  const routed = v4Pools.filter((p) => uniswapV4Admission(p, []) === "exact");
  for (const pool of [
    ...v2,
    ...v3,
    ...routed,
    ...vaults,
    ...reserves,
    ...balancerPools,
    wrapperPool(deployment.weth),
  ]) {
    graph.upsertPool(pool);
  }
  graph.blockNumber = blockNumber;
  return graph;
}
