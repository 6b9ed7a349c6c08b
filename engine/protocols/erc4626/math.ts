/**
 * OpenZeppelin 5's ERC4626 conversions, rounding down as `previewDeposit` and `previewRedeem`
 * do (the virtual share and asset of the inflation-attack defence included).
 */
import type { VaultPool } from "../../core/types.js";

export type VaultTotals = Pick<VaultPool, "totalAssets" | "totalSupply" | "decimalsOffset">;

/** Shares minted for `assets`: assets × (totalSupply + 10^offset) / (totalAssets + 1), floor. */
export function previewDeposit(vault: VaultTotals, assets: bigint): bigint {
  const virtualShares = vault.totalSupply + 10n ** BigInt(vault.decimalsOffset);
  return (assets * virtualShares) / (vault.totalAssets + 1n);
}

/** Assets paid for `shares`: shares × (totalAssets + 1) / (totalSupply + 10^offset), floor. */
export function previewRedeem(vault: VaultTotals, shares: bigint): bigint {
  const virtualShares = vault.totalSupply + 10n ** BigInt(vault.decimalsOffset);
  return (shares * (vault.totalAssets + 1n)) / virtualShares;
}
