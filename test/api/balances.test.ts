/**
 * `GET /v1/wallet/balances` on a real chain (anvil) and a real catalogue (a scratch Postgres
 * schema with ponder.schema.ts's tables): which tokens it reads, in how many node requests, and
 * what it answers when a token's `balanceOf` burns all the gas it is given.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import pg from "pg";
import {
  type Address,
  createPublicClient,
  getAddress,
  http,
  type PublicClient,
  parseEther,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { buildContracts, loadArtifact } from "../../contracts/build.js";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { type Deployer, devnetDeployer } from "../../devnet/world.js";
import type { ChainSetup } from "../../engine/core/chain-setup.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { createRoutingGraph } from "../../engine/index.js";
import * as tables from "../../ponder.schema.js";
import { createApp } from "../../src/api/app.js";
import type { ApiDatabase } from "../../src/api/database.js";
import { createFreshness } from "../../src/api/ops/freshness.js";
import { createMemoryRateLimiter } from "../../src/api/ops/rate-limit.js";
import { MAX_BALANCE_TOKENS } from "../../src/api/v1/balances.js";
import { startTestAnvil } from "../harness/anvil.js";
import {
  contractViolations,
  type OpenApiDocumentLike,
  type RecordedResponse,
} from "../harness/contract.js";
import { type RpcRecorder, startRpcRecorder } from "../harness/rpc-recorder.js";
import { TEST_DATABASE_URL } from "../harness/service.js";

const schema = `balances_test_${process.pid}`;
const CHAIN_ID = 31337;

let anvil: AnvilInstance;
let recorder: RpcRecorder;
let client: PublicClient;
let deployer: Deployer;
let pool: pg.Pool;
let app: ReturnType<typeof createApp>;
const tokens: Record<string, Address> = {};
/** Four tokens whose balanceOf spends all the gas it is given. */
const burners: Address[] = [];
/** Responses seen, checked against the OpenAPI document at the end. */
const seen: RecordedResponse[] = [];

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

/** Lists a token in the catalogue, as the indexer does once a pool holds it. */
async function catalogue(address: string, name: string, symbol: string, decimals: number) {
  await pool.query(
    `insert into token (chain_id, address, name, symbol, decimals, type, protocol_slug, underlying_tokens, primary_address, created_block, updated_block)
     values ($1, $2, $3, $4, $5, 'base', null, '{}', null, 1, 1)`,
    [CHAIN_ID, address.toLowerCase(), name, symbol, decimals],
  );
}

let swaps = 0;
/** A swap the index saw paying `received` of `token` to `recipient`. */
async function paid(recipient: Address, token: Address, received: bigint) {
  swaps += 1;
  const other = "0x000000000000000000000000000000000000beef";
  await pool.query(
    `insert into swap (chain_id, tx_hash, log_index, block_number, timestamp, protocol_slug, pool, token0, token1, sender, recipient, amount0, amount1, amount_usd, fees_usd, price)
     values ($1, $2, 0, 1, 1, 'uniswap-v2', $3, $4, $5, $3, $6, $7, 1000, 0, 0, 0)`,
    [
      CHAIN_ID,
      `0x${swaps.toString(16).padStart(64, "0")}`,
      "0x000000000000000000000000000000000000f00d",
      token.toLowerCase(),
      other,
      recipient.toLowerCase(),
      (-received).toString(),
    ],
  );
}

async function deployToken(name: string, symbol: string, decimals: number): Promise<Address> {
  const artifact = loadArtifact("DevToken");
  const address = await deployer.deploy(artifact.abi, artifact.bytecode, [name, symbol, decimals]);
  await catalogue(address, name, symbol, decimals);
  return address;
}

async function mint(token: Address, to: Address, amount: bigint) {
  await deployer.write(token, DevTokenAbi, "mint", [to, amount]);
}

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const res = await app.request(path);
  const body = await res.text();
  seen.push({
    method: "GET",
    url: `http://localhost${path}`,
    status: res.status,
    headers: Object.fromEntries(res.headers.entries()),
    body,
  });
  return { status: res.status, body: JSON.parse(body) };
}

beforeAll(async () => {
  buildContracts();
  anvil = await startTestAnvil();
  recorder = await startRpcRecorder({ target: anvil.url });
  client = createPublicClient({ transport: http(anvil.url) });
  deployer = await devnetDeployer(anvil.url);
  pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
  await pool.query(`drop schema if exists "${schema}" cascade; create schema "${schema}"`);
  for (const table of [tables.token, tables.swap, tables.vaultEvent]) {
    await pool.query(createTable(table));
  }
  await catalogue(NATIVE_TOKEN_ADDRESS, "Ether", "ETH", 18);
  tokens.USDC = await deployToken("USD Coin", "USDC", 6);
  tokens.WETH = await deployToken("Wrapped Ether", "WETH", 18);
  tokens.DAI = await deployToken("Dai Stablecoin", "DAI", 18);
  tokens.UNI = await deployToken("Uniswap", "UNI", 18);
  const burner = loadArtifact("GasBurningBalanceToken");
  for (let i = 0; i < 4; i++) {
    const address = await deployer.deploy(burner.abi, burner.bytecode);
    await catalogue(address, "Gas Burner", "BURN", 18);
    burners.push(address);
  }
  const chain: ChainSetup = {
    id: CHAIN_ID,
    name: "devnet",
    title: "Devnet",
    rpc: [recorder.url],
    startBlock: 0,
    weth: tokens.WETH,
    vaults: [],
    stablecoins: [tokens.USDC as Address],
    execution: {},
    devnet: true,
  };
  const graph = createRoutingGraph();
  app = createApp({
    sources: {
      db: drizzle(pool) as unknown as ApiDatabase,
      chains: [chain],
      snapshots: { routingGraph: async () => graph, snapshotVersion: () => undefined },
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
      indexedBlocks: async () => [
        { chainName: "devnet", chainId: CHAIN_ID, indexedBlock: 1n, indexedTimestamp: 1n },
      ],
      head: async () => ({ number: 1n, timestamp: 1n }),
      snapshot: () => ({ block: 1n, timestamp: 1n }),
    }),
    logRequests: false,
    version: "0.0.0-test",
  });
});

afterAll(async () => {
  await pool?.query(`drop schema if exists "${schema}" cascade`);
  await pool?.end();
  await recorder?.close();
  await anvil?.stop();
});

/** A fresh account holding 3 ETH, 1,234 USDC, 2 WETH, 7 DAI and 5 UNI. */
async function holder(): Promise<Address> {
  const owner = privateKeyToAccount(generatePrivateKey()).address;
  await client.request({
    method: "anvil_setBalance" as never,
    params: [owner, `0x${parseEther("3").toString(16)}`] as never,
  });
  await mint(tokens.USDC as Address, owner, 1_234_000_000n);
  await mint(tokens.WETH as Address, owner, parseEther("2"));
  await mint(tokens.DAI as Address, owner, parseEther("7"));
  await mint(tokens.UNI as Address, owner, parseEther("5"));
  return owner;
}

describe("GET /v1/wallet/balances", () => {
  test("gas-burning tokens paid to the account are marked failed; every other balance is exact", async () => {
    const owner = await holder();
    await paid(owner, tokens.DAI as Address, 1n);
    for (const burner of burners) await paid(owner, burner, 1n);
    const blockNumber = Number(await client.getBlockNumber({ cacheTime: 0 }));
    const row = (token: string, name: string, symbol: string, decimals: number) => ({
      token,
      chainId: CHAIN_ID,
      decimals,
      name,
      symbol,
      logoUri: null,
      price: null,
      value: null,
      type: "base",
      underlyingTokens: [],
      blockNumber,
    });
    const held = (
      token: string,
      name: string,
      symbol: string,
      decimals: number,
      amount: string,
    ) => ({ ...row(token, name, symbol, decimals), amount });
    const failed = (token: Address) => ({
      ...row(getAddress(token), "Gas Burner", "BURN", 18),
      amount: null,
      error: "balanceOf used all of its 100000 gas.",
    });
    const byAddress = (a: { token: string }, b: { token: string }) =>
      a.token.toLowerCase() < b.token.toLowerCase() ? -1 : 1;
    expect(await get(`/v1/wallet/balances?chainId=${CHAIN_ID}&eoaAddress=${owner}`)).toEqual({
      status: 200,
      body: [
        // USDC, a stablecoin, is worth $1; the others are unpriced (the graph has no pool):
        // then by address, the failed ones last.
        {
          ...held(getAddress(tokens.USDC as Address), "USD Coin", "USDC", 6, "1234000000"),
          price: 1,
          value: 1234,
        },
        ...[
          held(NATIVE_TOKEN_ADDRESS, "Ether", "ETH", 18, parseEther("3").toString()),
          held(
            getAddress(tokens.WETH as Address),
            "Wrapped Ether",
            "WETH",
            18,
            parseEther("2").toString(),
          ),
          held(
            getAddress(tokens.DAI as Address),
            "Dai Stablecoin",
            "DAI",
            18,
            parseEther("7").toString(),
          ),
        ].sort(byAddress),
        ...burners.map(failed).sort(byAddress),
      ],
    });
  });

  test("not the whole catalogue: one eth_call for the tokens known to the account, none again in the same block", async () => {
    const owner = await holder();
    recorder.clear();
    const own = await get(`/v1/wallet/balances?chainId=${CHAIN_ID}&eoaAddress=${owner}`);
    // UNI is held but nothing the index saw paid it to the account: not read. USDC is priced.
    expect(
      (own.body as { symbol: string; amount: string }[]).map((b) => [b.symbol, b.amount]),
    ).toEqual([
      ["USDC", "1234000000"],
      ["WETH", parseEther("2").toString()],
      ["ETH", parseEther("3").toString()],
    ]);
    const requests = recorder.requests();
    expect(requests.map((r) => r.method)).toEqual(["eth_blockNumber", "eth_call"]);
    // Two ERC20s (WETH, USDC) read in the call: 300,000 + 2 × (100,000 + 20,000) gas.
    expect((requests[1]?.params[0] as { gas?: string } | undefined)?.gas).toBe(
      `0x${(540_000).toString(16)}`,
    );
    recorder.clear();
    expect(await get(`/v1/wallet/balances?chainId=${CHAIN_ID}&eoaAddress=${owner}`)).toEqual(own);
    expect(recorder.requests().map((r) => r.method)).toEqual(["eth_blockNumber"]);
  });

  test("a list the caller passes is read instead, burners included, and bounded", async () => {
    const owner = await holder();
    const uni = tokens.UNI as Address;
    const burner = burners[0] as Address;
    // Listed in the catalogue, but no contract is there (any more).
    const codeless = "0x000000000000000000000000000000000000c0de";
    await catalogue(codeless, "Gone", "GONE", 18);
    const res = await get(
      `/v1/wallet/balances?chainId=${CHAIN_ID}&eoaAddress=${owner}&tokens=${uni}&tokens=${burner}&tokens=${codeless}`,
    );
    expect(
      (res.body as { symbol: string; amount: string | null; error?: string }[]).map((b) => [
        b.symbol,
        b.amount,
        b.error,
      ]),
    ).toEqual([
      ["UNI", parseEther("5").toString(), undefined],
      // Failed, by address: 0x…c0de before the burner.
      ["GONE", null, "balanceOf answered with no 32-byte value."],
      ["BURN", null, "balanceOf used all of its 100000 gas."],
    ]);
    const many = Array.from(
      { length: MAX_BALANCE_TOKENS + 1 },
      (_, i) => `tokens=0x${(i + 1).toString(16).padStart(40, "0")}`,
    ).join("&");
    expect(
      await get(`/v1/wallet/balances?chainId=${CHAIN_ID}&eoaAddress=${owner}&${many}`),
    ).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: `Invalid query parameter \`tokens\`: at most ${MAX_BALANCE_TOKENS} tokens.`,
      },
    });
    const stranger = "0x000000000000000000000000000000000000dead";
    expect(
      await get(`/v1/wallet/balances?chainId=${CHAIN_ID}&eoaAddress=${owner}&tokens=${stranger}`),
    ).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: `Query parameter \`tokens\`: ${stranger} is not in chain ${CHAIN_ID}'s catalogue.`,
      },
    });
  });

  test("every answer matches the OpenAPI document", async () => {
    const document = (await (await app.request("/v1/openapi.json")).json()) as OpenApiDocumentLike;
    expect(seen.length).toBeGreaterThan(0);
    expect(contractViolations(document, seen)).toEqual([]);
  });
});
