/**
 * The production layout on the local Postgres and Redis: one indexer (`ponder start`) and two
 * API replicas (`ponder serve` on the same schema), keys from a file and `API_KEYS`, rate
 * limits shared through Redis. Then the indexer stops (freshness) and a replica is shut down
 * with a request in flight (graceful shutdown).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  maxUint256,
  type PublicClient,
  parseUnits,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { UniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { DEVNET_DEPLOYER_KEY } from "../../devnet/anvil.js";
import { chainOf } from "../../devnet/world.js";
import { waitUntil } from "../harness/ponder-process.js";
import { type ReplicaInstance, startReplica } from "../harness/replicas.js";
import {
  type ServiceInstance,
  startService,
  TEST_DATABASE_URL,
  waitForIndexedBlock,
} from "../harness/service.js";
import { startTcpProxy, type TcpProxy } from "../harness/tcp-proxy.js";
import { sample } from "./prometheus.js";

const KEY_SUITE = `suite-${randomBytes(16).toString("hex")}`;
const KEY_TIGHT = `tight-${randomBytes(16).toString("hex")}`;
const KEY_ENV = `env-${randomBytes(16).toString("hex")}`;
const REDIS_PREFIX = `test:${randomBytes(6).toString("hex")}:`;

const dir = mkdtempSync(join(tmpdir(), "ops-replicas-"));
let service: ServiceInstance;
let replicaA: ReplicaInstance;
let replicaB: ReplicaInstance;
let proxy: TcpProxy;
let client: PublicClient;
let wallet: WalletClient;

const auth = { authorization: `Bearer ${KEY_SUITE}` };
/** The three base URLs: the indexer's API and the two replicas. */
const urls = () => [service.url, replicaA.url, replicaB.url];

async function getJson(url: string, key = KEY_SUITE) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
}

/**
 * How long after the indexer has indexed a block all three processes must answer alike from
 * it: the snapshot refresh runs every 200 ms (SNAPSHOT_REFRESH_MS); the rest is room for three
 * processes and this suite sharing a loaded 2-core machine.
 */
const AGREE_WITHIN_MS = 5_000;

/**
 * Polls `path` on the indexer and both replicas until all three answer 200 with the same body
 * (origins in the body normalised), or fails once `AGREE_WITHIN_MS` have passed since `since`
 * (default now). Returns that body.
 */
async function agree(path: string, since = performance.now()) {
  let last: string[] = [];
  while (performance.now() - since < AGREE_WITHIN_MS) {
    const answers = await Promise.all(
      urls().map(async (base) => {
        const { status, body } = await getJson(`${base}${path}`);
        return `${status} ${JSON.stringify(body).replaceAll(base, "<origin>")}`;
      }),
    );
    if (answers[0]?.startsWith("200 ") && answers.every((a) => a === answers[0])) {
      return { body: JSON.parse((answers[0] ?? "").slice(4)) as unknown };
    }
    last = answers;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `indexer and replicas still disagree on ${path} after ${AGREE_WITHIN_MS} ms:\n${last.join("\n")}`,
  );
}

/** The next HTTP/1.1 response read from a raw socket (a Content-Length body). */
function nextResponse(socket: Socket): Promise<{ head: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = data.subarray(0, end).toString().split("\r\n");
      const length = Number(
        head.find((h) => h.toLowerCase().startsWith("content-length:"))?.split(":")[1] ?? "NaN",
      );
      // Content-Length counts bytes.
      if (data.length - end - 4 < length) return;
      socket.off("data", onData);
      resolve({ head, body: data.subarray(end + 4, end + 4 + length).toString() });
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.once("close", () =>
      reject(new Error(`closed after ${JSON.stringify(data.toString())}`)),
    );
  });
}

/** The response's headers by lower-case name, without `Date`, which changes. */
const headersOf = (head: string[]) =>
  Object.fromEntries(
    head
      .slice(1)
      .map((h) => [h.slice(0, h.indexOf(":")).toLowerCase(), h.slice(h.indexOf(":") + 1).trim()])
      .filter(([name]) => name !== "date"),
  );

async function send(
  address: Address,
  abi: readonly unknown[],
  functionName: string,
  args: unknown[],
) {
  const hash = await wallet.writeContract({
    address,
    abi,
    functionName,
    args,
    account: wallet.account ?? null,
    chain: wallet.chain,
  } as never);
  const receipt = await client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

const symbol = (s: string): Address => {
  const t = service.deployment.tokens.find((x) => x.symbol === s);
  if (!t) throw new Error(s);
  return t.address;
};

beforeAll(async () => {
  const keysFile = join(dir, "keys.json");
  writeFileSync(
    keysFile,
    JSON.stringify({
      keys: [
        { name: "suite", key: KEY_SUITE, rps: 1000, burst: 1000 },
        { name: "tight", key: KEY_TIGHT, rps: 0.2, burst: 4 },
      ],
    }),
  );
  service = await startService({
    database: "postgres",
    env: {
      API_KEYS: KEY_ENV,
      API_KEYS_FILE: keysFile,
      REDIS_URL: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
      REDIS_PREFIX,
      CHAIN_HEAD_CACHE_MS: "100",
      SHUTDOWN_TIMEOUT_MS: "20000",
    },
  });
  const database = new URL(TEST_DATABASE_URL);
  proxy = await startTcpProxy({ host: database.hostname, port: Number(database.port || 5432) });
  const viaProxy = new URL(TEST_DATABASE_URL);
  viaProxy.port = String(proxy.port);
  [replicaA, replicaB] = await Promise.all([
    startReplica(service),
    startReplica(service, { databaseUrl: viaProxy.href }),
  ]);
  const chain = await chainOf(service.anvil.url);
  client = createPublicClient({ chain, transport: http(service.anvil.url) }) as PublicClient;
  wallet = createWalletClient({
    chain,
    transport: http(service.anvil.url),
    account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
  });
});

afterAll(async () => {
  // Replicas first: the service owns the deployment file they read.
  const stops = await Promise.allSettled([replicaA?.stop(), replicaB?.stop()]);
  await proxy?.close();
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
  for (const s of stops) if (s.status === "rejected") throw s.reason;
});

describe("indexer and replicas", () => {
  test("answer identically", async () => {
    const tokens = (await agree("/v1/tokens")).body as { meta: { total: number } };
    // The world's tokens, native ether, 17 V2-family LP tokens (2 of PancakeSwap V1), vault
    // shares, aTokens and BPTs.
    expect(tokens.meta.total).toBe(45);
    for (const path of ["/v1/standards", "/v1/projects"]) await agree(path);
  });

  test("after a swap and a new pair on the chain, all three return the same new state", async () => {
    const d = service.deployment;
    const usdc = symbol("USDC");
    const amountIn = parseUnits("2500", 6);
    await send(usdc, DevTokenAbi, "approve", [d.uniswapV2.router02, amountIn]);
    const swap = await send(
      d.uniswapV2.router02,
      UniswapV2Router02Abi,
      "swapExactTokensForTokens",
      [amountIn, 0n, [usdc, d.weth], wallet.account?.address, maxUint256],
    );
    const [link, uni] = [symbol("LINK"), symbol("UNI")];
    const receipt = await send(d.uniswapV2.factory, UniswapV2FactoryAbi, "createPair", [link, uni]);
    const pair = getAddress(
      await client.readContract({
        address: d.uniswapV2.factory,
        abi: UniswapV2FactoryAbi,
        functionName: "getPair",
        args: [link, uni],
      }),
    );
    await waitForIndexedBlock(service, receipt.blockNumber);
    // Every answer below agrees on all three processes within AGREE_WITHIN_MS of this moment.
    const indexed = performance.now();

    const tokens = await agree("/v1/tokens?protocolSlug=uniswap-v2", indexed);
    const list = tokens.body as { meta: { total: number }; data: { address: string }[] };
    expect(list.meta.total).toBe(16);
    expect(list.data.map((t) => t.address)).toContain(pair);
    const projects = (await agree("/v1/projects", indexed)).body as {
      id: string;
      poolCount: number;
    }[];
    expect(projects.find((p) => p.id === "uniswap-v2")?.poolCount).toBe(16);
    // The same route through the swapped pair, computed on the chain's latest block.
    const query = new URLSearchParams({
      chainId: String(d.chainId),
      fromAddress: d.deployer,
      tokenIn: usdc,
      tokenOut: d.weth,
      amountIn: amountIn.toString(),
    });
    const route = await agree(`/v1/shortcuts/route?${query}`, indexed);
    const answer = route.body as { blockNumber: number; amountOut: string };
    // Computed after the swap, at most on the head (the route code names the block).
    expect(answer.blockNumber).toBeGreaterThanOrEqual(Number(swap.blockNumber));
    expect(answer.blockNumber).toBeLessThanOrEqual(Number(receipt.blockNumber));
    expect(BigInt(answer.amountOut)).toBeGreaterThan(0n);
  });
});

describe("API keys and rate limits across replicas", () => {
  test("keys are required on every replica", async () => {
    for (const base of urls()) {
      const res = await fetch(`${base}/v1/tokens`);
      expect({ base, status: res.status, body: await res.json() }).toEqual({
        base,
        status: 401,
        body: {
          statusCode: 401,
          error: "Unauthorized",
          message: "Missing API key: send it as `Authorization: Bearer <key>`.",
        },
      });
      expect((await getJson(`${base}/v1/standards`, KEY_ENV)).status).toBe(200);
    }
  });

  test("two replicas spend one budget through Redis", async () => {
    const statuses: number[] = [];
    for (const base of [replicaA.url, replicaB.url, replicaA.url, replicaB.url]) {
      statuses.push((await getJson(`${base}/v1/standards`, KEY_TIGHT)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200]);
    // Four requests within a second of a 4-request burst at 0.2/s: the next is due in 5 s,
    // whichever replica is asked.
    for (const base of [replicaA.url, replicaB.url, service.url]) {
      const limited = await getJson(`${base}/v1/standards`, KEY_TIGHT);
      expect({
        base,
        status: limited.status,
        retryAfter: limited.headers.get("retry-after"),
        body: limited.body,
      }).toEqual({
        base,
        status: 429,
        retryAfter: "5",
        body: {
          statusCode: 429,
          error: "Too Many Requests",
          message:
            "Rate limit exceeded: this API key may make 0.2 requests per second with bursts of 4. Retry in 5 s.",
          details: { rps: 0.2, burst: 4, retryAfterSeconds: 5 },
        },
      });
    }
    const metrics = await (await fetch(`${replicaA.url}/metrics/api`)).text();
    expect(sample(metrics, "shortcuts_rate_limited_total", { caller: "key" })).toBe(1);
    expect(sample(metrics, "shortcuts_rate_limit_redis_errors_total")).toBe(0);
  });

  test("keys appear in no log line and no metric of any process", async () => {
    const texts = [service.output(), replicaA.output(), replicaB.output()];
    for (const base of urls()) {
      texts.push(await (await fetch(`${base}/metrics/api`)).text());
      texts.push(await (await fetch(`${base}/metrics`)).text());
    }
    const exposed = texts.join("\n");
    expect(exposed).toContain('"keyName":"tight"');
    for (const key of [KEY_SUITE, KEY_TIGHT, KEY_ENV]) expect(exposed.includes(key)).toBe(false);
  });
});

describe("errors", () => {
  test("a database error the API does not expect is a 500 whose details.requestId finds the log line", async () => {
    // A table held under an exclusive lock: the replica's read of it gives up after Ponder's
    // read-only lock_timeout (500 ms) with SQLSTATE 55P03, which is not a lost connection.
    const locker = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await locker.connect();
    const requestId = "replica-a-500-probe";
    try {
      await locker.query("BEGIN");
      await locker.query(`LOCK TABLE "${service.schema}".v2_pair IN ACCESS EXCLUSIVE MODE`);
      const res = await fetch(`${replicaA.url}/v1/projects`, {
        headers: { ...auth, "x-request-id": requestId },
      });
      expect({
        status: res.status,
        requestId: res.headers.get("x-request-id"),
        body: await res.json(),
      }).toEqual({
        status: 500,
        requestId,
        body: {
          statusCode: 500,
          error: "Internal Server Error",
          message: "Internal error; the request was not processed.",
          details: { requestId },
        },
      });
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }
    const lines = replicaA
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{") && l.includes(`"requestId":"${requestId}"`))
      .map((l) => {
        const { level, msg, status } = JSON.parse(l) as {
          level: string;
          msg: string;
          status?: number;
        };
        return { level, msg, status };
      });
    expect(lines).toEqual([
      { level: "error", msg: "unhandled error", status: undefined },
      { level: "info", msg: "request", status: 500 },
    ]);
  });
});

describe("graceful shutdown", () => {
  test("SIGTERM: the request in flight completes, new connections are refused, a request on an open connection is a 503 with Connection: close", async () => {
    // A query this replica has not answered yet: catalogue answers are cached per indexed
    // state, and the point here is a request that waits on the database.
    const path = "/v1/tokens?type=defiToken&page=1";
    const expected = await getJson(`${service.url}${path}`);
    expect(expected.status).toBe(200);
    // Hold the replica's database traffic: its next query waits in the proxy.
    proxy.hold();
    let settled = false;
    const inFlight = fetch(`${replicaB.url}${path}`, { headers: auth }).then(
      async (res) => {
        settled = true;
        return { status: res.status, body: (await res.json()) as unknown };
      },
      (error: Error) => {
        settled = true;
        return { error: `${error.message}: ${(error.cause as Error | undefined)?.message}` };
      },
    );
    const deadline = Date.now() + 5_000;
    while (proxy.heldBytes() === 0) {
      if (Date.now() > deadline) throw new Error("the request never reached the database");
      await new Promise((r) => setTimeout(r, 10));
    }
    // A kept-alive connection: one request answered on it, then the next one begun (its
    // headers unfinished) so that it arrives after the signal on a connection open before it.
    // Done just before the signal: Node drops a connection that sends nothing whole for its
    // keepAliveTimeout (5 s) after an answer.
    const kept = connect(Number(new URL(replicaB.url).port), "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      kept.once("connect", resolve);
      kept.once("error", reject);
    });
    const host = new URL(replicaB.url).host;
    const first = nextResponse(kept);
    kept.write(
      `GET /v1/standards HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${auth.authorization}\r\n\r\n`,
    );
    expect((await first).head[0]).toBe("HTTP/1.1 200 OK");
    kept.write(`GET /v1/standards HTTP/1.1\r\nHost: ${host}\r\n`);
    replicaB.process.kill("SIGTERM");
    // Once the replica has taken the signal (it logs, then stops listening in the same tick),
    // new connections are refused. A connection made before that would sit in the listen
    // backlog and be reset when the socket closes, so the attempts start after the log line.
    const logDeadline = Date.now() + 5_000;
    while (!replicaB.output().includes('"received SIGTERM')) {
      if (Date.now() > logDeadline) throw new Error("the replica never logged the signal");
      await new Promise((r) => setTimeout(r, 10));
    }
    // The request on the connection opened before the signal is refused, and the connection
    // closed after the answer.
    const closed = new Promise<void>((resolve) => kept.once("close", () => resolve()));
    const refusal = nextResponse(kept);
    kept.write("X-Request-Id: kept-alive-at-sigterm\r\n\r\n");
    const { head, body } = await refusal;
    expect({ status: head[0], headers: headersOf(head), body: JSON.parse(body) }).toEqual({
      status: "HTTP/1.1 503 Service Unavailable",
      headers: {
        "access-control-allow-origin": "*",
        connection: "close",
        "content-length": String(Buffer.byteLength(body)),
        "content-type": "application/json",
        "retry-after": "1",
        "x-request-id": "kept-alive-at-sigterm",
      },
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message: "The service is shutting down; retry the request.",
      },
    });
    await closed;
    const refused = await new Promise<string>((resolve) => {
      const started = Date.now();
      const attempt = () => {
        const socket = connect(Number(new URL(replicaB.url).port), "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          if (Date.now() - started > 2_000) resolve("still accepting");
          else setTimeout(attempt, 20);
        });
        socket.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      };
      attempt();
    });
    expect(refused).toBe("ECONNREFUSED");
    // …while the request in flight outlives Ponder's own 1 s grace, and then completes.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(settled).toBe(false);
    proxy.release();
    expect(await inFlight).toEqual({ status: 200, body: expected.body });
    expect(await replicaB.exited).toBe(0);
    const logs = replicaB
      .output()
      .split("\n")
      .filter((l) => l.includes('"received SIGTERM') || l.includes('"msg":"drained"'))
      .map((l) => {
        const { msg, inFlight: n } = JSON.parse(l) as { msg: string; inFlight: number };
        return { msg, inFlight: n };
      });
    expect(logs).toEqual([
      { msg: "received SIGTERM: refusing new connections and draining", inFlight: 1 },
      { msg: "drained", inFlight: 0 },
    ]);
  });
});

describe("freshness", () => {
  /** What replica A's `/v1/networks` says of the devnet. */
  const network = async () => {
    const { body } = await getJson(`${replicaA.url}/v1/networks`);
    return (body as Record<string, unknown>[])[0] ?? {};
  };

  test("a replica given MAX_LAG_SECONDS_<id> for a chain it does not index stops at startup, naming it", async () => {
    const chainId = service.deployment.chainId;
    await expect(startReplica(service, { env: { MAX_LAG_SECONDS_999: "5" } })).rejects.toThrow(
      `Invalid configuration: MAX_LAG_SECONDS_999 is set, but chain 999 is not indexed (indexed: ${chainId}).`,
    );
  });

  test("when the indexer stops, replicas keep serving: a burst of blocks a few seconds behind is served, data older than MAX_LAG_SECONDS answers 503 with the lag", async () => {
    const d = service.deployment;
    const head = await client.getBlock({ blockTag: "latest" });
    await waitForIndexedBlock(service, head.number);
    service.process.kill("SIGTERM");
    await new Promise((r) => service.process.once("exit", r));
    // The replica's routing snapshot reads the index on its own: it reaches the last block.
    await waitUntil(
      `replica A's routing snapshot did not reach block ${head.number}`,
      async () => (await network()).snapshotBlock === Number(head.number),
      { timeoutMs: 20_000 },
    );

    // A burst: 20 blocks a second apart in chain time, mined at once (the index stays behind).
    await client.request({
      method: "anvil_setBlockTimestampInterval" as never,
      params: [1] as never,
    });
    await client.request({ method: "anvil_mine" as never, params: ["0x14"] as never });
    await client.request({
      method: "anvil_removeBlockTimestampInterval" as never,
      params: [] as never,
    });
    const burst = await client.getBlock({ blockTag: "latest" });
    expect({
      blocks: burst.number - head.number,
      seconds: burst.timestamp - head.timestamp,
    }).toEqual({ blocks: 20n, seconds: 20n });
    // Past CHAIN_HEAD_CACHE_MS (100 ms), the replica reads the new head.
    await waitUntil(
      "replica A did not read the head after the burst",
      async () => (await network()).headBlock === Number(burst.number),
      { timeoutMs: 20_000 },
    );
    const chainId = d.chainId;
    expect(await network()).toEqual({
      id: chainId,
      name: "Devnet",
      isConnected: true,
      indexedBlock: Number(head.number),
      snapshotBlock: Number(head.number),
      headBlock: Number(burst.number),
      lagBlocks: 20,
      lagSeconds: 20,
      maxLagSeconds: 60,
      maxLagBlocks: null,
      historyFromBlock: d.startBlock,
    });
    const lagMetrics = async () => {
      const text = await (await fetch(`${replicaA.url}/metrics/api`)).text();
      const chain = { chain_id: String(chainId) };
      return {
        indexed: sample(text, "shortcuts_indexed_block", chain),
        snapshot: sample(text, "shortcuts_snapshot_block", chain),
        head: sample(text, "shortcuts_chain_head_block", chain),
        lagBlocks: sample(text, "shortcuts_snapshot_lag_blocks", chain),
        lagSeconds: sample(text, "shortcuts_snapshot_lag_seconds", chain),
      };
    };
    expect(await lagMetrics()).toEqual({
      indexed: Number(head.number),
      snapshot: Number(head.number),
      head: Number(burst.number),
      lagBlocks: 20,
      lagSeconds: 20,
    });
    // 20 blocks behind, 20 s of chain time: within the default limit (a minute), so routes are
    // served, computed on the chain's latest block.
    const query = new URLSearchParams({
      chainId: String(chainId),
      fromAddress: d.deployer,
      tokenIn: symbol("USDC"),
      tokenOut: d.weth,
      amountIn: parseUnits("100", 6).toString(),
    });
    const route = await getJson(`${replicaA.url}/v1/shortcuts/route?${query}`);
    expect({
      status: route.status,
      block: (route.body as { blockNumber: number }).blockNumber,
    }).toEqual({ status: 200, block: Number(burst.number) });

    // One more block, 41 s later in chain time: the snapshot is now 61 s behind.
    await client.request({
      method: "evm_setNextBlockTimestamp" as never,
      params: [Number(burst.timestamp) + 41] as never,
    });
    await client.request({ method: "anvil_mine" as never, params: ["0x1"] as never });
    const late = Number(burst.number) + 1;
    await waitUntil(
      "replica A did not read the head after the late block",
      async () => (await network()).headBlock === late,
      { timeoutMs: 20_000 },
    );
    expect(await lagMetrics()).toEqual({
      indexed: Number(head.number),
      snapshot: Number(head.number),
      head: late,
      lagBlocks: 21,
      lagSeconds: 61,
    });
    const res = await fetch(`${replicaA.url}/v1/shortcuts/route?${query}`, { headers: auth });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 503,
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message: `The routing snapshot of chain ${chainId} is at block ${head.number}, 21 blocks and 61 seconds behind the chain head ${late} (at most 60 seconds are allowed). Retry shortly.`,
        details: {
          chainId,
          block: Number(head.number),
          headBlock: late,
          lagBlocks: 21,
          lagSeconds: 61,
          maxLagSeconds: 60,
          maxLagBlocks: null,
        },
      },
    });
    // The catalogue does not depend on freshness.
    expect((await getJson(`${replicaA.url}/v1/tokens`)).status).toBe(200);
  });
});
