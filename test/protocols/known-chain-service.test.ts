/**
 * A known chain in the running service: `npm run indexer` with `PONDER_RPC_URL_8453` (and
 * `START_BLOCK_8453=1`, a replay: the node is an empty anvil under Base's chain id, where none of
 * Base's contracts exist to be read at a state start) and nothing else. Ponder loads the address
 * books through chains.ts, indexes the chain and the API lists it as Base, with the protocols of
 * its table.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { startTestAnvil } from "../harness/anvil.js";
import { jsonRpc } from "../harness/json-rpc.js";
import { freePort } from "../harness/net.js";
import { type PonderProcess, ponderProcess, waitUntil } from "../harness/ponder-process.js";

const root = resolve(import.meta.dirname, "../..");
let anvil: AnvilInstance;
let indexer: PonderProcess | undefined;
let dir: string;

beforeAll(async () => {
  anvil = await startTestAnvil({ chainId: 8453 });
  await jsonRpc(anvil.url, "anvil_mine", ["0x5"]);
  dir = mkdtempSync(join(tmpdir(), "known-chain-"));
  const port = await freePort();
  const child = spawn(
    "npm",
    ["run", "indexer", "--", "--schema", "public", "--port", String(port)],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        npm_config_loglevel: "silent",
        PONDER_RPC_URL_8453: anvil.url,
        START_BLOCK_8453: "1",
        PONDER_PGLITE_DIR: join(dir, "pglite"),
        START_BLOCK_PIN_FILE: join(dir, "start-blocks.json"),
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  indexer = ponderProcess(child, port, { group: true });
  const started = indexer;
  await waitUntil(
    "the indexer is caught up with the chain",
    async () => {
      const res = await fetch(`${started.url}/v1/networks`);
      if (res.status !== 200) return false;
      const [chain] = (await res.json()) as { lagBlocks: number | null }[];
      return chain?.lagBlocks === 0;
    },
    {
      timeoutMs: 240_000,
      pollMs: 500,
      tolerateErrors: true,
      output: started.output,
      process: child,
    },
  );
}, 300_000);

afterAll(async () => {
  await indexer?.stop();
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a known chain with PONDER_RPC_URL_<id> alone", () => {
  test("GET /v1/networks lists it by its title, from its start block", async () => {
    const res = await fetch(`${indexer?.url}/v1/networks`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      {
        id: 8453,
        name: "Base",
        isConnected: true,
        indexedBlock: 5,
        snapshotBlock: 5,
        headBlock: 5,
        lagBlocks: 0,
        lagSeconds: 0,
        maxLagSeconds: 60,
        maxLagBlocks: null,
        historyFromBlock: 1,
      },
    ]);
    const byName = await fetch(`${indexer?.url}/v1/networks?name=base`);
    expect(((await byName.json()) as { id: number }[]).map((c) => c.id)).toEqual([8453]);
  });

  test("GET /v1/projects names it for each protocol of its table, and for no vault list", async () => {
    const res = await fetch(`${indexer?.url}/v1/projects`);
    expect(res.status).toBe(200);
    const chainsOf = Object.fromEntries(
      ((await res.json()) as { id: string; chainIds: string }[]).map((p) => [p.id, p.chainIds]),
    );
    expect({
      "wrapped-native": chainsOf["wrapped-native"],
      "uniswap-v2": chainsOf["uniswap-v2"],
      "uniswap-v3": chainsOf["uniswap-v3"],
      "uniswap-v4": chainsOf["uniswap-v4"],
      "aave-v3": chainsOf["aave-v3"],
      "savings-vaults": chainsOf["savings-vaults"],
    }).toEqual({
      "wrapped-native": "8453",
      "uniswap-v2": "8453",
      "uniswap-v3": "8453",
      "uniswap-v4": "8453",
      "aave-v3": "8453",
      "savings-vaults": "",
    });
  });
});
