/**
 * Sustained load on the devnet: starts the service as the tests do (fresh anvil, devnet world,
 * `ponder start`), then loads each endpoint from a separate load-generator process
 * (bench/load-runner.ts, autocannon) over loopback, and reads the memory of the Ponder process
 * before and after.
 *
 *   npx tsx bench/load.ts [--seconds 60] [--connections 64] [--warmup 60]
 *     [--only tokens|route|bundle] [--activity] [--activity-interval 1000]
 *     [--database pglite|postgres] [--replica] [--trace-lag]
 *
 * Per endpoint: a warm-up load in rounds of 5 s until the Ponder process has run two major GCs
 * (at most `--warmup` seconds), RSS, the measured run, RSS again. Every answer is checked
 * (bench/load-runner.ts); non-2xx answers count as errors and a sample of them is printed.
 * The table at the end holds only runs in which every answer was a good one (a 200 with the
 * expected body) and none failed to arrive; any other run is printed as not recordable and the
 * script exits 1.
 * With `--activity` the devnet activity generator (devnet/activity.ts) mines swaps, mints,
 * burns, deposits and redeems during the measured run, one every `--activity-interval` ms;
 * the measured run starts once the index has caught up with the generator's first approvals.
 * With `--replica` (and `--database postgres`) the load goes to an API-only replica (`ponder
 * serve`) of the indexer's schema. `--trace-lag` prints every lag sample as it is read.
 * bench/results/load.md keeps the recorded runs.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { type ReplicaInstance, startReplica } from "../test/harness/replicas.js";
import { startService, waitForIndexedBlock } from "../test/harness/service.js";
import { type LoadReport, runLoad } from "./load-runner.js";
import {
  assertServes,
  ENDPOINTS,
  endpointRequests,
  expectAnswers,
  heapOf,
  rssMiB,
  startActivity,
  warmUp,
} from "./load-targets.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    connections: { type: "string", default: "64" },
    warmup: { type: "string", default: "60" },
    only: { type: "string" },
    activity: { type: "boolean", default: false },
    "activity-interval": { type: "string", default: "1000" },
    database: { type: "string", default: "pglite" },
    replica: { type: "boolean", default: false },
    "trace-lag": { type: "boolean", default: false },
  },
});
if (values.database !== "pglite" && values.database !== "postgres")
  throw new Error("--database must be pglite or postgres");
if (values.replica && values.database !== "postgres")
  throw new Error("--replica needs --database postgres (a replica reads the indexer's schema)");
if (values.only && !ENDPOINTS.includes(values.only as never))
  throw new Error(`--only must be one of ${ENDPOINTS.join(", ")}`);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const warmup = Number(values.warmup);
const activityIntervalMs = Number(values["activity-interval"]);

/** How often the routing data's lag is read during a run. */
const LAG_SAMPLE_MS = 250;

type LagSamples = {
  blocks: number[];
  seconds: number[];
  /** The index's own lag in blocks (the indexer's block behind the head). */
  indexBlocks: number[];
  unanswered: number;
};

/**
 * Reads `/v1/networks` every LAG_SAMPLE_MS until stopped: the devnet chain's lag (the routing
 * snapshot's block behind the head, in blocks and in seconds of chain time), as the freshness
 * check that answers 503 sees it. A read waits in the same queue as the load's requests.
 */
function sampleLag(url: string, trace: boolean): { stop: () => Promise<LagSamples> } {
  const samples: LagSamples = { blocks: [], seconds: [], indexBlocks: [], unanswered: 0 };
  let running = true;
  const traceStart = Date.now();
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const res = await fetch(`${url}/v1/networks`, { signal: AbortSignal.timeout(10_000) });
        const [chain] = (await res.json()) as {
          lagBlocks: number | null;
          lagSeconds: number | null;
          indexedBlock: number | null;
          headBlock: number | null;
        }[];
        if (
          chain?.lagBlocks != null &&
          chain.lagSeconds != null &&
          chain.indexedBlock != null &&
          chain.headBlock != null
        ) {
          samples.blocks.push(chain.lagBlocks);
          samples.seconds.push(chain.lagSeconds);
          samples.indexBlocks.push(chain.headBlock - chain.indexedBlock);
          if (trace)
            console.log(
              `lag at ${((Date.now() - traceStart) / 1000).toFixed(2)} s: head ${chain.headBlock}, routing data ${chain.lagBlocks} and index ${chain.headBlock - chain.indexedBlock} blocks behind`,
            );
        } else samples.unanswered++;
      } catch {
        samples.unanswered++;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, LAG_SAMPLE_MS - (Date.now() - started))));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** The `q` quantile of `values` (nearest rank; "-" when there are none). */
function percentile(values: number[], q: number): string {
  if (values.length === 0) return "-";
  const sorted = [...values].sort((a, b) => a - b);
  return String(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
}

const service = await startService({ database: values.database });
let replica: ReplicaInstance | undefined;
try {
  // With --replica the load goes to an API-only replica (`ponder serve`) on the indexer's
  // schema, and the indexer's process serves nothing but its own health.
  replica = values.replica ? await startReplica(service) : undefined;
  const served = replica ?? service;
  const pid = served.process.pid;
  if (pid === undefined) throw new Error("the ponder process has no pid");
  assertServes(pid, Number(new URL(served.url).port));
  const head = async () => {
    const res = await fetch(service.anvil.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
    });
    return BigInt(((await res.json()) as { result: string }).result);
  };
  const targets = await endpointRequests({
    deployment: service.deployment,
    rpcUrl: service.anvil.url,
  });
  console.log(
    `ponder pid ${pid} (node, listening on ${served.url}${replica ? `, an API-only replica of the indexer pid ${service.process.pid}` : ""}), ${values.database}; ${connections} connections, ${seconds} s per endpoint after a ${warmup} s warm-up${values.activity ? `; activity every ${activityIntervalMs} ms` : ""}`,
  );
  const rows: string[] = [];
  for (const endpoint of ENDPOINTS) {
    if (values.only && values.only !== endpoint) continue;
    await waitForIndexedBlock(service, await head(), 60_000);
    // Answers are expected byte for byte unless activity moves the chain during the run.
    const requests = await expectAnswers({
      url: served.url,
      endpoint,
      requests: targets[endpoint],
      exact: !values.activity,
    });
    const warm = await warmUp({
      url: served.url,
      connections,
      requests,
      roundSeconds: 5,
      maxSeconds: warmup,
    });
    const rssBefore = rssMiB(pid);
    const heapBefore = await heapOf(served.url);

    const headBefore = await head();
    const activity = values.activity
      ? startActivity({
          rpcUrl: service.anvil.url,
          deployment: service.deployment,
          intervalMs: activityIntervalMs,
          seed: ENDPOINTS.indexOf(endpoint) + 1,
        })
      : undefined;
    let report: LoadReport;
    let activityRun: { actions: number; error?: Error } = { actions: 0 };
    let lag: LagSamples = { blocks: [], seconds: [], indexBlocks: [], unanswered: 0 };
    try {
      // The generator's one-time approvals come first, a burst of blocks: load after them.
      await activity?.started;
      // ... and once the index has caught up with them and with what was mined meanwhile (the
      // lag measured is the run's own).
      if (activity) {
        for (let target = await head(); ; ) {
          await waitForIndexedBlock(service, target, 60_000);
          const now = await head();
          if (now - target <= 2n) break;
          target = now;
        }
      }
      const sampler = sampleLag(served.url, values["trace-lag"]);
      try {
        report = await runLoad({ url: served.url, connections, seconds, requests });
      } finally {
        lag = await sampler.stop();
      }
    } finally {
      if (activity) activityRun = await activity.stop();
    }
    const blocks = (await head()) - headBefore;
    const rssAfter = rssMiB(pid);
    const heapAfter = await heapOf(served.url);

    const ratio = rssAfter / rssBefore;
    const byStatus = Object.entries(report.statuses)
      .filter(([status]) => status !== "200")
      .map(([status, n]) => `${n}×${status}`)
      .join(", ");
    const byError = Object.entries(report.errorCodes)
      .map(([code, n]) => `${n}×${code}`)
      .join(", ");
    console.log(
      [
        `${endpoint}: ${report.requestsPerSecond} req/s, p50 ${report.latency.p50} ms, p99 ${report.latency.p99} ms, max ${report.latency.max} ms`,
        `  responses ${report.responses} (${report.perRequest.map((r) => r.responses).join(" / ")} per request), errors ${report.errors}${byError ? ` (${byError})` : ""}, timeouts ${report.timeouts}, non-2xx ${report.non2xx}${byStatus ? ` (${byStatus})` : ""}, wrong answers ${report.wrongAnswers}`,
        `  warm-up ${warm.seconds} s (${warm.report.requestsPerSecond} req/s, ${warm.majorGc ? "two major GCs" : "fewer than two major GCs"}); RSS ${rssBefore.toFixed(0)} MiB before, ${rssAfter.toFixed(0)} MiB after (×${ratio.toFixed(3)}); heap in use ${heapBefore.heapUsedMiB.toFixed(0)} → ${heapAfter.heapUsedMiB.toFixed(0)} MiB, ${heapAfter.majorGcs - heapBefore.majorGcs} major GCs during the run`,
        `  routing data's lag behind the head (${lag.blocks.length} samples of /v1/networks, one every ${LAG_SAMPLE_MS} ms${lag.unanswered ? `, ${lag.unanswered} unanswered` : ""}): blocks p50 ${percentile(lag.blocks, 0.5)}, p99 ${percentile(lag.blocks, 0.99)}, max ${percentile(lag.blocks, 1)}; seconds of chain time p50 ${percentile(lag.seconds, 0.5)}, p99 ${percentile(lag.seconds, 0.99)}, max ${percentile(lag.seconds, 1)}; the index itself: blocks p50 ${percentile(lag.indexBlocks, 0.5)}, p99 ${percentile(lag.indexBlocks, 0.99)}, max ${percentile(lag.indexBlocks, 1)}`,
        ...(values.activity
          ? [
              `  activity: ${blocks} blocks mined (approvals included), ${activityRun.actions} actions${activityRun.error ? `; the generator stopped early: ${activityRun.error.message}` : ""}`,
            ]
          : []),
      ].join("\n"),
    );
    for (const s of report.samples)
      console.log(`  sample: ${s.status} ${s.path}: ${s.problem}\n    ${s.body}`);
    // A good answer is a 200 with the expected body (wrongAnswers counts every other answer).
    const good = report.responses - report.wrongAnswers;
    const row = `| ${new Date().toISOString().slice(0, 10)} | ${endpoint} | ${values.database} | ${values.activity ? `${blocks} blocks` : "none"} | ${connections} | ${seconds} | ${report.requestsPerSecond} | ${report.latency.p50} | ${report.latency.p99} | ${good} | ${report.errors} | ${report.timeouts} | ${report.non2xx} | ${report.wrongAnswers} | ${rssBefore.toFixed(0)} | ${rssAfter.toFixed(0)} | ${ratio.toFixed(2)} | ${loadavg()[0]?.toFixed(2)} |`;
    // A run that measured failures is not a figure of the service: it is reported, not recorded.
    if (report.errors + report.timeouts + report.wrongAnswers > 0 || good === 0) {
      console.log(`  NOT RECORDABLE (answers that failed, or none that succeeded): ${row}`);
      process.exitCode = 1;
    } else rows.push(row);
  }
  console.log(
    "\n| date | endpoint | database | activity | connections | seconds | req/s | p50 (ms) | p99 (ms) | good answers | errors | timeouts | non-2xx | wrong answers | RSS before (MiB) | RSS after (MiB) | after/before | load (1 min) |",
  );
  console.log(
    "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const row of rows) console.log(row);
} finally {
  await replica?.stop();
  await service.stop();
}
