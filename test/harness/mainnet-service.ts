/**
 * The service on the mainnet-shaped chain, started as an operator starts it on Ethereum: the
 * execution layer put there by `npm run deploy`, then `npm run indexer` with nothing configured
 * but what docs/real-chains.md tells an operator to set (`PONDER_RPC_URL_1`,
 * `DATABASE_URL`, `VAULTS_1`, `START_BLOCK_1`). Its database is a Postgres database of its own, so Ponder's
 * RPC cache for chain 1 (kept per database) starts empty and is dropped with it.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { resolve } from "node:path";
import pg from "pg";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { startTestAnvil } from "./anvil.js";
import { deployMainnetWorld, type MainnetWorld } from "./mainnet-world.js";
import { freePort } from "./net.js";
import { waitUntil } from "./ponder-process.js";
import { TEST_DATABASE_URL } from "./service.js";

const root = resolve(import.meta.dirname, "../..");

/** Anvil's first dev account, unlocked on every anvil: the operator's deployment account. */
export const OPERATOR = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

export type MainnetService = {
  url: string;
  anvil: AnvilInstance;
  world: MainnetWorld;
  /** What `npm run deploy` printed. */
  deployOutput: string;
  /** Everything the indexer printed so far. */
  output: () => string;
  stop: () => Promise<void>;
};

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { cwd: root, env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")} failed: ${stderr}${stdout}`));
      else resolvePromise(stdout);
    });
  });
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Only what a shell gives any program: nothing the service reads is inherited. */
function operatorEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ["PATH", "HOME", "TMPDIR", "LANG", "TERM"]) {
    if (process.env[key] !== undefined) env[key] = process.env[key];
  }
  return env;
}

export async function startMainnetService(): Promise<MainnetService> {
  const anvil = await startTestAnvil({ chainId: 1 });
  const database = `mainnet_shaped_${process.pid}_${anvil.port}`;
  let indexer: ChildProcess | undefined;
  let log = "";
  const output = () => log;
  const stop = async () => {
    if (indexer?.pid && indexer.exitCode === null) {
      const exited = new Promise<void>((r) => indexer?.once("exit", () => r()));
      // `npm run` starts Ponder in a shell: stop the whole process group.
      process.kill(-indexer.pid, "SIGTERM");
      await exited;
    }
    await anvil.stop();
    await adminQuery(`drop database if exists "${database}" with (force)`);
  };
  try {
    const world = await deployMainnetWorld(anvil.url);
    const env = operatorEnvironment();
    const deployOutput = await run(
      "npm",
      ["run", "--silent", "deploy", "--", "--rpc-url", anvil.url, "--unlocked", OPERATOR],
      { ...env, npm_config_loglevel: "silent" },
    );
    await adminQuery(`create database "${database}"`);
    const port = await freePort();
    indexer = spawn(
      "npm",
      ["run", "indexer", "--", "--schema", "shortcuts", "--port", String(port)],
      {
        cwd: root,
        env: {
          ...env,
          PONDER_RPC_URL_1: anvil.url,
          DATABASE_URL: TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${database}`),
          VAULTS_1: `savings-vaults:${world.vault}`,
          START_BLOCK_1: String(world.startBlock),
        },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    indexer.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    indexer.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    const url = `http://127.0.0.1:${port}`;
    await waitUntil(
      "the indexer did not become ready",
      async () => (await fetch(`${url}/ready`)).status === 200,
      { timeoutMs: 240_000, output, process: indexer, pollMs: 200, tolerateErrors: true },
    );
    // Ready means the backfill is done; the newest blocks (Ponder's finality window on
    // mainnet) are indexed live after it. Wait for the head.
    const head = Number(await world.client.getBlockNumber());
    await waitUntil(
      `the indexer did not reach block ${head}`,
      async () => {
        const status = (await (await fetch(`${url}/status`)).json()) as {
          mainnet?: { block: { number: number } };
        };
        return (status.mainnet?.block.number ?? 0) >= head;
      },
      { timeoutMs: 120_000, output, process: indexer, pollMs: 200, tolerateErrors: true },
    );
    return { url, anvil, world, deployOutput, output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
