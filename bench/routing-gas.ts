/**
 * Gas per route step, for the route search's gas model (engine/routing/gas.ts): router
 * transactions on the devnet world running the programs the route planner builds (executor V2
 * swaps, V3 pool swaps paid from the callback with the output read back, ERC4626 approve +
 * deposit and redeem, WETH wrap and unwrap, a final sweep to the receiver), one to three hops,
 * V3 swaps crossing zero and many initialized ticks, a PancakeSwap V3 swap (a fork of Uniswap V3,
 * its pool called directly and paid from the executor's callback), V4 swaps through the
 * executor's unlock callback (ERC20 and native ether, crossing zero and several initialized
 * ticks), and a two-leg split. Each transaction runs
 * from the same snapshot, mined 12 s after the previous block, cold as on a live chain.
 * Writes bench/results/routing-gas.md.
 *
 * Run: npx tsx bench/routing-gas.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Address, createTestClient, http, maxUint256 } from "viem";
import { AaveV3PoolAbi } from "../abis/AaveV3Pool.js";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { buildContracts } from "../contracts/build.js";
import { amountForUsd } from "../devnet/world.js";
import type {
  Edge,
  Address as EngineAddress,
  ExecutionAddresses,
  FlowPlanHop,
  QuotedLeg,
  RouteQuote,
  RoutingGraph,
} from "../engine/index.js";
import {
  ALL_PPB,
  addAaveSupply,
  addAaveWithdraw,
  addErc4626Deposit,
  addErc4626Redeem,
  addExecutorUniswapV2Swap,
  addExecutorUniswapV4Swap,
  addSweep,
  addUniswapV2ZapIn,
  addUniswapV2ZapOut,
  addUniswapV3PoolSwap,
  addUnwrapNative,
  addWrapNative,
  encodeRouterSwapTx,
  ProgramPlanner,
  type ProgramValue,
  planRouteProgram,
  quoteFlow,
  quotePath,
  uniswapV3ExactIn,
  uniswapV4ExactIn,
  uniswapV4PoolKey,
} from "../engine/index.js";
import * as aaveV3Gas from "../engine/protocols/aave-v3/gas.js";
import * as erc4626Gas from "../engine/protocols/erc4626/gas.js";
import * as uniswapV2Gas from "../engine/protocols/uniswap-v2/gas.js";
import * as uniswapV3Gas from "../engine/protocols/uniswap-v3/gas.js";
import * as uniswapV4Gas from "../engine/protocols/uniswap-v4/gas.js";
import * as wrappedNativeGas from "../engine/protocols/wrapped-native/gas.js";
import * as routeGasModel from "../engine/routing/gas.js";
import { readDevnetGraph } from "../test/routing/chain-graph.js";
import { type RoutingDevnet, startRoutingDevnet } from "../test/routing/devnet.js";
import { flowRouteQuote } from "../test/routing/fixtures.js";

/** The gas model: the route's own constants and each protocol's, as the engine prices hops. */
const gas = {
  ...routeGasModel,
  ...uniswapV2Gas,
  ...uniswapV3Gas,
  ...uniswapV4Gas,
  ...erc4626Gas,
  ...aaveV3Gas,
  ...wrappedNativeGas,
};

const NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" as const;

type Scenario = {
  name: string;
  tokenIn: Address;
  tokenOut: Address;
  legs: QuotedLeg[];
  /** A flow (split and merged at intermediate tokens), run as the route planner's program. */
  flow?: { amountIn: bigint; hops: FlowPlanHop[] };
};

/** A scenario's exact flow quote. */
function flowQuote(s: Scenario): RouteQuote {
  const plan = {
    tokenIn: s.tokenIn.toLowerCase() as EngineAddress,
    tokenOut: s.tokenOut.toLowerCase() as EngineAddress,
    ...(s.flow as NonNullable<Scenario["flow"]>),
  };
  return flowRouteQuote(plan, quoteFlow(plan));
}

function edge(
  graph: RoutingGraph,
  tokenIn: string,
  tokenOut: string,
  kind: string,
  fee?: number,
): Edge {
  const matches = (e: Edge) =>
    e.tokenIn === tokenIn.toLowerCase() &&
    e.tokenOut === tokenOut.toLowerCase() &&
    e.pool.kind === kind &&
    (fee === undefined ||
      ((e.pool.kind === "v3" || e.pool.kind === "v4") && e.pool.feePpm === fee));
  // An edge into an LP token is listed under the LP token only (a terminal edge).
  const found =
    graph.edgesFrom(tokenIn.toLowerCase() as EngineAddress).find(matches) ??
    graph.edgesInto(tokenOut.toLowerCase() as EngineAddress).find(matches);
  if (!found) throw new Error(`no ${kind} edge ${tokenIn} → ${tokenOut}`);
  return found;
}

function leg(edges: Edge[], amountIn: bigint): QuotedLeg {
  const quote = quotePath(edges, amountIn);
  if (!quote.ok) throw new Error(`cannot quote a benchmark leg: ${quote.reason}`);
  return quote.leg;
}

/** The router program of a route: every hop paid to the executor, then a sweep. */
function program(net: RoutingDevnet, scenario: Scenario) {
  const executor = net.deployment.execution.executor as Address;
  if (scenario.flow) {
    // A flow: the route planner's own program under the router.
    return planRouteProgram({
      strategy: "router",
      execution: net.deployment.execution as ExecutionAddresses,
      swapRouter: net.deployment.uniswapV3.swapRouter,
      weth: net.deployment.weth,
      account: executor,
      receiver: net.deployment.deployer,
      refundTo: net.deployment.deployer,
      quote: flowQuote(scenario),
    });
  }
  const planner = new ProgramPlanner();
  for (const l of scenario.legs) {
    let amount: bigint | ProgramValue = l.amountIn;
    for (const hop of l.hops) {
      const e = hop.edge;
      const pool = e.pool;
      if (pool.kind === "v2" && e.action === "deposit") {
        const other = e.tokenIn === pool.token0 ? pool.token1 : pool.token0;
        amount = addUniswapV2ZapIn(planner, {
          pair: pool.address,
          tokenIn: e.tokenIn,
          tokenOther: other,
          amountIn: amount,
          account: executor,
          recipient: executor,
          programValues: executor,
        });
        // What the add leaves unused goes back to the caller, as in the route's program.
        for (const token of [e.tokenIn, other]) {
          addSweep(planner, { executor, token, to: net.deployment.deployer });
        }
      } else if (pool.kind === "v2" && e.action === "redeem") {
        amount = addUniswapV2ZapOut(planner, {
          pair: pool.address,
          tokenOut: e.tokenOut,
          tokenOther: e.tokenOut === pool.token0 ? pool.token1 : pool.token0,
          liquidity: amount,
          account: executor,
          recipient: executor,
          programValues: executor,
          executor,
          feePpm: pool.feePpm,
        });
      } else if (pool.kind === "v2") {
        amount = addExecutorUniswapV2Swap(planner, {
          executor,
          pair: pool.address,
          tokenIn: e.tokenIn,
          tokenOut: e.tokenOut,
          amountIn: amount,
          recipient: executor,
          feePpm: 3000,
        });
      } else if (pool.kind === "v3") {
        // A fork's pool is called directly too, its callback data naming the fork's pool deployer
        // (engine/protocols/uniswap-v3/forks.ts).
        const fork = net.deployment.uniswapV3Forks?.find((f) => f.slug === pool.protocol);
        if (pool.protocol !== "uniswap-v3" && !fork) {
          throw new Error(`no ${pool.protocol} on the devnet`);
        }
        amount = addUniswapV3PoolSwap(planner, {
          executor,
          pool: pool.address,
          tokenIn: e.tokenIn,
          tokenOut: e.tokenOut,
          fee: pool.feePpm,
          amountIn: amount,
          recipient: executor,
          fork: fork && { slug: fork.slug, poolDeployer: fork.poolDeployer },
        });
      } else if (pool.kind === "v4") {
        amount = addExecutorUniswapV4Swap(planner, {
          executor,
          key: uniswapV4PoolKey(pool),
          zeroForOne: e.tokenIn === pool.token0,
          amountIn: amount,
          recipient: executor,
        });
      } else if (pool.kind === "aave-v3") {
        amount =
          e.action === "deposit"
            ? addAaveSupply(planner, {
                pool: pool.pool,
                asset: pool.asset,
                aToken: pool.address,
                amount,
                onBehalfOf: executor,
                minAmountOutCheck: net.deployment.execution.minAmountOutCheck as Address,
              })
            : addAaveWithdraw(planner, {
                pool: pool.pool,
                asset: pool.asset,
                amount: "all",
                to: executor,
              });
      } else if (pool.kind === "erc4626") {
        amount =
          e.action === "deposit"
            ? addErc4626Deposit(planner, {
                vault: pool.address,
                asset: pool.asset,
                assets: amount,
                receiver: executor,
              })
            : addErc4626Redeem(planner, {
                vault: pool.address,
                shares: amount,
                receiver: executor,
                owner: executor,
              });
      } else if (e.action === "wrap") {
        addWrapNative(planner, { weth: pool.address, amount });
      } else {
        addUnwrapNative(planner, { weth: pool.address, amount });
      }
    }
  }
  addSweep(planner, { executor, token: scenario.tokenOut, to: net.deployment.deployer });
  return planner.plan();
}

/** Runs a scenario's router transaction; `measure`: from a snapshot, reverted afterwards. */
async function run(net: RoutingDevnet, scenario: Scenario, measure: boolean): Promise<bigint> {
  const test = createTestClient({ mode: "anvil", transport: http(net.anvil.url) });
  const snapshot = measure ? await test.snapshot() : undefined;
  const amountIn = scenario.flow?.amountIn ?? scenario.legs.reduce((s, l) => s + l.amountIn, 0n);
  const tx = encodeRouterSwapTx({
    router: net.deployment.execution.router as Address,
    from: net.deployment.deployer,
    tokenIn: scenario.tokenIn,
    amountIn,
    tokenOut: scenario.tokenOut,
    minAmountOut: 1n,
    receiver: net.deployment.deployer,
    program: program(net, scenario),
  });
  const { timestamp } = await net.client.getBlock();
  await test.setNextBlockTimestamp({ timestamp: timestamp + 12n });
  const hash = await net.wallet.sendTransaction({
    to: tx.to,
    data: tx.data,
    value: tx.value,
    gas: 5_000_000n,
    account: net.wallet.account ?? null,
    chain: net.wallet.chain,
  });
  // Polled directly: after a snapshot revert the block number goes back, which a block-number
  // watcher would not report.
  let receipt = await net.client.getTransactionReceipt({ hash }).catch(() => undefined);
  while (!receipt) {
    await new Promise((r) => setTimeout(r, 5));
    receipt = await net.client.getTransactionReceipt({ hash }).catch(() => undefined);
  }
  if (snapshot) await test.revert({ id: snapshot });
  if (receipt.status !== "success") throw new Error(`${scenario.name} reverted`);
  return receipt.gasUsed;
}

async function main(): Promise<void> {
  buildContracts();
  const net = await startRoutingDevnet();
  try {
    const d = net.deployment;
    const sym = (s: string) => net.token(s).address;
    const usd = (s: string, value: number) => amountForUsd(net.token(s), value);
    const svUSDC = d.vaults.find((v) => v.asset === sym("USDC"))?.address as Address;
    const usdcWethPair = (await readDevnetGraph(net.client, net.deployment, { forks: true }))
      .edgesBetween(
        sym("USDC").toLowerCase() as EngineAddress,
        d.weth.toLowerCase() as EngineAddress,
      )
      .find((e) => e.pool.kind === "v2")?.pool.address as Address;
    const aUSDC = d.aaveV3?.reserves.find((r) => r.symbol === "USDC")?.aToken as Address;
    for (const token of [sym("USDC"), sym("DAI"), d.weth, svUSDC, usdcWethPair, aUSDC]) {
      await net.send({
        address: token,
        abi: DevTokenAbi,
        functionName: "approve",
        args: [d.execution.router, maxUint256],
      });
    }
    // The deployer seeded the Aave market with borrows; repaid, its aTokens move as a depositor's
    // do (Aave checks the health factor of a sender that borrows on every aToken transfer).
    for (const r of d.aaveV3?.reserves ?? []) {
      await net.send({
        address: r.asset,
        abi: DevTokenAbi,
        functionName: "approve",
        args: [d.aaveV3?.pool as Address, maxUint256],
      });
      await net.send({
        address: d.aaveV3?.pool as Address,
        abi: AaveV3PoolAbi,
        functionName: "repay",
        args: [r.asset, maxUint256, 2n, d.deployer],
      });
    }
    const [usdc, dai, weth, link, uni] = [sym("USDC"), sym("DAI"), d.weth, sym("LINK"), sym("UNI")];
    // The smallest of 1.2^k × $1M that crosses at least 15 initialized ticks.
    const bigUsdc = await (async () => {
      const graph = await readDevnetGraph(net.client, net.deployment, { forks: true });
      const e = edge(graph, usdc, weth, "v3", 3000);
      for (let amount = usd("USDC", 1_000_000); ; amount = (amount * 6n) / 5n) {
        const pool = e.pool;
        if (pool.kind !== "v3") throw new Error("not a V3 pool");
        const r = uniswapV3ExactIn({
          pool,
          zeroForOne: e.tokenIn === pool.token0,
          amountIn: amount,
        });
        if (!r.ok) throw new Error("the pool cannot fill a swap across 15 ticks");
        if (r.ticksCrossed >= 15) return amount;
      }
    })();
    /** Initialized ticks a V4 swap of `amount` crosses on its edge (NaN when it cannot fill). */
    const v4Ticks = (e: Edge, amount: bigint) => {
      const pool = e.pool;
      if (pool.kind !== "v4") throw new Error("not a V4 pool");
      const r = uniswapV4ExactIn({ pool, zeroForOne: e.tokenIn === pool.token0, amountIn: amount });
      return r.ok ? r.ticksCrossed : Number.NaN;
    };
    // The smallest of 1.2^k × $100k that crosses at least 4 of the V4 WETH/USDC pool's ticks.
    const bigV4Usdc = await (async () => {
      const graph = await readDevnetGraph(net.client, net.deployment, { forks: true });
      const e = edge(graph, usdc, weth, "v4", 500);
      for (let amount = usd("USDC", 100_000); ; amount = (amount * 6n) / 5n) {
        const crossed = v4Ticks(e, amount);
        if (Number.isNaN(crossed)) throw new Error("the V4 pool cannot fill a swap across 4 ticks");
        if (crossed >= 4) return amount;
      }
    })();
    const build = (graph: RoutingGraph): Scenario[] => {
      const v2 = (a: string, b: string) => edge(graph, a, b, "v2");
      const v3 = (a: string, b: string, fee: number) => edge(graph, a, b, "v3", fee);
      const one = (
        name: string,
        tokenIn: Address,
        tokenOut: Address,
        edges: Edge[],
        amountIn: bigint,
      ) => ({
        name,
        tokenIn,
        tokenOut,
        legs: [leg(edges, amountIn)],
      });
      const thousand = usd("USDC", 1000);
      const flow = (
        name: string,
        tokenIn: Address,
        tokenOut: Address,
        amountIn: bigint,
        hops: [Edge, number][],
      ): Scenario => ({
        name,
        tokenIn,
        tokenOut,
        legs: [],
        flow: { amountIn, hops: hops.map(([e, sharePpb]) => ({ edge: e, sharePpb })) },
      });
      return [
        one("V2", usdc, weth, [v2(usdc, weth)], thousand),
        one("V2, V2", usdc, link, [v2(usdc, weth), v2(weth, link)], thousand),
        one(
          "V2, V2, V2",
          dai,
          uni,
          [v2(dai, usdc), v2(usdc, weth), v2(weth, uni)],
          usd("DAI", 1000),
        ),
        one("V3", usdc, weth, [v3(usdc, weth, 500)], thousand),
        one("V3 across many ticks", usdc, weth, [v3(usdc, weth, 3000)], bigUsdc),
        one(
          "PancakeSwap V3",
          weth,
          sym("AAVE"),
          [edge(graph, weth, sym("AAVE"), "v3", 2500)],
          10n ** 18n / 3n,
        ),
        one("V3, V3", usdc, dai, [v3(usdc, weth, 500), v3(weth, dai, 3000)], thousand),
        one("V4", usdc, weth, [edge(graph, usdc, weth, "v4", 500)], thousand),
        one("V4 across several ticks", usdc, weth, [edge(graph, usdc, weth, "v4", 500)], bigV4Usdc),
        one("V4 native in", NATIVE, usdc, [edge(graph, NATIVE, usdc, "v4", 100)], 10n ** 17n),
        one(
          "V4, V3",
          usdc,
          dai,
          [edge(graph, usdc, weth, "v4", 500), v3(weth, dai, 3000)],
          thousand,
        ),
        one("deposit", usdc, svUSDC, [edge(graph, usdc, svUSDC, "erc4626")], thousand),
        one("Aave supply", usdc, aUSDC, [edge(graph, usdc, aUSDC, "aave-v3")], thousand),
        one("Aave withdraw", aUSDC, usdc, [edge(graph, aUSDC, usdc, "aave-v3")], thousand),
        one("redeem", svUSDC, usdc, [edge(graph, svUSDC, usdc, "erc4626")], thousand),
        one("V2 deposit", usdc, usdcWethPair, [edge(graph, usdc, usdcWethPair, "v2")], thousand),
        one(
          "V2 redeem",
          usdcWethPair,
          usdc,
          [edge(graph, usdcWethPair, usdc, "v2")],
          // About $1,000 of liquidity: what $1,000 of USDC adds.
          leg([edge(graph, usdc, usdcWethPair, "v2")], thousand).amountOut,
        ),
        one("wrap", NATIVE, weth, [edge(graph, NATIVE, weth, "wrap")], 10n ** 18n),
        one("unwrap", weth, NATIVE, [edge(graph, weth, NATIVE, "wrap")], 10n ** 18n),
        {
          name: "split: V2 | V3",
          tokenIn: usdc,
          tokenOut: weth,
          legs: [leg([v2(usdc, weth)], thousand), leg([v3(usdc, weth, 500)], thousand)],
        },
        // Flows: WETH divided at run time between two or three pools, or merged from two (shares
        // in parts per billion, as the solver's are: finer than a basis point).
        flow("flow: V2 > {V2 | V3}", dai, usdc, usd("DAI", 2000), [
          [v2(dai, weth), ALL_PPB],
          [v2(weth, usdc), 512_345_678],
          [v3(weth, usdc, 500), 487_654_322],
        ]),
        flow("flow: V2 > {V2 | V3 | V3}", dai, usdc, usd("DAI", 2000), [
          [v2(dai, weth), ALL_PPB],
          [v2(weth, usdc), 341_234_567],
          [v3(weth, usdc, 500), 329_876_543],
          [v3(weth, usdc, 3000), 328_888_890],
        ]),
        flow("flow: {V2 | V3} > V2", usdc, dai, usd("USDC", 2000), [
          [v2(usdc, weth), 512_345_678],
          [v3(usdc, weth, 500), 487_654_322],
          [v2(weth, dai), ALL_PPB],
        ]),
      ];
    };
    // Warm-up, as on a live chain: every pool has traded in an earlier block (V2 price
    // accumulators and V3 observations written) and the crossed ticks have been crossed
    // before (their fee-growth-outside words are non-zero). The big V3 swap is undone by a
    // swap back, so the measured one crosses the same ticks again.
    const first = await readDevnetGraph(net.client, net.deployment, { forks: true });
    const warmUp = build(first);
    for (const s of warmUp) await run(net, s, false);
    const back = await readDevnetGraph(net.client, net.deployment, { forks: true });
    const wethBack = warmUp[4]?.legs[0]?.amountOut ?? 0n;
    await run(
      net,
      {
        name: "back",
        tokenIn: weth,
        tokenOut: usdc,
        legs: [leg([edge(back, weth, usdc, "v3", 3000)], wethBack)],
      },
      false,
    );
    const backV4 = await readDevnetGraph(net.client, net.deployment, { forks: true });
    const wethBackV4 = warmUp.find((w) => w.name === "V4 across several ticks")?.legs[0]?.amountOut;
    await run(
      net,
      {
        name: "back V4",
        tokenIn: weth,
        tokenOut: usdc,
        legs: [leg([edge(backV4, weth, usdc, "v4", 500)], wethBackV4 ?? 0n)],
      },
      false,
    );
    const graph = await readDevnetGraph(net.client, net.deployment, { forks: true });
    const scenarios = build(graph);
    const bigV4 = scenarios.find((s) => s.name === "V4 across several ticks")?.legs[0];
    const ticksV4 = bigV4 ? v4Ticks(bigV4.hops[0]?.edge as Edge, bigV4.amountIn) : 0;
    const big = scenarios[4]?.legs[0];
    const ticks = big
      ? (() => {
          const pool = big.hops[0]?.edge.pool;
          if (pool?.kind !== "v3") return 0;
          const r = uniswapV3ExactIn({
            pool,
            zeroForOne: big.hops[0]?.edge.tokenIn === pool.token0,
            amountIn: big.amountIn,
          });
          return r.ok ? r.ticksCrossed : 0;
        })()
      : 0;
    const measured = new Map<string, bigint>();
    for (const s of scenarios) measured.set(s.name, await run(net, s, true));
    const m = (name: string) => Number(measured.get(name));
    const v2Step = m("V2, V2") - m("V2");
    const base = m("V2") - v2Step;
    const v3Step = m("V3") - base;
    // A token divided at run time between two pools (splitProportionally, two arrayElements), and what a
    // third pool adds beyond its swap.
    const splitTwo = m("flow: V2 > {V2 | V3}") - base - 2 * v2Step - v3Step;
    const splitHop = m("flow: V2 > {V2 | V3 | V3}") - m("flow: V2 > {V2 | V3}") - v3Step;
    const perTick = (m("V3 across many ticks") - m("V3")) / ticks;
    const derived: [string, number, number][] = [
      ["ROUTE_BASE_GAS", base, gas.ROUTE_BASE_GAS],
      ["V2_SWAP_GAS", v2Step, gas.V2_SWAP_GAS],
      ["V3_SWAP_GAS", v3Step, gas.V3_SWAP_GAS],
      ["V3_TICK_CROSS_GAS", perTick, gas.V3_TICK_CROSS_GAS],
      ["V3_FORK_SWAP_GAS", m("PancakeSwap V3") - base, gas.V3_FORK_SWAP_GAS],
      ["V4_SWAP_GAS", m("V4") - base, gas.V4_SWAP_GAS],
      [
        "V4_TICK_CROSS_GAS",
        (m("V4 across several ticks") - m("V4")) / ticksV4,
        gas.V4_TICK_CROSS_GAS,
      ],
      ["V4_NATIVE_IN_GAS_SAVED", m("V4") - m("V4 native in"), gas.V4_NATIVE_IN_GAS_SAVED],
      ["DEPOSIT_GAS", m("deposit") - base, gas.DEPOSIT_GAS],
      ["AAVE_SUPPLY_GAS", m("Aave supply") - base, gas.AAVE_SUPPLY_GAS],
      ["AAVE_WITHDRAW_GAS", m("Aave withdraw") - base, gas.AAVE_WITHDRAW_GAS],
      ["REDEEM_GAS", m("redeem") - base, gas.REDEEM_GAS],
      ["V2_ZAP_IN_GAS", m("V2 deposit") - base, gas.V2_ZAP_IN_GAS],
      ["V2_ZAP_OUT_GAS", m("V2 redeem") - base, gas.V2_ZAP_OUT_GAS],
      ["WRAP_GAS", m("wrap") - base, gas.WRAP_GAS],
      ["UNWRAP_GAS", m("unwrap") - base, gas.UNWRAP_GAS],
      ["EXTRA_LEG_GAS", m("split: V2 | V3") - base - v2Step - v3Step, gas.EXTRA_LEG_GAS],
      ["FLOW_SPLIT_GAS", splitTwo - 2 * splitHop, gas.FLOW_SPLIT_GAS],
      ["FLOW_SPLIT_HOP_GAS", splitHop, gas.FLOW_SPLIT_HOP_GAS],
      [
        "FLOW_MERGE_GAS",
        m("flow: {V2 | V3} > V2") - base - 2 * v2Step - v3Step,
        gas.FLOW_MERGE_GAS,
      ],
    ];
    const model = (s: Scenario) => {
      if (s.flow) {
        const q = quoteFlow({
          tokenIn: s.tokenIn.toLowerCase() as EngineAddress,
          tokenOut: s.tokenOut.toLowerCase() as EngineAddress,
          ...s.flow,
        });
        return q.ok ? gas.ROUTE_BASE_GAS + q.gas : Number.NaN;
      }
      let steps = 0;
      for (const l of s.legs) {
        const q = quotePath(
          l.hops.map((h) => h.edge),
          l.amountIn,
        );
        if (q.ok) steps += q.gas;
      }
      return gas.routeGas(s.legs.length, steps);
    };
    const fmt = (n: number | bigint) => Math.round(Number(n)).toLocaleString("en-US");
    const lines = [
      "# Gas per route step",
      "",
      "Reproduce with `npx tsx bench/routing-gas.ts` (fresh anvil with the devnet world plus",
      "40 extra positions in the WETH/USDC 0.3% pool, the deployer's Aave debts repaid; contracts as in gas.md). `gasUsed` of",
      "`ShortcutRouter.swap` transactions from the deployer, each from the same snapshot and",
      "mined 12 s after the previous block; the program is the router strategy's: every hop",
      "pays the executor, a final sweep pays the receiver. $1,000 inputs unless noted.",
      "",
      `The V3 swap across many ticks sells ${fmt(bigUsdc / 10n ** 6n)} USDC and crosses ${ticks} initialized ticks; the V4 one sells ${fmt(bigV4Usdc / 10n ** 6n)} USDC on the V4 WETH/USDC 0.05% pool and crosses ${ticksV4}. "V4 native in" sells 0.1 ETH on the native ETH/USDC pool (no wrapping; a native input spares the router's ERC20 pull).`,
      "",
      "| route | gasUsed | model (gas.ts) | model error |",
      "|---|---:|---:|---:|",
      ...scenarios.map((s) => {
        const used = Number(measured.get(s.name));
        const predicted = model(s);
        return `| ${s.name} | ${fmt(used)} | ${fmt(predicted)} | ${(((predicted - used) / used) * 100).toFixed(1)}% |`;
      }),
      "",
      "Constants derived from the rows (differences of routes that differ by one step):",
      "",
      "| constant | measured | in gas.ts |",
      "|---|---:|---:|",
      ...derived.map(([name, value, current]) => `| ${name} | ${fmt(value)} | ${fmt(current)} |`),
      "",
    ];
    const text = lines.join("\n");
    const out = join(dirname(fileURLToPath(import.meta.url)), "results", "routing-gas.md");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
    console.log(text);
  } finally {
    await net.stop();
  }
}

await main();
