/**
 * `npm start`: the service on its embedded defaults. Starts anvil on 127.0.0.1:8545 (unless
 * `RPC_URL` points at a node), deploys the devnet world when the chain has none, then runs
 * `ponder start` serving the API on `PORT` (default 42069). Ctrl-C stops everything.
 *
 * Flags: `--activity` keeps making swaps, mints, burns, deposits and redeems;
 * `--pools N --tokens M` deploy N extra pools among M extra tokens (benchmarks).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createPublicClient, http } from "viem";
import { readConfig } from "../config.js";
import { type AnvilInstance, startAnvil } from "./anvil.js";
import { type Deployment, deploymentPath, readDeployment, writeDeployment } from "./deployment.js";
import { devnetIndex } from "./devnet-index.js";
import { purgeSyncCache } from "./sync-cache.js";
import { deployWorld } from "./world.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function log(line: string): void {
  console.log(`[devnet] ${line}`);
}

/** The deployment recorded for this very chain, if its contracts are still there. */
async function existingDeployment(rpcUrl: string): Promise<Deployment | undefined> {
  const deployment = readDeployment();
  if (!deployment) return undefined;
  const client = createPublicClient({ transport: http(rpcUrl) });
  const [chainId, genesis] = await Promise.all([
    client.getChainId(),
    client.getBlock({ blockNumber: 0n }),
  ]);
  if (chainId !== deployment.chainId || genesis.hash !== deployment.genesisHash) return undefined;
  const code = await client.getCode({ address: deployment.weth });
  return code && code !== "0x" ? deployment : undefined;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      activity: { type: "boolean", default: false },
      pools: { type: "string" },
      tokens: { type: "string" },
    },
  });
  const started = Date.now();
  const settings = readConfig();
  let anvil: AnvilInstance | undefined;
  const rpcUrl =
    settings.devnet.rpcUrl ??
    (await (async () => {
      anvil = await startAnvil({ port: settings.devnet.anvilPort });
      log(`anvil listening on ${anvil.url}`);
      return anvil.url;
    })());

  let deployment = await existingDeployment(rpcUrl);
  const freshWorld = deployment === undefined;
  if (deployment) {
    log(`reusing the devnet world in ${deploymentPath()}`);
  } else {
    deployment = await deployWorld({
      rpcUrl,
      scale: { pools: Number(values.pools ?? 0), tokens: Number(values.tokens ?? 0) },
      log,
    });
    writeDeployment(deployment);
    log(`world deployed; addresses written to ${deploymentPath()}`);
  }

  // A new devnet chain must meet a new index: the database is keyed to the chain's genesis.
  const pgliteDir = resolve(root, settings.database.pgliteDir ?? `.devnet/pglite`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RPC_URL: rpcUrl,
    DEVNET_DEPLOYMENT: deploymentPath(),
    PONDER_PGLITE_DIR: pgliteDir,
    PONDER_TELEMETRY_DISABLED: "true",
  };
  const args = ["start", "--port", String(settings.devnet.port)];
  const index = devnetIndex({
    genesisHash: deployment.genesisHash,
    freshWorld,
    databaseUrl: settings.database.url,
    databaseSchema: settings.database.schema,
    pgliteDir,
  });
  args.push("--schema", index.schema);
  if (index.database === "postgres") {
    if (index.purgeSyncCache) await purgeSyncCache(index.databaseUrl, deployment.chainId);
  } else if (index.wipe) {
    rmSync(index.directory, { recursive: true, force: true });
  }
  const ponder = spawn(resolve(root, "node_modules/.bin/ponder"), args, {
    cwd: root,
    env,
    stdio: "inherit",
  });
  log(`ponder starting (devnet ready after ${((Date.now() - started) / 1000).toFixed(1)} s)`);

  let activity: ChildProcess | undefined;
  if (values.activity) {
    activity = spawn(process.execPath, ["--import", "tsx", resolve(root, "devnet/activity.ts")], {
      cwd: root,
      env,
      stdio: "inherit",
    });
  }

  let stopping: Promise<never> | undefined;
  const stop = (code: number): Promise<never> => {
    stopping ??= (async () => {
      activity?.kill("SIGTERM");
      if (ponder.exitCode === null && ponder.signalCode === null) {
        ponder.kill("SIGTERM");
        await new Promise((r) => ponder.once("exit", r));
      }
      await anvil?.stop();
      process.exit(code);
    })();
    return stopping;
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  ponder.once("exit", (code) => void stop(code ?? 1));
  anvil?.process.once("exit", () => {
    if (stopping === undefined) {
      console.error("[devnet] anvil exited; stopping");
      void stop(1);
    }
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
