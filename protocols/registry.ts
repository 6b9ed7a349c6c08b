import { core } from "./core.js";
import { savingsVaults } from "./savings-vaults.js";
import type { Protocol } from "./types.js";
import { uniswapV2 } from "./uniswap-v2.js";
import { uniswapV3 } from "./uniswap-v3.js";
import { wrappedNative } from "./wrapped-native.js";
import { yieldVaults } from "./yield-vaults.js";

/** Every protocol the service knows. Adding a protocol is adding its file and a line here. */
export const protocols: readonly Protocol[] = [
  core,
  uniswapV2,
  uniswapV3,
  savingsVaults,
  yieldVaults,
  wrappedNative,
];

export function findProtocol(slug: string): Protocol | undefined {
  return protocols.find((p) => p.slug === slug);
}
