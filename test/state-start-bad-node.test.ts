/**
 * A state start (`START_BLOCK_<id>`) against nodes that refuse its reads: the indexer stops with
 * an error that names what to change, after a bounded number of requests, and with the change
 * made it starts. Each node is anvil behind a proxy that answers as the real node does
 * (test/harness/rpc-recorder.ts), with the texts of their sources:
 *
 * - gas: geth's `--rpc.gascap` (internal/ethapi, `ToMessage`) caps every `eth_call` at the cap
 *   (only a warning in geth's own log) and the call then fails as the EVM says, `out of gas`
 *   (core/vm/errors.go, JSON-RPC code -32000); Erigon caps the same way.
 * - response size: Erigon's `--rpc.returndata.limit` (default 100,000 bytes) refuses an
 *   `eth_call` whose answer is longer: `call returned result on length N exceeding
 *   --rpc.returndata.limit L` (its eth_call, jsonrpc/eth_call.go). The tick bitmap reader
 *   answers only the words that are not zero, and the longest answer of this devnet's state read
 *   at the default batch is 17,728 bytes (a Multicall3 batch of the 46 tick reads of the V3
 *   pools, Uniswap's and PancakeSwap's, 384 bytes each), so a node at Erigon's default serves
 *   it; the node here is set to 10,000 bytes, which refuses that answer at the default batch and
 *   none at a batch of 24 (9,280 bytes at most).
 * - JSON-RPC batches: Ponder 0.16 sends none (its HTTP client, rpc/http.js, posts one request
 *   per body, and nothing here batches either), so a node's batch limit (geth's
 *   `--rpc.batch-request-limit`, `batch too large`) never applies: every proxy here refuses
 *   any batch of more than one request as geth would, and each case checks none was sent.
 * - pruned state: geth in the hash scheme keeps the state of its last 128 blocks; a read at an
 *   older block answers `missing trie node <root> (path ) <nil>` (trie/errors.go). Other nodes'
 *   words for it are covered one by one at the end.
 *
 * How long a refusal takes to stop the indexer is Ponder's, not ours: its RPC layer
 * (ponder/dist/esm/rpc/index.js) sends a request up to 10 times (RETRY_COUNT = 9 retries) for
 * any error but a revert, an unknown method or a 404/405/501/505, waiting 125 ms · 2^i between
 * them: 63.9 s of waits, then the error reaches the handler. `context.client`'s own retries
 * (indexing/client.js, retryableActions) only repeat "returned no data" and not-found errors,
 * so they add none here. The handler's error is an IndexingFunctionError, which Ponder does not
 * retry: `ponder start` logs it and exits with code 1. Measured here: 64.1–66.2 s from the first
 * refusal to the exit, on 2 cores. At Ponder's default log level each refused attempt is a
 * warning with the whole request (225 KB of calldata here, 25 MB of log in all), and an exit
 * right after it can cut the log short of the error when whoever reads it is slow: the refused
 * indexes here log errors only.
 */
import { randomBytes } from "node:crypto";
import { type Hex, InvalidInputRpcError, RpcRequestError, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runActivity } from "../devnet/activity.js";
import { purgeSyncCache } from "../devnet/sync-cache.js";
import { stateReadError } from "../src/state-start/reads.js";
import { jsonRpc } from "./harness/json-rpc.js";
import {
  type DevnetChain,
  dropSchema,
  type PonderProcess,
  spawnPonder,
  startDevnetChain,
  waitForBlock,
} from "./harness/ponder-process.js";
import { type NodeBehaviour, type RpcRecorder, startRpcRecorder } from "./harness/rpc-recorder.js";
import { expectSameState } from "./harness/same-state.js";
import { TEST_DATABASE_URL } from "./harness/service.js";

const chainId = 900_000 + Math.floor(Math.random() * 90_000);
const suffix = `${process.pid}_${randomBytes(3).toString("hex")}`;
/**
 * The gas cap of the capped node: the tick bitmap reader's requests need ≈ 21 M gas at the
 * default batch (7,000 words of ≈ 3.0 k gas; src/state-start/bitmap-reader.ts), ≈ 3.2 M with
 * 150 (1,050 words); a full Multicall3 request of 1,000 calls needs 5.7 M.
 */
const GAS_CAP = 4_000_000n;
/** The size-limited node's `--rpc.returndata.limit` (Erigon's default is 100,000). */
const RETURN_DATA_LIMIT = 10_000;
/** The longest answer of the state read at the default batch, which that limit refuses. */
const LONGEST_ANSWER = 17_728;
/** Blocks of state geth keeps in the hash scheme (`TriesInMemory`). */
const KEPT_BLOCKS = 128n;
/** Ponder's attempts per request: the first and RETRY_COUNT (9) retries. */
const ATTEMPTS = 10;
/**
 * `STATE_READ_BATCH`: the default the refusal names as the one to lower, and the smaller one the
 * gas-capped node's second run takes (not the default, or it would find the first's answers in
 * Ponder's cache).
 */
const BATCH = { default: 1_000, gasCapped: 150, sizeLimited: 24 } as const;

let chain: DevnetChain;
/**
 * The start block of the uncapped index and of the capped nodes' second runs. Ponder caches
 * every `eth_call` answer by chain and block for every index of the chain (`ponder_sync`, with
 * or without `disableCache`), so each refusing node's index starts at a block of its own, one of
 * the empty blocks after `start` (the same state, the same answers).
 */
let start: bigint;
/** The block every index that starts goes on to. */
let head: bigint;

const rpc = <T>(method: string, params: unknown[]) => jsonRpc<T>(chain.anvil.url, method, params);

/** geth with `--rpc.gascap`: every `eth_call` runs with at most `cap` gas. */
function gasCappedNode(cap: bigint): NodeBehaviour {
  return async (request, forward) => {
    if (request.method !== "eth_call") return await forward(request);
    const [call, ...rest] = request.params as [{ gas?: Hex }, ...unknown[]];
    const gas = call.gas !== undefined && BigInt(call.gas) < cap ? BigInt(call.gas) : cap;
    const answer = await forward({
      method: request.method,
      params: [{ ...call, gas: toHex(gas) }, ...rest],
    });
    // anvil's words for it; geth's are its EVM's ErrOutOfGas.
    if ("error" in answer && answer.error.message === "EVM error OutOfGas")
      return { error: { code: -32000, message: "out of gas" } };
    return answer;
  };
}

/** Erigon with `--rpc.returndata.limit`: an `eth_call` answer longer than `limit` bytes is refused. */
function returnDataLimitedNode(limit: number): NodeBehaviour {
  return async (request, forward) => {
    const answer = await forward(request);
    if (request.method !== "eth_call" || !("result" in answer)) return answer;
    const length = ((answer.result as Hex).length - 2) / 2;
    if (length <= limit) return answer;
    return {
      error: {
        code: -32000,
        message: `call returned result on length ${length} exceeding --rpc.returndata.limit ${limit}`,
      },
    };
  };
}

/** Methods that read the state at a block, which they take as their last parameter. */
const STATE_METHODS = new Set([
  "eth_call",
  "eth_getCode",
  "eth_getBalance",
  "eth_getStorageAt",
  "eth_getTransactionCount",
  "eth_getProof",
]);

/** geth in the hash scheme: the state of blocks older than its last `kept` is gone. */
function prunedNode(kept: bigint): NodeBehaviour {
  return async (request, forward) => {
    const block = request.params.at(-1);
    if (!STATE_METHODS.has(request.method) || typeof block !== "string" || !block.startsWith("0x"))
      return await forward(request);
    const now = await forward({ method: "eth_blockNumber", params: [] });
    if ("error" in now || BigInt(block) > BigInt(now.result as Hex) - kept)
      return await forward(request);
    const header = await forward({ method: "eth_getBlockByNumber", params: [block, false] });
    const root = "result" in header ? (header.result as { stateRoot: Hex }).stateRoot : "0x";
    return { error: { code: -32000, message: `missing trie node ${root.slice(2)} (path ) <nil>` } };
  };
}

type Run = {
  name: string;
  schema: string;
  /** Its start block. */
  from: bigint;
  recorder: RpcRecorder;
  ponder: PonderProcess;
  /** When the node first refused a request, and when the process exited. */
  refusedAt?: number;
  exitedAt?: number;
};
const runs: Run[] = [];

/** Starts an index at `from` behind `node`, with `STATE_READ_BATCH` = `batch`. */
async function startBehind(params: {
  name: string;
  node?: NodeBehaviour;
  from: bigint;
  batch?: number;
  logLevel?: "error";
}): Promise<Run> {
  const { name, node, batch } = params;
  const run = { name, schema: `hb_bad_node_${runs.length}_${suffix}`, from: params.from } as Run;
  const watched: NodeBehaviour = async (request, forward) => {
    const answer = node ? await node(request, forward) : await forward(request);
    if ("error" in answer) run.refusedAt ??= Date.now();
    return answer;
  };
  run.recorder = await startRpcRecorder({ target: chain.anvil.url, node: watched, batchLimit: 1 });
  run.ponder = await spawnPonder({
    command: "start",
    chain,
    databaseUrl: TEST_DATABASE_URL,
    schema: run.schema,
    env: {
      RPC_URL: run.recorder.url,
      [`START_BLOCK_${chainId}`]: String(params.from),
      ...(batch === undefined ? {} : { STATE_READ_BATCH: String(batch) }),
    },
    logLevel: params.logLevel,
  });
  void run.ponder.exited.then(() => {
    run.exitedAt = Date.now();
  });
  runs.push(run);
  return run;
}

/**
 * The requests of the state read (`method` pinned to its block): how often each was sent, in
 * ascending order.
 */
function stateReads(run: Run, method: string): number[] {
  const sent = new Map<string, number>();
  for (const r of run.recorder.requests()) {
    if (r.method !== method || r.params.at(-1) !== toHex(run.from - 1n)) continue;
    const key = JSON.stringify(r.params);
    sent.set(key, (sent.get(key) ?? 0) + 1);
  }
  return [...sent.values()].sort((a, b) => a - b);
}

/**
 * The requests a refused batch cost: the state read's requests go out together (V2, V3 and V4
 * at once), those the node answers once each, and each it refuses ATTEMPTS times (Ponder's
 * retries), but for those still in their last wait when the process exits (they wait alike, so
 * by a few milliseconds one runs out first and ends the read): never more.
 */
function expectRefusedBatch(run: Run): void {
  const sent = stateReads(run, "eth_call");
  const refused = sent.filter((n) => n > 1);
  expect({
    answeredOnce: sent.filter((n) => n === 1).length > 0,
    refused: refused.length > 0,
    most: Math.max(...sent),
    eachRefusedAsOften: refused.every((n) => n === ATTEMPTS - 1 || n === ATTEMPTS),
  }).toEqual({ answeredOnce: true, refused: true, most: ATTEMPTS, eachRefusedAsOften: true });
  // Multicall3's code, read once: it is there.
  expect(stateReads(run, "eth_getCode")).toEqual([1]);
}

/**
 * From the first refusal to the exit: at least Ponder's waits between the attempts of the
 * request that ended the read (125 ms · (2^9 − 1)), and not much more, not a loop.
 */
function expectGaveUpAfterPonderRetries(run: Run): void {
  const took = (run.exitedAt ?? Number.POSITIVE_INFINITY) - (run.refusedAt ?? 0);
  expect(took).toBeGreaterThanOrEqual(125 * (2 ** (ATTEMPTS - 1) - 1));
  expect(took).toBeLessThan(120_000);
}

/** The error a refusal of the gas or size kind ends in, with the node's own words. */
const batchError = (run: Run, words: string) =>
  `Chain ${chainId}: reading the state at block ${run.from - 1n} for the state start failed (${words}); if the node limits eth_call gas, batch size or response size, lower STATE_READ_BATCH (now ${BATCH.default}) or raise the node's limits`;

let reference: Run;
let gasCapped: Run;
let gasCappedSmaller: Run;
let sizeLimited: Run;
let sizeLimitedSmaller: Run;
let pruned: Run;

beforeAll(async () => {
  await purgeSyncCache(TEST_DATABASE_URL, chainId);
  chain = await startDevnetChain({ chainId });
  const rpcUrl = chain.anvil.url;
  // Every pool exists at the start; swaps, burns, borrows and yield follow it.
  await runActivity({ rpcUrl, deployment: chain.deployment, steps: 12, intervalMs: 0, seed: 11 });
  start = BigInt(await rpc<Hex>("eth_blockNumber", [])) + 1n;
  await rpc("anvil_mine", ["0x3"]);
  await runActivity({ rpcUrl, deployment: chain.deployment, steps: 6, intervalMs: 0, seed: 12 });
  // Empty blocks put every start's state out of a pruned node's reach.
  await rpc("anvil_mine", [toHex(KEPT_BLOCKS + 2n)]);
  head = BigInt(await rpc<Hex>("eth_blockNumber", []));

  // A refused read spends a minute in Ponder's retries, mostly waiting: the uncapped index, and
  // once it is stopped at the head the second runs, go meanwhile. Each index holds up to 30
  // Postgres connections: no more than five at once, three of them waiting.
  reference = await startBehind({ name: "a node without limits", from: start });
  gasCapped = await startBehind({
    name: "gas cap",
    node: gasCappedNode(GAS_CAP),
    from: start + 1n,
    logLevel: "error",
  });
  sizeLimited = await startBehind({
    name: "response size limit",
    node: returnDataLimitedNode(RETURN_DATA_LIMIT),
    from: start + 2n,
    logLevel: "error",
  });
  pruned = await startBehind({
    name: "pruned",
    node: prunedNode(KEPT_BLOCKS),
    from: start + 3n,
    logLevel: "error",
  });
  await reachHead(reference);
  await reference.ponder.stop();
  gasCappedSmaller = await startBehind({
    name: "gas cap, smaller batch",
    node: gasCappedNode(GAS_CAP),
    from: start,
    batch: BATCH.gasCapped,
  });
  sizeLimitedSmaller = await startBehind({
    name: "response size limit, smaller batch",
    node: returnDataLimitedNode(RETURN_DATA_LIMIT),
    from: start,
    batch: BATCH.sizeLimited,
  });
  for (const run of [gasCappedSmaller, sizeLimitedSmaller]) await reachHead(run);
  for (const run of [gasCapped, sizeLimited, pruned]) await run.ponder.exited;
}, 420_000);

async function reachHead(run: Run): Promise<void> {
  await waitForBlock(run.ponder, {
    databaseUrl: TEST_DATABASE_URL,
    schema: run.schema,
    block: head,
    timeoutMs: 240_000,
  });
}

afterAll(async () => {
  for (const run of runs) {
    await run.ponder?.stop();
    await run.recorder.close();
  }
  await chain?.stop();
  for (const run of runs) await dropSchema(TEST_DATABASE_URL, run.schema);
  await purgeSyncCache(TEST_DATABASE_URL, chainId);
});

describe("a node that refuses the state start's reads", () => {
  test("no proxy here was sent a JSON-RPC batch", () => {
    expect(runs.map((r) => ({ name: r.name, batches: r.recorder.batches() }))).toEqual(
      runs.map((r) => ({ name: r.name, batches: 0 })),
    );
  });

  test("caps eth_call gas: the indexer exits naming STATE_READ_BATCH", () => {
    expect(gasCapped.ponder.process.exitCode).toBe(1);
    expect(gasCapped.ponder.output()).toContain(batchError(gasCapped, "out of gas"));
    expectRefusedBatch(gasCapped);
    expectGaveUpAfterPonderRetries(gasCapped);
  });

  test("limits answers' size: the indexer exits naming STATE_READ_BATCH", () => {
    expect(sizeLimited.ponder.process.exitCode).toBe(1);
    expect(sizeLimited.ponder.output()).toContain(
      batchError(
        sizeLimited,
        `call returned result on length ${LONGEST_ANSWER} exceeding --rpc.returndata.limit ${RETURN_DATA_LIMIT}`,
      ),
    );
    expectRefusedBatch(sizeLimited);
    expectGaveUpAfterPonderRetries(sizeLimited);
  });

  test("pruned: the indexer exits naming an archive node or a recent start block", async () => {
    expect(pruned.ponder.process.exitCode).toBe(1);
    const block = pruned.from - 1n;
    const { stateRoot } = await rpc<{ stateRoot: Hex }>("eth_getBlockByNumber", [
      toHex(block),
      false,
    ]);
    expect(pruned.ponder.output()).toContain(
      `Chain ${chainId}: reading the state at block ${block} for the state start failed (missing trie node ${stateRoot.slice(2)} (path ) <nil>); the node does not hold the state of block ${block}: use an archive node (PONDER_RPC_URL_${chainId}), or set START_BLOCK_${chainId} to a recent block`,
    );
    // The first read, Multicall3's code, is refused ATTEMPTS times; no call follows it.
    expect({
      getCode: stateReads(pruned, "eth_getCode"),
      call: stateReads(pruned, "eth_call"),
    }).toEqual({
      getCode: [ATTEMPTS],
      call: [],
    });
    expectGaveUpAfterPonderRetries(pruned);
  });

  test("with a smaller STATE_READ_BATCH the gas-capped and the size-limited nodes start and hold the same tables as without a limit", async () => {
    for (const run of [gasCappedSmaller, sizeLimitedSmaller]) {
      expect({ name: run.name, refused: run.refusedAt }).toEqual({
        name: run.name,
        refused: undefined,
      });
      expect(run.ponder.output()).toContain(
        `Chain ${chainId}: state start read 38 pools and 14 tokens at block ${run.from - 1n} in `,
      );
      await expectSameState({
        databaseUrl: TEST_DATABASE_URL,
        chainId,
        replay: reference.schema,
        starts: [{ name: run.name, schema: run.schema }],
      });
    }
  });
});

describe("the node's words for a state it no longer holds", () => {
  const block = 21_000_000n;
  const archive = `the node does not hold the state of block ${block}: use an archive node (PONDER_RPC_URL_1), or set START_BLOCK_1 to a recent block`;
  /** A node's JSON-RPC error as Ponder's client hands it on (viem's -32000 wrapper). */
  const refusal = (message: string) =>
    new InvalidInputRpcError(
      new RpcRequestError({
        body: {},
        url: "http://node.example",
        error: { code: -32000, message },
      }),
    );
  test.each([
    ["geth, hash scheme", "missing trie node 1f2e3d (path ) <nil>"],
    ["geth, path scheme", "state 0x1f2e3d4c is not available"],
    ["geth, path scheme archive", "historical state 1f2e3d4c is not available"],
    ["geth, unknown block", "header not found"],
    ["Erigon", "old data not available due to pruning"],
    ["Nethermind", "No state available for block 0x1f2e3d4c"],
    ["Besu", "World state unavailable"],
    ["Reth", "state at block #21000000 is pruned"],
    ["Infura", "project ID does not have access to archive state"],
  ])("%s", (_node, words) => {
    expect(stateReadError({ id: 1 }, block, refusal(words)).message).toBe(
      `Chain 1: reading the state at block ${block} for the state start failed (${words}); ${archive}`,
    );
  });
});
