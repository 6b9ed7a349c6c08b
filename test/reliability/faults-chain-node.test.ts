/**
 * Fault: the chain node is killed (SIGKILL) while clients load the API, and comes back a few
 * seconds later with its chain (state dumped before the kill, loaded by a new anvil on the
 * same port). Builds on route.test.ts's "chain node unreachable" case, which checks one request
 * against a stopped node; here it is a load through the outage and the recovery after it.
 *
 * Decision: the catalogue (`/v1/tokens`) is served from the index and does not need the node,
 * so it keeps answering 200, unchanged. Routes and bundles simulate on the node: they answer a
 * prompt 503 with one of the messages below, never a 500, never a hang.
 *
 * Measured numbers are printed as one `faults:chain-node` JSON line (bench/results/faults.md).
 */
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { devnetActors } from "../harness/actors.js";
import { dumpChainState, killChainNode, restartChainNode } from "../harness/chain-node.js";
import { type LoadAnswer, startLoad } from "../harness/fault-load.js";
import { waitUntil } from "../harness/ponder-process.js";
import {
  graphqlQuery,
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
} from "../harness/service.js";

/** A request without an answer after this long counts as hanging. */
const HANG_MS = 15_000;
/** How long the node stays down, so that the load meets it dead for a while. */
const OUTAGE_MS = 4_000;

let service: ServiceInstance;
let restarted: AnvilInstance | undefined;

beforeAll(async () => {
  service = await startService({ database: "pglite" });
});

afterAll(async () => {
  await restarted?.stop();
  await service?.stop();
});

const unavailable = (message: string, details?: Record<string, unknown>) => ({
  statusCode: 503,
  error: "Service Unavailable",
  message,
  ...(details ? { details } : {}),
});

describe("the chain node killed under load", () => {
  test("routes and bundles answer a prompt 503, the catalogue stays up, all recover by themselves", async () => {
    const a = await devnetActors(service);
    const chainId = service.deployment.chainId;
    const from = a.user(0).account.address;
    const usdc = a.token("USDC");
    const routeQuery = new URLSearchParams({
      fromAddress: from,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      tokenOut: usdc,
      amountIn: parseEther("1").toString(),
    });
    const bundleBody = JSON.stringify([
      {
        protocol: "core",
        action: "route",
        args: {
          tokenIn: NATIVE_TOKEN_ADDRESS,
          tokenOut: usdc,
          amountIn: parseEther("1").toString(),
        },
      },
    ]);
    const requests = [
      { name: "tokens", path: "/v1/tokens" },
      { name: "route", path: `/v1/shortcuts/route?${routeQuery}` },
      {
        name: "bundle",
        path: `/v1/shortcuts/bundle?${new URLSearchParams({ fromAddress: from })}`,
        method: "POST" as const,
        body: bundleBody,
      },
    ];
    const ask = async (name: string) => {
      const r = requests.find((x) => x.name === name);
      if (!r) throw new Error(name);
      const res = await fetch(`${service.url}${r.path}`, {
        method: r.method ?? "GET",
        headers: r.body ? { "content-type": "application/json" } : undefined,
        body: r.body,
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };

    // Before: everything answers 200.
    const tokensBefore = await ask("tokens");
    expect(tokensBefore.status).toBe(200);
    for (const name of ["route", "bundle"]) expect((await ask(name)).status).toBe(200);

    const state = await dumpChainState(service.anvil);
    const load = startLoad({ baseUrl: service.url, requests, clients: 4, hangMs: HANG_MS });
    // The load is under way: every request has been answered once before the node goes.
    await waitUntil(
      "the load did not get an answer to every request before the kill",
      async () => new Set(load.answers.map((x) => x.name)).size === requests.length,
      { timeoutMs: 30_000, output: service.output },
    );
    await killChainNode(service.anvil);
    const killedAt = performance.now();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    const restartAt = performance.now();
    restarted = await restartChainNode({ port: service.anvil.port, chainId, state });
    const backAt = performance.now();
    state.remove();
    // Keep the load on until a route is answered 200 again, and a little after.
    await waitUntil(
      "no route was answered 200 after the node came back",
      async () =>
        load.answers.some((x) => x.name === "route" && x.sentAt > backAt && x.status === 200),
      { timeoutMs: 60_000, output: service.output },
    );
    // ...and a little after: until every request has been answered once more.
    const recoveredAt = performance.now();
    await waitUntil(
      "the load did not get an answer to every request after the recovery",
      async () =>
        new Set(load.answers.filter((x) => x.sentAt > recoveredAt).map((x) => x.name)).size ===
        requests.length,
      { timeoutMs: 30_000, output: service.output },
    );
    const answers = await load.stop();

    // The chain came back as it was: same head, same block hashes.
    expect(await a.client.getBlockNumber({ cacheTime: 0 })).toBe(state.blockNumber);

    const allowed503 = [
      unavailable(
        `The RPC of chain ${chainId} did not answer, so the freshness of routing data cannot be checked. Retry shortly.`,
        { chainId },
      ),
      unavailable(`The RPC node of chain ${chainId} did not answer the simulation. Retry shortly.`),
      unavailable(`The RPC node of chain ${chainId} is unreachable; try again shortly.`),
    ];
    const summary = (x: LoadAnswer) =>
      `${x.name} ${x.status} ${JSON.stringify(x.body)} (sent ${Math.round(x.sentAt - killedAt)} ms after the kill)`;

    // Nothing hung, nothing answered 500: every answer is a 200 or one of the clear 503s.
    const unexpected = answers.filter((x) => {
      if (x.name === "tokens") {
        return x.status !== 200 || JSON.stringify(x.body) !== JSON.stringify(tokensBefore.body);
      }
      if (x.status === 200) return false;
      return !(
        x.status === 503 && allowed503.some((b) => JSON.stringify(b) === JSON.stringify(x.body))
      );
    });
    expect(unexpected.map(summary)).toEqual([]);

    // While the node was down (asked after the kill, answered before the restart began), routes
    // and bundles were refused, and the catalogue was still served.
    const during = answers.filter((x) => x.sentAt >= killedAt && x.doneAt <= restartAt);
    const byName = (name: string) => during.filter((x) => x.name === name);
    expect(byName("route").length).toBeGreaterThan(0);
    expect(byName("bundle").length).toBeGreaterThan(0);
    expect(byName("tokens").length).toBeGreaterThan(0);
    expect(
      [...byName("route"), ...byName("bundle")].filter((x) => x.status !== 503).map(summary),
    ).toEqual([]);

    // After: route and bundle answer 200 again without any intervention.
    expect((await ask("route")).status).toBe(200);
    expect((await ask("bundle")).status).toBe(200);

    // The indexer resumes: a swap mined after the restart is indexed, reserves to the wei.
    const swapMinedAt = performance.now();
    const { pair, receipt } = await a.swapOnFirstV2Pair();
    expect(receipt.status).toBe("success");
    await waitForIndexedBlock(service, receipt.blockNumber, 60_000);
    const swapIndexedMs = performance.now() - swapMinedAt;
    const [reserve0, reserve1] = await a.client.readContract({
      address: pair,
      abi: UniswapV2PairAbi,
      functionName: "getReserves",
      blockNumber: receipt.blockNumber,
    });
    const indexed = await graphqlQuery<{
      v2Pair: { reserve0: string; reserve1: string; updatedBlock: string };
    }>(
      service,
      `{ v2Pair(chainId: ${chainId}, address: "${pair.toLowerCase()}") { reserve0 reserve1 updatedBlock } }`,
    );
    expect(indexed.v2Pair).toEqual({
      reserve0: reserve0.toString(),
      reserve1: reserve1.toString(),
      updatedBlock: receipt.blockNumber.toString(),
    });

    const first503 = answers
      .filter((x) => x.sentAt >= killedAt && x.status === 503)
      .sort((x, y) => x.doneAt - y.doneAt)[0];
    const firstRouteBack = answers
      .filter((x) => x.name === "route" && x.sentAt >= backAt && x.status === 200)
      .sort((x, y) => x.doneAt - y.doneAt)[0];
    const outage503 = [...byName("route"), ...byName("bundle")];
    console.log(
      `faults:chain-node ${JSON.stringify({
        requests: answers.length,
        duringOutage: during.length,
        statuses: Object.fromEntries(
          ["tokens", "route", "bundle"].map((n) => [
            n,
            answers
              .filter((x) => x.name === n)
              .reduce<Record<number, number>>((acc, x) => {
                acc[x.status] = (acc[x.status] ?? 0) + 1;
                return acc;
              }, {}),
          ]),
        ),
        messages503: Object.fromEntries(
          allowed503.map((b) => [
            b.message,
            answers.filter((x) => JSON.stringify(x.body) === JSON.stringify(b)).length,
          ]),
        ),
        first503AfterKillMs: first503 ? Math.round(first503.doneAt - killedAt) : null,
        max503LatencyMs: Math.round(Math.max(...outage503.map((x) => x.doneAt - x.sentAt))),
        nodeRestartMs: Math.round(backAt - restartAt),
        firstRoute200AfterRestartMs: firstRouteBack
          ? Math.round(firstRouteBack.doneAt - backAt)
          : null,
        swapIndexedAfterRestartMs: Math.round(swapIndexedMs),
      })}`,
    );
  }, 180_000);
});
