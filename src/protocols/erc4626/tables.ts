import { index, onchainTable, primaryKey } from "ponder";

/**
 * An ERC4626 vault. Totals: read once when the vault is first seen, then moved by each
 * `Deposit`/`Withdraw`'s amounts; near the head also re-read from the vault (src/protocols/erc4626/handlers.ts).
 */
export const vault = onchainTable(
  "vault",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    protocolSlug: t.text().notNull(),
    asset: t.hex().notNull(),
    totalAssets: t.bigint().notNull(),
    totalSupply: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.address] }),
    updatedIdx: index().on(table.updatedBlock),
  }),
);
