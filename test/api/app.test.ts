/**
 * The API app built from its parts and answered with `app.request()`: no Ponder, no server,
 * no chain. Its database is real Postgres, with the tables ponder.schema.ts declares created in a
 * scratch schema (dropped afterwards) and filled with a few rows.
 */

import { drizzle } from "drizzle-orm/node-postgres";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import pg from "pg";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ChainSetup } from "../../engine/chain-setup.js";
import * as tables from "../../ponder.schema.js";
import { createApp } from "../../src/api/app.js";
import type { ApiDatabase } from "../../src/api/database.js";
import { createFreshness } from "../../src/api/ops/freshness.js";
import { createMemoryRateLimiter } from "../../src/api/ops/rate-limit.js";
import { TEST_DATABASE_URL } from "../harness/service.js";

const schema = `app_test_${process.pid}`;
const weth = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const usdc = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";
const pair = "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0";
const chain: ChainSetup = {
  id: 31337,
  name: "devnet",
  title: "Devnet",
  // Never contacted: no request here reaches the chain.
  rpc: ["http://127.0.0.1:9"],
  startBlock: 0,
  weth: getAddress(weth),
  uniswapV2: { factory: getAddress("0x0000000000000000000000000000000000000f01"), startBlock: 0 },
  vaults: [],
  stablecoins: [getAddress(usdc)],
  execution: {},
  devnet: true,
};

let pool: pg.Pool;
let app: ReturnType<typeof createApp>;

/** `CREATE TABLE` for one of ponder.schema.ts's tables, from its drizzle definition. */
function createTable(table: PgTable): string {
  const config = getTableConfig(table);
  const columns = config.columns.map(
    (c) => `"${c.name}" ${c.getSQLType()}${c.notNull ? " not null" : ""}`,
  );
  const keys = config.primaryKeys.map(
    (k) => `primary key (${k.columns.map((c) => `"${c.name}"`).join(", ")})`,
  );
  return `create table "${schema}"."${config.name}" (${[...columns, ...keys].join(", ")})`;
}

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
  await pool.query(`drop schema if exists "${schema}" cascade; create schema "${schema}"`);
  for (const table of [tables.token, tables.v2Pair, tables.v3Pool, tables.v3Tick, tables.vault]) {
    await pool.query(createTable(table));
  }
  // Ponder's undo log of the token table: the catalogue's state reads its newest entry.
  await pool.query(`create table "${schema}"."_reorg__token" (operation_id integer)`);
  await pool.query(
    `insert into token (chain_id, address, name, symbol, decimals, type, protocol_slug, underlying_tokens, primary_address, created_block, updated_block) values
      (31337, $1, 'Wrapped Ether', 'WETH', 18, 'base', null, '{}', null, 1, 1),
      (31337, $2, 'USD Coin', 'USDC', 6, 'base', null, '{}', null, 1, 1),
      (31337, $3, 'Uniswap V2', 'UNI-V2', 18, 'defi', 'uniswap-v2', $4, $3, 2, 2)`,
    [weth, usdc, pair, [usdc, weth]],
  );
  await pool.query(
    `insert into v2_pair (chain_id, address, factory, token0, token1, reserve0, reserve1, fee, total_supply, created_block, updated_block)
     values (31337, $1, '0x0000000000000000000000000000000000000f01', $2, $3, 1000, 1000, 3000, 1000, 2, 2)`,
    [pair, weth, usdc],
  );
  const pass = async (_c: unknown, next: () => Promise<void>) => {
    await next();
  };
  app = createApp({
    sources: {
      db: drizzle(pool) as unknown as ApiDatabase,
      chains: [chain],
      // No routing graph is loaded: routes answer the 503 of a service still loading it.
      snapshots: { routingGraph: async () => undefined, snapshotVersion: () => undefined },
    },
    keys: new Map(),
    limiter: createMemoryRateLimiter(),
    requireIndexReady: pass,
    freshness: createFreshness({
      maxLagBlocks: 5,
      headCacheMs: 0,
      indexedBlocks: async () => [{ chainName: "devnet", chainId: 31337, indexedBlock: 10n }],
      headBlock: async () => 10n,
      snapshotBlock: () => 10n,
    }),
    maxLagBlocks: 5,
    logRequests: false,
    version: "0.0.0-test",
  });
});

afterAll(async () => {
  await pool?.query(`drop schema if exists "${schema}" cascade`);
  await pool?.end();
});

async function get(path: string): Promise<{ status: number; body: unknown; id: string | null }> {
  const res = await app.request(path, { headers: { "X-Request-Id": "app-test-1" } });
  return { status: res.status, body: await res.json(), id: res.headers.get("X-Request-Id") };
}

describe("the API app over a database of its own", () => {
  test("/v1/tokens lists the table's tokens, checksummed, in the catalogue's order", async () => {
    expect(await get("/v1/tokens?chainId=31337")).toEqual({
      status: 200,
      id: "app-test-1",
      body: {
        meta: { total: 3, lastPage: 1, currentPage: 1, perPage: 1000, prev: null, next: null },
        data: [
          {
            chainId: 31337,
            address: getAddress(weth),
            type: "base",
            protocolSlug: null,
            underlyingTokens: [],
            name: "Wrapped Ether",
            symbol: "WETH",
            decimals: 18,
            primaryAddress: null,
          },
          {
            chainId: 31337,
            address: getAddress(pair),
            type: "defi",
            protocolSlug: "uniswap-v2",
            underlyingTokens: [getAddress(usdc), getAddress(weth)],
            name: "Uniswap V2",
            symbol: "UNI-V2",
            decimals: 18,
            primaryAddress: getAddress(pair),
          },
          {
            chainId: 31337,
            address: getAddress(usdc),
            type: "base",
            protocolSlug: null,
            underlyingTokens: [],
            name: "USD Coin",
            symbol: "USDC",
            decimals: 6,
            primaryAddress: null,
          },
        ],
      },
    });
  });

  test("a misspelt parameter is a 400 naming it and listing the schema's parameters", async () => {
    expect(await get("/v1/tokens?chainid=31337")).toEqual({
      status: 400,
      id: "app-test-1",
      body: {
        statusCode: 400,
        error: "Bad Request",
        message:
          "Unknown query parameter `chainid`; accepted: chainId, address, protocolSlug, type, primayAddress, primaryAddress, page, underlyingTokens.",
      },
    });
  });

  test("/v1/projects counts the pairs of the table and the chains that support each", async () => {
    const { status, body } = await get("/v1/projects");
    expect(status).toBe(200);
    const entries = body as { id: string; chainIds: string; poolCount: number }[];
    expect(entries.map((e) => [e.id, e.chainIds, e.poolCount])).toEqual([
      ["uniswap-v2", "31337", 1],
      ["uniswap-v3", "", 0],
      ["savings-vaults", "", 0],
      ["yield-vaults", "", 0],
      // The wrapper is counted once the catalogue holds its token.
      ["wrapped-native", "31337", 1],
    ]);
  });

  test("/v1/standards lists each method on the chains given to the app", async () => {
    const { status, body } = await get("/v1/standards/uniswap-v3");
    expect(status).toBe(200);
    expect((body as { methods: { supportedChains: unknown[] }[] }).methods).toEqual([
      expect.objectContaining({ method: "swap", supportedChains: [] }),
    ]);
    const v2 = await get("/v1/standards/uniswap-v2");
    expect((v2.body as { methods: { supportedChains: unknown[] }[] }).methods[0]).toEqual(
      expect.objectContaining({ supportedChains: [{ id: 31337, name: "Devnet" }] }),
    );
  });

  test("a route while the graph is not loaded is a 503; a malformed one a 400", async () => {
    const query = `chainId=31337&fromAddress=${usdc}&tokenIn=${usdc}&tokenOut=${weth}&amountIn=1000`;
    expect(await get(`/v1/shortcuts/route?${query}`)).toEqual({
      status: 503,
      id: "app-test-1",
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message: "The routing graph of chain 31337 is not loaded yet; retry shortly.",
      },
    });
    expect((await get(`/v1/shortcuts/route?${query}&maxHops=4`)).body).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "Invalid query parameter `maxHops`: expected a whole number from 1 to 3.",
    });
  });

  test("an unknown path is a 404 saying so", async () => {
    expect(await get("/v1/nothing")).toEqual({
      status: 404,
      id: "app-test-1",
      body: { statusCode: 404, error: "Not Found", message: "No route for GET /v1/nothing." },
    });
  });
});
