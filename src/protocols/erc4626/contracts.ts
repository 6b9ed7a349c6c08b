import { erc4626Abi } from "viem";
import type { ChainSetup } from "../../../engine/index.js";
import { perChain } from "../per-chain.js";

/** The configured vaults of each chain (every ERC4626 protocol's, in one contract). */
export function erc4626Contracts(chains: readonly ChainSetup[]) {
  return {
    ERC4626Vault: {
      abi: erc4626Abi,
      chain: perChain(chains, (c) =>
        c.vaults.length > 0
          ? { address: c.vaults.map((v) => v.address), startBlock: c.startBlock }
          : undefined,
      ),
    },
  };
}

/**
 * Vault share prices move without events (yield): from the head at startup on, the vault
 * totals are re-read every `refreshBlocks` blocks, one `eth_call` per refresh for all vaults
 * (handlers.ts). Not during a historical backfill: the vault handlers add event amounts there,
 * and the first refresh, at the block that was the head when indexing started, adds the yield.
 */
export function erc4626Blocks(chains: readonly ChainSetup[], refreshBlocks: number) {
  return {
    VaultRefresh: {
      chain: perChain(chains, (c) =>
        c.vaults.length > 0
          ? { startBlock: "latest" as const, interval: refreshBlocks }
          : undefined,
      ),
    },
  };
}
