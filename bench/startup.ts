/**
 * Start-up time of `npm start`: from spawning it (anvil, the devnet world, `ponder start` on a
 * fresh PGlite directory) to the first `GET /v1/tokens` answered 200 with a non-empty page.
 * Each run starts from nothing: its own ports, deployment file and PGlite directory in a
 * temporary folder, so a run never reuses a previous world or index.
 *
 *   npx tsx bench/startup.ts [--runs 5]
 *
 * Prints one Markdown row per run (seconds to the first 200; seconds until anvil was up and the
 * world deployed, when `npm start` spawns Ponder; the tokens on the first page; the block
 * `/v1/networks` reports indexed then; the load average before and after the run), then the
 * median over the runs. A run whose
 * `/v1/tokens` never answers 200 within 180 s, or answers 200 with no tokens, fails the
 * benchmark: no median is printed. bench/results/startup.md keeps the recorded runs.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const root = resolve(import.meta.dirname, "..");
const TIMEOUT_MS = 180_000;

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const runs = Number(values.runs);

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

/** A port the OS reports free on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? done(address.port) : fail(new Error("no port")),
      );
    });
  });
}

type Run = {
  seconds: number;
  /** When `npm start` reported anvil up and the world deployed (Ponder starting). */
  devnetSeconds: number | undefined;
  indexedBlock: number | null;
  tokens: number;
  load: string;
};

async function once(): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "startup-bench-"));
  const [port, anvilPort] = [await freePort(), await freePort()];
  const loadBefore = load();
  let output = "";
  const t0 = performance.now();
  // The embedded defaults: no external node, no Postgres.
  const { DATABASE_URL: _db, DATABASE_SCHEMA: _schema, RPC_URL: _rpc, ...inherited } = process.env;
  const child = spawn("npm", ["start"], {
    cwd: root,
    env: {
      ...inherited,
      PORT: String(port),
      ANVIL_PORT: String(anvilPort),
      DEVNET_DEPLOYMENT: join(dir, "deployment.json"),
      PONDER_PGLITE_DIR: join(dir, "pglite"),
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    const url = `http://127.0.0.1:${port}`;
    for (;;) {
      if (performance.now() - t0 > TIMEOUT_MS)
        throw new Error(`no 200 from /v1/tokens within ${TIMEOUT_MS / 1000} s\n${output}`);
      if (child.exitCode !== null) throw new Error(`npm start exited early\n${output}`);
      const res = await fetch(`${url}/v1/tokens`).catch(() => undefined);
      if (res?.status === 200) {
        const seconds = (performance.now() - t0) / 1000;
        const body = (await res.json()) as { data?: unknown[] };
        const tokens = body.data?.length ?? 0;
        if (tokens === 0) throw new Error("/v1/tokens answered 200 with no tokens");
        const networks = (await (await fetch(`${url}/v1/networks`)).json()) as {
          indexedBlock: number | null;
        }[];
        const devnet = /devnet ready after ([\d.]+) s/.exec(output)?.[1];
        return {
          seconds,
          devnetSeconds: devnet === undefined ? undefined : Number(devnet),
          indexedBlock: networks[0]?.indexedBlock ?? null,
          tokens,
          load: loadBefore,
        };
      }
      await res?.arrayBuffer();
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    // npm start stops Ponder and anvil together on SIGINT (as Ctrl-C does).
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGINT");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${runs} runs of npm start, Node ${process.version}, ${cpus().length} cores`);
console.log(
  "| date | run | to first 200 (s) | devnet ready (s) | tokens on page 1 | indexed block | load before (1 / 5 / 15 min) | load after |",
);
console.log("|---|---:|---:|---:|---:|---:|---|---|");
const results: Run[] = [];
for (let i = 0; i < runs; i++) {
  const run = await once();
  results.push(run);
  console.log(
    `| ${new Date().toISOString().slice(0, 10)} | ${i + 1} | ${run.seconds.toFixed(1)} | ${run.devnetSeconds?.toFixed(1) ?? "?"} | ${run.tokens} | ${run.indexedBlock} | ${run.load} | ${load()} |`,
  );
}
const sorted = results.map((r) => r.seconds).sort((a, b) => a - b);
const median =
  sorted.length % 2 === 1
    ? (sorted[(sorted.length - 1) / 2] as number)
    : ((sorted[sorted.length / 2 - 1] as number) + (sorted[sorted.length / 2] as number)) / 2;
console.log(
  `median ${median.toFixed(1)} s to the first 200 of /v1/tokens over ${results.length} runs (min ${sorted[0]?.toFixed(1)} s, max ${sorted.at(-1)?.toFixed(1)} s); load average after: ${load()}`,
);
