import type { Context } from "ponder:registry";
import { vault } from "ponder:schema";
import { type Address, erc4626Abi } from "viem";
import { indexedChains } from "../../../chains.js";
import { ensureTokens } from "../../tokens/tokens.js";

/** Vault address (lowercase) → protocol slug, per chain id, from the configured vault lists. */
export const vaultSlugs = new Map<number, Map<string, string>>(
  indexedChains().map((c) => [
    c.id,
    new Map(c.vaults.map((v) => [v.address.toLowerCase(), v.protocolSlug])),
  ]),
);

export type VaultTotals = { totalAssets: bigint; totalSupply: bigint };

/**
 * Every vault's `totalAssets` and `totalSupply` at the end of `blockNumber`, in one `eth_call`
 * (a deployless multicall: no Multicall3 needs to be deployed on the chain). A vault whose
 * reads fail — one not yet deployed at that block — is missing from the answer.
 */
export async function readTotals(
  context: Context,
  vaults: readonly Address[],
  blockNumber: bigint,
): Promise<Map<Address, VaultTotals>> {
  const results = await context.client.multicall({
    contracts: vaults.flatMap((address) => [
      { address, abi: erc4626Abi, functionName: "totalAssets" } as const,
      { address, abi: erc4626Abi, functionName: "totalSupply" } as const,
    ]),
    blockNumber,
    deployless: true,
  });
  const out = new Map<Address, VaultTotals>();
  vaults.forEach((address, i) => {
    const assets = results[2 * i];
    const supply = results[2 * i + 1];
    if (assets?.status === "success" && supply?.status === "success")
      out.set(address, { totalAssets: assets.result, totalSupply: supply.result });
  });
  return out;
}

/**
 * The state start's vaults: every configured vault that holds anything at the end of `block`
 * gets its row with those totals (a vault deployed later, or empty then, is added by its first
 * event, as in a replay), its asset and its share listed as tokens.
 */
export async function readVaultState(context: Context, block: bigint): Promise<void> {
  const chainId = context.chain.id;
  const slugs = vaultSlugs.get(chainId);
  if (!slugs || slugs.size === 0) return;
  const addresses = [...slugs.keys()] as Address[];
  const totals = await readTotals(context, addresses, block);
  for (const address of addresses) {
    const now = totals.get(address);
    if (!now || (now.totalAssets === 0n && now.totalSupply === 0n)) continue;
    const asset = await context.client.readContract({
      address,
      abi: erc4626Abi,
      functionName: "asset",
      blockNumber: block,
    });
    const protocolSlug = slugs.get(address) ?? "erc4626";
    await ensureTokens(
      context,
      [
        { address: asset },
        { address, position: { protocolSlug, underlyingTokens: [asset], primaryAddress: address } },
      ],
      block,
    );
    await context.db
      .insert(vault)
      .values({
        chainId,
        address,
        protocolSlug,
        asset,
        ...now,
        createdBlock: block,
        updatedBlock: block,
      })
      .onConflictDoNothing();
  }
}
