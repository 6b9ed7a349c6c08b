/**
 * Balancer V2 in the service, on a devnet world with its vault and five pools (three weighted,
 * two composable stable, one of those with a rate provider): the indexed rows hold what the
 * pools hold on chain, after their creation and after the routes sent here; the BPTs are
 * position tokens of the catalogue; and `GET /v1/shortcuts/route` (router strategy) routes
 * through the pools — a swap through a stable and a weighted pool, into and out of a stable
 * pool's BPT, through the rate-provided pool after its rate moved — each one hop whose
 * `amountOut` is the vault's own `queryBatchSwap` and exactly what the receiver gets, and a route
 * through the stable pool and on through Uniswap, paying exactly its `amountOut` too, and through
 * the stable pool blocks into an amp update, whose amp moves with time and no event. A pool
 * another factory registers in the vault is left out.
 */
import { type Address, encodeFunctionData, formatUnits, getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BalancerV2ComposableStablePoolAbi } from "../abis/BalancerV2ComposableStablePool.js";
import { BalancerV2VaultAbi } from "../abis/BalancerV2Vault.js";
import { BalancerV2WeightedPoolAbi } from "../abis/BalancerV2WeightedPool.js";
import { BalancerV2WeightedPoolFactoryAbi } from "../abis/BalancerV2WeightedPoolFactory.js";
import { DevRateProviderAbi } from "../abis/generated/DevRateProvider.js";
import { loadArtifact } from "../contracts/build.js";
import { readNpmArtifact } from "../devnet/artifacts.js";
import {
  type BalancerV2Contracts,
  createComposableStablePool,
  createWeightedPool,
  setBalancerV2ProtocolFees,
} from "../devnet/balancer-v2.js";
import type { BalancerV2DeployedPool, BalancerV2Deployment } from "../devnet/deployment.js";
import { devnetDeployer } from "../devnet/world.js";
import type { RouteStep } from "../engine/route/route.js";
import { devnetActors } from "./harness/actors.js";
import {
  graphqlQuery,
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
  waitForRoutingGraph,
} from "./harness/service.js";
import {
  balancerV2Actions,
  queryVaultExactIn,
  queryVaultPathExactIn,
  queryWeightedJoinExit,
  readComposableStablePoolState,
  readWeightedPoolState,
} from "./protocols/balancer-v2-chain.js";

type RouteAnswer = {
  route: RouteStep[];
  amountOut: string;
  minAmountOut: string;
  tx: { data: Hex; to: Address; from: Address; value: string };
};

type PoolRow = {
  address: Address;
  poolId: Hex;
  vault: Address;
  poolType: string;
  tokens: Address[];
  balances: string[];
  scalingFactors: string[];
  normalizedWeights: string[];
  swapFeePercentage: string;
  totalSupply: string;
  actualSupply: string;
  bptIndex: number;
  cachedRates: string[];
  oldRates: string[];
  providerRates: string[];
  amp: string;
  lastJoinExitAmp: string;
  lastPostJoinExitInvariant: string;
};

const POOLS = ["weighted8020", "weighted5050", "weightedThreeToken", "stableUsd", "stableEth"];

describe("Balancer V2 indexed, catalogued and routed on the devnet", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  let balancer: BalancerV2Deployment;
  /** The vault's other contracts, found from the chain, and the query helpers, deployed here. */
  let contracts: BalancerV2Contracts;
  let chainId: number;
  const pool = (name: string): BalancerV2DeployedPool => {
    const p = balancer.pools[name];
    if (!p) throw new Error(`no pool ${name}`);
    return p;
  };

  const settleGraph = async () => {
    const head = await a.client.getBlockNumber({ cacheTime: 0 });
    await waitForIndexedBlock(service, head);
    await waitForRoutingGraph(service, chainId, head);
  };

  const rows = async (): Promise<PoolRow[]> => {
    const data = await graphqlQuery<{ balancerV2Pools: { items: PoolRow[] } }>(
      service,
      `{ balancerV2Pools(orderBy: "address") { items { address poolId vault poolType tokens balances scalingFactors normalizedWeights swapFeePercentage totalSupply actualSupply bptIndex cachedRates oldRates providerRates amp lastJoinExitAmp lastPostJoinExitInvariant } } }`,
    );
    return data.balancerV2Pools.items;
  };

  /** Each indexed row against the pool's state read from the chain now. */
  const expectRowsEqualChain = async () => {
    const indexed = await rows();
    expect(indexed).toHaveLength(POOLS.length);
    for (const name of POOLS) {
      const p = pool(name);
      const row = indexed.find((r) => r.address === p.address.toLowerCase());
      if (!row) throw new Error(`pool ${name} is not indexed`);
      expect(row.poolId).toBe(p.poolId);
      expect(row.vault).toBe(balancer.vault.toLowerCase());
      expect(row.tokens).toEqual(p.tokens.map((t) => t.toLowerCase()));
      if (name.startsWith("weighted")) {
        const chain = await readWeightedPoolState(a.client, balancer.vault, p);
        expect({ ...row, type: row.poolType }).toMatchObject({
          type: "weighted",
          balances: chain.balances.map(String),
          scalingFactors: chain.scalingFactors.map(String),
          normalizedWeights: chain.normalizedWeights.map(String),
          swapFeePercentage: String(chain.swapFeePercentage),
          actualSupply: String(chain.actualSupply),
        });
      } else {
        const chain = await readComposableStablePoolState(a.client, balancer.vault, p, "cached");
        expect({ ...row, type: row.poolType }).toMatchObject({
          type: "composable-stable",
          balances: chain.balances.map(String),
          scalingFactors: chain.decimalScalingFactors.map(String),
          bptIndex: chain.bptIndex,
          cachedRates: chain.tokenRates.map(String),
          oldRates: chain.oldRates.map(String),
          swapFeePercentage: String(chain.swapFeePercentage),
          totalSupply: String(chain.totalSupply),
          amp: String(chain.amp),
          lastJoinExitAmp: String(chain.protocolFees.lastJoinExitAmp),
          lastPostJoinExitInvariant: String(chain.protocolFees.lastPostJoinExitInvariant),
        });
      }
    }
  };

  const route = async (query: Record<string, string>): Promise<RouteAnswer> => {
    const res = await fetch(`${service.url}/v1/shortcuts/route?${new URLSearchParams(query)}`);
    const body = (await res.json()) as unknown;
    if (res.status !== 200) throw new Error(`route ${res.status}: ${JSON.stringify(body)}`);
    return body as RouteAnswer;
  };

  /**
   * Routes `amountIn` of `tokenIn` to `tokenOut` for user `i` under the router strategy, checks
   * the route is one hop through `through`, whose amountOut is the vault's own quote of it, sends
   * it, and checks the receiver got exactly amountOut.
   */
  const routeThrough = async (params: {
    i: number;
    through: BalancerV2DeployedPool;
    tokenIn: Address;
    tokenOut: Address;
    amountIn: bigint;
    fund?: boolean;
    /** The step's action: `deposit` into the pool's BPT, `redeem` out of it; a swap by default. */
    action?: "deposit" | "redeem";
    /** A weighted pool's join or exit, which the helpers' queryJoin and queryExit quote. */
    weighted?: boolean;
  }) => {
    const u = a.user(params.i);
    const from = u.account.address;
    if (params.fund ?? true) await a.fund(from, params.tokenIn, params.amountIn);
    await settleGraph();
    const answer = await route({
      fromAddress: from,
      tokenIn: params.tokenIn,
      tokenOut: params.tokenOut,
      amountIn: params.amountIn.toString(),
      routingStrategy: "router",
    });
    expect(answer.route).toEqual([
      expect.objectContaining({
        protocol: "balancer-v2",
        action: params.action ?? "swap",
        primaryAddress: getAddress(params.through.address),
        tokenIn: [getAddress(params.tokenIn)],
        tokenOut: [getAddress(params.tokenOut)],
      }),
    ]);
    const step = {
      pool: params.through,
      tokenIn: params.tokenIn,
      tokenOut: params.tokenOut,
      amountIn: params.amountIn,
    };
    const vaultQuote =
      params.weighted && params.action
        ? await queryWeightedJoinExit(a.client, contracts.balancerHelpers, step)
        : await queryVaultExactIn(a.client, balancer.vault, step);
    expect(answer.amountOut).toBe(vaultQuote.amountOut.toString());
    await a.approve(u, params.tokenIn, answer.tx.to, params.amountIn);
    const before = await a.balanceOf(params.tokenOut, from);
    const receipt = await a.send(u, {
      to: answer.tx.to,
      data: answer.tx.data,
      value: BigInt(answer.tx.value),
    });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(params.tokenOut, from)) - before).toBe(BigInt(answer.amountOut));
    return BigInt(answer.amountOut);
  };

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    chainId = service.deployment.chainId;
    a = await devnetActors(service);
    if (!service.deployment.balancerV2) throw new Error("the world has no Balancer V2");
    balancer = service.deployment.balancerV2;
    const d = await devnetDeployer(service.anvil.url);
    const read = (
      address: Address,
      functionName:
        | "getAuthorizer"
        | "getProtocolFeesCollector"
        | "getProtocolFeePercentagesProvider",
    ) =>
      a.client.readContract({
        address,
        abi: [...BalancerV2VaultAbi, ...BalancerV2WeightedPoolFactoryAbi],
        functionName,
      }) as Promise<Address>;
    const helpers = readNpmArtifact("BalancerV2Helpers");
    contracts = {
      vault: balancer.vault,
      weightedPoolFactory: balancer.weightedPoolFactory,
      composableStablePoolFactory: balancer.composableStablePoolFactory,
      authorizer: await read(balancer.vault, "getAuthorizer"),
      protocolFeesCollector: await read(balancer.vault, "getProtocolFeesCollector"),
      protocolFeePercentagesProvider: await read(
        balancer.weightedPoolFactory,
        "getProtocolFeePercentagesProvider",
      ),
      balancerHelpers: await d.deploy(helpers.abi, helpers.bytecode, [balancer.vault]),
    };
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
  });

  test("the pools the factories created are indexed as the chain holds them", async () => {
    await settleGraph();
    await expectRowsEqualChain();
  });

  test("BPTs are position tokens of balancer-v2 over the pools' tokens, the vault their primary address; /v1/projects counts the pools", async () => {
    const res = await fetch(`${service.url}/v1/tokens?chainId=${chainId}&protocolSlug=balancer-v2`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      data: {
        address: string;
        type: string;
        protocolSlug: string;
        underlyingTokens: string[];
        primaryAddress: string;
      }[];
    };
    const byAddress = (x: { address: string }, y: { address: string }) =>
      x.address.localeCompare(y.address);
    expect(
      body.data
        .map(({ address, type, protocolSlug, underlyingTokens, primaryAddress }) => ({
          address,
          type,
          protocolSlug,
          underlyingTokens,
          primaryAddress,
        }))
        .sort(byAddress),
    ).toEqual(
      POOLS.map((name) => {
        const p = pool(name);
        return {
          address: getAddress(p.address),
          type: "defi",
          protocolSlug: "balancer-v2",
          // A composable stable pool's own BPT is not among its underlying tokens.
          underlyingTokens: p.tokens
            .filter((t) => t.toLowerCase() !== p.address.toLowerCase())
            .map((t) => getAddress(t)),
          primaryAddress: getAddress(balancer.vault),
        };
      }).sort(byAddress),
    );
    const projects = (await (await fetch(`${service.url}/v1/projects`)).json()) as {
      id: string;
      chainIds: string;
      poolCount: number;
    }[];
    expect(projects.find((p) => p.id === "balancer-v2")).toMatchObject({
      chainIds: String(chainId),
      poolCount: 5,
    });
  });

  test("every BPT has a USD price on /v1/prices: a weighted pool's at its share of the pool's balances", async () => {
    await settleGraph();
    type Price = { price: number | null; decimals: number | null; blockNumber: number };
    const priceOf = async (token: Address) =>
      (await (await fetch(`${service.url}/v1/prices/${chainId}/${token}`)).json()) as Price;
    for (const name of POOLS) {
      const p = pool(name);
      const bpt = await priceOf(p.address);
      if (!name.startsWith("weighted")) {
        // A composable stable pool's BPT is one of its tokens: priced through its swaps.
        expect({ name, priced: (bpt.price ?? 0) > 0 }).toEqual({ name, priced: true });
        continue;
      }
      // No swap reaches a weighted pool's BPT: the pool's balances, each at its own price,
      // over the supply a join mints against, as the chain holds them at the price's block.
      const state = await readWeightedPoolState(a.client, balancer.vault, p);
      let value = 0;
      for (const [i, token] of state.tokens.entries()) {
        const underlying = await priceOf(token);
        value +=
          Number(formatUnits(state.balances[i] as bigint, underlying.decimals as number)) *
          (underlying.price as number);
      }
      const expected = value / Number(formatUnits(state.actualSupply, 18));
      expect({
        name,
        decimals: bpt.decimals,
        close: Math.abs((bpt.price as number) / expected - 1) < 1e-12,
      }).toEqual({
        name,
        decimals: 18,
        close: true,
      });
    }
  });

  // The stable pool holds less USDT than USDC and DAI: it pays a premium for USDT, and pays out
  // DAI cheaply (USDC → USDT, Uniswap V3's USDC/USDT pool is the better venue).
  test("router: USDT → DAI through the stable pool, BAL → WETH through the 80/20 pool, exactly the vault's quote", async () => {
    await routeThrough({
      i: 3,
      through: pool("stableUsd"),
      tokenIn: a.token("USDT"),
      tokenOut: a.token("DAI"),
      amountIn: a.usd("USDT", 50_000),
    });
    await routeThrough({
      i: 3,
      through: pool("weighted8020"),
      tokenIn: a.token("BAL"),
      tokenOut: a.token("WETH"),
      amountIn: a.usd("BAL", 20_000),
    });
  });

  test("router: USDT → USDC goes through the stable pool and on through Uniswap; the receiver gets exactly amountOut", async () => {
    const u = a.user(6);
    const from = u.account.address;
    const usdt = a.token("USDT");
    const usdc = a.token("USDC");
    const amountIn = a.usd("USDT", 50_000);
    await a.fund(from, usdt, amountIn);
    await settleGraph();
    const answer = await route({
      fromAddress: from,
      tokenIn: usdt,
      tokenOut: usdc,
      amountIn: amountIn.toString(),
      routingStrategy: "router",
    });
    expect(answer.route[0]).toMatchObject({
      protocol: "balancer-v2",
      primaryAddress: getAddress(pool("stableUsd").address),
      tokenIn: [getAddress(usdt)],
    });
    expect(answer.route.length).toBeGreaterThan(1);
    await a.approve(u, usdt, answer.tx.to, amountIn);
    const before = await a.balanceOf(usdc, from);
    const receipt = await a.send(u, {
      to: answer.tx.to,
      data: answer.tx.data,
      value: BigInt(answer.tx.value),
    });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(usdc, from)) - before).toBe(BigInt(answer.amountOut));
  });

  test("router: a deposit into the stable pool's BPT from USDT and a redeem out of it to DAI", async () => {
    const bpt = pool("stableUsd").address;
    const bptOut = await routeThrough({
      i: 4,
      through: pool("stableUsd"),
      tokenIn: a.token("USDT"),
      tokenOut: bpt,
      amountIn: a.usd("USDT", 25_000),
      action: "deposit",
    });
    await routeThrough({
      i: 4,
      through: pool("stableUsd"),
      tokenIn: bpt,
      tokenOut: a.token("DAI"),
      amountIn: bptOut / 2n,
      fund: false,
      action: "redeem",
    });
  });

  test("router: a join of the 50/50 weighted pool with USDC and, after swaps, an exit of its BPT to USDC, each the helpers' query, the protocol owed fees", async () => {
    const weighted = pool("weighted5050");
    const bpt = weighted.address;
    // The protocol takes half the swap fees: the pool owes it BPT after every swap, minted before
    // the next join or exit, so an exit's quote needs the actual supply after the swaps.
    const d = await devnetDeployer(service.anvil.url);
    await setBalancerV2ProtocolFees(d, contracts, {
      swap: 5n * 10n ** 17n,
      yield: 0n,
      pools: [bpt],
    });
    const bptOut = await routeThrough({
      i: 1,
      through: weighted,
      tokenIn: a.token("USDC"),
      tokenOut: bpt,
      amountIn: a.usd("USDC", 40_000),
      action: "deposit",
      weighted: true,
    });
    // Swap fees accrue; the swap back leaves the pool near its price (later tests route through
    // the pools beside it).
    const [usdc, weth] = [a.token("USDC"), a.token("WETH")];
    await d.init(); // the deployer funded the join since: its nonce is read back
    const trader = balancerV2Actions(d, balancer.vault, weth);
    const wethBefore = await a.balanceOf(weth, d.address);
    await trader.swap(weighted, usdc, weth, a.usd("USDC", 50_000));
    await trader.swap(weighted, weth, usdc, (await a.balanceOf(weth, d.address)) - wethBefore);
    const owed =
      (await readWeightedPoolState(a.client, balancer.vault, weighted)).actualSupply -
      (await a.client.readContract({
        address: bpt,
        abi: BalancerV2WeightedPoolAbi,
        functionName: "totalSupply",
      }));
    expect(owed).toBeGreaterThan(0n);
    await routeThrough({
      i: 1,
      through: weighted,
      // Back to the token joined with (the join left USDC cheap in the pool: exiting to it is
      // also the best way out).
      tokenIn: bpt,
      tokenOut: usdc,
      amountIn: bptOut,
      fund: false,
      action: "redeem",
      weighted: true,
    });
  });

  test("router: WETH → wstETH through the rate-provided pool after its rate moved and its cache expired", async () => {
    const deployer = a.deployer;
    await a.send(deployer, {
      to: balancer.stakedEthRateProvider,
      data: encodeFunctionData({
        abi: DevRateProviderAbi,
        functionName: "setRate",
        args: [1_160_000_000_000_000_000n],
      }),
    });
    await a.client.request({ method: "evm_increaseTime" as never, params: [3_601] as never });
    await a.client.request({ method: "evm_mine" as never, params: [] as never });
    await routeThrough({
      i: 5,
      through: pool("stableEth"),
      tokenIn: a.token("WETH"),
      tokenOut: a.token("wstETH"),
      amountIn: 10n ** 19n,
    });
  });

  test("a pool registered in the vault by another factory is not indexed", async () => {
    const d = await devnetDeployer(service.anvil.url);
    const known = { address: balancer.weightedPoolFactory, abi: BalancerV2WeightedPoolFactoryAbi };
    const { abi, bytecode } = readNpmArtifact("BalancerV2WeightedPoolFactory");
    // The same factory contract, deployed again: its pools are the known factory's kind, but
    // no chain setup names it.
    const other = await d.deploy(abi, bytecode, [
      balancer.vault,
      await a.client.readContract({ ...known, functionName: "getProtocolFeePercentagesProvider" }),
      "another factory",
      await a.client.readContract({ ...known, functionName: "getPoolVersion" }),
    ]);
    const stranger = await createWeightedPool(
      d,
      { vault: balancer.vault, weightedPoolFactory: other } as BalancerV2Contracts,
      {
        name: "Unknown factory's pool",
        symbol: "B-UNKNOWN",
        tokens: [
          { address: a.token("WETH"), amount: 10n ** 18n, weight: 5n * 10n ** 17n },
          { address: a.token("USDC"), amount: 3_000n * 10n ** 6n, weight: 5n * 10n ** 17n },
        ],
        swapFeePercentage: 10n ** 16n,
      },
    );
    await settleGraph();
    expect((await rows()).map((r) => r.address)).not.toContain(stranger.address.toLowerCase());
    const res = await fetch(
      `${service.url}/v1/tokens?chainId=${chainId}&address=${stranger.address}`,
    );
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([]);
  });

  test("bundle: balancer-v2 deposit of USDT into the stable pool's BPT, then redeem of that BPT to DAI, each the vault's quote", async () => {
    const stable = pool("stableUsd");
    const u = a.user(8);
    const from = u.account.address;
    const usdt = a.token("USDT");
    const dai = a.token("DAI");
    const amountIn = a.usd("USDT", 10_000);
    await a.fund(from, usdt, amountIn);
    await settleGraph();
    const res = await fetch(
      `${service.url}/v1/shortcuts/bundle?${new URLSearchParams({ chainId: String(chainId), fromAddress: from, routingStrategy: "router" })}`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([
          {
            protocol: "balancer-v2",
            action: "deposit",
            args: {
              primaryAddress: stable.address,
              tokenIn: usdt,
              tokenOut: stable.address,
              amountIn: amountIn.toString(),
            },
          },
          {
            protocol: "balancer-v2",
            action: "redeem",
            args: {
              primaryAddress: stable.address,
              tokenIn: stable.address,
              tokenOut: dai,
              amountIn: { useOutputOfCallAt: 0 },
            },
          },
        ]),
      },
    );
    const body = (await res.json()) as {
      tx: { data: Hex; to: Address; value: string };
      amountsOut: Record<string, string>;
    };
    expect(res.status).toBe(200);
    // The vault's own quotes, the exit's of what the join makes, on the state the join leaves.
    const path = [
      { pool: stable, tokenIn: usdt, tokenOut: stable.address },
      { pool: stable, tokenIn: stable.address, tokenOut: dai },
    ];
    const daiOut = await queryVaultPathExactIn(a.client, balancer.vault, path, amountIn);
    expect(body.amountsOut).toEqual({ [getAddress(dai)]: daiOut.toString() });
    await a.approve(u, usdt, body.tx.to, amountIn);
    const before = await a.balanceOf(dai, from);
    const receipt = await a.send(u, { to: body.tx.to, data: body.tx.data, value: 0n });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(dai, from)) - before).toBe(daiOut);
    expect(await a.balanceOf(stable.address, from)).toBe(0n);
  });

  test("bundle: balancer-v2 deposit of WBTC into the three-token weighted pool, then redeem of its BPT to WBTC, each the helpers' query", async () => {
    const weighted = pool("weightedThreeToken");
    const u = a.user(2);
    const from = u.account.address;
    const bundle = async (action: Record<string, unknown>, tokenIn: Address, amountIn: bigint) => {
      await settleGraph();
      const res = await fetch(
        `${service.url}/v1/shortcuts/bundle?${new URLSearchParams({ chainId: String(chainId), fromAddress: from, routingStrategy: "router" })}`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify([{ protocol: "balancer-v2", ...action }]),
        },
      );
      const body = (await res.json()) as {
        tx: { data: Hex; to: Address; value: string };
        amountsOut: Record<string, string>;
      };
      expect(res.status).toBe(200);
      await a.approve(u, tokenIn, body.tx.to, amountIn);
      const receipt = await a.send(u, { to: body.tx.to, data: body.tx.data, value: 0n });
      expect(receipt.status).toBe("success");
      return body.amountsOut;
    };
    const wbtc = a.token("WBTC");
    const amountIn = 10n ** 8n;
    await a.fund(from, wbtc, amountIn);
    await settleGraph();
    const join = await queryWeightedJoinExit(a.client, contracts.balancerHelpers, {
      pool: weighted,
      tokenIn: wbtc,
      tokenOut: weighted.address,
      amountIn,
    });
    const joined = await bundle(
      {
        action: "deposit",
        args: {
          primaryAddress: weighted.address,
          tokenIn: wbtc,
          tokenOut: weighted.address,
          amountIn: amountIn.toString(),
        },
      },
      wbtc,
      amountIn,
    );
    expect(joined).toEqual({ [getAddress(weighted.address)]: join.amountOut.toString() });
    expect(await a.balanceOf(weighted.address, from)).toBe(join.amountOut);
    await settleGraph();
    const exit = await queryWeightedJoinExit(a.client, contracts.balancerHelpers, {
      pool: weighted,
      tokenIn: weighted.address,
      tokenOut: wbtc,
      amountIn: join.amountOut,
    });
    const exited = await bundle(
      {
        action: "redeem",
        args: {
          primaryAddress: weighted.address,
          tokenIn: weighted.address,
          tokenOut: wbtc,
          amountIn: join.amountOut.toString(),
        },
      },
      weighted.address,
      join.amountOut,
    );
    expect(exited).toEqual({ [getAddress(wbtc)]: exit.amountOut.toString() });
    // Back in WBTC, less what the join and the exit paid the pool.
    expect(await a.balanceOf(wbtc, from)).toBe(exit.amountOut);
    expect(exit.amountOut).toBeLessThan(amountIn);
    expect(await a.balanceOf(weighted.address, from)).toBe(0n);
  });

  test("after the routes, the indexed pools still hold what the chain holds", async () => {
    await settleGraph();
    await expectRowsEqualChain();
  });

  test("the history tables: a swap row per vault Swap of an indexed pool, exact to the wei, at the pool's fee; the tokens' volume counts them", async () => {
    await settleGraph();
    const indexed = new Set(POOLS.map((name) => pool(name).address.toLowerCase()));
    const logs = (
      await a.client.getContractEvents({
        address: balancer.vault,
        abi: BalancerV2VaultAbi,
        eventName: "Swap",
        fromBlock: 0n,
      })
    ).filter((log) => indexed.has(log.args.poolId?.slice(0, 42).toLowerCase() ?? ""));
    type SwapRow = {
      txHash: Hex;
      logIndex: number;
      pool: string;
      token0: string;
      token1: string;
      sender: string;
      recipient: string;
      amount0: string;
      amount1: string;
      amountUsd: string;
      feesUsd: string;
      price: string;
    };
    const { swaps } = await graphqlQuery<{ swaps: { items: SwapRow[] } }>(
      service,
      `{ swaps(where: { protocolSlug: "balancer-v2" }, orderBy: "blockNumber", limit: 1000) { items { txHash logIndex pool token0 token1 sender recipient amount0 amount1 amountUsd feesUsd price } } }`,
    );
    // The routes and actions above swapped through the vault many times.
    expect(logs.length).toBeGreaterThanOrEqual(10);
    expect(swaps.items).toHaveLength(logs.length);
    const rowOf = new Map(swaps.items.map((r) => [`${r.txHash}:${r.logIndex}`, r]));
    let bal = 0n;
    for (const log of logs) {
      const { poolId, tokenIn, tokenOut, amountIn, amountOut } = log.args as {
        poolId: Hex;
        tokenIn: Address;
        tokenOut: Address;
        amountIn: bigint;
        amountOut: bigint;
      };
      const row = rowOf.get(`${log.transactionHash}:${log.logIndex}`);
      const inFirst = tokenIn.toLowerCase() < tokenOut.toLowerCase();
      const tx = await a.client.getTransaction({ hash: log.transactionHash as Hex });
      const fee = await a.client.readContract({
        address: poolId.slice(0, 42) as Address,
        abi: BalancerV2WeightedPoolAbi,
        functionName: "getSwapFeePercentage",
      });
      expect(row).toMatchObject({
        pool: poolId.slice(0, 42).toLowerCase(),
        token0: (inFirst ? tokenIn : tokenOut).toLowerCase(),
        token1: (inFirst ? tokenOut : tokenIn).toLowerCase(),
        sender: tx.from.toLowerCase(),
        recipient: tx.from.toLowerCase(),
        amount0: String(inFirst ? amountIn : -amountOut),
        amount1: String(inFirst ? -amountOut : amountIn),
        // The swap's own price, token1 per token0 (Q128).
        price: String(
          ((inFirst ? amountOut : amountIn) << 128n) / (inFirst ? amountIn : amountOut),
        ),
      });
      expect(BigInt(row?.feesUsd ?? -1)).toBe(
        (BigInt(row?.amountUsd ?? 0) * (fee / 10n ** 12n)) / 1_000_000n,
      );
      for (const [token, amount] of [
        [tokenIn, amountIn],
        [tokenOut, amountOut],
      ] as const) {
        if (token.toLowerCase() === a.token("BAL").toLowerCase()) bal += amount;
      }
    }
    // Priced swaps are valued: one between WETH and USDC at least.
    expect(swaps.items.some((r) => BigInt(r.amountUsd) > 0n)).toBe(true);
    // BAL trades in the 80/20 pool alone: its volume is those swaps'.
    const { tokenMarket } = await graphqlQuery<{ tokenMarket: { volume: string } | null }>(
      service,
      `{ tokenMarket(chainId: ${chainId}, address: "${a.token("BAL").toLowerCase()}") { volume } }`,
    );
    expect(bal).toBeGreaterThan(0n);
    expect(tokenMarket).toEqual({ volume: String(bal) });
  });

  test("router: USDT → DAI through the stable pool a day into an amp update, whose only event was a day before", async () => {
    const stable = pool("stableUsd");
    const u = a.user(7);
    const from = u.account.address;
    const amountIn = a.usd("USDT", 50_000);
    const query = {
      fromAddress: from,
      tokenIn: a.token("USDT"),
      tokenOut: a.token("DAI"),
      amountIn: amountIn.toString(),
      routingStrategy: "router",
    };
    await a.fund(from, a.token("USDT"), amountIn);
    await settleGraph();
    await a.approve(u, a.token("USDT"), (await route(query)).tx.to, amountIn);
    const { timestamp: started } = await a.client.getBlock({ blockTag: "latest" });
    await a.send(a.deployer, {
      to: stable.address,
      data: encodeFunctionData({
        abi: BalancerV2ComposableStablePoolAbi,
        functionName: "startAmplificationParameterUpdate",
        args: [400n, started + 2n * 86_400n],
      }),
    });
    await settleGraph();
    // A day later the amp is half way from 200 to 400; no event has said so since.
    await a.client.request({ method: "evm_increaseTime" as never, params: [86_400] as never });
    await a.client.request({ method: "evm_mine" as never, params: [] as never });
    await settleGraph();
    const head = await a.client.getBlock({ blockTag: "latest" });
    const answer = await route(query);
    expect(answer.route).toEqual([
      expect.objectContaining({
        protocol: "balancer-v2",
        primaryAddress: getAddress(stable.address),
      }),
    ]);
    // The swap lands a second after the head: the vault's quote for that second is the answer.
    const swap = { pool: stable, tokenIn: a.token("USDT"), tokenOut: a.token("DAI"), amountIn };
    const swapTime = head.timestamp + 1n;
    const quoted = await queryVaultExactIn(a.client, balancer.vault, swap, swapTime);
    expect(answer.amountOut).toBe(quoted.amountOut.toString());
    // The amp of the update's block quotes otherwise: the pool moved with time alone.
    const atUpdate = await queryVaultExactIn(
      a.client,
      balancer.vault,
      swap,
      head.timestamp - 86_400n,
    );
    expect(atUpdate.amountOut).not.toBe(quoted.amountOut);
    await a.client.request({
      method: "evm_setNextBlockTimestamp" as never,
      params: [Number(swapTime)] as never,
    });
    const before = await a.balanceOf(a.token("DAI"), from);
    const receipt = await a.send(u, { to: answer.tx.to, data: answer.tx.data, value: 0n });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(a.token("DAI"), from)) - before).toBe(quoted.amountOut);
  });

  test("a rate-provided pool created while the service runs is refreshed every block too: its provider's new rate reaches its row with no event of the pool", async () => {
    const d = await devnetDeployer(service.anvil.url);
    const providerArtifact = loadArtifact("DevRateProvider");
    const initialRate = 1_020_000_000_000_000_000n;
    const provider = await d.deploy(providerArtifact.abi, providerArtifact.bytecode, [initialRate]);
    const created = await createComposableStablePool(
      d,
      {
        vault: balancer.vault,
        composableStablePoolFactory: balancer.composableStablePoolFactory,
      } as BalancerV2Contracts,
      {
        name: "Late rate-provided pool",
        symbol: "B-LATE",
        tokens: [
          { address: a.token("WETH"), amount: 10n ** 18n },
          {
            address: a.token("DAI"),
            amount: 1_000n * 10n ** 18n,
            rateProvider: provider,
            rateCacheDuration: 60n,
          },
        ],
        amplification: 50n,
        swapFeePercentage: 10n ** 14n,
      },
    );
    const providerRates = async () => {
      await settleGraph();
      const row = (await rows()).find((r) => r.address === created.address.toLowerCase());
      if (!row) throw new Error("the late pool is not indexed");
      return row.tokens.map((token, i) => [token, row.providerRates[i]]);
    };
    const expected = (rate: bigint) =>
      created.tokens.map((token) => [
        token.toLowerCase(),
        String(token.toLowerCase() === a.token("DAI").toLowerCase() ? rate : 10n ** 18n),
      ]);
    expect(await providerRates()).toEqual(expected(initialRate));
    // The provider's rate moves: no event of the pool or the vault says so.
    const movedRate = 1_030_000_000_000_000_000n;
    await d.write(provider, DevRateProviderAbi, "setRate", [movedRate]);
    expect(await providerRates()).toEqual(expected(movedRate));
  });
});
