import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** Anvil's well-known first dev account (from its default mnemonic): deploys the devnet world. */
export const DEVNET_DEPLOYER_KEY =
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as const;

/** Anvil's default dev accounts 1..9 (private keys), funded with ETH on a fresh chain. */
export const DEVNET_ACCOUNT_KEYS = [
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
  "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
] as const;

export const DEVNET_CHAIN_ID = 31337;

export type AnvilParameters = {
  /** TCP port on 127.0.0.1. Default 8545. */
  port?: number;
  chainId?: number;
  /** Seconds between blocks; default: a block per transaction (automine). */
  blockTime?: number;
  /** Initial base fee in wei; 0 keeps it at 0 however full blocks get (load generation). */
  baseFee?: bigint;
  /** The network family anvil emulates (`optimism`: OP-stack deposit transactions). */
  network?: "optimism";
  /** Forward anvil's own log to this process's stderr. */
  verbose?: boolean;
  /** A state file (`anvil_dumpState`, unzipped) to start from: the chain continues from it. */
  loadState?: string;
  /**
   * Keep EIP-170's 24,576-byte limit on the code a creation returns, as every public chain does
   * (an `eth_call` without `to` included). Default off: the devnet world is deployed without it.
   */
  codeSizeLimit?: boolean;
};

export type AnvilInstance = {
  url: string;
  port: number;
  process: ChildProcess;
  /** Stops the node and waits for it to exit. */
  stop: () => Promise<void>;
};

/** Path of the anvil binary shipped by the `@foundry-rs/anvil-<platform>` npm package. */
export function anvilBinaryPath(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const manifest = require.resolve(`${pkg}/package.json`);
  return join(dirname(manifest), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

async function rpcReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Starts a fresh anvil node on 127.0.0.1 and resolves once it answers JSON-RPC.
 * @example const anvil = await startAnvil({ port: 8545 }); ...; await anvil.stop();
 */
export async function startAnvil(params: AnvilParameters = {}): Promise<AnvilInstance> {
  const port = params.port ?? 8545;
  const url = `http://127.0.0.1:${port}`;
  if (await rpcReady(url)) {
    throw new Error(
      `port ${port} already answers JSON-RPC; stop that node or set RPC_URL to use it`,
    );
  }
  const args = [
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--chain-id",
    String(params.chainId ?? DEVNET_CHAIN_ID),
    "--accounts",
    "10",
    "--balance",
    "1000000",
    "--hardfork",
    // Isthmus is the OP stack's upgrade that brought Prague's changes (EIP-7702 among them).
    params.network === "optimism" ? "isthmus" : "prague",
  ];
  if (!params.codeSizeLimit) args.push("--disable-code-size-limit");
  if (params.blockTime !== undefined) args.push("--block-time", String(params.blockTime));
  if (params.baseFee !== undefined) args.push("--block-base-fee-per-gas", String(params.baseFee));
  if (params.network !== undefined) args.push("--network", params.network);
  if (params.loadState !== undefined) args.push("--load-state", params.loadState);
  const child = spawn(anvilBinaryPath(), args, {
    stdio: ["ignore", params.verbose ? "inherit" : "ignore", "inherit"],
  });
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", () => {
      exited = true;
      resolve();
    });
  });
  const deadline = Date.now() + 15_000;
  while (!(await rpcReady(url))) {
    if (exited) throw new Error(`anvil exited before answering on ${url}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`anvil did not answer on ${url} within 15 s`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    process: child,
    stop: async () => {
      if (!exited) child.kill("SIGTERM");
      await exitPromise;
    },
  };
}
