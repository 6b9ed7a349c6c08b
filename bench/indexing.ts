/**
 * Indexing throughput: builds a devnet history of at least `--events` pool events (Uniswap V2
 * swaps, each a `Sync` the indexer handles), then times a cold `ponder start` backfill of it.
 *
 *   npm run bench:indexing -- [--events 100000] [--database pglite|postgres]
 *
 * Prints a Markdown row; bench/results/indexing.md keeps the recorded runs.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createPublicClient, http } from "viem";
import { startAnvil } from "../devnet/anvil.js";
import { writeDeployment } from "../devnet/deployment.js";
import { mineSwapBursts } from "../devnet/swap-bursts.js";
import { deployWorld } from "../devnet/world.js";
import { freePort } from "../test/harness/net.js";

const root = resolve(import.meta.dirname, "..");
const SWAPS_PER_TX = Number(process.env.SWAPS_PER_TX ?? 300);

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "100000" },
    database: { type: "string", default: "pglite" },
  },
});
const targetEvents = Number(values.events);

// Base fee 0: blocks full of bursts would otherwise compound it past what any account can pay.
const anvil = await startAnvil({ port: await freePort(), baseFee: 0n });
const dir = mkdtempSync(join(tmpdir(), "bench-indexing-"));
try {
  const deployment = await deployWorld({ rpcUrl: anvil.url });
  const genStart = Date.now();
  const swaps = await mineSwapBursts({
    rpcUrl: anvil.url,
    deployment,
    swaps: targetEvents,
    swapsPerTx: SWAPS_PER_TX,
  });
  const client = createPublicClient({ transport: http(anvil.url) });
  const head = await client.getBlockNumber({ cacheTime: 0 });
  console.error(
    `generated ${swaps} swaps in ${((Date.now() - genStart) / 1000).toFixed(1)} s; head block ${head}`,
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
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return text
      .split("\n")
      .filter((l) => l.startsWith(name))
      .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
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
  const events = await metric("ponder_indexing_completed_events");
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
    `| ${new Date().toISOString().slice(0, 10)} | ${values.database} | ${Number(head)} | ${events} | ${backfillSeconds.toFixed(1)} | ${(events / backfillSeconds).toFixed(0)} | ${((ready - started) / 1000).toFixed(1)} |`,
  );
} finally {
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
}
