/**
 * USD prices from the graph and the price impact of a quote. A token's USD price is its spot
 * price through the deepest connection to one of the configured USD stablecoins, each taken
 * at exactly one dollar (spot-prices.ts).
 */

import type { Address } from "../core/types.js";
import type { RoutingGraph } from "./graph.js";
import {
  PRICE_SCALE,
  priceStaleness,
  type SpotPrices,
  spotPrices,
  type TokenPrices,
} from "./spot-prices.js";

/** A stablecoin taken to be worth one dollar. */
export type UsdStablecoin = { address: Address; decimals: number };

export type UsdPricesParameters = {
  graph: RoutingGraph;
  /**
   * The USD stablecoins. With their decimals, each is worth exactly one dollar and prices are
   * absolute. Given as bare addresses (decimals unknown), the first one held by the graph is
   * the only anchor, at one dollar per raw unit, and the others are priced through the graph
   * like any token: prices are then right relative to each other (all that a price impact
   * needs) but not in dollars.
   */
  stablecoins: readonly (UsdStablecoin | Address)[];
  /**
   * Reuse prices up to this many pool changes old; by default {@link priceStaleness}: always
   * current on a graph of fewer than 100 pools, up to 1% of its pools' changes on a larger one.
   */
  maxStaleChanges?: number;
};

/**
 * USD value of one raw unit of every token connected to a stablecoin, × PRICE_SCALE (10^36):
 * 1 USDC (6 decimals) gives 10^30. Cached per graph version.
 */
export function usdPrices(params: UsdPricesParameters): TokenPrices {
  return usdSpotPrices(params).prices;
}

/**
 * The USD spot prices of {@link usdPrices} with their floats and the depth behind each (in
 * dollars when every stablecoin comes with its decimals).
 */
export function usdSpotPrices(params: UsdPricesParameters): SpotPrices {
  const { graph, stablecoins } = params;
  const withDecimals = stablecoins.filter((s): s is UsdStablecoin => typeof s !== "string");
  let anchors: { token: Address; price: bigint }[];
  if (withDecimals.length === stablecoins.length) {
    anchors = withDecimals.map((s) => ({
      token: s.address.toLowerCase() as Address,
      price: PRICE_SCALE / 10n ** BigInt(s.decimals),
    }));
  } else {
    const first = stablecoins
      .map((s) => (typeof s === "string" ? s : s.address).toLowerCase() as Address)
      .find((a) => graph.hasToken(a));
    anchors = first ? [{ token: first, price: PRICE_SCALE }] : [];
  }
  return spotPrices({
    graph,
    anchors,
    maxStaleChanges: params.maxStaleChanges ?? priceStaleness(graph),
  });
}

export type PriceImpactParameters = {
  /** From {@link usdPrices}. */
  prices: TokenPrices;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  amountOut: bigint;
};

/**
 * How much less the output is worth than the input at spot USD prices, in basis points
 * (rounded towards zero; negative when the output is worth more). `null` when either token
 * has no USD price.
 * @example priceImpactBps({ prices, tokenIn, tokenOut, amountIn, amountOut }) // 31
 */
export function priceImpactBps(params: PriceImpactParameters): number | null {
  const priceIn = params.prices.get(params.tokenIn.toLowerCase() as Address);
  const priceOut = params.prices.get(params.tokenOut.toLowerCase() as Address);
  if (!priceIn || !priceOut) return null;
  const valueIn = params.amountIn * priceIn;
  if (valueIn === 0n) return null;
  const valueOut = params.amountOut * priceOut;
  return Number(((valueIn - valueOut) * 10_000n) / valueIn);
}
