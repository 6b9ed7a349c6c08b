/**
 * Balancer V2, one of the engine's built-in protocols, routed and executed on anvil: the
 * execution layer and the execution tests' Uniswap V2 pairs, the vault and its pools deployed from `@balancer-labs/v2-deployments`'
 * bytecode, a Uniswap V2 WETH/USDC pair competing with the weighted pools, the pools' state read
 * back from the chain into the plugin's pool type. Each route is built by the engine for each
 * strategy (router, delegate, corewallet) and sent: the receiver gets exactly the quoted amount,
 * each Balancer hop's quote is the vault's own `queryBatchSwap`, and neither the router, its
 * executor nor the executing account keeps a token or an allowance to the vault. The router
 * transactions' gas is printed beside the constants of engine/protocols/balancer-v2/gas.ts.
 */
import {
  type Address,
  erc20Abi,
  getAddress,
  type Hex,
  maxUint256,
  type PublicClient,
  parseUnits,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { UniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { buildContracts } from "../../contracts/build.js";
import type { AnvilInstance } from "../../devnet/anvil.js";
import {
  type BalancerV2Contracts,
  type BalancerV2DevnetPools,
  type BalancerV2DevnetTokens,
  createBalancerV2DevnetPools,
  type BalancerV2Pool as DevnetPool,
  deployBalancerV2,
} from "../../devnet/balancer-v2.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { type Deployer, devnetDeployer } from "../../devnet/world.js";
import type { ChainSetup } from "../../engine/core/chain-setup.js";
import type { QuotedHop } from "../../engine/core/types.js";
import {
  engine as builtinEngine,
  type Engine,
  type RouteRequest,
  type RoutingGraph,
  type RoutingStrategy,
  routeHops,
} from "../../engine/index.js";
import { type BalancerV2Pool, balancerV2PoolOf } from "../../engine/protocols/balancer-v2/pool.js";
import { ROUTE_BASE_GAS } from "../../engine/routing/gas.js";
import { parseRouteQuery } from "../../src/api/v1/route-query.js";
import type { ExecutionWorld, Wallet } from "../execution/world.js";
import { deployExecutionWorld } from "../execution/world.js";
import { startTestAnvil } from "../harness/anvil.js";
import { readV2Pool } from "../routing/chain-graph.js";
import {
  deployBalancerV2Tokens,
  queryVaultExactIn,
  queryWeightedJoinExit,
  readComposableStablePoolState,
  readWeightedPoolState,
} from "./balancer-v2-chain.js";

const STRATEGIES: readonly RoutingStrategy[] = ["router", "delegate", "corewallet"];
const SLIPPAGE_BPS = 50;

let anvil: AnvilInstance;
let world: ExecutionWorld;
let client: PublicClient;
let d: Deployer;
let balancer: BalancerV2Contracts;
let pools: BalancerV2DevnetPools;
let tokens: BalancerV2DevnetTokens;
/** The Uniswap V2 WETH/USDC pair beside the weighted pools. */
let competingPair: Address;
let engine: Engine;
let graph: RoutingGraph;
let chain: ChainSetup;
/** The chain as set up, restored before each route is sent. */
let snapshot: Hex;

const lower = (address: Address) => address.toLowerCase() as Address;

async function readPool(pool: DevnetPool, type: BalancerV2Pool["type"]): Promise<BalancerV2Pool> {
  const base = { address: pool.address, poolId: pool.poolId, vault: balancer.vault };
  return type === "weighted"
    ? balancerV2PoolOf({
        ...base,
        type,
        state: await readWeightedPoolState(client, balancer.vault, pool),
      })
    : balancerV2PoolOf({
        ...base,
        type,
        state: await readComposableStablePoolState(client, balancer.vault, pool, "at-swap"),
      });
}

/** Creates the Uniswap V2 pair of two tokens and mints its first liquidity to the deployer. */
async function addV2Pair(a: Address, amountA: bigint, b: Address, amountB: bigint) {
  const factory = world.uniswapV2.factory;
  await d.write(factory, UniswapV2FactoryAbi, "createPair", [a, b]);
  const pair = await client.readContract({
    address: factory,
    abi: UniswapV2FactoryAbi,
    functionName: "getPair",
    args: [a, b],
  });
  await fund(d.address, a, amountA);
  await fund(d.address, b, amountB);
  await d.write(a, erc20Abi, "transfer", [pair, amountA]);
  await d.write(b, erc20Abi, "transfer", [pair, amountB]);
  await d.write(pair, UniswapV2PairAbi, "mint", [d.address]);
  return getAddress(pair);
}

/** The devnet's Balancer pools (their BPTs), lowercase. */
const bpts = () =>
  new Set(
    Object.values(pools)
      .filter((p): p is DevnetPool => typeof p === "object" && "poolId" in p)
      .map((p) => lower(p.address)),
  );

/** Gives `to` `amount` of `token`: wrapped ether, a minted DevToken, or the deployer's BPT. */
async function fund(to: Address, token: Address, amount: bigint): Promise<void> {
  if (token === world.weth) {
    await d.write(world.weth, WETH9Abi, "deposit", [], amount);
    if (to !== d.address) await d.write(world.weth, erc20Abi, "transfer", [to, amount]);
  } else if (bpts().has(lower(token))) {
    await d.write(token, erc20Abi, "transfer", [to, amount]);
  } else {
    await d.write(token, DevTokenAbi, "mint", [to, amount]);
  }
}

beforeAll(async () => {
  buildContracts();
  anvil = await startTestAnvil();
  world = await deployExecutionWorld(anvil.url);
  client = world.client as unknown as PublicClient;
  d = await devnetDeployer(anvil.url);
  tokens = await deployBalancerV2Tokens(d, world.weth);
  balancer = await deployBalancerV2(d, { weth: world.weth });
  pools = await createBalancerV2DevnetPools(d, balancer, tokens);
  // A shallower pair than the 50/50 pool, at the same price: part of a large WETH sale goes here.
  competingPair = await addV2Pair(
    tokens.WETH,
    parseUnits("100", 18),
    tokens.USDC,
    parseUnits("300000", 6),
  );

  engine = builtinEngine;
  graph = engine.createGraph();
  graph.upsertPool(await readPool(pools.weighted8020, "weighted"));
  graph.upsertPool(await readPool(pools.weighted5050, "weighted"));
  graph.upsertPool(await readPool(pools.weightedThreeToken, "weighted"));
  graph.upsertPool(await readPool(pools.stableUsd, "composable-stable"));
  graph.upsertPool(await readPool(pools.stableEth, "composable-stable"));
  graph.upsertPool(await readV2Pool(client, competingPair));
  graph.upsertPool(await readV2Pool(client, world.uniswapV2.pairs.AW.address));
  graph.blockNumber = await client.getBlockNumber();
  chain = {
    id: world.chain.id,
    name: "devnet",
    title: "Devnet",
    rpc: [anvil.url],
    startBlock: 0,
    weth: world.weth,
    balancerV2: {
      vault: balancer.vault,
      weightedPoolFactories: [balancer.weightedPoolFactory],
      composableStablePoolFactories: [balancer.composableStablePoolFactory],
      startBlock: 0,
    },
    vaults: [],
    stablecoins: [],
    execution: world.execution,
    devnet: true,
  };
  snapshot = await world.test.snapshot();
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

const read = (token: Address, functionName: "balanceOf", account: Address) =>
  client.readContract({ address: token, abi: erc20Abi, functionName, args: [account] });

const allowance = (token: Address, owner: Address, spender: Address) =>
  client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "allowance",
    args: [owner, spender],
  });

function request(
  strategy: RoutingStrategy,
  from: Address,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
): RouteRequest {
  const query = new URLSearchParams({
    chainId: String(world.chain.id),
    fromAddress: from,
    tokenIn,
    tokenOut,
    amountIn: String(amountIn),
    receiver: world.accounts.receiver.account.address,
    routingStrategy: strategy,
    slippage: String(SLIPPAGE_BPS),
    priceImpact: "false",
  });
  return parseRouteQuery(`http://x/v1/shortcuts/route?${query}`);
}

/** The pools of a route, leg by leg, by name; a flow's as one list of its hops with their shares. */
function routePools(route: ReturnType<Engine["buildRoute"]>): string[][] {
  const names = new Map<string, string>([
    [lower(pools.weighted8020.address), "weighted 80 BAL/20 WETH"],
    [lower(pools.weighted5050.address), "weighted 50 WETH/50 USDC"],
    [lower(pools.weightedThreeToken.address), "weighted WETH/WBTC/USDC"],
    [lower(pools.stableUsd.address), "stable USDC/USDT/DAI"],
    [lower(pools.stableEth.address), "stable WETH/wstETH"],
    [lower(competingPair), "uniswap-v2 WETH/USDC"],
    [lower(world.uniswapV2.pairs.AW.address), "uniswap-v2 A/WETH"],
  ]);
  const name = (hop: QuotedHop) => names.get(hop.edge.pool.address) ?? hop.edge.pool.address;
  // A flow (split and merged at intermediate tokens): its hops in order, each with its share.
  const flow = route.quote.flow;
  if (flow)
    return [flow.hops.map((hop) => `${name(hop)} (${(hop.sharePpb / 10_000_000).toFixed(2)}%)`)];
  return route.quote.legs.map((leg) => leg.hops.map(name));
}

/** Sends a built route as its strategy needs it sent, from `sender`. */
async function send(
  strategy: RoutingStrategy,
  sender: Wallet,
  route: ReturnType<Engine["buildRoute"]>,
  tokenIn: Address,
  amountIn: bigint,
) {
  const { timestamp } = await client.getBlock();
  const { tx, calls } = route.encode(route.quote.amountOut, timestamp + 3_600n);
  let authorizationList: Parameters<Wallet["sendTransaction"]>[0]["authorizationList"];
  if (strategy === "delegate") {
    authorizationList = [
      await sender.signAuthorization({
        contractAddress: world.execution.delegateExecutor,
        executor: "self",
      }),
    ];
  } else {
    // The router, or the caller's own wallet (deployed by this transaction), pulls the input.
    const spender = strategy === "router" ? world.execution.router : (route.wallet as Address);
    const hash = await sender.writeContract({
      address: tokenIn,
      abi: erc20Abi,
      functionName: "approve",
      args: [spender, amountIn],
    });
    expect((await devnetReceipt(client, hash)).status).toBe("success");
  }
  const hash = await sender.sendTransaction({
    to: tx.to,
    data: tx.data,
    value: tx.value,
    authorizationList,
    gas: 3_000_000n,
  });
  return { receipt: await devnetReceipt(client, hash), calls };
}

type RouteCase = {
  name: string;
  tokenIn: () => Address;
  tokenOut: () => Address;
  amountIn: bigint;
  /** The pools of each leg, as `routePools` names them. */
  legs: string[][];
};

const cases: RouteCase[] = [
  {
    name: "WETH → USDC, through the weighted pools beside a Uniswap V2 pair",
    tokenIn: () => tokens.WETH,
    tokenOut: () => tokens.USDC,
    amountIn: parseUnits("40", 18),
    // Split three ways: the two weighted pools holding WETH and USDC, and the V2 pair.
    legs: [["weighted 50 WETH/50 USDC"], ["weighted WETH/WBTC/USDC"], ["uniswap-v2 WETH/USDC"]],
  },
  {
    name: "BAL → WETH, through the 80/20 pool",
    tokenIn: () => tokens.BAL,
    tokenOut: () => tokens.WETH,
    amountIn: parseUnits("2000", 18),
    legs: [["weighted 80 BAL/20 WETH"]],
  },
  {
    name: "USDC → DAI, through the stable pool",
    tokenIn: () => tokens.USDC,
    tokenOut: () => tokens.DAI,
    amountIn: parseUnits("250000", 6),
    legs: [["stable USDC/USDT/DAI"]],
  },
  {
    name: "USDC → BPT, into the stable pool's BPT",
    tokenIn: () => tokens.USDC,
    tokenOut: () => pools.stableUsd.address,
    amountIn: parseUnits("120000", 6),
    legs: [["stable USDC/USDT/DAI"]],
  },
  {
    name: "BPT → DAI, out of the stable pool's BPT",
    tokenIn: () => pools.stableUsd.address,
    tokenOut: () => tokens.DAI,
    amountIn: parseUnits("90000", 18),
    legs: [["stable USDC/USDT/DAI"]],
  },
  {
    name: "USDC → BPT, a single-token join of the 50/50 weighted pool",
    tokenIn: () => tokens.USDC,
    tokenOut: () => pools.weighted5050.address,
    amountIn: parseUnits("100000", 6),
    legs: [["weighted 50 WETH/50 USDC"]],
  },
  {
    name: "BPT → WETH, a single-token exit of the 50/50 weighted pool",
    tokenIn: () => pools.weighted5050.address,
    tokenOut: () => tokens.WETH,
    amountIn: parseUnits("2000", 18),
    legs: [["weighted 50 WETH/50 USDC"]],
  },
  {
    name: "A → BPT, Uniswap V2 then a join of the 80/20 pool with what it paid",
    tokenIn: () => world.tokens.A.address,
    tokenOut: () => pools.weighted8020.address,
    amountIn: parseUnits("6000", 18),
    legs: [["uniswap-v2 A/WETH", "weighted 80 BAL/20 WETH"]],
  },
  {
    name: "BPT → A, an exit of the 80/20 pool to WETH then Uniswap V2",
    tokenIn: () => pools.weighted8020.address,
    tokenOut: () => world.tokens.A.address,
    amountIn: parseUnits("100", 18),
    legs: [["weighted 80 BAL/20 WETH", "uniswap-v2 A/WETH"]],
  },
  {
    name: "WETH → DAI, a flow: three pools into USDC, merged into the stable pool",
    tokenIn: () => tokens.WETH,
    tokenOut: () => tokens.DAI,
    amountIn: parseUnits("3", 18),
    // WETH divided between both weighted pools and the V2 pair; the USDC they make, summed,
    // all into the stable pool.
    legs: [
      [
        "uniswap-v2 WETH/USDC (6.78%)",
        "weighted WETH/WBTC/USDC (25.39%)",
        "weighted 50 WETH/50 USDC (67.83%)",
        "stable USDC/USDT/DAI (100.00%)",
      ],
    ],
  },
  {
    name: "A → BAL, Uniswap V2 then the 80/20 pool",
    tokenIn: () => world.tokens.A.address,
    tokenOut: () => tokens.BAL,
    amountIn: parseUnits("6000", 18),
    legs: [["uniswap-v2 A/WETH", "weighted 80 BAL/20 WETH"]],
  },
  {
    name: "BAL → A, the 80/20 pool then Uniswap V2",
    tokenIn: () => tokens.BAL,
    tokenOut: () => world.tokens.A.address,
    amountIn: parseUnits("2500", 18),
    legs: [["weighted 80 BAL/20 WETH", "uniswap-v2 A/WETH"]],
  },
];

describe.each(cases)("$name", (c) => {
  test.each(STRATEGIES)("under %s: the receiver gets exactly the quote", async (strategy) => {
    await world.test.revert({ id: snapshot });
    snapshot = await world.test.snapshot();
    // The deployer counts its nonces itself: read back the one of the restored chain.
    await d.init();
    const sender = strategy === "delegate" ? world.accounts.delegator : world.accounts.user;
    const from = sender.account.address;
    const receiver = world.accounts.receiver.account.address;
    const [tokenIn, tokenOut] = [c.tokenIn(), c.tokenOut()];
    const route = engine.buildRoute({
      chain,
      contracts: world.execution,
      graph,
      gasPriceWei: 1n,
      request: request(strategy, from, tokenIn, tokenOut, c.amountIn),
    });
    const legs = routePools(route);
    console.info(`${c.name}, ${strategy}: ${JSON.stringify(legs)} → ${route.quote.amountOut}`);
    expect(legs).toEqual(c.legs);
    for (const hop of routeHops(route.quote)) {
      const pool = hop.edge.pool;
      if (pool.protocol !== "balancer-v2") continue;
      const devnetPool = Object.values(pools).find(
        (p): p is DevnetPool => typeof p === "object" && lower(p.address) === pool.address,
      ) as DevnetPool;
      const step = {
        pool: devnetPool,
        tokenIn: hop.edge.tokenIn,
        tokenOut: hop.edge.tokenOut,
        amountIn: hop.amountIn,
      };
      const joinOrExit = (pool as BalancerV2Pool).type === "weighted" && hop.edge.action !== "swap";
      expect(
        joinOrExit
          ? await queryWeightedJoinExit(client, balancer.balancerHelpers, step)
          : await queryVaultExactIn(client, balancer.vault, step),
      ).toEqual({ amountIn: hop.amountIn, amountOut: hop.amountOut });
    }

    await fund(from, tokenIn, c.amountIn);
    const account = route.account;
    const touched = [...new Set(routeHops(route.quote).map((hop) => hop.edge.tokenIn))];
    const receivedBefore = await read(tokenOut, "balanceOf", receiver);
    const accountBefore = await Promise.all(touched.map((t) => read(t, "balanceOf", account)));
    const { receipt, calls } = await send(strategy, sender, route, tokenIn, c.amountIn);
    expect(receipt.status).toBe("success");

    expect((await read(tokenOut, "balanceOf", receiver)) - receivedBefore).toBe(
      route.quote.amountOut,
    );
    // The executing account spent the input and keeps nothing of what passed through it.
    for (const [i, t] of touched.entries()) {
      const spent = lower(t) === lower(tokenIn) && strategy === "delegate" ? c.amountIn : 0n;
      expect(await read(t, "balanceOf", account)).toBe((accountBefore[i] as bigint) - spent);
      // A BPT answers the vault an unlimited allowance of its own, so no hop approves it.
      expect(await allowance(t, account, balancer.vault)).toBe(
        bpts().has(lower(t)) ? maxUint256 : 0n,
      );
    }
    for (const holder of [world.execution.router, world.execution.executor]) {
      for (const t of [...touched, tokenOut]) expect(await read(t, "balanceOf", holder)).toBe(0n);
    }

    const hops = routeHops(route.quote);
    // One exact approval per Balancer hop that does not spend a BPT, and none left standing.
    expect(calls.filter((call) => call.label === "approve").length).toBe(
      hops.filter(
        (hop) =>
          hop.edge.pool.protocol === "balancer-v2" && hop.edge.tokenIn !== hop.edge.pool.address,
      ).length,
    );
    if (strategy === "router" && route.quote.legs.length === 1 && hops.length === 1) {
      // bench/routing-gas.ts's measure of a step: a one-hop router transaction less the base.
      const measured = Number(receipt.gasUsed) - ROUTE_BASE_GAS;
      const modelled = engine.models.gas((hops[0] as (typeof hops)[number]).edge, 0);
      console.info(
        `gas: ${c.name}: gasUsed ${receipt.gasUsed}, less ROUTE_BASE_GAS ${measured}; gas.ts ${modelled}`,
      );
      expect(Math.abs(measured - modelled)).toBeLessThan(measured * 0.03);
    }
  });
});

test("the float shadows follow the exact quotes, and spot prices agree with both", () => {
  const edges = balancerEdges();
  // Deterministic amounts: 1e-6 to 25% of each edge's depth in, log-spaced.
  const shares = [1e-6, 1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.25];
  const result = { out: 0, ticksCrossed: 0 };
  const spot = { rate: 0, depthIn: 0 };
  let compared = 0;
  for (const edge of edges) {
    const quoter = engine.models.approxQuoter(edge);
    const depth = engine.models.depth(edge, "in");
    const unitOut = engine.models.approxSpot(edge, spot).rate;
    for (const share of shares) {
      const amountIn = BigInt(Math.floor(depth * share));
      const exact = engine.simulateEdge(edge, amountIn);
      const approx = quoter(Number(amountIn), result).out;
      expect(engine.models.approx(edge, Number(amountIn), { out: 0, ticksCrossed: 0 }).out).toBe(
        approx,
      );
      if (!exact.ok) {
        expect(approx).toBeNaN();
        continue;
      }
      // Rounding aside, the same formulas: within a millionth, one unit of tokenOut and what one
      // unit of tokenIn buys (the exact fee is rounded up to a whole unit: 4 sats of 1,250).
      const out = Number(exact.amountOut);
      expect(Math.abs(approx - out)).toBeLessThanOrEqual(out * 1e-6 + 1 + unitOut);
      compared++;
    }
    // The mid price is the limit of small trades' price before the fee (here 1e-6 of the depth,
    // whose price impact is within 1e-5): the fee is at most 1%, so the two agree within 1.1%.
    engine.models.approxSpot(edge, spot);
    const small = depth * 1e-6;
    const smallRate = (quoter(small, result).out ?? 0) / small;
    expect(smallRate / spot.rate).toBeGreaterThan(0.989);
    expect(smallRate / spot.rate).toBeLessThanOrEqual(1 + 1e-5);
    // The exact price across is the float mid price's inverse, up to rounding.
    const price = 10n ** 30n;
    const across = Number(engine.models.priceAcross(edge, price)) / 1e30;
    expect(Math.abs(across * spot.rate - 1)).toBeLessThan(1e-9);
  }
  console.info(`float shadows: ${compared} quotes over ${edges.length} Balancer edges`);
  expect(compared).toBeGreaterThan(edges.length * 5);
});

/** Every edge of the graph's Balancer pools, a weighted pool's joins and exits included. */
function balancerEdges() {
  return [...graph.pools()]
    .filter((pool) => pool.protocol === "balancer-v2")
    .flatMap((pool) => [...engine.models.edges(pool), ...engine.models.terminalEdges(pool)]);
}

test("an exhausted balance is refused as exceeding liquidity, a dust input as zero output", () => {
  const pool = graph.pool(lower(pools.weighted5050.address)) as BalancerV2Pool;
  const weth = lower(tokens.WETH);
  const usdc = lower(tokens.USDC);
  const edge = { pool, tokenIn: weth, tokenOut: usdc, action: "swap" as const };
  // Past 30% of the 1,000 WETH balance, after the 0.3% fee, the pool reverts (BAL#304).
  expect(engine.simulateEdge(edge, parseUnits("301", 18))).toEqual({
    ok: false,
    reason: "exceeds-liquidity",
  });
  expect(engine.simulateEdge(edge, 1n)).toEqual({ ok: false, reason: "zero-output" });
  const result = { out: 0, ticksCrossed: 0 };
  expect(engine.models.approx(edge, 301e18, result).out).toBeNaN();
});
