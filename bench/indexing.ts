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
import { createPublicClient, createWalletClient, http, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { SwapBurstAbi } from "../abis/generated/SwapBurst.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { loadArtifact } from "../contracts/build.js";
import { DEVNET_DEPLOYER_KEY, startAnvil } from "../devnet/anvil.js";
import { writeDeployment } from "../devnet/deployment.js";
import { amountForUsd, chainOf, deployWorld } from "../devnet/world.js";
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

// Full blocks would otherwise compound the EIP-1559 base fee past what any account can pay.
const anvil = await startAnvil({ port: await freePort(), baseFee: 0n });
const dir = mkdtempSync(join(tmpdir(), "bench-indexing-"));
try {
  const deployment = await deployWorld({ rpcUrl: anvil.url });
  const chain = await chainOf(anvil.url);
  const client = createPublicClient({ chain, transport: http(anvil.url) }) as PublicClient;
  const wallet = createWalletClient({
    chain,
    transport: http(anvil.url),
    account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
  });
  const send = async (request: Parameters<typeof wallet.writeContract>[0]) => {
    const hash = await wallet.writeContract(request);
    const receipt = await client
      .waitForTransactionReceipt({ hash, pollingInterval: 5, timeout: 30_000 })
      .catch(async (e) => {
        const tx = await client.getTransaction({ hash }).catch(() => undefined);
        const pool = await client
          .request({ method: "txpool_status" as never })
          .catch(() => undefined);
        const block = await client.getBlock({ blockTag: "latest" });
        console.error(
          "STUCK",
          JSON.stringify(
            { tx, pool, gasLimit: block.gasLimit, baseFee: block.baseFeePerGas, n: block.number },
            (_k, v) => (typeof v === "bigint" ? v.toString() : v),
          ),
        );
        throw e;
      });
    if (receipt.status !== "success") throw new Error(`reverted: ${hash}`);
    return receipt;
  };

  // Stablecoin and token pairs of DevTokens (mintable), so the burst contract can be funded.
  const weth = deployment.weth.toLowerCase();
  const pairs = [];
  for (const pair of deployment.uniswapV2.pairs) {
    const [t0, t1] = await Promise.all([
      client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token0" }),
      client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token1" }),
    ]);
    if (t0.toLowerCase() !== weth && t1.toLowerCase() !== weth) pairs.push({ pair, t0, t1 });
  }
  const burstArt = loadArtifact("SwapBurst");
  const deployHash = await wallet.deployContract({
    abi: SwapBurstAbi,
    bytecode: burstArt.bytecode,
    args: [],
  });
  const burst = (await client.waitForTransactionReceipt({ hash: deployHash })).contractAddress;
  if (!burst) throw new Error("SwapBurst not deployed");
  const byAddress = new Map(deployment.tokens.map((t) => [t.address.toLowerCase(), t]));
  for (const { t0, t1 } of pairs) {
    for (const t of [t0, t1]) {
      const spec = byAddress.get(t.toLowerCase());
      if (!spec) throw new Error(`unknown token ${t}`);
      await send({
        address: t,
        abi: DevTokenAbi,
        functionName: "mint",
        args: [burst, amountForUsd(spec, 10_000_000)],
        account: wallet.account,
        chain,
      });
    }
  }

  const genStart = Date.now();
  let swaps = 0;
  for (let i = 0; swaps < targetEvents; i++) {
    const p = pairs[i % pairs.length];
    if (!p) throw new Error("no pair");
    const spec0 = byAddress.get(p.t0.toLowerCase());
    const spec1 = byAddress.get(p.t1.toLowerCase());
    if (!spec0 || !spec1) throw new Error("no token");
    await send({
      address: burst,
      abi: SwapBurstAbi,
      functionName: "burst",
      args: [p.pair, amountForUsd(spec0, 100), amountForUsd(spec1, 100), BigInt(SWAPS_PER_TX)],
      account: wallet.account,
      chain,
      gas: 29_000_000n,
    });
    swaps += SWAPS_PER_TX;
  }
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
