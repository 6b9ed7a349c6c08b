import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AnvilInstance, AnvilParameters } from "../../devnet/anvil.js";
import { type Deployment, writeDeployment } from "../../devnet/deployment.js";
import { purgeSyncCache } from "../../devnet/sync-cache.js";
import { deployWorld } from "../../devnet/world.js";
import { startTestAnvil } from "./anvil.js";
import {
  contractViolations,
  type OpenApiDocumentLike,
  recordResponsesOf,
  takeRecordings,
} from "./contract.js";
import { freePort } from "./net.js";
import { dropSchema, waitUntil } from "./ponder-process.js";

const root = resolve(import.meta.dirname, "../..");

/** The local Postgres every machine of this project runs (trust auth). */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

export type ServiceInstance = {
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:41234 */
  url: string;
  anvil: AnvilInstance;
  deployment: Deployment;
  /** Postgres schema, in Postgres mode. */
  schema?: string;
  /** Environment of the ponder process (API replicas of this index reuse it). */
  env: NodeJS.ProcessEnv;
  /** The ponder process. */
  process: ChildProcess;
  /** Output of the ponder process so far (for failure messages). */
  output: () => string;
  stop: () => Promise<void>;
};

export type StartServiceParameters = {
  database: "pglite" | "postgres";
  /** The chain's id (default 31337, or a random one per Postgres suite). */
  chainId?: number;
  /** How the suite's anvil runs besides its port and chain id. */
  anvil?: Pick<AnvilParameters, "network">;
  /** Runs once the world is deployed, before the indexer starts (more pools, chain settings). */
  prepare?: (anvil: AnvilInstance, deployment: Deployment) => Promise<void>;
  /** Extra environment for the ponder process, or a function of the deployed world giving it. */
  env?: Record<string, string> | ((deployment: Deployment) => Record<string, string>);
  /**
   * Check every response the suite received against the service's OpenAPI document when it
   * stops (default true): `stop()` then fails listing the violations.
   */
  contract?: boolean;
  /**
   * The RPC URL the ponder process is given, from the suite's anvil URL (default: that URL), e.g.
   * a proxy in front of it.
   */
  ponderRpcUrl?: (anvilUrl: string) => Promise<string>;
  /**
   * Wait until the index is ready and at the chain head (default true); when false, resolve as
   * soon as the HTTP server answers `/health`, while the backfill may still run.
   */
  waitForReady?: boolean;
};

/** Fetches the service's OpenAPI document, for the contract check at `stop()`. */
export async function fetchOpenApiDocument(url: string): Promise<OpenApiDocumentLike> {
  const res = await fetch(`${url}/v1/openapi.json`);
  if (res.status !== 200) throw new Error(`GET ${url}/v1/openapi.json answered ${res.status}`);
  return (await res.json()) as OpenApiDocumentLike;
}

/** Checks what was recorded from `url` against `document`; throws listing the violations. */
export async function assertContract(
  url: string,
  document: OpenApiDocumentLike | undefined,
): Promise<void> {
  const recorded = await takeRecordings(url);
  if (!document) return;
  const violations = contractViolations(document, recorded);
  if (violations.length > 0) {
    throw new Error(
      `${violations.length} of ${recorded.length} responses from ${url} break the OpenAPI document:\n${violations.join("\n")}`,
    );
  }
}

/**
 * Starts what `npm start` starts, isolated for one suite: a fresh anvil on a free port, the
 * devnet world, and `ponder start` on a free port with its own database; resolves when ready.
 */
export async function startService(params: StartServiceParameters): Promise<ServiceInstance> {
  // Suites sharing the Postgres sync cache must not share a chain id: each gets its own.
  const chainId =
    params.chainId ??
    (params.database === "postgres" ? 900_000 + Math.floor(Math.random() * 90_000) : 31337);
  if (params.database === "postgres") await purgeSyncCache(TEST_DATABASE_URL, chainId);
  const anvil = await startTestAnvil({ ...params.anvil, chainId });
  const dir = mkdtempSync(join(tmpdir(), "shortcuts-test-"));
  const deployment = await deployWorld({ rpcUrl: anvil.url });
  await params.prepare?.(anvil, deployment);
  const deploymentFile = join(dir, "deployment.json");
  writeDeployment(deployment, deploymentFile);
  const port = await freePort();
  const schema = params.database === "postgres" ? `test_${process.pid}_${port}` : "public";
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RPC_URL: params.ponderRpcUrl ? await params.ponderRpcUrl(anvil.url) : anvil.url,
    DEVNET_DEPLOYMENT: deploymentFile,
    PONDER_PGLITE_DIR: join(dir, "pglite"),
    PONDER_TELEMETRY_DISABLED: "true",
    PONDER_LOG_LEVEL: "warn",
    // Suites read the index through SQL over HTTP, which PGlite serves only when turned on.
    ANALYTICS_SQL: "on",
    // Suites load the API from one address far beyond a keyless client's default budget; a
    // suite about that budget sets its own.
    KEYLESS_RATE_LIMIT_RPS: "0",
    ...(typeof params.env === "function" ? params.env(deployment) : params.env),
  };
  delete env.DATABASE_URL;
  if (params.database === "postgres") env.DATABASE_URL = TEST_DATABASE_URL;
  let log = "";
  const ponder: ChildProcess = spawn(
    join(root, "node_modules/.bin/ponder"),
    ["start", "--port", String(port), "--schema", schema, "--log-level", "warn"],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  ponder.stdout?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  ponder.stderr?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  const exited = new Promise<void>((r) => ponder.once("exit", () => r()));
  const url = `http://127.0.0.1:${port}`;
  const contract = params.contract ?? true;
  if (contract) recordResponsesOf(url);
  let document: OpenApiDocumentLike | undefined;
  const output = () => log;
  const stop = async () => {
    const checked = contract ? assertContract(url, document) : Promise.resolve();
    // Settled here, thrown after the cleanup below.
    checked.catch(() => {});
    if (ponder.exitCode === null) {
      ponder.kill("SIGTERM");
      await exited;
    }
    await anvil.stop();
    rmSync(dir, { recursive: true, force: true });
    if (params.database === "postgres") {
      await dropSchema(TEST_DATABASE_URL, schema);
      await purgeSyncCache(TEST_DATABASE_URL, chainId);
    }
    await checked;
  };
  const waitForReady = params.waitForReady ?? true;
  try {
    await waitUntil(
      waitForReady ? "ponder did not become ready" : "ponder did not answer /health",
      async () => (await fetch(`${url}/${waitForReady ? "ready" : "health"}`)).status === 200,
      { timeoutMs: 120_000, output, pollMs: 100, tolerateErrors: true },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const service = {
    url,
    anvil,
    deployment,
    schema: params.database === "postgres" ? schema : undefined,
    env,
    process: ponder,
    output,
    stop,
  };
  if (!waitForReady) {
    if (contract) document = await fetchOpenApiDocument(url);
    return service;
  }
  // Ready means the backfill is done; the newest blocks are then indexed live. Wait for the head.
  const head = await fetch(anvil.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
  }).then(async (r) => BigInt(((await r.json()) as { result: string }).result));
  await waitForIndexedBlock(service, head, 60_000);
  if (contract) document = await fetchOpenApiDocument(url);
  return service;
}

/**
 * Resolves once the indexer has processed `blockNumber` (per Ponder's `/status`). Fails when the
 * indexed block stops advancing for `timeoutMs`: a loaded machine indexes a burst of blocks slowly
 * but steadily, and only a stalled indexer is an error.
 */
export async function waitForIndexedBlock(
  service: ServiceInstance,
  blockNumber: bigint,
  timeoutMs = 20_000,
) {
  let reached = -1n;
  let advancedAt = Date.now();
  for (;;) {
    const block = await indexedBlock(service).catch(() => undefined);
    if (block !== undefined && block >= blockNumber) return;
    if (block !== undefined && block > reached) {
      reached = block;
      advancedAt = Date.now();
    }
    if (Date.now() - advancedAt > timeoutMs) {
      const at = reached < 0n ? "no block" : `block ${reached}`;
      throw new Error(
        `indexer did not reach block ${blockNumber}: it stayed at ${at} for ${timeoutMs} ms; output:\n${service.output()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The highest block Ponder's `/status` reports processed across its chains. */
async function indexedBlock(service: ServiceInstance): Promise<bigint> {
  const status = (await (await fetch(`${service.url}/status`)).json()) as Record<
    string,
    { block: { number: number } }
  >;
  return Object.values(status).reduce((max, s) => {
    const n = BigInt(s.block.number);
    return n > max ? n : max;
  }, -1n);
}

/**
 * Waits until the service's routing graph of `chainId` reflects `blockNumber` (its
 * `/v1/networks` snapshot block), so that quotes are of the chain's state at that block.
 */
export async function waitForRoutingGraph(
  service: ServiceInstance,
  chainId: number,
  blockNumber: bigint,
  timeoutMs = 20_000,
) {
  await waitUntil(
    `routing graph of chain ${chainId} did not reach block ${blockNumber}`,
    async () => {
      const res = await fetch(`${service.url}/v1/networks?chainId=${chainId}`);
      const [network] = (await res.json()) as { snapshotBlock: number | null }[];
      return BigInt(network?.snapshotBlock ?? -1) >= blockNumber;
    },
    { timeoutMs, output: service.output, pollMs: 50, tolerateErrors: true },
  );
}

/** Runs a GraphQL query against the service and returns `data`, failing on GraphQL errors. */
export async function graphqlQuery<T>(service: ServiceInstance, query: string): Promise<T> {
  const res = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  if (body.errors || !body.data) throw new Error(`GraphQL error: ${JSON.stringify(body.errors)}`);
  return body.data;
}
