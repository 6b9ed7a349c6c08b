import { Hono } from "hono";
import { describe, expect, test } from "vitest";
import { lagLimitsOf, readConfig } from "../../config.js";
import type { OpsEnv } from "../../src/api/ops/context.js";
import { type ChainHead, createFreshness } from "../../src/api/ops/freshness.js";
import type { SnapshotAt } from "../../src/api/ops/metrics.js";
import type { ChainProgress } from "../../src/api/readiness.js";

type World = {
  chains: ChainProgress[];
  heads: Record<string, ChainHead | Error>;
  snapshots: Map<number, SnapshotAt>;
  now: number;
  headCalls: string[];
  checkpointCalls: number;
};

/** A guard over a fake world of two chains, with the limits the environment `env` sets. */
function setup(env: NodeJS.ProcessEnv = {}) {
  const world: World = {
    chains: [
      { chainName: "devnet", chainId: 31337, indexedBlock: 100n, indexedTimestamp: 1_000n },
      { chainName: "other", chainId: 10, indexedBlock: 50n, indexedTimestamp: 500n },
    ],
    heads: {
      devnet: { number: 100n, timestamp: 1_000n },
      other: { number: 50n, timestamp: 500n },
    },
    snapshots: new Map(),
    now: 0,
    headCalls: [],
    checkpointCalls: 0,
  };
  const settings = readConfig(env);
  const freshness = createFreshness({
    limits: (chainId) => lagLimitsOf(settings, chainId),
    headCacheMs: 500,
    indexedBlocks: async () => {
      world.checkpointCalls++;
      return world.chains.map((c) => ({ ...c }));
    },
    head: async (name) => {
      world.headCalls.push(name);
      const head = world.heads[name];
      if (head instanceof Error) throw head;
      if (head === undefined) throw new Error(`no chain ${name}`);
      return head;
    },
    snapshot: (chainId) => world.snapshots.get(chainId),
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

/** Ponder's checkpoint of the devnet chain at `block`, whose timestamp is `timestamp`. */
function indexDevnetAt(world: World, block: bigint, timestamp: bigint): void {
  world.chains[0] = {
    chainName: "devnet",
    chainId: 31337,
    indexedBlock: block,
    indexedTimestamp: timestamp,
  };
}

const passes = { status: 200, body: { ok: true } };

/** The 503 of data at `at.block`, `lag.seconds` seconds behind the head `at.head`. */
const behind = (
  what: string,
  at: { chainId: number; block: number; head: number },
  lag: { seconds: number },
  limits: { maxLagSeconds: number; maxLagBlocks: number | null; exceeded: string },
) => ({
  status: 503,
  body: {
    statusCode: 503,
    error: "Service Unavailable",
    message: `The ${what} of chain ${at.chainId} is at block ${at.block}, ${at.head - at.block} blocks and ${lag.seconds} seconds behind the chain head ${at.head} (at most ${limits.exceeded} are allowed). Retry shortly.`,
    details: {
      chainId: at.chainId,
      block: at.block,
      headBlock: at.head,
      lagBlocks: at.head - at.block,
      lagSeconds: lag.seconds,
      maxLagSeconds: limits.maxLagSeconds,
      maxLagBlocks: limits.maxLagBlocks,
    },
  },
});

/** The default limits (60 s, no limit in blocks), exceeded in seconds. */
const sixtySeconds = { maxLagSeconds: 60, maxLagBlocks: null, exceeded: "60 seconds" };

describe("freshness guard", () => {
  test("the limit is chain time (60 s by default), however many blocks that is", async () => {
    const { world, get } = setup();
    expect(await get()).toEqual(passes);
    // A burst: 240 blocks in 60 s (an Arbitrum minute) is within the default.
    world.now = 1_000;
    world.heads.devnet = { number: 340n, timestamp: 1_060n };
    expect(await get()).toEqual(passes);
    world.now = 2_000;
    world.heads.devnet = { number: 341n, timestamp: 1_061n };
    expect(await get()).toEqual(
      behind("index", { chainId: 31337, block: 100, head: 341 }, { seconds: 61 }, sixtySeconds),
    );
  });

  test("`chainId` selects the chain checked; without it (or unknown) all are", async () => {
    const { world, get } = setup();
    world.heads.other = { number: 60n, timestamp: 561n };
    const other = behind(
      "index",
      { chainId: 10, block: 50, head: 60 },
      { seconds: 61 },
      sixtySeconds,
    );
    expect(await get("?chainId=31337")).toEqual(passes);
    expect(await get("?chainId=10")).toEqual(other);
    expect(await get()).toEqual(other);
    expect(await get("?chainId=999")).toEqual(other);
  });

  test("MAX_LAG_SECONDS for every chain, MAX_LAG_SECONDS_<id> for one", async () => {
    const { world, get } = setup({ MAX_LAG_SECONDS: "30", MAX_LAG_SECONDS_10: "2.5" });
    world.heads.devnet = { number: 130n, timestamp: 1_030n };
    world.heads.other = { number: 51n, timestamp: 502n };
    expect(await get("?chainId=31337")).toEqual(passes);
    expect(await get("?chainId=10")).toEqual(passes);
    world.now = 1_000;
    world.heads.devnet = { number: 131n, timestamp: 1_031n };
    world.heads.other = { number: 52n, timestamp: 503n };
    expect(await get("?chainId=31337")).toEqual(
      behind(
        "index",
        { chainId: 31337, block: 100, head: 131 },
        { seconds: 31 },
        { maxLagSeconds: 30, maxLagBlocks: null, exceeded: "30 seconds" },
      ),
    );
    expect(await get("?chainId=10")).toEqual(
      behind(
        "index",
        { chainId: 10, block: 50, head: 52 },
        { seconds: 3 },
        { maxLagSeconds: 2.5, maxLagBlocks: null, exceeded: "2.5 seconds" },
      ),
    );
  });

  test("MAX_LAG_BLOCKS, when set, limits the lag in blocks as well", async () => {
    const { world, get } = setup({ MAX_LAG_BLOCKS: "5" });
    world.heads.devnet = { number: 105n, timestamp: 1_001n };
    expect(await get("?chainId=31337")).toEqual(passes);
    world.now = 1_000;
    world.heads.devnet = { number: 106n, timestamp: 1_001n };
    const limits = { maxLagSeconds: 60, maxLagBlocks: 5 };
    expect(await get("?chainId=31337")).toEqual(
      behind(
        "index",
        { chainId: 31337, block: 100, head: 106 },
        { seconds: 1 },
        { ...limits, exceeded: "5 blocks" },
      ),
    );
    // Past both limits, the one in seconds is named.
    world.now = 2_000;
    world.heads.devnet = { number: 106n, timestamp: 1_061n };
    expect(await get("?chainId=31337")).toEqual(
      behind(
        "index",
        { chainId: 31337, block: 100, head: 106 },
        { seconds: 61 },
        { ...limits, exceeded: "60 seconds" },
      ),
    );
  });

  test("the routing snapshot's block and timestamp replace the checkpoint's once reported", async () => {
    const { world, get, freshness } = setup();
    world.heads.devnet = { number: 120n, timestamp: 1_240n };
    indexDevnetAt(world, 120n, 1_240n);
    world.snapshots.set(31337, { block: 110n, timestamp: 1_120n });
    expect(await get("?chainId=31337")).toEqual(
      behind(
        "routing snapshot",
        { chainId: 31337, block: 110, head: 120 },
        { seconds: 120 },
        sixtySeconds,
      ),
    );
    expect(await freshness.chainLags(31337)).toEqual([
      {
        chainId: 31337,
        indexedBlock: 120n,
        snapshotBlock: 110n,
        headBlock: 120n,
        lagBlocks: 10n,
        lagSeconds: 120n,
      },
    ]);
    // An RPC node behind the indexer's: no lag, not a negative one.
    world.now = 1_000;
    world.heads.devnet = { number: 109n, timestamp: 1_100n };
    expect(await freshness.chainLags(31337)).toEqual([
      {
        chainId: 31337,
        indexedBlock: 120n,
        snapshotBlock: 110n,
        headBlock: 109n,
        lagBlocks: 0n,
        lagSeconds: 0n,
      },
    ]);
  });

  test("a checkpoint reused from before the snapshot was taken never reads behind the snapshot", async () => {
    const { world, freshness } = setup();
    indexDevnetAt(world, 0n, 0n);
    world.heads.devnet = { number: 5n, timestamp: 1_060n };
    expect(await freshness.chainLags(31337)).toEqual([
      {
        chainId: 31337,
        indexedBlock: 0n,
        snapshotBlock: undefined,
        headBlock: 5n,
        lagBlocks: 5n,
        lagSeconds: 1_060n,
      },
    ]);
    // Within headCacheMs the indexer reaches block 5 and the snapshot is taken there; the
    // checkpoint read at block 0 is still the one reused.
    world.now = 100;
    indexDevnetAt(world, 5n, 1_060n);
    world.snapshots.set(31337, { block: 5n, timestamp: 1_060n });
    expect(await freshness.chainLags(31337)).toEqual([
      {
        chainId: 31337,
        indexedBlock: 5n,
        snapshotBlock: 5n,
        headBlock: 5n,
        lagBlocks: 0n,
        lagSeconds: 0n,
      },
    ]);
    expect(world.checkpointCalls).toBe(1);
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
    world.heads.devnet = { number: 100n, timestamp: 1_000n };
    // Same instant: the failure was not cached.
    expect(await get("?chainId=31337")).toEqual({ status: 200, body: { ok: true } });
  });

  test("a head that never comes counts as unreachable after headTimeoutMs", async () => {
    const freshness = createFreshness({
      limits: () => ({ maxLagSeconds: 60, maxLagBlocks: undefined }),
      headCacheMs: 0,
      headTimeoutMs: 50,
      indexedBlocks: async () => [
        { chainName: "devnet", chainId: 1, indexedBlock: 1n, indexedTimestamp: 1n },
      ],
      head: () => new Promise<ChainHead>(() => {}),
      snapshot: () => undefined,
    });
    await expect(freshness.chainLags()).rejects.toThrow("The RPC of chain 1 did not answer.");
  });
});
