/**
 * The service on the mainnet-shaped chain, started as an operator starts it on Ethereum: the
 * execution layer put there by `npm run deploy`, then `npm run indexer` with nothing configured
 * but what docs/real-chains.md tells an operator to set (`PONDER_RPC_URL_1`,
 * `DATABASE_URL`, `VAULTS_1`, `START_BLOCK_1`). Its database is a Postgres database of its own, so Ponder's
 * RPC cache for chain 1 (kept per database) starts empty and is dropped with it.
 */
import { execFile, spawn } from "node:child_process";
import { resolve } from "node:path";
import pg from "pg";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { startTestAnvil } from "./anvil.js";
import { deployMainnetWorld, type MainnetWorld } from "./mainnet-world.js";
import { freePort } from "./net.js";
import { type PonderProcess, ponderProcess, waitForBlock } from "./ponder-process.js";
import { TEST_DATABASE_URL } from "./service.js";

const root = resolve(import.meta.dirname, "../..");

/** Anvil's first dev account, unlocked on every anvil: the operator's deployment account. */
export const OPERATOR = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

/** The mainnet-shaped chain with the execution layer deployed, and a database for its indexes. */
export type MainnetChain = {
  anvil: AnvilInstance;
  world: MainnetWorld;
  /** What `npm run deploy` printed. */
  deployOutput: string;
  /** The chain's own database: every index of it is a schema there. */
  databaseUrl: string;
  /** Stops the node and drops the database. */
  stop: () => Promise<void>;
};

export type MainnetService = Omit<MainnetChain, "databaseUrl"> & {
  url: string;
  /** Everything the indexer printed so far. */
  output: () => string;
};

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { cwd: root, env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")} failed: ${stderr}${stdout}`));
      else resolvePromise(stdout);
    });
  });
}

/**
 * Runs one statement on the test database. A server at its connection limit (suites running
 * beside this one) is asked again: the database must be dropped, not left behind.
 */
async function adminQuery(sql: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    try {
      await client.connect();
      await client.query(sql);
      return;
    } catch (error) {
      const tooManyClients = (error as { code?: string }).code === "53300";
      if (!tooManyClients || attempt === 20) throw error;
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await client.end().catch(() => {});
    }
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

/**
 * A fresh anvil with chain id 1, the mainnet-shaped world deployed on it (its Aave V3 market too
 * when `aaveV3` is set), the execution layer put there by `npm run deploy`, and an empty database
 * of its own.
 */
export async function startMainnetChain(options: { aaveV3?: boolean } = {}): Promise<MainnetChain> {
  const anvil = await startTestAnvil({ chainId: 1 });
  const database = `mainnet_shaped_${process.pid}_${anvil.port}`;
  let created = false;
  const stop = async () => {
    await anvil.stop();
    if (created) await adminQuery(`drop database if exists "${database}" with (force)`);
  };
  try {
    const world = await deployMainnetWorld(anvil.url, options);
    const deployOutput = await run(
      "npm",
      ["run", "--silent", "deploy", "--", "--rpc-url", anvil.url, "--unlocked", OPERATOR],
      { ...operatorEnvironment(), npm_config_loglevel: "silent" },
    );
    await adminQuery(`create database "${database}"`);
    created = true;
    const databaseUrl = TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${database}`);
    return { anvil, world, deployOutput, databaseUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Spawns `npm run indexer` on the chain into `schema` of its database, with the operator's
 * variables and `START_BLOCK_1=startBlock` (and the `AAVE_V3_POOL_1` variables naming the world's
 * market, when it has one); does not wait for anything.
 */
export async function spawnMainnetIndexer(
  chain: MainnetChain,
  params: { schema: string; startBlock: number | bigint },
): Promise<PonderProcess> {
  const port = await freePort();
  const indexer = spawn(
    "npm",
    ["run", "indexer", "--", "--schema", params.schema, "--port", String(port)],
    {
      cwd: root,
      env: {
        ...operatorEnvironment(),
        PONDER_RPC_URL_1: chain.anvil.url,
        DATABASE_URL: chain.databaseUrl,
        VAULTS_1: `savings-vaults:${chain.world.vault}`,
        START_BLOCK_1: String(params.startBlock),
        ...(chain.world.aaveV3 && {
          AAVE_V3_POOL_1: chain.world.aaveV3.pool,
          AAVE_V3_POOL_ADDRESSES_PROVIDER_1: chain.world.aaveV3.poolAddressesProvider,
          AAVE_V3_POOL_CONFIGURATOR_1: chain.world.aaveV3.poolConfigurator,
        }),
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  return ponderProcess(indexer, port, { group: true });
}

/** The chain and one index of it, a full replay from the world's first block. */
export async function startMainnetService(): Promise<MainnetService> {
  const chain = await startMainnetChain();
  let indexer: PonderProcess | undefined;
  const stop = async () => {
    await indexer?.stop();
    await chain.stop();
  };
  try {
    indexer = await spawnMainnetIndexer(chain, {
      schema: "shortcuts",
      startBlock: chain.world.startBlock,
    });
    // Ready means the backfill is done; the newest blocks (Ponder's finality window on mainnet)
    // are indexed live after it: the checkpoint, which the API's readiness reads too, says when.
    await waitForBlock(indexer, {
      databaseUrl: chain.databaseUrl,
      schema: "shortcuts",
      // Not the client's cached answer: `npm run deploy` has mined blocks since its last read.
      block: await chain.world.client.getBlockNumber({ cacheTime: 0 }),
      timeoutMs: 240_000,
    });
    const { anvil, world, deployOutput } = chain;
    return { url: indexer.url, anvil, world, deployOutput, output: indexer.output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
