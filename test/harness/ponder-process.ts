/**
 * A devnet chain and Ponder processes on it, started and killed one by one: what fault tests
 * need and `startService` (one chain, one process, one database) does not give them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { startAnvil } from "../../devnet/anvil.js";
import { type Deployment, writeDeployment } from "../../devnet/deployment.js";
import { deployWorld } from "../../devnet/world.js";
import { freePort } from "./net.js";

const root = resolve(import.meta.dirname, "../..");

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes are what it removes.
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;

export type DevnetChain = {
  anvil: AnvilInstance;
  deployment: Deployment;
  /** Environment every Ponder process of this chain runs with (no database chosen yet). */
  env: NodeJS.ProcessEnv;
  /** Stops the node and deletes the deployment file. */
  stop: () => Promise<void>;
};

/** A fresh anvil (base fee 0, so full blocks stay affordable) with the devnet world deployed. */
export async function startDevnetChain(params: {
  chainId: number;
  /** The world without Balancer V2 (`balancerV2: false`), for a suite that is not about it. */
  world?: { balancerV2?: boolean };
}): Promise<DevnetChain> {
  const anvil = await startAnvil({ port: await freePort(), chainId: params.chainId, baseFee: 0n });
  const dir = mkdtempSync(join(tmpdir(), "devnet-chain-"));
  try {
    const deployment = await deployWorld({ ...params.world, rpcUrl: anvil.url });
    const deploymentFile = join(dir, "deployment.json");
    writeDeployment(deployment, deploymentFile);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      RPC_URL: anvil.url,
      DEVNET_DEPLOYMENT: deploymentFile,
      PONDER_TELEMETRY_DISABLED: "true",
      // Suites load the API from one address, beyond a keyless client's default budget.
      KEYLESS_RATE_LIMIT_RPS: "0",
    };
    delete env.DATABASE_URL;
    return {
      anvil,
      deployment,
      env,
      stop: async () => {
        await anvil.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await anvil.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export type PonderProcess = {
  url: string;
  process: ChildProcess;
  /** Resolves once the process has exited (by itself or killed). */
  exited: Promise<void>;
  output: () => string;
  /** SIGTERM (unless it has exited already), then waits for the exit. */
  stop: () => Promise<void>;
};

export type SpawnPonderParameters = {
  command: "start" | "serve";
  chain: DevnetChain;
  databaseUrl: string;
  schema: string;
  /**
   * Ponder's log level; `info` shows crash recovery and backfill progress, `error` leaves out
   * the warnings of each failed RPC request (with its whole body). Default `warn`.
   */
  logLevel?: "error" | "warn" | "info";
  env?: Record<string, string>;
};

/** Spawns `ponder start|serve` on a free port; does not wait for anything. */
export async function spawnPonder(params: SpawnPonderParameters): Promise<PonderProcess> {
  const port = await freePort();
  const logLevel = params.logLevel ?? "warn";
  const env: NodeJS.ProcessEnv = {
    ...params.chain.env,
    DATABASE_URL: params.databaseUrl,
    PONDER_LOG_LEVEL: logLevel,
    ...params.env,
  };
  const child = spawn(
    join(root, "node_modules/.bin/ponder"),
    [params.command, "--port", String(port), "--schema", params.schema, "--log-level", logLevel],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  return ponderProcess(child, port);
}

/**
 * A spawned Ponder process (its output piped) as a {@link PonderProcess}; `group`: it was spawned
 * detached, as the leader of a process group that `stop` ends whole (`npm run` starts Ponder in a
 * shell).
 */
export function ponderProcess(
  child: ChildProcess,
  port: number,
  params: { group?: boolean } = {},
): PonderProcess {
  let log = "";
  child.stdout?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  // "close", not "exit": by then the output the process wrote before it exited has been read.
  const exited = new Promise<void>((r) => child.once("close", () => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    exited,
    // Without colours: Ponder's logger colours its lines when `CI` is set, as in CI runs.
    output: () => log.replace(ANSI_ESCAPE, ""),
    stop: async () => {
      if (child.pid && child.exitCode === null && child.signalCode === null) {
        if (params.group) process.kill(-child.pid, "SIGTERM");
        else child.kill("SIGTERM");
      }
      await exited;
    },
  };
}

/**
 * Polls `check` every `pollMs` (default 50) until it holds; fails with the process's output
 * after `timeoutMs`, as soon as `process` exits, or with the error `check` throws (unless
 * `tolerateErrors`: then an error counts as not yet).
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  params: {
    timeoutMs: number;
    output?: () => string;
    process?: ChildProcess;
    pollMs?: number;
    tolerateErrors?: boolean;
  },
): Promise<void> {
  const deadline = Date.now() + params.timeoutMs;
  const holds = () => (params.tolerateErrors ? check().catch(() => false) : check());
  while (!(await holds())) {
    const exited = params.process && params.process.exitCode !== null;
    if (exited || Date.now() > deadline) {
      const why = exited
        ? `: the process exited (${params.process?.exitCode})`
        : ` within ${params.timeoutMs} ms`;
      const output = params.output ? `; output:\n${params.output()}` : "";
      throw new Error(`${what}${why}${output}`);
    }
    await new Promise((r) => setTimeout(r, params.pollMs ?? 50));
  }
}

/**
 * The block Ponder's `_ponder_checkpoint` of `schema` holds for the chain (0 when none yet),
 * through `db` (a connection string, or a connected client for fast polling).
 */
export async function checkpointBlock(db: string | pg.Client, schema: string): Promise<bigint> {
  const client = typeof db === "string" ? new pg.Client({ connectionString: db }) : db;
  if (typeof db === "string") await client.connect();
  try {
    const { rows } = await client.query<{ latest_checkpoint: string }>(
      `select latest_checkpoint from "${schema}"."_ponder_checkpoint"`,
    );
    const checkpoint = rows[0]?.latest_checkpoint;
    // Ponder's checkpoint: timestamp (10 digits), chain id (16), block number (16), ...
    return checkpoint === undefined ? 0n : BigInt(checkpoint.slice(26, 42));
  } catch (error) {
    // The table appears once the instance has prepared its schema.
    if ((error as { code?: string }).code === "42P01") return 0n;
    throw error;
  } finally {
    if (typeof db === "string") await client.end();
  }
}

/** Resolves once `ponder` answers `/ready` 200 and its checkpoint has reached `block`. */
export async function waitForBlock(
  ponder: PonderProcess,
  params: { databaseUrl: string; schema: string; block: bigint; timeoutMs: number },
): Promise<void> {
  await waitUntil(
    `${params.schema} did not reach block ${params.block}`,
    async () => {
      const ready = await fetch(`${ponder.url}/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      return ready && (await checkpointBlock(params.databaseUrl, params.schema)) >= params.block;
    },
    { timeoutMs: params.timeoutMs, output: ponder.output, process: ponder.process },
  );
}

/**
 * Resolves once each of `indexes` answers `/ready` and its checkpoint has reached `block`, each
 * within `timeoutMs` (default 240 s: indexes started together share the machine's cores).
 */
export async function waitForIndexes(
  indexes: readonly { schema: string; ponder?: PonderProcess }[],
  params: { databaseUrl: string; block: bigint; timeoutMs?: number },
): Promise<void> {
  for (const index of indexes) {
    if (!index.ponder) throw new Error(`${index.schema} has no process`);
    await waitForBlock(index.ponder, {
      databaseUrl: params.databaseUrl,
      schema: index.schema,
      block: params.block,
      timeoutMs: params.timeoutMs ?? 240_000,
    });
  }
}

/** Drops `schema` (and what is in it) from the database at `databaseUrl`. */
export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** `numeric[]` (`bigint` array columns) as decimal strings, exact as `numeric` is, not floats. */
const NUMERIC_ARRAY = 1231;
const TEXT_ARRAY = 1009;
const exactTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    pg.types.getTypeParser(
      oid === NUMERIC_ARRAY ? TEXT_ARRAY : oid,
      format,
    )) as typeof pg.types.getTypeParser,
};

/** Runs one query on the database at `databaseUrl` (a connection of its own) and returns its rows. */
export async function queryRows<T extends pg.QueryResultRow>(
  databaseUrl: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl, types: exactTypes });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
