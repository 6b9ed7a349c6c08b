/** `npm start` keys the index to the devnet chain, so that an old index never meets a new chain. */
import type { Hex } from "viem";
import { describe, expect, test } from "vitest";
import { devnetIndex, GENESIS_HEX_DIGITS } from "../../devnet/devnet-index.js";

const GENESIS = "0x6a1c0e5d3b2f49a87c15e0d9b4a3f2e1d0c9b8a7f6e5d4c3b2a1908f7e6d5c4b" as Hex;
const POSTGRES = "postgresql://postgres@127.0.0.1:5432/test";
const PGLITE_DIR = "/srv/shortcuts/.devnet/pglite";

const schemaOf = (genesisHash: Hex) => {
  const index = devnetIndex({
    genesisHash,
    freshWorld: true,
    databaseUrl: POSTGRES,
    pgliteDir: PGLITE_DIR,
  });
  return index.schema;
};

describe("devnetIndex", () => {
  test("Postgres: a schema named after the genesis hash, as long as Ponder allows", () => {
    expect(
      devnetIndex({
        genesisHash: GENESIS,
        freshWorld: true,
        databaseUrl: POSTGRES,
        pgliteDir: PGLITE_DIR,
      }),
    ).toEqual({
      database: "postgres",
      databaseUrl: POSTGRES,
      schema: "devnet_6a1c0e5d3b2f49a87c15e0d9b4a3f2e1d0c9b8",
      purgeSyncCache: true,
    });
    // Ponder 0.16 refuses a schema name over 45 characters at build time.
    expect(schemaOf(GENESIS)).toHaveLength(45);
    expect(GENESIS_HEX_DIGITS).toBe(38);
  });

  test("Postgres: genesis hashes that differ in any one of the named digits get different schemas", () => {
    const schemas = new Set([schemaOf(GENESIS)]);
    for (let digit = 0; digit < GENESIS_HEX_DIGITS; digit++) {
      const at = 2 + digit;
      const flipped = GENESIS[at] === "0" ? "1" : "0";
      const other = `${GENESIS.slice(0, at)}${flipped}${GENESIS.slice(at + 1)}` as Hex;
      schemas.add(schemaOf(other));
    }
    expect(schemas.size).toBe(1 + GENESIS_HEX_DIGITS);
  });

  test("Postgres: a schema that is not new keeps its sync cache; DATABASE_SCHEMA is used as given", () => {
    expect(
      devnetIndex({
        genesisHash: GENESIS,
        freshWorld: false,
        databaseUrl: POSTGRES,
        databaseSchema: "mine",
        pgliteDir: PGLITE_DIR,
      }),
    ).toEqual({
      database: "postgres",
      databaseUrl: POSTGRES,
      schema: "mine",
      purgeSyncCache: false,
    });
  });

  test("PGlite: the data directory is wiped for a new world and kept for the same chain", () => {
    expect(devnetIndex({ genesisHash: GENESIS, freshWorld: true, pgliteDir: PGLITE_DIR })).toEqual({
      database: "pglite",
      schema: "public",
      directory: PGLITE_DIR,
      wipe: true,
    });
    expect(devnetIndex({ genesisHash: GENESIS, freshWorld: false, pgliteDir: PGLITE_DIR })).toEqual(
      {
        database: "pglite",
        schema: "public",
        directory: PGLITE_DIR,
        wipe: false,
      },
    );
  });
});
