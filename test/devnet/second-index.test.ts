/**
 * The devnet command docs/real-chains.md gives for a state start beside a running `npm start`:
 * `RPC_URL=http://127.0.0.1:8545 PORT=42169 PONDER_PGLITE_DIR=.devnet/second
 * START_BLOCK_31337=<n> npm start` indexes the same devnet from block `<n>` into its own
 * database, and answers the catalogue, prices and routes as the first one does. Ports,
 * directories and the deployment file are the test's own (the variables the command names, with
 * other values), so that a devnet running on this machine is not touched; and no keyless rate
 * limit, as every suite's service has none.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { jsonRpc } from "../harness/json-rpc.js";
import { freePort } from "../harness/net.js";
import { waitUntil } from "../harness/ponder-process.js";
import { expectSameAnswers, routePath } from "../harness/same-state.js";
import { type ServiceInstance, waitForRoutingGraph } from "../harness/service.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CHAIN_ID = 31_337;

type Started = { url: string; child: ChildProcess; output: () => string; exited: Promise<void> };

/** `npm start` with `env` (the embedded defaults otherwise: no Postgres, no node of its own). */
function npmStart(env: Record<string, string>, port: number): Started {
  const { DATABASE_URL: _db, DATABASE_SCHEMA: _schema, RPC_URL: _rpc, ...inherited } = process.env;
  const child = spawn("npm", ["start"], {
    cwd: root,
    // The test polls and compares from one address, beyond a keyless client's default budget.
    env: { ...inherited, ...env, PORT: String(port), KEYLESS_RATE_LIMIT_RPS: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let log = "";
  child.stdout?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    log += d.toString();
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return { url: `http://127.0.0.1:${port}`, child, output: () => log, exited };
}

/** Stops `npm start` as Ctrl-C does (Ponder and, for the first, anvil with it). */
async function stop(started: Started | undefined): Promise<void> {
  if (!started) return;
  const { child } = started;
  if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGINT");
  await started.exited;
}

/** Until `/v1/networks` says the index is at `block` and `/v1/tokens` answers. */
async function untilServing(started: Started, block: bigint): Promise<void> {
  await waitUntil(
    `${started.url} did not serve block ${block}`,
    async () => {
      const networks = await fetch(`${started.url}/v1/networks`).catch(() => undefined);
      if (networks?.status !== 200) return false;
      const [chain] = (await networks.json()) as { indexedBlock: number | null }[];
      if (chain?.indexedBlock !== Number(block)) return false;
      return (await fetch(`${started.url}/v1/tokens?chainId=${CHAIN_ID}`)).status === 200;
    },
    { timeoutMs: 240_000, output: started.output, process: started.child, tolerateErrors: true },
  );
}

const dir = mkdtempSync(join(tmpdir(), "second-index-"));
let first: Started | undefined;
let second: Started | undefined;
let start: bigint;
let head: bigint;

beforeAll(async () => {
  const anvilPort = await freePort();
  const deployment = { DEVNET_DEPLOYMENT: join(dir, "deployment.json") };
  first = npmStart(
    { ...deployment, ANVIL_PORT: String(anvilPort), PONDER_PGLITE_DIR: join(dir, "pglite") },
    await freePort(),
  );
  const rpcUrl = `http://127.0.0.1:${anvilPort}`;
  await waitUntil(
    "npm start did not deploy its world",
    async () => first?.output().includes("ponder starting") ?? false,
    { timeoutMs: 180_000, output: first.output, process: first.child },
  );
  head = BigInt(await jsonRpc<string>(rpcUrl, "eth_blockNumber", []));
  await untilServing(first, head);
  // In the middle of the world's deployment: pools created both before it and after it.
  start = head / 2n;
  second = npmStart(
    {
      ...deployment,
      RPC_URL: rpcUrl,
      PONDER_PGLITE_DIR: join(dir, "second"),
      [`START_BLOCK_${CHAIN_ID}`]: String(start),
    },
    await freePort(),
  );
  await untilServing(second, head);
}, 600_000);

afterAll(async () => {
  await stop(second);
  await stop(first);
  rmSync(dir, { recursive: true, force: true });
});

describe("a second npm start beside the first, from a start block", () => {
  test("reuses the running devnet and reads its state at the block before the start", () => {
    expect(second?.output()).toContain("[devnet] reusing the devnet world in ");
    expect(second?.output()).toContain(`Chain ${CHAIN_ID}: state start read `);
    expect(second?.output()).toContain(` at block ${start - 1n} in `);
    // The first replayed the world from its first block: no state read.
    expect(first?.output()).not.toContain("state start read");
  });

  test("answers the catalogue, the prices and routes as the first does", async () => {
    const { tokens } = JSON.parse(readFileSync(join(dir, "deployment.json"), "utf8")) as {
      tokens: { symbol: string; address: string }[];
    };
    const symbol = (s: string) => tokens.find((t) => t.symbol === s)?.address as string;
    for (const s of [first, second] as Started[]) {
      await waitForRoutingGraph(
        { url: s.url, output: s.output } as ServiceInstance,
        CHAIN_ID,
        head,
      );
    }
    await expectSameAnswers({
      replay: first?.url as string,
      starts: [{ name: "second npm start", url: second?.url as string }],
      paths: [
        `/v1/tokens?chainId=${CHAIN_ID}`,
        `/v1/tokens?chainId=${CHAIN_ID}&protocolSlug=uniswap-v2`,
        `/v1/prices/${CHAIN_ID}?${tokens.map((t) => `addresses=${t.address}`).join("&")}`,
        routePath({
          chainId: CHAIN_ID,
          tokenIn: symbol("USDC"),
          tokenOut: symbol("WETH"),
          amountIn: 2_500_000_000n,
        }),
        routePath({
          chainId: CHAIN_ID,
          tokenIn: symbol("WETH"),
          tokenOut: symbol("DAI"),
          amountIn: 1_000_000_000_000_000_000n,
        }),
      ],
    });
  });
});
