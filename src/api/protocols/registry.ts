import type { PoolSource } from "../../../engine/index.js";
import { aaveV3Source } from "./aave-v3.js";
import { balancerV2Source } from "./balancer-v2.js";
import { erc4626Source } from "./erc4626.js";
import type { IndexedSource } from "./types.js";
import { uniswapV2Source } from "./uniswap-v2.js";
import { uniswapV3Source } from "./uniswap-v3.js";
import { uniswapV4Source } from "./uniswap-v4.js";
import { wrappedNativeSource } from "./wrapped-native.js";

/**
 * How the API reads each pool source back from the index (the routing snapshot and
 * `/v1/projects`), by the `poolSource` the engine's protocols name: a new source is a compile
 * error until it has its line here.
 */
export const indexedSources: Readonly<Record<PoolSource, IndexedSource>> = {
  v2Pair: uniswapV2Source,
  v3Pool: uniswapV3Source,
  v4Pool: uniswapV4Source,
  vault: erc4626Source,
  aaveReserve: aaveV3Source,
  balancerV2Pool: balancerV2Source,
  wrappedNative: wrappedNativeSource,
};
