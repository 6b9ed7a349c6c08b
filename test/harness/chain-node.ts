/**
 * Killing the chain node and bringing it back with its chain: the state (accounts, blocks,
 * transactions) is dumped over JSON-RPC (`anvil_dumpState`) while the node runs, and a new
 * anvil on the same port loads it (`--load-state`), so the chain continues from the same head
 * with the same block hashes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { type AnvilInstance, startAnvil } from "../../devnet/anvil.js";
import { jsonRpc } from "./json-rpc.js";

export type ChainNodeState = {
  /** The JSON file `anvil --load-state` reads. */
  file: string;
  /** Head block at the dump. */
  blockNumber: bigint;
  /** Deletes the file. */
  remove: () => void;
};

/** Dumps the running node's state to a file `--load-state` accepts. */
export async function dumpChainState(node: AnvilInstance): Promise<ChainNodeState> {
  // `anvil_dumpState` answers gzip-compressed JSON as hex; `--load-state` reads the JSON.
  const hex = await jsonRpc<string>(node.url, "anvil_dumpState");
  const json = gunzipSync(Buffer.from(hex.slice(2), "hex")).toString("utf8");
  const dir = mkdtempSync(join(tmpdir(), "anvil-state-"));
  const file = join(dir, "state.json");
  writeFileSync(file, json);
  const blockNumber = BigInt(
    (JSON.parse(json) as { best_block_number: string | number }).best_block_number,
  );
  return { file, blockNumber, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** SIGKILLs the node (no graceful shutdown) and waits for the process to end. */
export async function killChainNode(node: AnvilInstance): Promise<void> {
  const { process: child } = node;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  }
}

/**
 * Starts anvil on `port` from a dumped state, with the devnet's settings (`startAnvil`);
 * resolves once it answers JSON-RPC.
 */
export async function restartChainNode(params: {
  port: number;
  chainId: number;
  state: ChainNodeState;
}): Promise<AnvilInstance> {
  return await startAnvil({
    port: params.port,
    chainId: params.chainId,
    loadState: params.state.file,
  });
}
