/**
 * Fault: Postgres restarts under a running indexer and a `ponder serve` replica while clients
 * load the replica. The cluster is private to this suite (the machine's shared Postgres is
 * never restarted): initdb into a temporary directory, pg_ctl on a free port.
 *
 * While the database is down, an answer is either the one given before (the catalogue's answer
 * cache still holds it) or a 503 with a clear message; never a 500, never a hang. Once it is
 * back, the replica answers 200 again by itself, with the answers it gave before, and the
 * indexer indexes new blocks.
 *
 * Measured numbers are printed as one `faults:postgres-restart` JSON line
 * (bench/results/faults.md).
 */
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { devnetActors } from "../harness/actors.js";
import { type LoadAnswer, startLoad } from "../harness/fault-load.js";
import {
  type DevnetChain,
  type PonderProcess,
  spawnPonder,
  startDevnetChain,
  waitForBlock,
  waitUntil,
} from "../harness/ponder-process.js";
import { type PostgresCluster, startPostgresCluster } from "../harness/postgres-cluster.js";
import { type ReplicaInstance, startReplica } from "../harness/replicas.js";
import type { ServiceInstance } from "../harness/service.js";

const HANG_MS = 15_000;
const OUTAGE_MS = 4_000;
const SCHEMA = "faults_pg";

let cluster: PostgresCluster;
let chain: DevnetChain;
let indexer: PonderProcess;
let service: ServiceInstance;
let replica: ReplicaInstance | undefined;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  chain = await startDevnetChain({ chainId: 31337 });
  indexer = await spawnPonder({
    command: "start",
    chain,
    databaseUrl: cluster.url,
    schema: SCHEMA,
    logLevel: "info",
  });
  const head = await chainHead();
  await waitForBlock(indexer, {
    databaseUrl: cluster.url,
    schema: SCHEMA,
    block: head,
    timeoutMs: 120_000,
  });
  // What the replica harness needs to know of the indexer.
  service = {
    url: indexer.url,
    anvil: chain.anvil,
    deployment: chain.deployment,
    schema: SCHEMA,
    env: { ...chain.env, PONDER_LOG_LEVEL: "warn" },
    process: indexer.process,
    output: indexer.output,
    stop: indexer.stop,
  };
  replica = await startReplica(service, { databaseUrl: cluster.url });
});

afterAll(async () => {
  const stops = await Promise.allSettled([replica?.stop()]);
  await indexer?.stop();
  await chain?.stop();
  await cluster?.destroy();
  for (const s of stops) if (s.status === "rejected") throw s.reason;
});

async function chainHead(): Promise<bigint> {
  const res = await fetch(chain.anvil.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
  });
  return BigInt(((await res.json()) as { result: string }).result);
}

describe("Postgres restarted under a running replica", () => {
  test("requests fail cleanly (cached answer or 503), nothing hangs, and all recover by themselves", async () => {
    if (!replica) throw new Error("no replica");
    const a = await devnetActors(service);
    const from = a.user(0).account.address;
    const routeQuery = new URLSearchParams({
      fromAddress: from,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      tokenOut: a.token("USDC"),
      amountIn: parseEther("1").toString(),
    });
    // Asked of the replica before the outage (its answer cache may hold them) ...
    const warm = [
      { name: "tokens", path: "/v1/tokens" },
      { name: "standards", path: "/v1/standards" },
      { name: "projects", path: "/v1/projects" },
    ];
    // ... and not, until the database is down (the replica must go to it): the answers to
    // compare with are the indexer's.
    const cold = ["WETH", "DAI", "LINK", "UNI"].map((s) => ({
      name: `tokens?address (${s})`,
      path: `/v1/tokens?address=${a.token(s)}`,
    }));
    const route = { name: "route", path: `/v1/shortcuts/route?${routeQuery}` };
    const get = async (base: string, path: string) => {
      const res = await fetch(`${base}${path}`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const before = new Map<string, string>();
    for (const r of warm) {
      const res = await get(replica.url, r.path);
      expect({ path: r.path, status: res.status }).toEqual({ path: r.path, status: 200 });
      before.set(r.name, JSON.stringify(res.body));
    }
    for (const r of cold) {
      const res = await get(indexer.url, r.path);
      expect({ path: r.path, status: res.status }).toEqual({ path: r.path, status: 200 });
      before.set(r.name, JSON.stringify(res.body));
    }
    expect((await get(replica.url, route.path)).status).toBe(200);

    const load = startLoad({
      baseUrl: replica.url,
      requests: [...warm, route],
      clients: 4,
      hangMs: HANG_MS,
    });
    // The load is under way: every request has been answered once before the database stops.
    await waitUntil(
      "the load did not get an answer to every request before the stop",
      async () => new Set(load.answers.map((x) => x.name)).size === warm.length + 1,
      { timeoutMs: 30_000, output: replica.output },
    );
    const stoppingAt = performance.now();
    await cluster.stop();
    const downAt = performance.now();
    const coldDuring = [];
    for (const r of cold) coldDuring.push({ path: r.path, ...(await get(replica.url, r.path)) });
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    const startingAt = performance.now();
    await cluster.start();
    const upAt = performance.now();
    await waitUntil(
      "the replica did not answer every request 200 again after the restart",
      async () => {
        const recent = load.answers.filter((x) => x.sentAt > upAt);
        const names = new Set(recent.filter((x) => x.status === 200).map((x) => x.name));
        return names.size === warm.length + 1;
      },
      { timeoutMs: 60_000, output: replica.output },
    );
    // ...and a little after: until every request has been answered once more.
    const recoveredAt = performance.now();
    await waitUntil(
      "the replica did not answer every request once more after the restart",
      async () =>
        new Set(load.answers.filter((x) => x.sentAt > recoveredAt).map((x) => x.name)).size ===
        warm.length + 1,
      { timeoutMs: 30_000, output: replica.output },
    );
    const answers = await load.stop();

    const databaseDown = {
      statusCode: 503,
      error: "Service Unavailable",
      message: "The database is unreachable, so the request cannot be answered. Retry shortly.",
    };
    const summary = (x: LoadAnswer) =>
      `${x.name} ${x.status} ${JSON.stringify(x.body)} (sent ${Math.round(x.sentAt - stoppingAt)} ms after the stop)`;
    // A query caught by the stop on a connection the server never answers again is not an
    // error to the driver: the API's request deadline answers it.
    const deadline = {
      statusCode: 503,
      error: "Service Unavailable",
      message:
        "The request did not complete within 10 s: the database or the chain's node is not answering. Retry shortly.",
    };
    const clean = (x: LoadAnswer) =>
      (x.status === 200 && (x.name === "route" || JSON.stringify(x.body) === before.get(x.name))) ||
      (x.status === 503 &&
        [databaseDown, deadline].some((b) => JSON.stringify(x.body) === JSON.stringify(b)));
    expect(answers.filter((x) => !clean(x)).map(summary)).toEqual([]);

    // While the database was down, what needs it was refused: queries not cached, and routes
    // (their freshness check reads the checkpoint) once the one read before is 500 ms old.
    expect(coldDuring).toEqual(
      cold.map((r) => ({ path: r.path, status: 503, body: databaseDown })),
    );
    const during = answers.filter((x) => x.sentAt >= downAt && x.doneAt <= startingAt);
    const routes = during.filter((x) => x.name === "route" && x.sentAt >= downAt + 1_000);
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter((x) => x.status !== 503).map(summary)).toEqual([]);

    // After: the same answers as before, from the replica, without intervention.
    for (const r of [...warm, ...cold]) {
      const res = await get(replica.url, r.path);
      expect({ path: r.path, status: res.status, body: JSON.stringify(res.body) }).toEqual({
        path: r.path,
        status: 200,
        body: before.get(r.name),
      });
    }
    expect((await get(replica.url, route.path)).status).toBe(200);

    // The indexer survived the restart and indexes a swap mined after it.
    expect(indexer.process.exitCode).toBe(null);
    const { receipt } = await a.swapOnFirstV2Pair();
    expect(receipt.status).toBe("success");
    await waitForBlock(indexer, {
      databaseUrl: cluster.url,
      schema: SCHEMA,
      block: receipt.blockNumber,
      timeoutMs: 60_000,
    });

    const firstFailure = answers
      .filter((x) => x.sentAt >= stoppingAt && x.status !== 200)
      .sort((x, y) => x.doneAt - y.doneAt)[0];
    const firstRouteBack = answers
      .filter((x) => x.name === "route" && x.sentAt >= upAt && x.status === 200)
      .sort((x, y) => x.doneAt - y.doneAt)[0];
    const lastFailure = answers
      .filter((x) => x.status !== 200)
      .sort((x, y) => y.doneAt - x.doneAt)[0];
    console.log(
      `faults:postgres-restart ${JSON.stringify({
        requests: answers.length,
        duringOutage: during.length,
        statuses: Object.fromEntries(
          [...warm, route].map((r) => [
            r.name,
            answers
              .filter((x) => x.name === r.name)
              .reduce<Record<number, number>>((acc, x) => {
                acc[x.status] = (acc[x.status] ?? 0) + 1;
                return acc;
              }, {}),
          ]),
        ),
        pgStopMs: Math.round(downAt - stoppingAt),
        pgStartMs: Math.round(upAt - startingAt),
        first503AfterStopMs: firstFailure ? Math.round(firstFailure.doneAt - stoppingAt) : null,
        max503LatencyMs: Math.round(
          Math.max(...answers.filter((x) => x.status === 503).map((x) => x.doneAt - x.sentAt)),
        ),
        firstRoute200AfterStartMs: firstRouteBack ? Math.round(firstRouteBack.doneAt - upAt) : null,
        lastFailureAfterStartBeganMs: lastFailure
          ? Math.round(lastFailure.doneAt - startingAt)
          : null,
      })}`,
    );
  }, 240_000);
});
