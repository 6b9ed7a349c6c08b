import { drizzle } from "drizzle-orm/node-postgres";
import { Hono } from "hono";
import pg from "pg";
import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  http,
  type PublicClient,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadArtifact } from "../../contracts/build.js";
import type { AnvilInstance } from "../../devnet/anvil.js";
import type { Deployment } from "../../devnet/deployment.js";
import { deployWorld, devnetDeployer } from "../../devnet/world.js";
import type { ChainSetup } from "../../engine/core/chain-setup.js";
import { createRoutingGraph } from "../../engine/index.js";
import { createApp } from "../../src/api/app.js";
import { SimulationUnavailableError } from "../../src/api/chain/simulate.js";
import { FAILURE_TTL_MS, SlotNotFoundError, TokenSlotFinder } from "../../src/api/chain/slots.js";
import type { ApiDatabase } from "../../src/api/database.js";
import { handleError } from "../../src/api/errors.js";
import { requestDeadline } from "../../src/api/ops/deadline.js";
import { createFreshness } from "../../src/api/ops/freshness.js";
import { createMemoryRateLimiter } from "../../src/api/ops/rate-limit.js";
import { startTestAnvil } from "../harness/anvil.js";
import { freePort } from "../harness/net.js";
import { type RpcRecorder, startRpcRecorder } from "../harness/rpc-recorder.js";
import { TEST_DATABASE_URL } from "../harness/service.js";

let anvil: AnvilInstance;
let deployment: Deployment;
let client: PublicClient;
let recorder: RpcRecorder;
/** The node as the recorder forwards to it: every request it is sent is seen. */
let recorded: PublicClient;
/** A token whose balanceOf reads WIDTH storage words before the holder's balance. */
let wide: Address;
const WIDTH = 300n;

beforeAll(async () => {
  anvil = await startTestAnvil();
  deployment = await deployWorld({ rpcUrl: anvil.url });
  client = createPublicClient({ transport: http(anvil.url) });
  recorder = await startRpcRecorder({ target: anvil.url });
  recorded = createPublicClient({ transport: http(recorder.url, { retryCount: 0 }) });
  const d = await devnetDeployer(anvil.url);
  const artifact = loadArtifact("WideBalanceToken");
  wide = await d.deploy(artifact.abi, artifact.bytecode, [WIDTH]);
});

afterAll(async () => {
  await recorder?.close();
  await anvil?.stop();
});

const holder = "0x00000000000000000000000000000000000a11ce" as Address;
const spender = "0x000000000000000000000000000000000000b0b0" as Address;
const marker = 123_456_789_012_345_678_901n;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}` as const;

describe("TokenSlotFinder", () => {
  test("the keys it finds are where balanceOf and allowance read from", async () => {
    const finder = new TokenSlotFinder(client);
    for (const token of deployment.tokens) {
      const address = token.address as Address;
      const balanceKey = await finder.balanceKey(address, holder);
      const allowanceKey = await finder.allowanceKey(address, holder, spender);
      const stateOverride = [
        {
          address,
          stateDiff: [
            { slot: balanceKey, value: word(marker) },
            { slot: allowanceKey, value: word(marker + 1n) },
          ],
        },
      ];
      const [balance, allowance] = await Promise.all([
        client.readContract({
          address,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [holder],
          stateOverride,
        }),
        client.readContract({
          address,
          abi: erc20Abi,
          functionName: "allowance",
          args: [holder, spender],
          stateOverride,
        }),
      ]);
      expect({ symbol: token.symbol, balance, allowance }).toEqual({
        symbol: token.symbol,
        balance: marker,
        allowance: marker + 1n,
      });
    }
  });

  test("a standard token's balance is found with three requests: access list, code, one probe", async () => {
    const finder = new TokenSlotFinder(recorded);
    const usdc = deployment.tokens.find((t) => t.symbol === "USDC")?.address as Address;
    recorder.clear();
    const key = await finder.balanceKey(usdc, holder);
    expect(recorder.requests().map((r) => r.method)).toEqual([
      "eth_createAccessList",
      "eth_getCode",
      "eth_call",
    ]);
    const stateOverride = [{ address: usdc, stateDiff: [{ slot: key, value: word(marker) }] }];
    expect(
      await client.readContract({
        address: usdc,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [holder],
        stateOverride,
      }),
    ).toBe(marker);
  });

  test("a balanceOf that reads 300 storage words: three requests with bounded gas, and the failure remembered", async () => {
    let now = 1_000_000;
    const finder = new TokenSlotFinder(recorded, () => now);
    recorder.clear();
    const error = await finder.balanceKey(wide, holder).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlotNotFoundError);
    const requests = recorder.requests();
    expect(requests.map((r) => r.method)).toEqual([
      "eth_createAccessList",
      "eth_getCode",
      "eth_call",
    ]);
    // balanceOf reads 301 storage words: the 300 and the holder's balance.
    const { accessList } = await client.createAccessList({
      to: wide,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [holder] }),
    });
    expect(accessList.map((e) => [e.address, e.storageKeys.length])).toEqual([
      [wide.toLowerCase(), 301],
    ]);
    // The access list is read with 1,000,000 gas; the probe tries 32 of the 301 keys, each with
    // 150,000 gas: 32 × (150,000 + 30,000) + 100,000.
    const gasOf = (i: number) => (requests[i]?.params[0] as { gas?: string } | undefined)?.gas;
    expect([gasOf(0), gasOf(2)]).toEqual(["0xf4240", `0x${(5_860_000).toString(16)}`]);
    // Another holder of the same token: no request at all.
    recorder.clear();
    const again = await finder.balanceKey(wide, spender).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(SlotNotFoundError);
    expect(recorder.requests()).toEqual([]);
    // Until the failure is FAILURE_TTL_MS old; then the token is searched again.
    now += FAILURE_TTL_MS - 1;
    await finder.balanceKey(wide, spender).catch(() => {});
    expect(recorder.requests()).toEqual([]);
    now += 1;
    await finder.balanceKey(wide, spender).catch(() => {});
    expect(recorder.requests().map((r) => r.method)).toEqual([
      "eth_createAccessList",
      "eth_getCode",
      "eth_call",
    ]);
  });

  test("the search stops when the request's deadline has answered", async () => {
    const finder = new TokenSlotFinder(recorded);
    let search: Promise<unknown> | undefined;
    const app = new Hono().use(requestDeadline({ timeoutMs: 1_000 })).get("/", async (c) => {
      search = finder.balanceKey(wide, "0x0000000000000000000000000000000000000c0c");
      await search;
      return c.text("found");
    });
    app.onError(handleError);
    recorder.clear();
    const accessList = recorder.hold((method) => method === "eth_createAccessList");
    const res = await app.request("/");
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 503,
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message:
          "The request did not complete within 1 s: the database or the chain's node is not answering. Retry shortly.",
      },
    });
    // The search asked for the access list well within the second, and waits on it.
    await accessList;
    recorder.release();
    const outcome = await search?.catch((e: unknown) => e);
    expect(outcome).toMatchObject({ statusCode: 503 });
    expect(recorder.requests().map((r) => r.method)).toEqual(["eth_createAccessList"]);
  });

  test("a contract without balanceOf: SlotNotFoundError, not a crash", async () => {
    const finder = new TokenSlotFinder(client);
    const factory = deployment.uniswapV3.factory as Address;
    const error = await finder.balanceKey(factory, holder).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlotNotFoundError);
    expect({
      token: (error as SlotNotFoundError).token,
      what: (error as SlotNotFoundError).what,
    }).toEqual({
      token: factory,
      what: "balance",
    });
  });

  test("the node unreachable: SimulationUnavailableError (a 503), not a missing slot", async () => {
    const closed = createPublicClient({
      transport: http(`http://127.0.0.1:${await freePort()}`, { retryCount: 0 }),
    });
    const finder = new TokenSlotFinder(closed);
    const usdc = deployment.tokens.find((t) => t.symbol === "USDC")?.address as Address;
    await expect(finder.balanceKey(usdc, holder)).rejects.toBeInstanceOf(
      SimulationUnavailableError,
    );
    await expect(finder.allowanceKey(usdc, holder, spender)).rejects.toBeInstanceOf(
      SimulationUnavailableError,
    );
  });
});

describe("a bundle whose input is a token with a wide balanceOf", () => {
  test("answered 422 with the holder's own balance; the search is three requests once, none again", async () => {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL });
    try {
      const chain: ChainSetup = {
        id: deployment.chainId,
        name: "devnet",
        title: "Devnet",
        rpc: [recorder.url],
        startBlock: 0,
        weth: deployment.weth,
        vaults: [],
        stablecoins: [],
        execution: deployment.execution,
        devnet: true,
      };
      const graph = createRoutingGraph();
      const app = createApp({
        // The bundle endpoint reads no table.
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
            {
              chainName: "devnet",
              chainId: deployment.chainId,
              indexedBlock: 1n,
              indexedTimestamp: 1n,
            },
          ],
          head: async () => ({ number: 1n, timestamp: 1n }),
          snapshot: () => ({ block: 1n, timestamp: 1n }),
        }),
        logRequests: false,
        version: "0.0.0-test",
      });
      const from = "0x0000000000000000000000000000000000001234";
      const bundle = async () => {
        const res = await app.request(
          `/v1/shortcuts/bundle?chainId=${deployment.chainId}&fromAddress=${from}`,
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify([
              {
                protocol: "core",
                action: "transfer",
                args: { token: wide, receiver: spender, amount: "1000" },
              },
            ]),
          },
        );
        return { status: res.status, body: await res.json() };
      };
      /** What the token was asked: access lists, code reads and calls to it. */
      const askedOfWide = () =>
        recorder
          .requests()
          .filter((r) => {
            const first = r.params[0];
            const target =
              typeof first === "string" ? first : (first as { to?: string } | undefined)?.to;
            return target?.toLowerCase() === wide.toLowerCase();
          })
          .map((r) => r.method);
      const refused = {
        status: 422,
        body: {
          statusCode: 422,
          error: "Unprocessable Entity",
          message: `Cannot simulate with ${wide} as an input: its balance storage could not be located. ${from} has 0 of it, less than the amount needed: hold the amount first, then ask again.`,
        },
      };
      recorder.clear();
      expect(await bundle()).toEqual(refused);
      // The search (access list, code, one probe), then the holder's own balance, read with
      // 150,000 gas: too little for 300 cold words, so it fails (counted as none held) and the
      // API's client retries it once.
      const ownBalance = ["eth_call", "eth_call"];
      expect(askedOfWide()).toEqual([
        "eth_createAccessList",
        "eth_getCode",
        "eth_call",
        ...ownBalance,
      ]);
      // The failure is remembered: only the holder's own balance is read again.
      recorder.clear();
      expect(await bundle()).toEqual(refused);
      expect(askedOfWide()).toEqual(ownBalance);
    } finally {
      await pool.end();
    }
  });
});
