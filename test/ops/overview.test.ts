/**
 * The front page's figures (`/overview.json`): progress from the start block to the head, the
 * indexing pace and ETA measured between answers, the request rates less the page's own
 * requests, and a chain whose RPC does not answer.
 */
import { describe, expect, test } from "vitest";
import type { ChainSetup } from "../../engine/core/chain-setup.js";
import type { ChainLag } from "../../src/api/ops/metrics.js";
import { createOverview, type RequestTotals, requestTotals } from "../../src/api/ops/overview.js";

const chain = (id: number, startBlock: number): ChainSetup => ({
  id,
  name: `chain${id}`,
  title: `Chain ${id}`,
  rpc: [],
  startBlock,
  vaults: [],
  stablecoins: [],
  execution: {},
  devnet: false,
});

describe("overview figures", () => {
  test("progress, pace and ETA while backfilling; request rates over the window", async () => {
    let clock = 1_000_000;
    let indexed = 1_000n;
    let totals: RequestTotals = { total: 10, clientErrors: 1, serverErrors: 0 };
    let caughtUp = false;
    const overview = createOverview({
      chains: [chain(1, 500), chain(2, 0)],
      chainLags: async (chainId) => {
        if (chainId === 2) throw new Error("RPC down");
        const lag: ChainLag = {
          chainId: 1,
          indexedBlock: indexed,
          snapshotBlock: undefined,
          headBlock: 3_000n,
          lagBlocks: 3_000n - indexed,
          lagSeconds: (3_000n - indexed) * 12n,
        };
        return [lag];
      },
      headBlock: async () => {
        throw new Error("RPC down");
      },
      caughtUp: async () => caughtUp,
      requestTotals: async () => totals,
      topPools: async () => [],
      now: () => clock,
    });

    const first = await overview();
    expect(first).toEqual({
      generatedAt: 1_000_000,
      chains: [
        {
          id: 1,
          name: "Chain 1",
          status: "backfilling",
          startBlock: 500,
          indexedBlock: 1_000,
          headBlock: 3_000,
          snapshotBlock: null,
          lagBlocks: 2_000,
          // 500 of the 2,500 blocks from the start block to the head.
          progress: 0.2,
          blocksPerSecond: null,
          etaSeconds: null,
          topPools: [],
        },
        {
          id: 2,
          name: "Chain 2",
          status: "backfilling",
          startBlock: 0,
          indexedBlock: null,
          headBlock: null,
          snapshotBlock: null,
          lagBlocks: null,
          progress: null,
          blocksPerSecond: null,
          etaSeconds: null,
          topPools: [],
        },
      ],
      requests: {
        total: 10,
        clientErrors: 1,
        serverErrors: 0,
        perSecond: null,
        clientErrorsPerSecond: null,
        serverErrorsPerSecond: null,
      },
    });

    // 8 s later: 400 more blocks (50/s), 1,600 to go: 32 s.
    clock += 8_000;
    indexed = 1_400n;
    totals = { total: 50, clientErrors: 5, serverErrors: 2 };
    const second = await overview();
    expect(second.chains[0]).toMatchObject({
      indexedBlock: 1_400,
      progress: 0.36,
      blocksPerSecond: 50,
      etaSeconds: 32,
    });
    expect(second.requests).toEqual({
      total: 50,
      clientErrors: 5,
      serverErrors: 2,
      perSecond: 5,
      clientErrorsPerSecond: 0.5,
      serverErrorsPerSecond: 0.25,
    });

    // A minute on, the first sample has left the window: the pace is measured from the second.
    clock += 61_000;
    indexed = 3_000n;
    caughtUp = true;
    totals = { total: 111, clientErrors: 5, serverErrors: 2 };
    const third = await overview();
    expect(third.chains[0]).toMatchObject({
      status: "live",
      indexedBlock: 3_000,
      lagBlocks: 0,
      progress: 1,
      blocksPerSecond: 26.23,
      etaSeconds: null,
    });
    expect(third.requests.perSecond).toBe(1);
  });

  test("request totals add every route's series but the page's own, by kind of status", () => {
    expect(
      requestTotals([
        { labels: { method: "GET", route: "/v1/tokens", status: 200 }, value: 7 },
        { labels: { method: "GET", route: "/v1/tokens", status: 400 }, value: 2 },
        { labels: { method: "GET", route: "/v1/shortcuts/route", status: 503 }, value: 3 },
        { labels: { method: "GET", route: "unmatched", status: 404 }, value: 1 },
        { labels: { method: "GET", route: "/overview.json", status: 200 }, value: 40 },
        { labels: { method: "GET", route: "/", status: 200 }, value: 4 },
      ]),
    ).toEqual({ total: 13, clientErrors: 3, serverErrors: 3 });
  });
});
