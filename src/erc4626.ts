import { type Context, ponder } from "ponder:registry";
import { vault } from "ponder:schema";
import { type Address, erc4626Abi } from "viem";
import { indexedChains } from "../protocols/chains";
import { ensureToken } from "./tokens";

/** Vault address (lowercase) → protocol slug, per chain id, from the configured vault lists. */
const vaultSlugs = new Map<number, Map<string, string>>(
  indexedChains().map((c) => [
    c.id,
    new Map(c.vaults.map((v) => [v.address.toLowerCase(), v.protocolSlug])),
  ]),
);

async function readTotals(context: Context, address: Address, blockNumber: bigint) {
  const [totalAssets, totalSupply] = await Promise.all([
    context.client.readContract({
      address,
      abi: erc4626Abi,
      functionName: "totalAssets",
      blockNumber,
    }),
    context.client.readContract({
      address,
      abi: erc4626Abi,
      functionName: "totalSupply",
      blockNumber,
    }),
  ]);
  return { totalAssets, totalSupply };
}

/**
 * Records the vault's totals as the vault reports them at the end of this block. Reading them
 * (rather than adding event amounts) keeps them exact for vaults whose assets grow by yield.
 */
async function syncVault(context: Context, address: Address, blockNumber: bigint): Promise<void> {
  const chainId = context.chain.id;
  const totals = await readTotals(context, address, blockNumber);
  const existing = await context.db.find(vault, { chainId, address });
  if (existing) {
    await context.db
      .update(vault, { chainId, address })
      .set({ ...totals, updatedBlock: blockNumber });
    return;
  }
  const protocolSlug = vaultSlugs.get(chainId)?.get(address.toLowerCase()) ?? "erc4626";
  const asset = await context.client.readContract({
    address,
    abi: erc4626Abi,
    functionName: "asset",
    cache: "immutable",
  });
  await ensureToken(context, asset, blockNumber);
  await ensureToken(context, address, blockNumber, {
    protocolSlug,
    underlyingTokens: [asset],
    primaryAddress: address,
  });
  await context.db.insert(vault).values({
    chainId,
    address,
    protocolSlug,
    asset,
    ...totals,
    createdBlock: blockNumber,
    updatedBlock: blockNumber,
  });
}

ponder.on("ERC4626Vault:Deposit", async ({ event, context }) => {
  await syncVault(context, event.log.address, event.block.number);
});

ponder.on("ERC4626Vault:Withdraw", async ({ event, context }) => {
  await syncVault(context, event.log.address, event.block.number);
});

/** Yield moves share prices without events: re-read known vaults every few blocks. */
ponder.on("VaultRefresh:block", async ({ event, context }) => {
  const vaults = vaultSlugs.get(context.chain.id) ?? new Map();
  for (const key of vaults.keys()) {
    const address = key as Address;
    const row = await context.db.find(vault, { chainId: context.chain.id, address });
    if (!row) continue;
    const totals = await readTotals(context, address, event.block.number);
    if (totals.totalAssets !== row.totalAssets || totals.totalSupply !== row.totalSupply) {
      await context.db
        .update(vault, { chainId: context.chain.id, address })
        .set({ ...totals, updatedBlock: event.block.number });
    }
  }
});
