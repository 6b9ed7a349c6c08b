/**
 * The routing snapshot reads the rows the indexer updated every SNAPSHOT_REFRESH_MS (default
 * 200 ms). Two processes on one Postgres index: the indexer's API on the default, and a
 * `ponder serve` replica told to refresh once an hour. After a swap is indexed, the first
 * snapshot moves to the swap's block and the replica's stays where it was loaded.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { devnetActors } from "../harness/actors.js";
import { type ReplicaInstance, startReplica } from "../harness/replicas.js";
import { type ServiceInstance, startService, waitForIndexedBlock } from "../harness/service.js";
import { sample } from "../ops/prometheus.js";

/**
 * How long after a block is indexed the default snapshot must show it: one 200 ms interval
 * and one incremental refresh, with room for a loaded 2-core machine.
 */
const REFRESHED_WITHIN_MS = 10_000;

let service: ServiceInstance;
let replica: ReplicaInstance;

beforeAll(async () => {
  service = await startService({ database: "postgres" });
  replica = await startReplica(service, { env: { SNAPSHOT_REFRESH_MS: "3600000" } });
});

afterAll(async () => {
  // The replica first: the service owns the deployment file it reads.
  const stopped = await Promise.allSettled([replica?.stop()]);
  await service?.stop();
  for (const s of stopped) if (s.status === "rejected") throw s.reason;
});

const snapshotBlock = async (url: string) =>
  sample(await (await fetch(`${url}/metrics/api`)).text(), "shortcuts_snapshot_block", {
    chain_id: String(service.deployment.chainId),
  });

describe("SNAPSHOT_REFRESH_MS", () => {
  test("by default a swap's block reaches the routing snapshot soon after it is indexed; a replica told to refresh hourly keeps the block it loaded", async () => {
    const a = await devnetActors(service);
    const loaded = await snapshotBlock(replica.url);
    expect(loaded).toBe(Number(await a.client.getBlockNumber({ cacheTime: 0 })));

    const { receipt } = await a.swapOnFirstV2Pair();
    expect(receipt.status).toBe("success");
    await waitForIndexedBlock(service, receipt.blockNumber);
    const indexedAt = performance.now();
    let block = await snapshotBlock(service.url);
    while (block !== Number(receipt.blockNumber)) {
      if (performance.now() - indexedAt > REFRESHED_WITHIN_MS) break;
      await new Promise((r) => setTimeout(r, 50));
      block = await snapshotBlock(service.url);
    }
    expect(block).toBe(Number(receipt.blockNumber));

    // Ten of the default intervals later, the hourly replica has not read the new rows.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await snapshotBlock(replica.url)).toBe(loaded);
  });
});
