/**
 * ERC4626 vault totals, kept without an `eth_call` per event.
 *
 * A `Deposit` moves exactly `assets` into the vault and mints `shares`; a `Withdraw` pays out
 * `assets` and burns `shares`. So after a vault is first seen (its totals read once, at the
 * block before), each event adds or subtracts its own amounts. What events do not show is
 * yield: assets that arrive without shares (a donation, a strategy's profit, a savings rate
 * that accrues every second). `VaultRefresh` reads the chain for that, and only near the head:
 * from the block that was the head when the indexer started, every `VAULT_REFRESH_BLOCKS`
 * blocks (ponder.config.ts). A historical backfill adds amounts and reads nothing; its first
 * refresh, at the head, replaces whatever yield left out with the chain's own totals.
 */
import { type Context, ponder } from "ponder:registry";
import { vault } from "ponder:schema";
import { type Address, erc4626Abi } from "viem";
import { recordVaultEvent } from "../../analytics/record.js";
import { ensureTokens } from "../../tokens/tokens.js";
import { readTotals, type VaultTotals, vaultSlugs } from "./totals.js";

/**
 * Applies one `Deposit` (positive amounts) or `Withdraw` (negative) to the vault's totals. The
 * first event of a vault reads its totals at the block before and inserts the row: reading at
 * the event's own block would already count this event and the block's later ones.
 */
async function applyVaultEvent(
  context: Context,
  address: Address,
  blockNumber: bigint,
  delta: VaultTotals,
): Promise<Address> {
  const chainId = context.chain.id;
  const existing = await context.db.find(vault, { chainId, address });
  if (existing) {
    await context.db.update(vault, { chainId, address }).set({
      totalAssets: existing.totalAssets + delta.totalAssets,
      totalSupply: existing.totalSupply + delta.totalSupply,
      updatedBlock: blockNumber,
    });
    return existing.asset;
  }
  const protocolSlug = vaultSlugs.get(chainId)?.get(address.toLowerCase()) ?? "erc4626";
  const [read, asset] = await Promise.all([
    readTotals(context, [address], blockNumber - 1n),
    context.client.readContract({
      address,
      abi: erc4626Abi,
      functionName: "asset",
      cache: "immutable",
    }),
  ]);
  // A vault deployed in this very block has no code at the block before: it starts empty.
  const before = read.get(address) ?? { totalAssets: 0n, totalSupply: 0n };
  await ensureTokens(
    context,
    [
      { address: asset },
      { address, position: { protocolSlug, underlyingTokens: [asset], primaryAddress: address } },
    ],
    blockNumber,
  );
  await context.db.insert(vault).values({
    chainId,
    address,
    protocolSlug,
    asset,
    totalAssets: before.totalAssets + delta.totalAssets,
    totalSupply: before.totalSupply + delta.totalSupply,
    createdBlock: blockNumber,
    updatedBlock: blockNumber,
  });
  return asset;
}

ponder.on("ERC4626Vault:Deposit", async ({ event, context }) => {
  // viem names the standard's `owner` (who gets the shares) `receiver`.
  const { sender, receiver: owner, assets, shares } = event.args;
  const asset = await applyVaultEvent(context, event.log.address, event.block.number, {
    totalAssets: assets,
    totalSupply: shares,
  });
  await recordVaultEvent(context, event, {
    vault: event.log.address,
    asset,
    kind: "deposit",
    sender,
    owner,
    assets,
    shares,
  });
});

ponder.on("ERC4626Vault:Withdraw", async ({ event, context }) => {
  const { sender, receiver, owner, assets, shares } = event.args;
  const asset = await applyVaultEvent(context, event.log.address, event.block.number, {
    totalAssets: -assets,
    totalSupply: -shares,
  });
  await recordVaultEvent(context, event, {
    vault: event.log.address,
    asset,
    kind: "withdraw",
    sender,
    owner,
    receiver,
    assets,
    shares,
  });
});

/**
 * Yield moves share prices without events: near the head, re-read every known vault's totals
 * (one multicall) and store those that differ. Block events run after the block's logs, so the
 * totals read at the end of the block already include its deposits and withdrawals.
 */
ponder.on("VaultRefresh:block", async ({ event, context }) => {
  const chainId = context.chain.id;
  const known: { address: Address; totalAssets: bigint; totalSupply: bigint }[] = [];
  for (const key of vaultSlugs.get(chainId)?.keys() ?? []) {
    const row = await context.db.find(vault, { chainId, address: key as Address });
    if (row) known.push(row);
  }
  if (known.length === 0) return;
  const totals = await readTotals(
    context,
    known.map((row) => row.address),
    event.block.number,
  );
  for (const row of known) {
    const now = totals.get(row.address);
    if (!now) continue;
    if (now.totalAssets !== row.totalAssets || now.totalSupply !== row.totalSupply) {
      await context.db
        .update(vault, { chainId, address: row.address })
        .set({ ...now, updatedBlock: event.block.number });
    }
  }
});
