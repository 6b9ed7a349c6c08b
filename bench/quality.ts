/**
 * Route quality: on generated scenarios (token pairs × sizes from dust to pool-draining), the
 * engine's amountOut against
 * (a) the best single path as Uniswap's own contracts quote it on the devnet — Router02's
 *     getAmountsOut over every all-V2 path, QuoterV2's quoteExactInput over every all-V3 path
 *     (PancakeSwap V3's own QuoterV2 for a path through its pool, a fork of Uniswap V3),
 *     and every other path of up to 3 hops (V4 pools, Balancer V2 pools, mixed versions,
 *     wrapping, vaults) quoted hop by hop by each pool's own quoter (V4Quoter.quoteExactInputSingle,
 *     QuoterV2, Router02, the Balancer vault's queryBatchSwap, the vault's previews) — which the
 *     engine must never fall short of; and
 * (b) the certified optimum: the dual bound of engine/routing/flow-bound.ts on what any flow —
 *     split and merged at any token, not only whole paths — can make of the amount, over the
 *     pools the engine's search chose from (the route's certificate, engine/routing/certificate.ts)
 *     and over every pool on a path of up to 3 hops; the engine's output can never exceed either,
 *     and the gaps say how far its routes are from the best flow.
 * Every hop of every route is also checked against the chain's own quote. Writes
 * bench/results/quality.md.
 *
 * Run: npx tsx bench/quality.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Account, Hex } from "viem";
import { buildContracts } from "../contracts/build.js";
import { readNpmArtifact } from "../devnet/artifacts.js";
import { mulberry32 } from "../devnet/random.js";
import { amountForUsd } from "../devnet/world.js";
import type { Address, Edge, RouteQuote, RoutingGraph } from "../engine/index.js";
import {
  ALL_PPB,
  candidateEdges,
  certifyRoute,
  findRoute,
  flowBound,
  NATIVE_TOKEN_ADDRESS,
  PRICE_SCALE,
  quotePath,
  routeGas,
  routeHops,
  spotPrices,
} from "../engine/index.js";
import { queryVaultPathExactIn } from "../test/protocols/balancer-v2-chain.js";
import { readDevnetGraph } from "../test/routing/chain-graph.js";
import { startRoutingDevnet } from "../test/routing/devnet.js";
import { chainHopOut, quoterV2Path, router02AmountOut } from "../test/routing/onchain.js";

/** A weighted Balancer pool's join or exit: `joinPool`/`exitPool`, not a vault swap. */
const weightedJoinExit = (edge: Edge) =>
  edge.pool.kind === "balancer-v2" && edge.pool.type === "weighted" && edge.action !== "swap";

/**
 * A path quoted on chain one hop at a time, each by its own pool's quoter; consecutive Balancer V2
 * swaps through one vault are quoted together by one `queryBatchSwap`, so that a pool met twice
 * (into a composable stable pool's BPT and out of it) is quoted as it would be after the first
 * step, as executing the path would find it. A weighted pool's join or exit is quoted by
 * Balancer's helpers (`queryJoin`, `queryExit`) at `balancerHelpers`.
 */
async function hopByHop(
  client: Parameters<typeof chainHopOut>[0],
  deployment: Parameters<typeof chainHopOut>[1],
  balancerHelpers: Address,
  path: Edge[],
  amountIn: bigint,
): Promise<bigint> {
  let amount = amountIn;
  for (let i = 0; i < path.length; ) {
    if (amount === 0n) return 0n;
    const edge = path[i] as Edge;
    const pool = edge.pool;
    if (pool.kind !== "balancer-v2" || weightedJoinExit(edge)) {
      const hop = { edge, amountIn: amount, amountOut: 0n };
      amount = await chainHopOut(client, deployment, hop, balancerHelpers);
      i++;
      continue;
    }
    const steps: { pool: { poolId: Hex }; tokenIn: Address; tokenOut: Address }[] = [];
    for (; i < path.length; i++) {
      const step = path[i] as Edge;
      if (step.pool.kind !== "balancer-v2" || step.pool.vault !== pool.vault) break;
      if (weightedJoinExit(step)) break;
      steps.push({ pool: step.pool, tokenIn: step.tokenIn, tokenOut: step.tokenOut });
    }
    amount = await queryVaultPathExactIn(client, pool.vault, steps, amount);
  }
  return amount;
}

import { rawAmount, syntheticGraph } from "./synthetic-graph.js";
import { syntheticStableGraph } from "./synthetic-stable.js";

const PAIRS: [string, string][] = [
  ["USDC", "WETH"],
  ["WETH", "USDC"],
  ["ETH", "USDC"],
  ["USDC", "ETH"],
  ["DAI", "USDC"],
  ["WETH", "USDT"],
  // Into Aave: a swap then a supply, against the same done by hand (the best swap path, quoted
  // by the quoters, then the supply).
  ["DAI", "aUSDC"],
  ["WBTC", "aWETH"],
  ["WETH", "WBTC"],
  ["DAI", "USDT"],
  ["USDT", "LINK"],
  ["LINK", "UNI"],
  ["WBTC", "DAI"],
  ["PEPE", "USDC"],
  ["FROG", "DAI"],
  ["AAVE", "MKR"],
  // Stablecoins and pegged assets, where Balancer V2's stable pools (USDC/USDT/DAI at A = 200,
  // WETH/wstETH with a rate provider) compete with Uniswap's pools; and its weighted pools.
  ["USDT", "DAI"],
  ["USDC", "USDT"],
  ["WETH", "wstETH"],
  ["wstETH", "WETH"],
  ["BAL", "WETH"],
  // PancakeSwap V3's WETH/AAVE 0.25% pool (a fork of Uniswap V3) against Uniswap V2's pair, and
  // on paths beyond it.
  ["WETH", "AAVE"],
  ["AAVE", "WETH"],
  ["AAVE", "USDC"],
  // Into and out of Balancer V2 pools' BPTs: a composable stable pool's (a vault swap with the
  // BPT) and a weighted pool's (a single-token join or exit), alone or after or before a swap.
  ["USDC", "bb-USD"],
  ["bb-USD", "USDT"],
  ["WETH", "B-50WETH-50USDC"],
  ["B-80BAL-20WETH", "WETH"],
  ["DAI", "B-50WETH-25WBTC-25USDC"],
  ["B-50WETH-25WBTC-25USDC", "USDT"],
];

/** The BPTs of PAIRS: the devnet's Balancer pools by their symbols. */
const BPTS: Record<string, string> = {
  "bb-USD": "stableUsd",
  "B-50WETH-50USDC": "weighted5050",
  "B-80BAL-20WETH": "weighted8020",
  "B-50WETH-25WBTC-25USDC": "weightedThreeToken",
};
const SIZES_USD = [0.01, 100, 10_000, 1_000_000, 20_000_000];
/** Small synthetic graphs for (b): seeds, pools each, pairs drawn per graph, sizes. */
const SYNTHETIC_SEEDS = Array.from({ length: 28 }, (_, i) => i + 1);
const SYNTHETIC_POOLS = 80;
/** The share of the synthetic graphs' concentrated-liquidity pools that are V4 pools. */
const SYNTHETIC_V4_SHARE = 0.3;
const SYNTHETIC_PAIRS = 40;
const SYNTHETIC_SIZES_USD = [100, 100_000, 10_000_000];
/** Stablecoin graphs for (c): seeds, and sizes of every ordered pair of their coins. */
const STABLE_SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);
const STABLE_SIZES_USD = [10_000, 1_000_000, 10_000_000];
/** The maxSplits the search is also run with, each never giving less than the one before. */
const SPLIT_CAPS = [1, 2, 3, 4, 8, 12];
/** Pairs with more paths than this are skipped on synthetic graphs. */
const SYNTHETIC_MAX_PATHS = 40;

/**
 * The edges of every path (each pool both ways, as a flow may use it), a pool's terminal edges
 * (into and out of its own token, a weighted pool's BPT) included.
 */
function edgesOf(graph: RoutingGraph, paths: Edge[][]): Edge[] {
  const pools = new Set<string>();
  for (const path of paths) for (const e of path) pools.add(e.pool.address);
  const tokens = new Set<Address>();
  for (const path of paths) for (const e of path) tokens.add(e.tokenIn).add(e.tokenOut);
  const edges = new Set<Edge>();
  for (const t of tokens) {
    for (const e of graph.edgesFrom(t)) if (pools.has(e.pool.address)) edges.add(e);
    for (const e of graph.edgesInto(t)) if (pools.has(e.pool.address)) edges.add(e);
  }
  return [...edges];
}

/**
 * Gaps of the engine's gross output below the certified bounds, in basis points, and each
 * scenario's input at the margin: what one more unit of it adds at the bound's prices, over what
 * the average unit makes (below {@link WITHIN_DEPTH}, the trade is beyond what the pools can take
 * on the output's side: more input adds almost nothing, and a route must still spend it all).
 */
type Gaps = {
  candidates: number[];
  all: number[];
  marginal: number[];
  exceeded: number;
  ms: number[];
};

/** The input's marginal value over its average at and above which a trade is within depth. */
const WITHIN_DEPTH = 0.01;

/**
 * The certificate of a gas-free route (gap to the bound over the search's candidate pools) and
 * its gap to the bound over every pool of `paths`; a route above either bound is counted.
 */
function certify(
  gaps: Gaps,
  params: Parameters<typeof findRoute>[0],
  quote: RouteQuote,
  paths: Edge[][],
): { candidates: number; all: number; marginal: number } {
  const started = performance.now();
  const certificate = certifyRoute(params, quote);
  gaps.ms.push(performance.now() - started);
  // The route's own pools are among those bounded over (a flow may take a pool on no path of
  // ≤ 3 hops), so the bound is one on the route too.
  const whole = flowBound({
    models: params.graph.models,
    edges: [...new Set([...edgesOf(params.graph, paths), ...routeHops(quote).map((h) => h.edge)])],
    tokenIn: quote.tokenIn,
    tokenOut: quote.tokenOut,
    amountIn: Number(quote.amountIn),
  });
  const out = Number(quote.amountOut);
  // Float rounding of the output itself is far below a part per billion.
  if (out > certificate.bound * (1 + 1e-12) || out > whole.bound * (1 + 1e-12)) {
    gaps.exceeded++;
    console.log(
      `above a bound: ${quote.tokenIn} → ${quote.tokenOut} ${quote.amountIn}: ${quote.amountOut} > ${certificate.bound} (candidates) / ${whole.bound} (all)`,
    );
  }
  const all = Math.max(0, ((whole.bound - out) / whole.bound) * 10_000);
  const marginal = ((whole.prices.get(quote.tokenIn) ?? 0) * Number(quote.amountIn)) / whole.bound;
  gaps.candidates.push(certificate.gapBps);
  gaps.all.push(all);
  gaps.marginal.push(marginal);
  return { candidates: certificate.gapBps, all, marginal };
}

/** A pool of a fork of Uniswap V3 (PancakeSwap V3's, on the devnet). */
const isFork = (e: Edge) => e.pool.kind === "v3" && e.pool.protocol !== "uniswap-v3";

/** A route's legs, or its flow's hops. */
function legsLabel(quote: RouteQuote): string {
  return quote.flow ? `flow of ${quote.flow.hops.length} hops` : String(quote.legs.length);
}

/** A route's pools by kind and fee: legs joined by +, a flow's hops with their shares. */
function routeShape(quote: RouteQuote): string {
  const name = (e: Edge) =>
    `${isFork(e) ? e.pool.protocol : e.pool.kind}${e.pool.kind === "v3" || e.pool.kind === "v4" ? `/${e.pool.feePpm}` : ""}`;
  if (quote.flow) {
    return `flow: ${quote.flow.hops.map((h) => `${name(h.edge)}${h.sharePpb < ALL_PPB ? ` (${(h.sharePpb / 10_000_000).toFixed(2)}%)` : ""}`).join(", ")}`;
  }
  return quote.legs.map((l) => l.hops.map((h) => name(h.edge)).join(">")).join(" + ");
}

/** Quantile q of `values` (sorted copy). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function describeGaps(values: number[]): string {
  const over = (bps: number) => values.filter((v) => v > bps).length;
  return `median ${quantile(values, 0.5).toFixed(2)} bp, p90 ${quantile(values, 0.9).toFixed(2)} bp, worst ${Math.max(0, ...values).toFixed(2)} bp; > 1 bp in ${over(1)}, > 10 bp in ${over(10)} of ${values.length}`;
}

/** Every simple path of up to `maxHops` pools from tokenIn to tokenOut. */
function allPaths(
  graph: RoutingGraph,
  tokenIn: Address,
  tokenOut: Address,
  maxHops: number,
): Edge[][] {
  const paths: Edge[][] = [];
  const walk = (token: Address, path: Edge[], seen: Set<Address>) => {
    if (token === tokenOut) {
      paths.push(path);
      return;
    }
    if (path.length === maxHops) return;
    const from = graph.edgesFrom(token);
    // A pool's own token (a weighted pool's BPT) is reached only by its terminal edges.
    const into = graph
      .edgesIntoVia(tokenOut, tokenOut)
      .filter((e) => e.tokenIn === token && !from.includes(e));
    for (const edge of [...from, ...into]) {
      if (seen.has(edge.tokenOut)) continue;
      seen.add(edge.tokenOut);
      walk(edge.tokenOut, [...path, edge], seen);
      seen.delete(edge.tokenOut);
    }
  };
  walk(tokenIn, [], new Set([tokenIn]));
  return paths;
}

const pct = (ours: bigint, other: bigint) =>
  other === 0n ? "n/a" : `${((Number(ours - other) / Number(other)) * 100).toFixed(4)}%`;

async function main(): Promise<void> {
  buildContracts();
  const net = await startRoutingDevnet();
  try {
    const { client, deployment } = net;
    // PancakeSwap V3's pool too (a fork of Uniswap V3), quoted on chain by its own QuoterV2.
    const graph = await readDevnetGraph(client, deployment, { forks: true });
    const gasPriceWei = await client.getGasPrice();
    const prices = spotPrices({
      graph,
      anchors: [{ token: deployment.weth.toLowerCase() as Address, price: PRICE_SCALE }],
    });
    const rowsA: string[] = [];
    const rowsB: string[] = [];
    let lossesA = 0;
    let lossesNet = 0;
    /** Losses only to a path through one pool twice, and the largest of them (a fraction). */
    let lossesTwice = 0;
    let worstTwice = 0;
    let hopMismatches = 0;
    let hopsChecked = 0;
    // The devnet's pools are not arbitrage-free, so its bounds include cycles' profits; the
    // synthetic graphs' pools are.
    const gaps: Gaps = { candidates: [], all: [], marginal: [], exceeded: 0, ms: [] };
    const synthetic: Gaps = { candidates: [], all: [], marginal: [], exceeded: 0, ms: [] };
    let cycles: { label: string; bound: number; perUnit: number } | undefined;
    let splits = 0;
    let flowsRouted = 0;
    let cases = 0;
    /** Single paths through at least one V4 pool that the chain quoted in (a). */
    let v4Paths = 0;
    /** Single paths through at least one Balancer V2 pool that the chain quoted in (a). */
    let balancerPaths = 0;
    /** Scenarios whose route goes through a Balancer V2 pool. */
    let balancerRoutes = 0;
    /** Single paths through a fork's pool that the chain quoted in (a), and routes through one. */
    let forkPaths = 0;
    let forkRoutes = 0;
    /** Scenarios whose route goes through a V4 pool. */
    let v4Routes = 0;
    const balancer = deployment.balancerV2;
    if (!balancer) throw new Error("the devnet world has no Balancer V2");
    const helpersArtifact = readNpmArtifact("BalancerV2Helpers");
    const helpersTx = await net.wallet.deployContract({
      abi: helpersArtifact.abi,
      bytecode: helpersArtifact.bytecode,
      args: [balancer.vault],
      account: net.wallet.account as Account,
      chain: net.wallet.chain,
    });
    const { contractAddress: balancerHelpers } = await client.waitForTransactionReceipt({
      hash: helpersTx,
    });
    if (!balancerHelpers) throw new Error("BalancerHelpers was not deployed");
    const weth = net.token("WETH");
    /**
     * Native ether and aTokens are no deployed tokens: each is priced as its asset. A BPT is
     * priced at the pools' spot prices, in WETH at the world's reference price of ether.
     */
    const tokenOf = (symbol: string) => {
      const bpt = BPTS[symbol];
      if (bpt !== undefined) {
        const address = balancer.pools[bpt]?.address.toLowerCase() as Address;
        const price = prices.prices.get(address);
        if (price === undefined) throw new Error(`no spot price for ${symbol}`);
        const usdPrice = (Number(price) / Number(PRICE_SCALE)) * weth.usdPrice;
        return { ...weth, address, symbol, usdPrice };
      }
      if (symbol === "ETH") {
        return { ...net.token("WETH"), address: NATIVE_TOKEN_ADDRESS as Address, symbol: "ETH" };
      }
      const reserve = deployment.aaveV3?.reserves.find((r) => `a${r.symbol}` === symbol);
      return reserve
        ? { ...net.token(reserve.symbol), address: reserve.aToken, symbol }
        : net.token(symbol);
    };
    for (const [symbolIn, symbolOut] of PAIRS) {
      const tIn = tokenOf(symbolIn);
      const tOut = tokenOf(symbolOut);
      const tokenIn = tIn.address.toLowerCase() as Address;
      const tokenOut = tOut.address.toLowerCase() as Address;
      const paths = allPaths(graph, tokenIn, tokenOut, 3);
      for (const usd of SIZES_USD) {
        const amountIn = amountForUsd(tIn, usd);
        if (amountIn === 0n) continue;
        cases++;
        const label = `${symbolIn} → ${symbolOut}`;
        const size = `$${usd.toLocaleString("en-US")}`;
        const gasFree = {
          graph,
          tokenIn,
          tokenOut,
          amountIn,
          gasPriceWei: 0n,
          weth: deployment.weth,
        };
        const found = findRoute(gasFree);
        // What the bound grants one raw unit of the input, against what the route makes of
        // one: a bound far above it is what cycles between the pools pay.
        if (!cycles && found.ok) {
          const dust = flowBound({
            models: graph.models,
            edges: candidateEdges(gasFree),
            tokenIn: found.quote.tokenIn,
            tokenOut: found.quote.tokenOut,
            amountIn: 1,
          });
          cycles = {
            label: `${label} (${size})`,
            bound: dust.bound,
            perUnit: Number(found.quote.amountOut) / Number(amountIn),
          };
        }
        const foundGas = findRoute({
          graph,
          tokenIn,
          tokenOut,
          amountIn,
          gasPriceWei,
          weth: deployment.weth,
        });
        // (a) Uniswap's own quoters over every single path: Router02 and QuoterV2 quote all-V2
        // and all-V3 paths whole, every other path is quoted hop by hop by its pools' quoters.
        let chainBest = 0n;
        let chainBestNet: bigint | undefined;
        /** The best of the paths that use no pool twice (the paths a route can take). */
        let chainBestOnce = 0n;
        const priceOut = prices.prices.get(tokenOut);
        for (const path of paths) {
          const v2 = path.every((e) => e.pool.kind === "v2");
          // One quoter quotes a V3 path whole: Uniswap's, or one fork's for its own pools.
          const v3 =
            path.every((e) => e.pool.kind === "v3") &&
            new Set(path.map((e) => e.pool.protocol)).size === 1;
          if (path.some(isFork)) forkPaths++;
          if (path.some((e) => e.pool.kind === "v4")) v4Paths++;
          if (path.some((e) => e.pool.kind === "balancer-v2")) balancerPaths++;
          const out = await (v2
            ? router02AmountOut(client, deployment, amountIn, [
                tokenIn,
                ...path.map((e) => e.tokenOut),
              ])
            : v3
              ? quoterV2Path(client, deployment, path, amountIn)
              : hopByHop(client, deployment, balancerHelpers, path, amountIn)
          ).catch(() => 0n);
          if (out > chainBest) chainBest = out;
          const once = new Set(path.map((e) => e.pool.address)).size === path.length;
          if (once && out > chainBestOnce) chainBestOnce = out;
          const q = quotePath(path, amountIn);
          if (q.ok && priceOut) {
            const gasCost = (BigInt(routeGas(1, q.gas)) * gasPriceWei * PRICE_SCALE) / priceOut;
            const net = out - gasCost;
            if (chainBestNet === undefined || net > chainBestNet) chainBestNet = net;
          }
        }
        const ours = found.ok ? found.quote.amountOut : 0n;
        const oursNet = foundGas.ok
          ? foundGas.quote.amountOut - foundGas.quote.gasCostInTokenOut
          : undefined;
        if (ours < chainBest) lossesA++;
        if (ours < chainBest && ours >= chainBestOnce) {
          lossesTwice++;
          worstTwice = Math.max(worstTwice, Number(chainBest - ours) / Number(chainBest));
        }
        if (oursNet !== undefined && chainBestNet !== undefined && oursNet < chainBestNet)
          lossesNet++;
        const quotes: RouteQuote[] = [found, foundGas].flatMap((r) => (r.ok ? [r.quote] : []));
        for (const quote of quotes) {
          for (const hop of routeHops(quote)) {
            hopsChecked++;
            const chainOut = await chainHopOut(client, deployment, hop, balancerHelpers);
            if (chainOut !== hop.amountOut) hopMismatches++;
          }
        }
        const legs = found.ok ? legsLabel(found.quote) : "–";
        if (found.ok && found.quote.flow) flowsRouted++;
        else if (found.ok && found.quote.legs.length > 1) splits++;
        const hopsOf = found.ok ? routeHops(found.quote) : [];
        if (hopsOf.some((h) => h.edge.pool.kind === "v4")) v4Routes++;
        if (hopsOf.some((h) => h.edge.pool.kind === "balancer-v2")) balancerRoutes++;
        if (hopsOf.some((h) => isFork(h.edge))) forkRoutes++;
        const shape = found.ok ? routeShape(found.quote) : found.reason;
        rowsA.push(
          `| ${label} | ${size} | ${ours} | ${chainBest} | ${pct(ours, chainBest)} | ${oursNet ?? "–"} | ${chainBestNet ?? "–"} | ${shape} |`,
        );
        // (b) the certified optimum, gas-free as the route was found.
        if (found.ok) {
          const gap = certify(gaps, gasFree, found.quote, paths);
          rowsB.push(
            `| ${label} | ${size} | ${ours} | ${gap.candidates.toFixed(2)} | ${gap.all.toFixed(2)} | ${legs} |`,
          );
        }
        console.log(label, size, pct(ours, chainBest), rowsB.at(-1));
      }
    }
    // (b) also on small synthetic graphs (no chain: the certified optimum only).
    const rowsS: string[] = [];
    let syntheticCases = 0;
    let syntheticFlows = 0;
    let splitDrops = 0;
    for (const seed of SYNTHETIC_SEEDS) {
      // Pools priced at the tokens' reference prices (no cycle pays): with cyclic arbitrage the
      // best flow includes the cycle's profit, which no route from the input alone can take.
      const world = syntheticGraph({
        pools: SYNTHETIC_POOLS,
        seed,
        v4Share: SYNTHETIC_V4_SHARE,
        priceNoise: 0,
      });
      const random = mulberry32(seed * 101);
      let pairs = 0;
      for (let guard = 0; pairs < SYNTHETIC_PAIRS && guard < 1_000; guard++) {
        const tIn = world.tokens[Math.floor(random() * world.tokens.length)];
        const tOut = world.tokens[Math.floor(random() * world.tokens.length)];
        if (!tIn || !tOut || tIn === tOut) continue;
        const paths = allPaths(world.graph, tIn.address, tOut.address, 3);
        if (paths.length < 2 || paths.length > SYNTHETIC_MAX_PATHS) continue;
        pairs++;
        for (const usd of SYNTHETIC_SIZES_USD) {
          const amountIn = rawAmount(tIn, usd);
          const found = findRoute({
            graph: world.graph,
            tokenIn: tIn.address,
            tokenOut: tOut.address,
            amountIn,
            gasPriceWei: 0n,
            weth: world.weth,
          });
          if (!found.ok) continue;
          syntheticCases++;
          const params = {
            graph: world.graph,
            tokenIn: tIn.address,
            tokenOut: tOut.address,
            amountIn,
            gasPriceWei: 0n,
            weth: world.weth,
          };
          const gap = certify(synthetic, params, found.quote, paths);
          if (found.quote.flow) syntheticFlows++;
          // A larger maxSplits never gives less (gas-free: by amountOut), up to the default.
          let previous = 0n;
          for (const maxSplits of [...SPLIT_CAPS, undefined]) {
            const capped = maxSplits === undefined ? found : findRoute({ ...params, maxSplits });
            const out = capped.ok ? capped.quote.amountOut : 0n;
            if (out < previous) splitDrops++;
            previous = out;
          }
          if (gap.candidates > 1) {
            rowsS.push(
              `| ${seed} | ${tIn.symbol} → ${tOut.symbol} | ${paths.length} | $${usd.toLocaleString("en-US")} | ${found.quote.amountOut} | ${gap.candidates.toFixed(2)} | ${gap.all.toFixed(2)} | ${gap.marginal.toFixed(3)} | ${legsLabel(found.quote)} |`,
            );
          }
        }
      }
    }
    // (c) stablecoins and pegged assets: stable-swap pools beside concentrated ones, against the
    // certified optimum, and against the best route each family makes alone.
    const stableGaps: Gaps = { candidates: [], all: [], marginal: [], exceeded: 0, ms: [] };
    const rowsC: string[] = [];
    const isStablePool = (e: Edge) => e.pool.kind === "balancer-v2";
    const isConcentrated = (e: Edge) => e.pool.kind === "v3";
    const stable = {
      cases: 0,
      unfilled: 0,
      throughStable: 0,
      throughConcentrated: 0,
      mixed: 0,
      mixedPays: 0,
      belowOneFamily: 0,
      worstBelow: 0,
    };
    for (const seed of STABLE_SEEDS) {
      const world = syntheticStableGraph(seed);
      for (const tIn of world.coins) {
        for (const tOut of world.coins) {
          if (tIn === tOut) continue;
          const paths = allPaths(world.graph, tIn.address, tOut.address, 3);
          for (const usd of STABLE_SIZES_USD) {
            const params = {
              graph: world.graph,
              tokenIn: tIn.address,
              tokenOut: tOut.address,
              amountIn: rawAmount(tIn, usd),
              gasPriceWei: 0n,
              weth: tIn.address,
            };
            const found = findRoute(params);
            if (!found.ok) {
              stable.unfilled++;
              continue;
            }
            stable.cases++;
            const hops = routeHops(found.quote).map((h) => h.edge);
            const viaStable = hops.some(isStablePool);
            const viaConcentrated = hops.some(isConcentrated);
            if (viaStable) stable.throughStable++;
            if (viaConcentrated) stable.throughConcentrated++;
            const gap = certify(stableGaps, params, found.quote, paths);
            // Each family alone (the search's own admission): the route never makes less.
            const alone = [isStablePool, (e: Edge) => !isStablePool(e)].map((admits) => {
              const one = findRoute({ ...params, admits });
              return one.ok ? one.quote.amountOut : 0n;
            });
            const bestAlone = alone.reduce((a, b) => (a > b ? a : b));
            if (found.quote.amountOut < bestAlone) {
              stable.belowOneFamily++;
              const below = Number(bestAlone - found.quote.amountOut) / Number(bestAlone);
              stable.worstBelow = Math.max(stable.worstBelow, below * 10_000);
            }
            if (viaStable && viaConcentrated) {
              stable.mixed++;
              // Mixing pays where it beats both families alone by more than a hundredth of a bp.
              if (Number(found.quote.amountOut - bestAlone) > Number(bestAlone) * 1e-6)
                stable.mixedPays++;
            }
            if (gap.candidates > 1) {
              rowsC.push(
                `| ${seed} | ${tIn.symbol} → ${tOut.symbol} | $${usd.toLocaleString("en-US")} | ${found.quote.amountOut} | ${alone.map(String).join(" / ")} | ${gap.candidates.toFixed(2)} | ${gap.all.toFixed(2)} | ${gap.marginal.toFixed(3)} | ${legsLabel(found.quote)} |`,
              );
            }
          }
        }
      }
    }
    const stableDepth = stableGaps.marginal.flatMap((m, i) => (m >= WITHIN_DEPTH ? [i] : []));
    const stableWithin = stableDepth.filter(
      (i) => (stableGaps.candidates[i] as number) <= 1,
    ).length;
    const stableShare = ((100 * stableWithin) / Math.max(1, stableDepth.length)).toFixed(2);

    const depthIndexes = synthetic.marginal.flatMap((m, i) => (m >= WITHIN_DEPTH ? [i] : []));
    const within = (indexes: number[]) =>
      indexes.filter((i) => (synthetic.candidates[i] as number) <= 1).length;
    const beyondIndexes = synthetic.marginal.flatMap((m, i) => (m < WITHIN_DEPTH ? [i] : []));
    const exceeded = gaps.exceeded + synthetic.exceeded + stableGaps.exceeded;
    const ms = [...gaps.ms, ...synthetic.ms];
    const withinDepth = {
      count: depthIndexes.length,
      share: ((100 * within(depthIndexes)) / Math.max(1, depthIndexes.length)).toFixed(2),
      beyond: within(beyondIndexes),
    };
    const lines = [
      "# Route quality",
      "",
      "Reproduce with `npx tsx bench/quality.ts` (fresh anvil with the devnet world — V2, V3 and V4",
      "pools, PancakeSwap V3's pool, vaults, Aave V3 reserves, Balancer V2 weighted and stable pools — plus 40 extra narrow positions in each of the WETH/USDC 0.3% and USDC/USDT",
      "0.05% V3 pools; amounts sized at the world's reference prices; ETH is native ether).",
      "",
      "## Summary",
      "",
      `- ${cases} scenarios: ${PAIRS.length} pairs × sizes ${SIZES_USD.map((s) => `$${s.toLocaleString("en-US")}`).join(", ")}; ${splits} routed with splits across whole paths, ${flowsRouted} as flows (split and merged at intermediate tokens).`,
      `- (a) Against the best single path quoted on chain by Uniswap's Router02, QuoterV2 and V4Quoter and Balancer's vault (queryBatchSwap) (mixed paths hop by hop; ${v4Paths} of the paths compared go through V4 pools, ${balancerPaths} through Balancer V2 pools, ${forkPaths} through PancakeSwap V3's pool, quoted by its own QuoterV2; ${v4Routes} of the engine's routes go through V4, ${balancerRoutes} through Balancer V2, ${forkRoutes} through PancakeSwap V3): the engine's amountOut fell short in **${lossesA}** scenarios (bar: 0)${lossesTwice > 0 ? `, ${lossesTwice} of them only against a path through one pool twice — into a composable stable pool's BPT and out of it, a join then an exit, the exit quoted on the state the join left — which a route does not take (its hops use distinct pools), by at most ${(worstTwice * 100).toPrecision(2)}% of the output` : ""}; net of gas at the chain's gas price (${gasPriceWei} wei), in **${lossesNet}**.`,
      `- (b) Against the certified optimum (a dual bound on the best flow, split and merged at any token; gas price 0). On ${syntheticCases} scenarios over ${SYNTHETIC_SEEDS.length} synthetic graphs of ${SYNTHETIC_POOLS} pools (pools at the tokens' reference prices, so no cycle pays; ${syntheticFlows} of them routed as flows), the gap to the bound over the search's candidate pools (the route's certificate): ${describeGaps(synthetic.candidates)}; within 1 bp in ${((100 * within(synthetic.candidates.map((_, i) => i))) / synthetic.candidates.length).toFixed(1)}% of all; **within 1 bp in ${withinDepth.share}% of the ${withinDepth.count} scenarios within depth** (bar: ≥ 99.5%), those where one more unit of input still adds at least ${WITHIN_DEPTH * 100}% of what the average unit makes at the bound's prices. The other ${synthetic.candidates.length - withinDepth.count} trade beyond what the pools on the output's side can take (more input adds almost nothing, but a route must spend all of it): ${withinDepth.beyond} of them within 1 bp. Gap to the bound over every pool on a path of ≤ 3 hops: ${describeGaps(synthetic.all)}. On the devnet graph, whose pools are not arbitrage-free (a bound includes what cycles between them pay, which no route takes: the small trades' gaps; for ${cycles?.label}, the bound on what one raw unit of the input makes is ${cycles?.bound.toExponential(3)} raw units, where the route makes ${cycles?.perUnit.toExponential(3)} of each), over its ${gaps.candidates.length} scenarios: ${describeGaps(gaps.candidates)}. Routes above a bound (impossible unless the bound is wrong): **${exceeded}** (bar: 0). A certificate took median ${quantile(ms, 0.5).toFixed(1)} ms, p90 ${quantile(ms, 0.9).toFixed(1)} ms, worst ${Math.max(...ms).toFixed(1)} ms (one process; load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores when it ended). A larger maxSplits (${SPLIT_CAPS.join(", ")}, then the default) gave less in **${splitDrops}** of the synthetic scenarios (bar: 0).`,
      `- (c) Stablecoins and pegged assets against the certified optimum (gas price 0): ${STABLE_SEEDS.length} synthetic graphs of eight dollar stablecoins (bench/synthetic-stable.ts: Balancer V2 composable stable pools beside Uniswap V3 pools at 0.01% and 0.05% crowded around the peg and a few V2 pairs, every pool at the peg), every ordered pair at ${STABLE_SIZES_USD.map((s) => `$${s.toLocaleString("en-US")}`).join(", ")}: ${stable.cases} routed (${stable.unfilled} more no pool set could fill); ${stable.throughStable} go through a stable pool, ${stable.throughConcentrated} through a concentrated one, **${stable.mixed} through both**, ${stable.mixedPays} of those making more than the best route of either family alone (by over 0.01 bp). Gap to the bound over the candidate pools: ${describeGaps(stableGaps.candidates)}; **within 1 bp in ${stableShare}% of the ${stableDepth.length} scenarios within depth** (bar: ≥ 99.5%). Below the best route of one family alone (stable pools only, or all but them, the search's own admission): **${stable.belowOneFamily}** (bar: 0)${stable.belowOneFamily > 0 ? `, by at most ${stable.worstBelow.toFixed(3)} bp` : ""}.`,
      `- Every hop of every route (${hopsChecked} hops) was re-quoted by the chain (Router02, Uniswap's and PancakeSwap's QuoterV2, V4Quoter, Balancer's queryBatchSwap, the vault's previews): ${hopMismatches} mismatches.`,
      "",
      "## (a) Engine vs Uniswap's quoters on chain (gas price 0 for amountOut; net columns at the chain's gas price)",
      "",
      "| pair | size | engine amountOut | best single path on chain | Δ | engine net of gas | chain best net of gas | engine route |",
      "|---|---:|---:|---:|---:|---:|---:|---|",
      ...rowsA,
      "",
      "## (b) Engine vs the certified optimum (gas price 0; gaps in basis points of the bound)",
      "",
      "| pair | size | engine amountOut | gap, candidate pools | gap, all pools ≤ 3 hops | engine legs |",
      "|---|---:|---:|---:|---:|---:|",
      ...rowsB,
      "",
      `Synthetic graphs (bench/synthetic-graph.ts, ${SYNTHETIC_POOLS} pools, ${SYNTHETIC_V4_SHARE * 100}% of the concentrated-liquidity ones V4, pools at the reference prices; pairs with 2–${SYNTHETIC_MAX_PATHS} paths of ≤ 3 hops, drawn at random from fixed seeds ${SYNTHETIC_SEEDS[0]}–${SYNTHETIC_SEEDS.at(-1)}): the scenarios more than 1 bp below the bound over the candidate pools.`,
      "",
      "| seed | pair | paths | size | engine amountOut | gap, candidate pools | gap, all pools ≤ 3 hops | input at the margin / average | engine legs |",
      "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
      ...rowsS,
      "",
      "## (c) Stablecoins and pegged assets vs the certified optimum (gas price 0; gaps in basis points of the bound)",
      "",
      `Synthetic stablecoin graphs (bench/synthetic-stable.ts, seeds ${STABLE_SEEDS[0]}–${STABLE_SEEDS.at(-1)}): the scenarios more than 1 bp below the bound over the candidate pools, with the best route of each family alone (stable pools only / all but them).`,
      "",
      "| seed | pair | size | engine amountOut | stable only / the rest | gap, candidate pools | gap, all pools ≤ 3 hops | input at the margin / average | engine legs |",
      "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
      ...rowsC,
      "",
    ];
    const text = lines.join("\n");
    const out = join(dirname(fileURLToPath(import.meta.url)), "results", "quality.md");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
    console.log(lines.slice(0, 12).join("\n"));
    if (
      lossesA > 0 ||
      lossesNet > 0 ||
      exceeded > 0 ||
      hopMismatches > 0 ||
      splitDrops > 0 ||
      stable.belowOneFamily > 0 ||
      Number(stableShare) < 99.5
    )
      process.exitCode = 1;
  } finally {
    await net.stop();
  }
}

await main();
