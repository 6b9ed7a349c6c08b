import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { recordResponsesOf } from "./contract.js";
import { freePort } from "./net.js";
import {
  assertContract,
  fetchOpenApiDocument,
  type ServiceInstance,
  TEST_DATABASE_URL,
} from "./service.js";

const root = resolve(import.meta.dirname, "../..");

export type ReplicaInstance = {
  /** Base URL of the replica's HTTP API. */
  url: string;
  process: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) once the process ends. */
  exited: Promise<number | null>;
  output: () => string;
  stop: () => Promise<void>;
};

export type StartReplicaParameters = {
  /** Extra environment, over the indexer's own. */
  env?: Record<string, string>;
  /** Where the replica reaches Postgres (a proxy, say); the indexer's database by default. */
  databaseUrl?: string;
};

/**
 * Starts an API-only replica of a Postgres-mode service: `ponder serve` on a free port, on the
 * service's schema, with the service's configuration; resolves when it answers `/ready`.
 * Stop replicas before their service (it owns the deployment file they read).
 */
export async function startReplica(
  service: ServiceInstance,
  params: StartReplicaParameters = {},
): Promise<ReplicaInstance> {
  if (!service.schema) throw new Error("replicas need a Postgres-mode service");
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...service.env,
    ...params.env,
    DATABASE_URL: params.databaseUrl ?? TEST_DATABASE_URL,
  };
  let log = "";
  const child = spawn(
    resolve(root, "node_modules/.bin/ponder"),
    ["serve", "--port", String(port), "--schema", service.schema, "--log-level", "warn"],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  const output = () => log;
  recordResponsesOf(url);
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${url}/ready`).then(
      (r) => r.status === 200,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`replica did not become ready; output:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const document = await fetchOpenApiDocument(url);
  return {
    url,
    process: child,
    exited,
    output,
    stop: async () => {
      const checked = assertContract(url, document);
      checked.catch(() => {});
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      await checked;
    },
  };
}
