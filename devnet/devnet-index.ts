import type { Hex } from "viem";

/** Ponder refuses longer schema names (`MAX_DATABASE_OBJECT_NAME_LENGTH` in Ponder 0.16). */
const PONDER_MAX_SCHEMA_LENGTH = 45;
const SCHEMA_PREFIX = "devnet_";
/**
 * Hex digits of the genesis hash in a devnet schema's name: all that Ponder's limit leaves
 * (38 digits, 152 bits; the whole 64-digit hash does not fit).
 */
export const GENESIS_HEX_DIGITS = PONDER_MAX_SCHEMA_LENGTH - SCHEMA_PREFIX.length;

export type DevnetIndexParameters = {
  /** Hash of the devnet chain's block 0. */
  genesisHash: Hex;
  /** Whether the world was just deployed, i.e. this chain has not been indexed before. */
  freshWorld: boolean;
  /** `DATABASE_URL`: Postgres when set, else PGlite. */
  databaseUrl?: string;
  /** `DATABASE_SCHEMA`: the operator's own schema, used as given. */
  databaseSchema?: string;
  /** The PGlite data directory. */
  pgliteDir: string;
};

export type DevnetIndex =
  | { database: "postgres"; databaseUrl: string; schema: string; purgeSyncCache: boolean }
  | { database: "pglite"; schema: string; directory: string; wipe: boolean };

/**
 * Where `npm start` keeps the index of a devnet chain, so that an old index never meets a new
 * chain: on Postgres a schema named after the chain's genesis hash; on PGlite the one data
 * directory, wiped when the world is new.
 *
 * @example
 * devnetIndex({ genesisHash: "0xab12…", freshWorld: true, databaseUrl: "postgresql://…", pgliteDir })
 * // { database: "postgres", databaseUrl, schema: "devnet_ab12…" (38 hex digits), purgeSyncCache: true }
 */
export function devnetIndex(params: DevnetIndexParameters): DevnetIndex {
  if (params.databaseUrl) {
    const digits = params.genesisHash.slice(2, 2 + GENESIS_HEX_DIGITS).toLowerCase();
    return {
      database: "postgres",
      databaseUrl: params.databaseUrl,
      schema: params.databaseSchema ?? `${SCHEMA_PREFIX}${digits}`,
      // The chain id of a new devnet is reused: its cached blocks belong to the old chain.
      purgeSyncCache: params.freshWorld,
    };
  }
  return {
    database: "pglite",
    schema: params.databaseSchema ?? "public",
    directory: params.pgliteDir,
    wipe: params.freshWorld,
  };
}
