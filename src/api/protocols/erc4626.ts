import { and, count, eq, gt, inArray } from "ponder";
import type { VaultPool } from "../../../engine/index.js";
import { vault } from "../../protocols/erc4626/tables.js";
import { token } from "../../tokens/tables.js";
import type { AddressInterner } from "../snapshot/address-interner.js";
import { lower, rowsByKey } from "../snapshot/reader.js";
import type { IndexedSource } from "./types.js";

export type VaultRow = {
  address: string;
  protocolSlug: string;
  asset: string;
  totalAssets: bigint;
  totalSupply: bigint;
};

/** An indexed vault as the routing engine's pool. Pure (the scale benchmark reads rows itself). */
export function vaultPoolOf(
  row: VaultRow,
  decimals: { share: number | undefined; asset: number | undefined },
  addresses: AddressInterner,
): VaultPool {
  // OpenZeppelin's ERC4626: share decimals = asset decimals + _decimalsOffset().
  const offset = (decimals.share ?? 0) - (decimals.asset ?? 0);
  return {
    kind: "erc4626",
    protocol: row.protocolSlug,
    address: addresses.of(row.address),
    asset: addresses.of(row.asset),
    totalAssets: row.totalAssets,
    totalSupply: row.totalSupply,
    decimalsOffset: Math.max(0, offset),
  };
}

/** ERC4626 vaults (`vault`) of every vault protocol, with their share and asset decimals. */
export const erc4626Source: IndexedSource = {
  undoLogs: { vault: "address" },

  async load({ reader, chainId, since, reread, graph, addresses }) {
    const vaults = await reader
      .select()
      .from(vault)
      .where(and(eq(vault.chainId, chainId), gt(vault.updatedBlock, since)));
    // A vault's row, or its share token's (decimals), reverted: its current row, or none.
    const rereadVaults = [...new Set([...reread("vault"), ...reread("token")])];
    const vaultsNow = await rowsByKey(rereadVaults, (slice) =>
      reader
        .select()
        .from(vault)
        .where(and(eq(vault.chainId, chainId), inArray(vault.address, slice))),
    );
    const found = new Set(vaultsNow.map((v) => lower(v.address)));
    for (const address of reread("vault")) if (!found.has(address)) graph.removePool(address);
    const all = [...vaults, ...vaultsNow];
    if (all.length === 0) return;
    const decimals = await rowsByKey(
      [...new Set(all.flatMap((v) => [lower(v.address), lower(v.asset)]))],
      (slice) =>
        reader
          .select({ address: token.address, decimals: token.decimals })
          .from(token)
          .where(and(eq(token.chainId, chainId), inArray(token.address, slice))),
    );
    const decimalsOf = new Map(decimals.map((d) => [lower(d.address), d.decimals]));
    for (const v of all) {
      graph.upsertPool(
        vaultPoolOf(
          v,
          { share: decimalsOf.get(lower(v.address)), asset: decimalsOf.get(lower(v.asset)) },
          addresses,
        ),
      );
    }
  },

  async poolCount(db, protocol) {
    return (
      (await db.select({ n: count() }).from(vault).where(eq(vault.protocolSlug, protocol.slug)))[0]
        ?.n ?? 0
    );
  },
};
