/**
 * A seeded synthetic routing graph with the shape of a real chain: a handful of hub tokens
 * (WETH, stablecoins, WBTC) joined by deep pools in every venue, a long tail of tokens each
 * trading against one to four hubs in pools of very different depth, some tail-to-tail pools,
 * ERC4626 vaults on hubs and tail tokens, and the native wrapper. V3 pools carry several
 * positions over different tick ranges, so swaps cross initialized ticks. With `v4Share`, that
 * share of the concentrated-liquidity pools are Uniswap V4 pools instead (a fifth of them with a
 * protocol fee; half of those on WETH trade native ether instead), and each hub pair has a V4
 * pool too.
 */
import { mulberry32 } from "../devnet/random.js";
import type { Address, Pool, V3Pool, V3Tick } from "../engine/index.js";
import {
  createRoutingGraph,
  floorSqrt,
  getSqrtRatioAtTick,
  getTickAtSqrtRatio,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
  type RoutingGraph,
} from "../engine/index.js";

export type SyntheticToken = {
  address: Address;
  symbol: string;
  decimals: number;
  usdPrice: number;
};

export type SyntheticGraph = {
  graph: RoutingGraph;
  tokens: SyntheticToken[];
  hubs: SyntheticToken[];
  weth: Address;
  stablecoins: SyntheticToken[];
};

export type SyntheticGraphParameters = {
  pools: number;
  seed: number;
  /** The share of concentrated-liquidity pools that are Uniswap V4 pools (default 0). */
  v4Share?: number;
  /**
   * The width of the noise on a concentrated-liquidity pool's price around the tokens' reference
   * prices (default 0.004: ±0.2%, wider than the cheapest pools' fees, so the hubs' pools leave
   * cyclic arbitrage, as a chain does between arbitrageurs' blocks). 0 prices every pool at the
   * reference, within its tick: no cycle pays.
   */
  priceNoise?: number;
};

const NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" as const;
const POOL_MANAGER = "0x000000000004444c5dc75cb358380d2e3de08a90" as const;
const NO_HOOKS = "0x0000000000000000000000000000000000000000" as const;
const SPACING: Record<number, number> = { 100: 1, 500: 10, 3000: 60, 10000: 200 };

/** The initialized ticks of a pool from the net liquidity its positions add at each tick. */
export function initializedTicks(net: ReadonlyMap<number, bigint>): V3Tick[] {
  return [...net]
    .filter(([, n]) => n !== 0n)
    .map(([t, n]) => ({ tick: t, liquidityNet: n }))
    .sort((x, y) => x.tick - y.tick);
}

/** A synthetic address: a prefix byte, then `i`. */
export function address(prefix: number, i: number): Address {
  return `0x${prefix.toString(16).padStart(2, "0")}${i.toString(16).padStart(38, "0")}` as Address;
}

/** A raw amount of `token` worth `usd`. */
export function rawAmount(token: SyntheticToken, usd: number): bigint {
  const units = usd / token.usdPrice;
  const scaled = units * 10 ** Math.min(token.decimals, 12);
  return BigInt(Math.max(1, Math.floor(scaled))) * 10n ** BigInt(Math.max(0, token.decimals - 12));
}

export function syntheticGraph(params: SyntheticGraphParameters): SyntheticGraph {
  const random = mulberry32(params.seed);
  const logUniform = (min: number, max: number) =>
    Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min)));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

  const hubs: SyntheticToken[] = [
    { address: address(0xa0, 1), symbol: "WETH", decimals: 18, usdPrice: 3000 },
    { address: address(0xa0, 2), symbol: "USDC", decimals: 6, usdPrice: 1 },
    { address: address(0xa0, 3), symbol: "USDT", decimals: 6, usdPrice: 1 },
    { address: address(0xa0, 4), symbol: "DAI", decimals: 18, usdPrice: 1 },
    { address: address(0xa0, 5), symbol: "WBTC", decimals: 8, usdPrice: 60_000 },
  ];
  const [weth, usdc] = hubs as [SyntheticToken, SyntheticToken];
  // About one tail token per four pools, as on chains where most tokens have a few pools.
  const tailCount = Math.max(10, Math.floor(params.pools / 4));
  const tail: SyntheticToken[] = Array.from({ length: tailCount }, (_, i) => ({
    address: address(0xb0, i + 1),
    symbol: `T${i}`,
    decimals: pick([6, 8, 9, 18, 18, 18]),
    usdPrice: logUniform(0.000_01, 5_000),
  }));
  const tokens = [...hubs, ...tail];

  const pools: Pool[] = [];
  let poolIndex = 0;
  const v2 = (a: SyntheticToken, b: SyntheticToken, tvlUsd: number): Pool => {
    const [t0, t1] = a.address < b.address ? [a, b] : [b, a];
    return {
      kind: "v2",
      protocol: "uniswap-v2",
      address: address(0xc2, ++poolIndex),
      token0: t0.address,
      token1: t1.address,
      reserve0: rawAmount(t0, tvlUsd / 2),
      reserve1: rawAmount(t1, tvlUsd / 2),
      feePpm: 3000,
      // What a pair minted for its first liquidity, as most pairs' supply roughly is.
      totalSupply: floorSqrt(rawAmount(t0, tvlUsd / 2) * rawAmount(t1, tvlUsd / 2)),
    };
  };
  const v3 = (a: SyntheticToken, b: SyntheticToken, fee: number, tvlUsd: number): V3Pool => {
    const [t0, t1] = a.address < b.address ? [a, b] : [b, a];
    const spacing = SPACING[fee] as number;
    // Raw token1 per raw token0 at the reference prices, with a little noise.
    const price =
      (t0.usdPrice / t1.usdPrice) *
      10 ** (t1.decimals - t0.decimals) *
      (1 + (random() - 0.5) * (params.priceNoise ?? 0.004));
    const tick = Math.max(
      MIN_TICK + 1,
      Math.min(MAX_TICK - 1, Math.floor(Math.log(price) / Math.log(1.0001))),
    );
    const sqrtLow = getSqrtRatioAtTick(tick);
    const sqrtHigh = getSqrtRatioAtTick(tick + 1);
    const sqrtPriceX96 =
      sqrtLow + ((sqrtHigh - sqrtLow) * BigInt(Math.floor(random() * 1000))) / 1000n;
    const sqrtPrice = Math.sqrt(price);
    // Liquidity whose in-range virtual token1 reserve is worth the TVL, spread over positions.
    const totalL = (Number(rawAmount(t1, tvlUsd / 2)) / sqrtPrice) * 0.5;
    const positions = 2 + Math.floor(random() * 6);
    const net = new Map<number, bigint>();
    let liquidity = 0n;
    const center = Math.floor(tick / spacing) * spacing;
    const bound = Math.floor(MAX_TICK / spacing) * spacing;
    for (let i = 0; i < positions; i++) {
      const lower = Math.max(-bound, center - (1 + Math.floor(random() * 120)) * spacing);
      const upper = Math.min(bound, center + (1 + Math.floor(random() * 120)) * spacing);
      const l = BigInt(Math.max(1, Math.floor((totalL / positions) * (0.5 + random()))));
      net.set(lower, (net.get(lower) ?? 0n) + l);
      net.set(upper, (net.get(upper) ?? 0n) - l);
      if (lower <= tick && tick < upper) liquidity += l;
    }
    const ticks = initializedTicks(net);
    return {
      kind: "v3",
      protocol: "uniswap-v3",
      address: address(0xc3, ++poolIndex),
      token0: t0.address,
      token1: t1.address,
      feePpm: fee,
      tickSpacing: spacing,
      sqrtPriceX96,
      tick,
      liquidity,
      ticks,
    };
  };
  const ether: SyntheticToken = { address: NATIVE, symbol: "ETH", decimals: 18, usdPrice: 3000 };
  /** A V3 pool's state as a V4 pool: the same ticks, a PoolId, maybe a protocol fee. */
  const v4 = (a: SyntheticToken, b: SyntheticToken, fee: number, tvlUsd: number): Pool => {
    const nativeSide = (a === weth || b === weth) && random() < 0.1;
    const [x, y] = nativeSide ? [ether, a === weth ? b : a] : [a, b];
    // The manager sorts the zero address (native ether) first.
    const [t0, t1] = x === ether || x.address < y.address ? [x, y] : [y, x];
    const state = v3(t0 === ether ? weth : t0, t1, fee, tvlUsd);
    const flipped = state.token0 !== (t0 === ether ? weth.address : t0.address);
    const withFee = random() < 0.2;
    return {
      ...state,
      kind: "v4",
      protocol: "uniswap-v4",
      address: `0xe4${(++poolIndex).toString(16).padStart(62, "0")}` as Address,
      poolManager: POOL_MANAGER,
      // Native ether is currency0; the price was made for WETH's place (flip when it sorted last).
      token0: t0.address,
      token1: t1.address,
      ...(flipped ? flippedPrice(state) : {}),
      keyFee: fee,
      protocolFee: withFee ? Math.floor(random() * 1001) | (Math.floor(random() * 1001) << 12) : 0,
      hooks: NO_HOOKS,
      admission: "exact",
    };
  };
  const v4Share = params.v4Share ?? 0;
  const concentrated = (a: SyntheticToken, b: SyntheticToken, fee: number, tvlUsd: number) =>
    v4Share > 0 && random() < v4Share ? v4(a, b, fee, tvlUsd) : v3(a, b, fee, tvlUsd);
  const venue = (a: SyntheticToken, b: SyntheticToken, tvlUsd: number): Pool =>
    random() < 0.45 ? v2(a, b, tvlUsd) : concentrated(a, b, pick([500, 3000, 3000, 10000]), tvlUsd);

  // Hub pairs: every venue, deep.
  for (let i = 0; i < hubs.length; i++) {
    for (let j = i + 1; j < hubs.length; j++) {
      const a = hubs[i] as SyntheticToken;
      const b = hubs[j] as SyntheticToken;
      pools.push(v2(a, b, logUniform(5e6, 2e8)));
      for (const fee of [500, 3000, 10000]) pools.push(v3(a, b, fee, logUniform(1e6, 3e8)));
      if (v4Share > 0) pools.push(v4(a, b, pick([100, 500, 3000]), logUniform(1e6, 1e8)));
    }
  }
  // Vaults: on hubs and on some tail tokens; their shares are tokens too.
  const vaults = Math.max(2, Math.floor(params.pools / 200));
  for (let i = 0; i < vaults; i++) {
    const asset = i < hubs.length ? (hubs[i] as SyntheticToken) : pick(tail);
    const totalAssets = rawAmount(asset, logUniform(1e4, 1e8));
    pools.push({
      kind: "erc4626",
      protocol: i % 2 === 0 ? "savings-vaults" : "yield-vaults",
      address: address(0xd0, i + 1),
      asset: asset.address,
      totalAssets,
      totalSupply: (totalAssets * BigInt(900 + Math.floor(random() * 100))) / 1000n,
      decimalsOffset: 0,
    });
  }
  pools.push({ kind: "wrap", protocol: "wrapped-native", address: weth.address });
  // Tail tokens: each against WETH or USDC at least, then more hubs and tail partners.
  const seen = new Set<string>();
  const key = (a: SyntheticToken, b: SyntheticToken) =>
    a.address < b.address ? a.address + b.address : b.address + a.address;
  let t = 0;
  while (pools.length < params.pools) {
    const token = tail[t % tail.length] as SyntheticToken;
    t++;
    const partner =
      t <= tail.length ? (random() < 0.7 ? weth : usdc) : random() < 0.6 ? pick(hubs) : pick(tail);
    if (partner === token) continue;
    const k = `${key(token, partner)}:${pools.length % 4}`;
    if (seen.has(k)) continue;
    seen.add(k);
    const deep = hubs.includes(partner);
    pools.push(venue(token, partner, deep ? logUniform(2e3, 2e7) : logUniform(1e3, 2e6)));
  }

  const graph = createRoutingGraph();
  for (const pool of pools) graph.upsertPool(pool);
  return {
    graph,
    tokens: [...tokens, { address: NATIVE, symbol: "ETH", decimals: 18, usdPrice: 3000 }],
    hubs,
    weth: weth.address,
    stablecoins: hubs.filter((h) => h.usdPrice === 1),
  };
}

/**
 * A pool's state with its two tokens swapped: the price inverted, the ticks mirrored. For a V4
 * pool whose native currency sorts first where WETH sorted last.
 */
function flippedPrice(state: V3Pool): Pick<V3Pool, "sqrtPriceX96" | "tick" | "ticks"> {
  const Q192 = 1n << 192n;
  let sqrtPriceX96 = Q192 / state.sqrtPriceX96;
  if (sqrtPriceX96 >= MAX_SQRT_RATIO) sqrtPriceX96 = MAX_SQRT_RATIO - 1n;
  if (sqrtPriceX96 < MIN_SQRT_RATIO) sqrtPriceX96 = MIN_SQRT_RATIO;
  const ticks = state.ticks
    .map((t) => ({ tick: -t.tick, liquidityNet: -t.liquidityNet }))
    .sort((x, y) => x.tick - y.tick);
  return { sqrtPriceX96, tick: getTickAtSqrtRatio(sqrtPriceX96), ticks };
}
