import { core } from "./core";
import { savingsVaults } from "./savings-vaults";
import type { Protocol } from "./types";
import { uniswapV2 } from "./uniswap-v2";
import { uniswapV3 } from "./uniswap-v3";
import { wrappedNative } from "./wrapped-native";
import { yieldVaults } from "./yield-vaults";

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
