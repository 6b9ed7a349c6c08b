/**
 * Where each chain's index starts: `START_BLOCK_<id>` (a block number, or `latest`), else, on a
 * real chain, the head when its index was first created. That head is read once and pinned in a
 * small file beside the index, so a restart resumes the index it started instead of starting a
 * new one at a newer head (Ponder resumes a schema only when its configuration is unchanged).
 *
 * The pin file (`START_BLOCK_PIN_FILE`, default `.ponder/start-blocks.json`) maps an index — the
 * chain id and the database it lives in — to its start block. Deleting an entry (or setting
 * `START_BLOCK_<id>`) starts that chain's index afresh, in a new schema or PGlite directory.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { readConfig } from "./config.js";

/** What `START_BLOCK_<id>` asks for: a block, the head (`latest`), or nothing set. */
export type StartSetting = number | "latest" | undefined;

/** Parses `START_BLOCK_<id>`: a whole number or `latest`. */
export function startSetting(env: NodeJS.ProcessEnv, chainId: number): StartSetting {
  const variable = `START_BLOCK_${chainId}`;
  const raw = env[variable]?.trim();
  if (raw === undefined || raw === "") return undefined;
  if (raw === "latest") return "latest";
  if (!/^\d+$/.test(raw)) {
    throw new Error(`${variable} must be a block number or "latest", got "${raw}"`);
  }
  return Number(raw);
}

/** The pin file's path. */
export function pinFilePath(env: NodeJS.ProcessEnv): string {
  return resolve(readConfig(env).startBlockPinFile);
}

/** `--schema <name>` of this process's command line (how `ponder start` is told its schema). */
function schemaArgument(): string | undefined {
  const i = process.argv.indexOf("--schema");
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * The index a chain's pin belongs to: the chain and its database (PGlite directory, or Postgres
 * URL without credentials and schema).
 */
export function indexKey(env: NodeJS.ProcessEnv, chainId: number): string {
  const { database } = readConfig(env);
  if (database.url) {
    const url = new URL(database.url);
    url.username = "";
    url.password = "";
    const schema = database.schema ?? schemaArgument() ?? "public";
    return `${chainId}@${url.toString()}#${schema}`;
  }
  return `${chainId}@${resolve(database.pgliteDir ?? ".ponder/pglite")}`;
}

function readPins(path: string): Record<string, number> {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(
      `${path} is not valid JSON (${(error as Error).message}); delete it to start every chain's index afresh`,
    );
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  return Object.fromEntries(
    Object.entries(parsed).filter(
      (entry): entry is [string, number] => typeof entry[1] === "number",
    ),
  );
}

/** The start block pinned for this chain's index, if any. */
export function pinnedStart(env: NodeJS.ProcessEnv, chainId: number): number | undefined {
  return readPins(pinFilePath(env))[indexKey(env, chainId)];
}

/** Asks `url` for its head block number. */
async function headOf(url: string, chainId: number): Promise<number> {
  let answer: { result?: string; error?: { message: string } };
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
      signal: AbortSignal.timeout(30_000),
    });
    answer = (await res.json()) as typeof answer;
  } catch (error) {
    throw new Error(
      `Chain ${chainId}: could not read the head block to start its index from (${(error as Error).message}); check PONDER_RPC_URL_${chainId}, or set START_BLOCK_${chainId}`,
    );
  }
  if (!answer.result) {
    throw new Error(
      `Chain ${chainId}: eth_blockNumber failed (${answer.error?.message ?? "no result"}); check PONDER_RPC_URL_${chainId}, or set START_BLOCK_${chainId}`,
    );
  }
  return Number(BigInt(answer.result));
}

/**
 * Pins the head as the start of every chain of `chains` whose start follows the head
 * (`START_BLOCK_<id>=latest`, or unset on a real chain) and has no pin yet. Run by
 * `ponder.config.ts` before the chains are read.
 */
export async function pinHeadStarts(
  env: NodeJS.ProcessEnv,
  chains: readonly { id: number; rpc: string; followsHead: boolean }[],
): Promise<void> {
  const path = pinFilePath(env);
  const pins = readPins(path);
  let changed = false;
  for (const chain of chains) {
    if (!chain.followsHead) continue;
    const key = indexKey(env, chain.id);
    if (pins[key] !== undefined) continue;
    pins[key] = await headOf(chain.rpc, chain.id);
    changed = true;
  }
  if (!changed) return;
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(pins, null, 2)}\n`);
  renameSync(tmp, path);
}
