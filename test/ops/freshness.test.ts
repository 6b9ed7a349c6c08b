import { Hono } from "hono";
import { describe, expect, test } from "vitest";
import type { OpsEnv } from "../../src/api/ops/context.js";
import { createFreshness } from "../../src/api/ops/freshness.js";
import type { ChainProgress } from "../../src/api/readiness.js";

type World = {
  chains: ChainProgress[];
  heads: Record<string, bigint | Error>;
  snapshots: Map<number, bigint>;
  now: number;
  headCalls: string[];
  checkpointCalls: number;
};

function setup(maxLagBlocks = 5) {
  const world: World = {
    chains: [
      { chainName: "devnet", chainId: 31337, indexedBlock: 100n },
      { chainName: "other", chainId: 10, indexedBlock: 50n },
    ],
    heads: { devnet: 100n, other: 50n },
    snapshots: new Map(),
    now: 0,
    headCalls: [],
    checkpointCalls: 0,
  };
  const freshness = createFreshness({
    maxLagBlocks,
    headCacheMs: 500,
    indexedBlocks: async () => {
      world.checkpointCalls++;
      return world.chains.map((c) => ({ ...c }));
    },
    headBlock: async (name) => {
      world.headCalls.push(name);
      const head = world.heads[name];
      if (head instanceof Error) throw head;
      if (head === undefined) throw new Error(`no chain ${name}`);
      return head;
    },
    snapshotBlock: (chainId) => world.snapshots.get(chainId),
    now: () => world.now,
  });
  const app = new Hono<OpsEnv>()
    .use("/v1/shortcuts/*", freshness.guard)
    .get("/v1/shortcuts/route", (c) => c.json({ ok: true }));
  const get = async (query = "") => {
    const res = await app.request(`/v1/shortcuts/route${query}`);
    return { status: res.status, body: await res.json() };
  };
  return { world, freshness, get };
}

const behind = (what: string, chainId: number, block: number, head: number, max = 5) => ({
  status: 503,
  body: {
    statusCode: 503,
    error: "Service Unavailable",
    message: `The ${what} of chain ${chainId} is at block ${block}, ${head - block} blocks behind the chain head ${head} (at most ${max} are allowed). Retry shortly.`,
    details: { chainId, block, headBlock: head, lagBlocks: head - block, maxLagBlocks: max },
  },
});

describe("freshness guard", () => {
  test("passes while every chain is within the bound, and refuses beyond it", async () => {
    const { world, get } = setup();
    expect(await get()).toEqual({ status: 200, body: { ok: true } });
    world.now = 1_000;
    world.heads.devnet = 105n;
    expect(await get()).toEqual({ status: 200, body: { ok: true } });
    world.now = 2_000;
    world.heads.devnet = 106n;
    expect(await get()).toEqual(behind("index", 31337, 100, 106));
  });

  test("`chainId` selects the chain checked; without it (or unknown) all are", async () => {
    const { world, get } = setup();
    world.heads.other = 60n;
    expect(await get("?chainId=31337")).toEqual({ status: 200, body: { ok: true } });
    expect(await get("?chainId=10")).toEqual(behind("index", 10, 50, 60));
    expect(await get()).toEqual(behind("index", 10, 50, 60));
    expect(await get("?chainId=999")).toEqual(behind("index", 10, 50, 60));
  });

  test("the routing snapshot's block replaces the checkpoint once reported", async () => {
    const { world, get, freshness } = setup();
    world.heads.devnet = 120n;
    world.chains[0] = { chainName: "devnet", chainId: 31337, indexedBlock: 120n };
    world.snapshots.set(31337, 110n);
    expect(await get("?chainId=31337")).toEqual(behind("routing snapshot", 31337, 110, 120));
    expect(await freshness.chainLags(31337)).toEqual([
      {
        chainId: 31337,
        indexedBlock: 120n,
        snapshotBlock: 110n,
        headBlock: 120n,
        lagBlocks: 10n,
      },
    ]);
  });

  test("heads and checkpoints are reused for headCacheMs; a failed head is retried", async () => {
    const { world, get } = setup();
    await get("?chainId=31337");
    world.now = 499;
    await get("?chainId=31337");
    expect(world.headCalls).toEqual(["devnet"]);
    expect(world.checkpointCalls).toBe(1);
    world.now = 500;
    await get("?chainId=31337");
    expect(world.headCalls).toEqual(["devnet", "devnet"]);
    expect(world.checkpointCalls).toBe(2);

    world.now = 1_000;
    world.heads.devnet = new Error("connection refused");
    const unreachable = {
      status: 503,
      body: {
        statusCode: 503,
        error: "Service Unavailable",
        message:
          "The RPC of chain 31337 did not answer, so the freshness of routing data cannot be checked. Retry shortly.",
        details: { chainId: 31337 },
      },
    };
    expect(await get("?chainId=31337")).toEqual(unreachable);
    world.heads.devnet = 100n;
    // Same instant: the failure was not cached.
    expect(await get("?chainId=31337")).toEqual({ status: 200, body: { ok: true } });
  });

  test("a head that never comes counts as unreachable after headTimeoutMs", async () => {
    const freshness = createFreshness({
      maxLagBlocks: 5,
      headCacheMs: 0,
      headTimeoutMs: 50,
      indexedBlocks: async () => [{ chainName: "devnet", chainId: 1, indexedBlock: 1n }],
      headBlock: () => new Promise<bigint>(() => {}),
      snapshotBlock: () => undefined,
    });
    await expect(freshness.chainLags()).rejects.toThrow("The RPC of chain 1 did not answer.");
  });
});
