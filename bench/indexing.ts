/**
 * Indexing throughput: builds a devnet history of at least `--events` indexed events, then times
 * a cold `ponder start` backfill of it.
 *
 *   npm run bench:indexing -- [--events 100000] [--database pglite|postgres] [--mix real|sync]
 *
 * `--mix real` (the default): the event mix of a real chain, one transaction per block and a few
 * to a few dozen events each (devnet/history-bursts.ts). `--mix sync`: V2 swaps only, 300 per
 * transaction, each a `Sync` (devnet/swap-bursts.ts; the earliest recorded rows).
 *
 * Prints a Markdown row, then one per event kind (count, events/s over the backfill, time in the
 * indexing functions); bench/results/indexing.md keeps the recorded runs.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createPublicClient, http } from "viem";
import { startAnvil } from "../devnet/anvil.js";
import { writeDeployment } from "../devnet/deployment.js";
import { mineHistoryBursts } from "../devnet/history-bursts.js";
import { mineSwapBursts } from "../devnet/swap-bursts.js";
import { deployWorld } from "../devnet/world.js";
import { freePort } from "../test/harness/net.js";

const root = resolve(import.meta.dirname, "..");
const SWAPS_PER_TX = Number(process.env.SWAPS_PER_TX ?? 300);

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "100000" },
    database: { type: "string", default: "pglite" },
    mix: { type: "string", default: "real" },
  },
});
const targetEvents = Number(values.events);
if (values.mix !== "real" && values.mix !== "sync") throw new Error("--mix is real or sync");

// Base fee 0: blocks full of bursts would otherwise compound it past what any account can pay.
const anvil = await startAnvil({ port: await freePort(), baseFee: 0n });
const dir = mkdtempSync(join(tmpdir(), "bench-indexing-"));
try {
  const deployment = await deployWorld({ rpcUrl: anvil.url });
  const genStart = Date.now();
  const generated =
    values.mix === "sync"
      ? await mineSwapBursts({
          rpcUrl: anvil.url,
          deployment,
          swaps: targetEvents,
          swapsPerTx: SWAPS_PER_TX,
        })
      : (await mineHistoryBursts({ rpcUrl: anvil.url, deployment, events: targetEvents })).events;
  const client = createPublicClient({ transport: http(anvil.url) });
  const head = await client.getBlockNumber({ cacheTime: 0 });
  console.error(
    `generated ~${generated} events (${values.mix}) in ${((Date.now() - genStart) / 1000).toFixed(1)} s; head block ${head}`,
  );

  const deploymentFile = join(dir, "deployment.json");
  writeDeployment(deployment, deploymentFile);
  const port = await freePort();
  const schema = `bench_${process.pid}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RPC_URL: anvil.url,
    DEVNET_DEPLOYMENT: deploymentFile,
    PONDER_PGLITE_DIR: join(dir, "pglite"),
    PONDER_TELEMETRY_DISABLED: "true",
  };
  if (values.database === "postgres")
    env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/test";
  else delete env.DATABASE_URL;
  const started = Date.now();
  const ponder = spawn(
    join(root, "node_modules/.bin/ponder"),
    ["start", "--port", String(port), "--schema", schema],
    {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let backfillStarted = 0;
  ponder.stdout?.on("data", (d: Buffer) => {
    if (process.env.BENCH_LOG) process.stderr.write(d);
    if (!backfillStarted && d.toString().includes("Started backfill indexing"))
      backfillStarted = Date.now();
  });
  // Sums a metric's samples by their `event` label (Ponder labels them "Contract:Event").
  const byEvent = (text: string, name: string): Map<string, number> => {
    const out = new Map<string, number>();
    for (const line of text.split("\n")) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      const event = /event="([^"]*)"/.exec(line)?.[1] ?? "";
      out.set(event, (out.get(event) ?? 0) + Number(line.split(" ").pop()));
    }
    return out;
  };
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (ponder.exitCode !== null) throw new Error("ponder exited");
    await new Promise((r) => setTimeout(r, 100));
  }
  const ready = Date.now();
  const metricsText = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const completed = byEvent(metricsText, "ponder_indexing_completed_events");
  const handlerMs = byEvent(metricsText, "ponder_indexing_function_duration_sum");
  const events = [...completed.values()].reduce((a, b) => a + b, 0);
  if (process.env.BENCH_METRICS) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    console.error(
      text
        .split("\n")
        .filter((l) => /_sum|_count|total/.test(l) && !l.startsWith("#"))
        .join("\n"),
    );
  }
  ponder.kill("SIGTERM");
  await new Promise((r) => ponder.once("exit", r));
  if (values.database === "postgres") {
    const { default: pg } = await import("pg");
    const pgClient = new pg.Client({ connectionString: env.DATABASE_URL });
    await pgClient.connect();
    await pgClient.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pgClient.end();
  }
  const backfillSeconds = (ready - (backfillStarted || started)) / 1000;
  console.log(
    `| ${new Date().toISOString().slice(0, 10)} | ${values.database} | ${values.mix} | ${Number(head)} | ${events} | ${backfillSeconds.toFixed(1)} | ${(events / backfillSeconds).toFixed(0)} | ${((ready - started) / 1000).toFixed(1)} |`,
  );
  // Per kind: events/s is the kind's count over the whole backfill (its share of the measured
  // rate); handler time is what its indexing functions took in total.
  console.log("\n| event | events at ready | events/s (over the backfill) | handler time (s) |");
  console.log("|---|---:|---:|---:|");
  for (const [event, count] of [...completed].sort((a, b) => b[1] - a[1])) {
    if (count === 0) continue;
    const ms = handlerMs.get(event) ?? 0;
    console.log(
      `| \`${event}\` | ${count} | ${(count / backfillSeconds).toFixed(0)} | ${(ms / 1000).toFixed(2)} |`,
    );
  }
} finally {
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
}
