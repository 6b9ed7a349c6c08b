import type { ChainSetup } from "../../engine/index.js";

/**
 * A Ponder per-chain setting (`{ [chainName]: value }`) from each chain's own value; chains
 * for which `select` answers undefined are left out.
 */
export function perChain<T>(
  chains: readonly ChainSetup[],
  select: (chain: ChainSetup) => T | undefined,
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const chain of chains) {
    const value = select(chain);
    if (value !== undefined) out[chain.name] = value;
  }
  return out;
}
