/**
 * A seeded synthetic graph of dollar stablecoins, where stable-swap pools compete with
 * concentrated-liquidity ones: Balancer V2 composable stable pools of two to four of the coins
 * (amplification 50–2,000, fees of 1–4 bp, their BPTs tokens of the graph), Uniswap V3 pools at
 * 0.01% and 0.05% whose positions crowd around the peg, and a few Uniswap V2 pairs at 0.3%. Every
 * pool sits exactly at the peg (one raw unit of a coin is worth 10^(its decimals) of a dollar), so
 * no cycle pays and the certified optimum of a trade is what a route can reach.
 */
import { mulberry32 } from "../devnet/random.js";
import type { Address, Pool, V3Pool } from "../engine/index.js";
import {
  balancerV2PoolOf,
  createRoutingGraph,
  decimalScalingFactor,
  floorSqrt,
  getSqrtRatioAtTick,
  getTickAtSqrtRatio,
  type RoutingGraph,
} from "../engine/index.js";
import { calculateInvariant } from "../engine/protocols/balancer-v2/stable-math.js";
import { address, initializedTicks, rawAmount, type SyntheticToken } from "./synthetic-graph.js";

export type StableGraph = {
  graph: RoutingGraph;
  /** The stablecoins (the BPTs are tokens of the graph too, but not traded here). */
  coins: SyntheticToken[];
};

const VAULT = "0xba12222222228d8ba445958a75a0704d566bf2c8" as const;
/** What a composable stable pool premints, as Balancer's `_PREMINTED_TOKEN_BALANCE`. */
const PREMINTED_BPT = 2n ** 111n;
const ONE = 10n ** 18n;

export function syntheticStableGraph(seed: number): StableGraph {
  const random = mulberry32(seed);
  const logUniform = (min: number, max: number) =>
    Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min)));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const coins: SyntheticToken[] = [
    ["USDC", 6],
    ["USDT", 6],
    ["DAI", 18],
    ["FRAX", 18],
    ["LUSD", 18],
    ["PYUSD", 6],
    ["GHO", 18],
    ["USDe", 18],
  ].map(([symbol, decimals], i) => ({
    address: address(0xf0, i + 1),
    symbol: symbol as string,
    decimals: decimals as number,
    usdPrice: 1,
  }));
  const pools: Pool[] = [];
  let index = 0;

  /**
   * A composable stable pool of `members` at the peg: each holds the same dollars (a stable
   * pool prices its coins at 1 only where its balances are equal).
   */
  const stable = (members: SyntheticToken[], amp: bigint, feeBps: bigint): Pool => {
    const bpt = address(0xb7, ++index);
    const tokens = [...members.map((m) => m.address), bpt].sort();
    const bptIndex = tokens.indexOf(bpt);
    const of = (t: Address) => members.find((m) => m.address === t);
    const usd = logUniform(2e5, 5e7);
    const balances = tokens.map((t) => {
      const coin = of(t);
      return coin ? rawAmount(coin, usd) : 0n;
    });
    const factors = tokens.map((t) => {
      const coin = of(t);
      return coin ? decimalScalingFactor(coin.decimals) : ONE;
    });
    const upscaled = balances
      .map((b, i) => (b * (factors[i] as bigint)) / ONE)
      .filter((_, i) => i !== bptIndex);
    const ampPrecise = amp * 1000n;
    // The BPT in circulation is the invariant, as after a first join; the rest is preminted
    // and held by the vault. No protocol fee is due: the last invariant is the current one.
    const invariant = calculateInvariant(ampPrecise, upscaled);
    balances[bptIndex] = PREMINTED_BPT - invariant;
    return balancerV2PoolOf({
      address: bpt,
      poolId: `0x${bpt.slice(2)}0000${index.toString(16).padStart(20, "0")}`,
      vault: VAULT,
      type: "composable-stable",
      state: {
        address: bpt,
        tokens,
        bptIndex,
        balances,
        decimalScalingFactors: factors,
        tokenRates: tokens.map(() => ONE),
        oldRates: tokens.map(() => ONE),
        hasRateProvider: tokens.map(() => false),
        exemptFromYieldProtocolFee: tokens.map(() => false),
        amp: ampPrecise,
        swapFeePercentage: feeBps * 10n ** 14n,
        totalSupply: PREMINTED_BPT,
        protocolFees: {
          lastJoinExitAmp: ampPrecise,
          lastPostJoinExitInvariant: invariant,
          swapFeePercentage: 0n,
          yieldFeePercentage: 0n,
        },
      },
    });
  };

  /**
   * A Uniswap V3 pool of `a` and `b` at the peg: a wide position and several narrow ones around
   * the peg's tick, together worth about `usd` dollars of in-range depth.
   */
  const concentrated = (a: SyntheticToken, b: SyntheticToken, fee: number, usd: number): V3Pool => {
    const [t0, t1] = a.address < b.address ? [a, b] : [b, a];
    const spacing = fee === 100 ? 1 : 10;
    // Raw token1 per raw token0 at the peg is 10^(d1 - d0): its square root in Q96, exactly.
    const shift = BigInt(Math.abs(t1.decimals - t0.decimals));
    const sqrtPriceX96 =
      t1.decimals >= t0.decimals
        ? floorSqrt((10n ** shift) << 192n)
        : floorSqrt((1n << 192n) / 10n ** shift);
    const tick = getTickAtSqrtRatio(sqrtPriceX96);
    const center = Math.floor(tick / spacing) * spacing;
    // Liquidity L puts L / sqrt(price) of token1 per unit of sqrt(price) moved: a position of
    // width w ticks around the peg holds about L · w / 20,000 · sqrt(price) of token1.
    const sqrtPrice = Number(sqrtPriceX96) / 2 ** 96;
    const token1Raw = Number(rawAmount(t1, usd / 2));
    const positions: { lower: number; upper: number; share: number }[] = [
      { lower: center - 2_000 * spacing, upper: center + 2_000 * spacing, share: 0.2 },
    ];
    const narrow = 2 + Math.floor(random() * 4);
    for (let i = 0; i < narrow; i++) {
      const below = (1 + Math.floor(random() * 20)) * spacing;
      const above = (1 + Math.floor(random() * 20)) * spacing;
      positions.push({ lower: center - below, upper: center + above, share: 0.8 / narrow });
    }
    const net = new Map<number, bigint>();
    let liquidity = 0n;
    for (const p of positions) {
      const width = p.upper - p.lower;
      const l = BigInt(
        Math.max(1, Math.floor((token1Raw * p.share * 20_000) / (width * sqrtPrice))),
      );
      net.set(p.lower, (net.get(p.lower) ?? 0n) + l);
      net.set(p.upper, (net.get(p.upper) ?? 0n) - l);
      if (p.lower <= tick && tick < p.upper) liquidity += l;
    }
    const ticks = initializedTicks(net);
    return {
      kind: "v3",
      protocol: "uniswap-v3",
      address: address(0xc5, ++index),
      token0: t0.address,
      token1: t1.address,
      feePpm: fee,
      tickSpacing: spacing,
      // Inside its tick, as a pool at the peg is.
      sqrtPriceX96:
        sqrtPriceX96 < getSqrtRatioAtTick(tick) ? getSqrtRatioAtTick(tick) : sqrtPriceX96,
      tick,
      liquidity,
      ticks,
    };
  };

  const pair = (a: SyntheticToken, b: SyntheticToken, usd: number): Pool => {
    const [t0, t1] = a.address < b.address ? [a, b] : [b, a];
    const reserve0 = rawAmount(t0, usd / 2);
    const reserve1 = rawAmount(t1, usd / 2);
    return {
      kind: "v2",
      protocol: "uniswap-v2",
      address: address(0xc6, ++index),
      token0: t0.address,
      token1: t1.address,
      reserve0,
      reserve1,
      feePpm: 3000,
      totalSupply: floorSqrt(reserve0 * reserve1),
    };
  };

  // Two to four stable pools of two to four coins each.
  const stablePools = 2 + Math.floor(random() * 3);
  for (let i = 0; i < stablePools; i++) {
    const size = 2 + Math.floor(random() * 3);
    const members = [...coins].sort(() => random() - 0.5).slice(0, size);
    pools.push(stable(members, pick([50n, 100n, 200n, 500n, 1000n, 2000n]), pick([1n, 2n, 4n])));
  }
  // Concentrated pools and pairs between coins.
  for (let i = 0; i < coins.length; i++) {
    for (let j = i + 1; j < coins.length; j++) {
      const a = coins[i] as SyntheticToken;
      const b = coins[j] as SyntheticToken;
      if (random() < 0.5) pools.push(concentrated(a, b, 100, logUniform(1e5, 5e7)));
      if (random() < 0.3) pools.push(concentrated(a, b, 500, logUniform(1e5, 2e7)));
      if (random() < 0.15) pools.push(pair(a, b, logUniform(1e5, 5e6)));
    }
  }
  const graph = createRoutingGraph();
  for (const pool of pools) graph.upsertPool(pool);
  return { graph, coins };
}
