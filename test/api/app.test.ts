/**
 * The API app built from its parts and answered with `app.request()`: no Ponder, no server,
 * no chain. Its database is real Postgres, with the tables ponder.schema.ts declares created in a
 * scratch schema (dropped afterwards) and filled with a few rows.
 */

import type { AddressInfo } from "node:net";
import { EnsoClient } from "@ensofinance/sdk";
import { serve } from "@hono/node-server";
import { drizzle } from "drizzle-orm/node-postgres";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import pg from "pg";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AMOUNT_DESCRIPTION } from "../../engine/bundle/actions/args.js";
import type { ChainSetup } from "../../engine/core/chain-setup.js";
import type { Address } from "../../engine/core/types.js";
import { createRoutingGraph, protocols } from "../../engine/index.js";
import type { RoutingGraph } from "../../engine/routing/graph.js";
import * as tables from "../../ponder.schema.js";
import { createApp } from "../../src/api/app.js";
import type { ApiDatabase } from "../../src/api/database.js";
import { createFreshness } from "../../src/api/ops/freshness.js";
import { createMemoryRateLimiter } from "../../src/api/ops/rate-limit.js";
import {
  contractViolations,
  type OpenApiDocumentLike,
  recordResponsesOf,
  takeRecordings,
} from "../harness/contract.js";
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
/** The routing graph the app is given: none (still loading) unless a test loads one. */
let loadedGraph: RoutingGraph | undefined;

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
  for (const table of [
    tables.token,
    tables.v2Pair,
    tables.v3Pool,
    tables.v3Tick,
    tables.v4Pool,
    tables.v4Tick,
    tables.vault,
    tables.aaveReserve,
    tables.balancerV2Pool,
  ]) {
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
    `insert into v2_pair (chain_id, address, factory, protocol, token0, token1, reserve0, reserve1, fee, total_supply, created_block, updated_block)
     values (31337, $1, '0x0000000000000000000000000000000000000f01', 'uniswap-v2', $2, $3, 1000, 1000, 3000, 1000, 2, 2)`,
    [pair, weth, usdc],
  );
  app = appOver({
    indexedBlocks: async () => [
      { chainName: "devnet", chainId: 31337, indexedBlock: 10n, indexedTimestamp: 1_000n },
    ],
    head: async () => ({ number: 12n, timestamp: 1_024n }),
    snapshot: () => ({ block: 10n, timestamp: 1_000n }),
  });
});

/**
 * The app over the scratch schema, the test chain and `loadedGraph` (none: routes answer the
 * 503 of a service still loading it), with the chain progress `freshness` reports.
 */
function appOver(
  freshness: Pick<Parameters<typeof createFreshness>[0], "indexedBlocks" | "head" | "snapshot">,
): ReturnType<typeof createApp> {
  return createApp({
    sources: {
      db: drizzle(pool) as unknown as ApiDatabase,
      chains: [chain],
      snapshots: { routingGraph: async () => loadedGraph, snapshotVersion: () => undefined },
    },
    keys: new Map(),
    limiter: createMemoryRateLimiter(),
    requireIndexReady: async (_c, next) => {
      await next();
    },
    caughtUp: async () => true,
    freshness: createFreshness({
      limits: () => ({ maxLagSeconds: 60, maxLagBlocks: undefined }),
      headCacheMs: 0,
      ...freshness,
    }),
    logRequests: false,
    version: "0.0.0-test",
  });
}

afterAll(async () => {
  await pool?.query(`drop schema if exists "${schema}" cascade`);
  await pool?.end();
});

/** Runs `use` with the app served over HTTP on a free port (`origin`: `http://127.0.0.1:<port>`). */
async function overHttp(use: (origin: string) => Promise<void>): Promise<void> {
  const server = serve({
    fetch: app.fetch,
    hostname: "127.0.0.1",
    port: 0,
    // Keep the global Response: app.request() in the other tests uses it.
    overrideGlobalObjects: false,
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  try {
    await use(`http://127.0.0.1:${port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

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
      // The forks' pairs are counted apart: the table's one pair is Uniswap V2's.
      ["pancakeswap-v1", "", 0],
      ["pancakeswap-v2", "", 0],
      ["sushiswap-v2", "", 0],
      ["uniswap-v3", "", 0],
      ["pancakeswap-v3", "", 0],
      ["sushiswap-v3", "", 0],
      ["uniswap-v4", "", 0],
      ["savings-vaults", "", 0],
      ["yield-vaults", "", 0],
      ["aave-v3", "", 0],
      ["balancer-v2", "", 0],
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

  test("/v1/wallet/balances: its query checked first; an unreachable RPC is a 503", async () => {
    const bad = (message: string) => ({ statusCode: 400, error: "Bad Request", message });
    expect((await get("/v1/wallet/balances?chainId=31337")).body).toEqual(
      bad("Query parameter `eoaAddress` is required."),
    );
    expect((await get(`/v1/wallet/balances?eoaAddress=${usdc}&useEoa=maybe`)).body).toEqual(
      bad("Invalid query parameter `useEoa`: expected true or false."),
    );
    expect(await get(`/v1/wallet/balances?eoaAddress=${usdc}`)).toEqual({
      status: 503,
      id: "app-test-1",
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message: "The RPC node of chain 31337 is unreachable; try again shortly.",
      },
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

describe("what clients of this API family read besides SPEC's five endpoints", () => {
  const devnet = { id: 31337, name: "Devnet" };

  test("/v1/networks: each indexed chain with its head and lag, filtered by id or name", async () => {
    const answer = [
      {
        id: 31337,
        name: "Devnet",
        isConnected: true,
        indexedBlock: 10,
        snapshotBlock: 10,
        headBlock: 12,
        lagBlocks: 2,
        lagSeconds: 24,
        maxLagSeconds: 60,
        maxLagBlocks: null,
        historyFromBlock: 0,
      },
    ];
    expect(await get("/v1/networks")).toEqual({ status: 200, id: "app-test-1", body: answer });
    expect((await get("/v1/networks?chainId=31337")).body).toEqual(answer);
    expect((await get("/v1/networks?name=DEVNET")).body).toEqual(answer);
    expect((await get("/v1/networks?chainId=1")).body).toEqual([]);
    expect(await get("/v1/networks?chainId=one")).toEqual({
      status: 400,
      id: "app-test-1",
      body: {
        statusCode: 400,
        error: "Bad Request",
        message:
          "Invalid query parameter `chainId`: expected a chain id: a whole number from 1 to 9007199254740991.",
      },
    });
  });

  test("/v1/networks before the indexer's first block of a chain, and with its RPC down", async () => {
    const networks = async (head: () => Promise<{ number: bigint; timestamp: bigint }>) => {
      // No checkpoint of the chain yet.
      const early = appOver({ indexedBlocks: async () => [], head, snapshot: () => undefined });
      return (await early.request("/v1/networks")).json();
    };
    const unknown = {
      indexedBlock: null,
      snapshotBlock: null,
      lagBlocks: null,
      lagSeconds: null,
      maxLagSeconds: 60,
      maxLagBlocks: null,
      historyFromBlock: 0,
    };
    expect(await networks(async () => ({ number: 12n, timestamp: 1_024n }))).toEqual([
      { id: 31337, name: "Devnet", isConnected: true, headBlock: 12, ...unknown },
    ]);
    expect(
      await networks(async () => {
        throw new Error("connection refused");
      }),
    ).toEqual([{ id: 31337, name: "Devnet", isConnected: false, headBlock: null, ...unknown }]);
  });

  test("/v1/protocols: the registry's protocols with their project, by slug or chain", async () => {
    expect(await get("/v1/protocols?slug=uniswap-v2")).toEqual({
      status: 200,
      id: "app-test-1",
      body: [
        {
          project: "uniswap-v2",
          slug: "uniswap-v2",
          name: "Uniswap V2",
          description: "Constant-product automated market maker with 0.3% fee pairs.",
          url: "https://app.uniswap.org",
          logosUri: ["http://localhost/v1/projects/uniswap-v2/logo.svg"],
          chains: [devnet],
        },
      ],
    });
    // The test chain has WETH and a V2 factory, no V3 and no vaults.
    const onChain = (await get("/v1/protocols?chainId=31337")).body as { slug: string }[];
    expect(onChain.map((p) => p.slug)).toEqual(["core", "uniswap-v2", "wrapped-native"]);
    expect(onChain[0]).toEqual({
      project: "core",
      slug: "core",
      name: null,
      description: null,
      url: null,
      logosUri: null,
      chains: [devnet],
    });
    const all = (await get("/v1/protocols")).body as { slug: string; chains: unknown[] }[];
    expect(all.map((p) => [p.slug, p.chains.length])).toEqual([
      ["core", 1],
      ["uniswap-v2", 1],
      ["pancakeswap-v1", 0],
      ["pancakeswap-v2", 0],
      ["sushiswap-v2", 0],
      ["uniswap-v3", 0],
      ["pancakeswap-v3", 0],
      ["sushiswap-v3", 0],
      ["uniswap-v4", 0],
      ["savings-vaults", 0],
      ["yield-vaults", 0],
      ["aave-v3", 0],
      ["balancer-v2", 0],
      ["wrapped-native", 1],
    ]);
    expect(await get("/v1/protocols?slug=uniswap")).toEqual({
      status: 404,
      id: "app-test-1",
      body: {
        statusCode: 404,
        error: "Not Found",
        message:
          "Unknown protocol `uniswap`; known protocols: core, uniswap-v2, pancakeswap-v1, pancakeswap-v2, sushiswap-v2, uniswap-v3, pancakeswap-v3, sushiswap-v3, uniswap-v4, savings-vaults, yield-vaults, aave-v3, balancer-v2, wrapped-native.",
      },
    });
  });

  test("/v1/actions: every bundle action with its typed arguments, from the checking schemas", async () => {
    expect(await get("/v1/actions/wrapped-native")).toEqual({
      status: 200,
      id: "app-test-1",
      body: [
        {
          protocol: "wrapped-native",
          action: "deposit",
          name: "Wrap",
          inputs: {
            primaryAddress: { type: "address", description: "WETH address", optional: true },
            amountIn: { type: "amount", description: AMOUNT_DESCRIPTION, optional: false },
          },
        },
        {
          protocol: "wrapped-native",
          action: "withdraw",
          name: "Unwrap",
          inputs: {
            primaryAddress: { type: "address", description: "WETH address", optional: true },
            amountIn: { type: "amount", description: AMOUNT_DESCRIPTION, optional: false },
          },
        },
      ],
    });
    // Balancer V2: a pool's single-token join and exit (weighted or composable stable) beside the swap.
    const balancer = (await get("/v1/actions/balancer-v2")).body as {
      action: string;
      name: string;
      inputs: unknown;
    }[];
    expect(balancer.map((a) => `${a.action}: ${a.name}`)).toEqual([
      "swap: Swap",
      "deposit: Join with one token",
      "redeem: Exit to one token",
    ]);
    expect(balancer[1]?.inputs).toEqual({
      primaryAddress: {
        type: "address",
        description: "Pool address (weighted or composable stable)",
        optional: false,
      },
      tokenIn: { type: "address", description: "One of the pool's tokens", optional: false },
      tokenOut: { type: "address", description: "The pool's BPT (its address)", optional: false },
      amountIn: { type: "amount", description: AMOUNT_DESCRIPTION, optional: false },
    });
    const core = (await get("/v1/actions/core")).body as { action: string; inputs: unknown }[];
    expect(core.find((a) => a.action === "route")?.inputs).toEqual({
      tokenIn: {
        type: "address",
        description: "Address of the token to spend (0xeeee…eeee for the native currency)",
        optional: false,
      },
      tokenOut: {
        type: "address",
        description: "Address of the token or position to receive",
        optional: false,
      },
      amountIn: { type: "amount", description: AMOUNT_DESCRIPTION, optional: false },
      slippage: {
        type: "bps",
        description: "Slippage tolerance in basis points (default 300)",
        optional: true,
      },
    });
    // All of them: each protocol's actions, in the registry's order.
    const all = (await get("/v1/actions")).body as { protocol: string; action: string }[];
    expect(all.map((a) => `${a.protocol} ${a.action}`)).toEqual(
      protocols.flatMap((p) => p.methods.map((m) => `${p.slug} ${m.method}`)),
    );
    expect((await get("/v1/actions/nope")).body).toEqual({
      statusCode: 404,
      error: "Not Found",
      message:
        "Unknown protocol `nope`; known protocols: core, uniswap-v2, pancakeswap-v1, pancakeswap-v2, sushiswap-v2, uniswap-v3, pancakeswap-v3, sushiswap-v3, uniswap-v4, savings-vaults, yield-vaults, aave-v3, balancer-v2, wrapped-native.",
    });
  });

  test("the published client SDK reads them over HTTP", async () => {
    await overHttp(async (origin) => {
      const client = new EnsoClient({ apiKey: "none", baseURL: `${origin}/v1` });
      // What the same server answers a plain request (logo URLs carry the server's origin).
      const same = async (path: string) => (await fetch(`${origin}${path}`)).json();
      recordResponsesOf(origin);
      expect(await client.getNetworks()).toEqual(await same("/v1/networks"));
      expect(await client.getNetworks({ chainId: "31337" })).toEqual(await same("/v1/networks"));
      expect(await client.getProtocolData({ chainId: 31337 })).toEqual(
        (await same("/v1/protocols?chainId=31337")) as unknown[],
      );
      expect(await client.getActions()).toEqual(await same("/v1/actions"));
      expect(await client.getActionsBySlug("uniswap-v2")).toEqual(
        await same("/v1/actions/uniswap-v2"),
      );
      const [first] = await client.getActionsBySlug("core");
      expect(first?.inputs.amountIn).toEqual({
        type: "amount",
        description: AMOUNT_DESCRIPTION,
        optional: false,
      });
      // SPEC's catalogue endpoints through the same client.
      expect(await client.getProjects()).toEqual(await same("/v1/projects"));
      expect(await client.getStandards()).toEqual(await same("/v1/standards"));
      expect(await client.getTokenData({ chainId: 31337 })).toEqual(
        await same("/v1/tokens?chainId=31337"),
      );
      // Errors too: every answer above, and these, as the OpenAPI document describes them.
      for (const path of ["/v1/networks?chainId=x", "/v1/protocols?slug=x", "/v1/actions/x"]) {
        await fetch(`${origin}${path}`);
      }
      const recorded = await takeRecordings(origin);
      expect(recorded.map((r) => r.status)).toEqual([
        200, 200, 200, 200, 200, 200, 200, 200, 400, 404, 404,
      ]);
      const document = (await (
        await fetch(`${origin}/v1/openapi.json`)
      ).json()) as OpenApiDocumentLike;
      expect(contractViolations(document, recorded)).toEqual([]);
    });
  });
});

describe("USD prices from the routing graph", () => {
  // 10 WETH against 30,000 USDC: WETH is worth 3,000 USDC at the pair's mid price. USDC, the
  // chain's stablecoin, is one dollar; the pair holds $30,000 of it, 3% of the $1,000,000 at
  // which a price's confidence reaches 1.
  const graph = createRoutingGraph();
  graph.upsertPool({
    kind: "v2",
    protocol: "uniswap-v2",
    address: pair as Address,
    token0: weth as Address,
    token1: usdc as Address,
    reserve0: 10n * 10n ** 18n,
    reserve1: 30_000n * 10n ** 6n,
    feePpm: 3000,
    totalSupply: 17_320_508_075_688_772n,
  });
  graph.upsertPool({ kind: "wrap", protocol: "wrapped-native", address: weth as Address });
  graph.blockNumber = 10n;
  graph.blockTimestamp = 1_700_000_000n;
  const at = { chainId: 31337, blockNumber: 10, timestamp: 1_700_000_000 };
  const wethPrice = {
    ...at,
    address: getAddress(weth),
    decimals: 18,
    symbol: "WETH",
    price: 3000,
    confidence: 0.03,
  };
  const stranger = "0x000000000000000000000000000000000000dead";
  const lpPrice = {
    ...at,
    address: getAddress(pair),
    decimals: 18,
    symbol: "UNI-V2",
    price: 3464101.615137755,
    confidence: 0.03,
  };

  beforeAll(() => {
    loadedGraph = graph;
  });
  afterAll(() => {
    loadedGraph = undefined;
  });

  test("one token: its price, the block it reflects, and the confidence its depth gives", async () => {
    expect(await get(`/v1/prices/31337/${weth}`)).toEqual({
      status: 200,
      id: "app-test-1",
      body: wethPrice,
    });
    expect((await get(`/v1/prices/31337/${getAddress(usdc)}`)).body).toEqual({
      ...at,
      address: getAddress(usdc),
      decimals: 6,
      symbol: "USDC",
      price: 1,
      confidence: 1,
    });
    // The pair's LP token: twice its share of the $30,000 of USDC (2 × 30,000 / 0.0173… LP),
    // as deep as the pair.
    expect((await get(`/v1/prices/31337/${pair}`)).body).toEqual(lpPrice);
  });

  test("several tokens, in the request's order; unknown ones are null", async () => {
    expect(
      (await get(`/v1/prices/31337?addresses=${weth}&addresses[]=${stranger}&addresses=${pair}`))
        .body,
    ).toEqual([
      wethPrice,
      {
        ...at,
        address: getAddress(stranger),
        decimals: null,
        symbol: null,
        price: null,
        confidence: 0,
      },
      lpPrice,
    ]);
  });

  test("what it refuses, and the 503 before the graph is loaded", async () => {
    const error = (statusCode: number, error: string, message: string) => ({
      statusCode,
      error,
      message,
    });
    expect((await get(`/v1/prices/5/${weth}`)).body).toEqual(
      error(404, "Not Found", "Chain `5` is not indexed here; indexed chains: 31337."),
    );
    expect((await get(`/v1/prices/31337/${stranger}`)).body).toEqual(
      error(
        404,
        "Not Found",
        `Unknown token ${getAddress(stranger)} on chain 31337: it is not in the catalogue.`,
      ),
    );
    expect((await get("/v1/prices/31337/0x12")).body).toEqual(
      error(
        400,
        "Bad Request",
        "Path parameter `address`: expected an address (0x followed by 40 hex digits), got `0x12`.",
      ),
    );
    expect((await get("/v1/prices/31337")).body).toEqual(
      error(400, "Bad Request", "Query parameter `addresses` is required."),
    );
    const many = Array.from({ length: 101 }, () => `addresses=${weth}`).join("&");
    expect((await get(`/v1/prices/31337?${many}`)).body).toEqual(
      error(400, "Bad Request", "Invalid query parameter `addresses`: at most 100 addresses."),
    );
    loadedGraph = undefined;
    try {
      expect((await get(`/v1/prices/31337/${weth}`)).body).toEqual(
        error(
          503,
          "Service Unavailable",
          "The routing graph of chain 31337 is not loaded yet; retry shortly.",
        ),
      );
    } finally {
      loadedGraph = graph;
    }
  });

  test("the published client SDK reads them", async () => {
    await overHttp(async (origin) => {
      const client = new EnsoClient({ apiKey: "none", baseURL: `${origin}/v1` });
      expect(await client.getPriceData({ chainId: 31337, address: weth as Address })).toEqual(
        wethPrice,
      );
      const [first, second] = await client.getMultiplePriceData({
        chainId: 31337,
        addresses: [usdc as Address, weth as Address],
      });
      expect([first?.price, second]).toEqual([1, wethPrice]);
      // The answers and the errors as the OpenAPI document describes them.
      recordResponsesOf(origin);
      const paths = [
        `/v1/prices/31337/${weth}`,
        `/v1/prices/31337?addresses=${weth}&addresses=${stranger}`,
        `/v1/prices/31337/${stranger}`,
        "/v1/prices/31337/0x12",
        "/v1/prices/31337",
        `/v1/prices/5/${weth}`,
      ];
      for (const path of paths) await fetch(`${origin}${path}`);
      const recorded = await takeRecordings(origin);
      expect(recorded.map((r) => r.status)).toEqual([200, 200, 404, 400, 400, 404]);
      const document = (await (
        await fetch(`${origin}/v1/openapi.json`)
      ).json()) as OpenApiDocumentLike;
      expect(contractViolations(document, recorded)).toEqual([]);
    });
  });
});
