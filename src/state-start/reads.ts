/**
 * Batched reads of a chain's state at one block, for the state start: many `eth_call`s in one
 * request through Multicall3 at its canonical address (present on every public chain, and placed
 * on the devnets by its pre-signed deployment), every read pinned to the block, never `latest`.
 */
import type { Context } from "ponder:registry";
import {
  type Abi,
  BaseError,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type ContractFunctionParameters,
  type DecodeFunctionResultParameters,
  decodeFunctionResult,
  type EncodeFunctionDataParameters,
  encodeFunctionData,
  type Hex,
  type ReadContractParameters,
  type ReadContractReturnType,
} from "viem";
import { readConfig } from "../../config.js";
import { MULTICALL3_ADDRESS, multicall3TryAggregateAbi } from "../../engine/index.js";

/**
 * What a node says when it no longer holds the state of an old block (a full, not an archive,
 * node) or cannot serve it: geth (`missing trie node <hash> (path …) <err>` in the hash scheme,
 * `state 0x… is not available` and `historical state … is not available` in the path scheme,
 * `header not found` for a block it does not know), Erigon (`old data not available due to
 * pruning`), Nethermind (`No state available for block 0x…`), Besu (`World state unavailable`),
 * Reth (`state at block #N is pruned`), Infura (`project ID does not have access to archive
 * state`).
 */
const PRUNED =
  /missing trie node|header not found|state (0x[0-9a-f]+ )?(is )?not available|no state available|world state unavailable|historical state|prun(ed|ing)|unknown block|state histories|archive state/i;

/**
 * The node's own words: viem puts the JSON-RPC error's message in `details` and wraps it in
 * its own summary (`Missing or invalid parameters.` for any -32000), which names no cause.
 */
function nodeMessage(error: unknown): string {
  if (error instanceof BaseError && error.details !== "") return error.details;
  return error instanceof Error ? (error.message.split("\n")[0] as string) : String(error);
}

/**
 * An error reading the state at `block`, naming what to change: an archive node for an old
 * start block, or a smaller batch when the node refuses the request's size or gas.
 */
export function stateReadError(
  chain: Pick<Context["chain"], "id">,
  block: bigint,
  error: unknown,
): Error {
  const id = chain.id;
  const message = nodeMessage(error);
  const remedy = PRUNED.test(message)
    ? `the node does not hold the state of block ${block}: use an archive node (PONDER_RPC_URL_${id}), or set START_BLOCK_${id} to a recent block`
    : `if the node limits eth_call gas, batch size or response size, lower STATE_READ_BATCH (now ${readConfig().stateReadBatch}) or raise the node's limits`;
  return new Error(
    `Chain ${id}: reading the state at block ${block} for the state start failed (${message}); ${remedy}`,
  );
}

export type CallResult = { status: "success"; result: unknown } | { status: "failure" };

/** Reads many calls at one block. */
export type StateReader = {
  block: bigint;
  /**
   * Every call's answer at the end of the block, in order: a call that reverts is a `failure`, a
   * request the node refuses throws {@link stateReadError}. The requests go out together; Ponder
   * paces them to the chain's request budget.
   */
  read: (
    calls: readonly ContractFunctionParameters<Abi>[],
    options?: {
      /**
       * How many of the cheapest calls (a storage read, a few thousand gas) one of these costs:
       * a request holds `STATE_READ_BATCH / weight` of them, so its gas stays in the tens of
       * millions a node allows an `eth_call`.
       */
      weight?: number;
    },
  ) => Promise<CallResult[]>;
  /**
   * What a contract's creation code (`data`, a `contracts/lens/` reader with its arguments)
   * returns when sent in an `eth_call` without `to` at the end of the block; a request the node
   * refuses, or a revert, throws {@link stateReadError}.
   */
  deployless: (data: Hex) => Promise<Hex>;
};

/** Per chain, the earliest block Multicall3 was seen deployed at: it stays from there on. */
const multicall3Since = new Map<number, bigint>();

/** Whether Multicall3 is deployed at the end of `block` (asked once a chain from where it is). */
async function hasMulticall3(context: Context, block: bigint): Promise<boolean> {
  const since = multicall3Since.get(context.chain.id);
  if (since !== undefined && block >= since) return true;
  let code: string | undefined;
  try {
    code = await context.client.getCode({ address: MULTICALL3_ADDRESS, blockNumber: block });
  } catch (error) {
    throw stateReadError(context.chain, block, error);
  }
  const deployed = code !== undefined && code !== "0x";
  if (deployed && (since === undefined || block < since))
    multicall3Since.set(context.chain.id, block);
  return deployed;
}

/**
 * A reader at the end of `block`: through Multicall3 where it is deployed at that block, else
 * (an old block, a chain without it) through its creation code sent in the call (deployless).
 */
export async function stateReader(context: Context, block: bigint): Promise<StateReader> {
  const deployless = !(await hasMulticall3(context, block));
  const size = readConfig().stateReadBatch;
  /**
   * One request: Multicall3's `tryAggregate` (one answer, one row of Ponder's cache), or
   * deployless. Not `aggregate3`, which Ponder's client takes apart into one cache lookup and
   * one cache row per call: CPU and rows for each of a state start's hundreds of thousands.
   */
  const request = async (contracts: ContractFunctionParameters<Abi>[]): Promise<CallResult[]> => {
    if (deployless) {
      return (await context.client.multicall({
        contracts,
        blockNumber: block,
        allowFailure: true,
        // Sent as creation code, which EIP-3860 caps at 49,152 bytes: viem's default batches
        // (1,024 bytes of calls each) stay far below it.
        deployless: true,
      })) as CallResult[];
    }
    const answers = await context.client.readContract({
      abi: multicall3TryAggregateAbi,
      address: MULTICALL3_ADDRESS,
      functionName: "tryAggregate",
      args: [
        false,
        contracts.map((c) => ({
          target: c.address,
          callData: encodeFunctionData(c as EncodeFunctionDataParameters),
        })),
      ],
      blockNumber: block,
    });
    return answers.map((answer, i): CallResult => {
      const call = contracts[i] as ContractFunctionParameters<Abi>;
      if (!answer.success || answer.returnData === "0x") return { status: "failure" };
      try {
        const result = decodeFunctionResult({
          abi: call.abi,
          functionName: call.functionName,
          args: call.args,
          data: answer.returnData,
        } as DecodeFunctionResultParameters);
        return { status: "success", result };
      } catch {
        return { status: "failure" };
      }
    });
  };
  return {
    block,
    read: async (calls, options) => {
      const perRequest = Math.max(1, Math.floor(size / (options?.weight ?? 1)));
      const chunks: ContractFunctionParameters<Abi>[][] = [];
      for (let i = 0; i < calls.length; i += perRequest)
        chunks.push(calls.slice(i, i + perRequest));
      try {
        return (await Promise.all(chunks.map(request))).flat();
      } catch (error) {
        throw stateReadError(context.chain, block, error);
      }
    },
    deployless: async (data) => {
      try {
        return (await context.client.call({ data, blockNumber: block })).data ?? "0x";
      } catch (error) {
        throw stateReadError(context.chain, block, error);
      }
    },
  };
}

/** The value of a successful call, or undefined. */
export function answerOf<T>(result: CallResult | undefined): T | undefined {
  return result?.status === "success" ? (result.result as T) : undefined;
}

/**
 * One view call at a block the reader is pinned to, answered as `readContract` answers it: what
 * a protocol's pool reads are written against, so that the same code reads a pool at an event's
 * block ({@link readsAt}) and, batched with every other pool's, at a state start's
 * ({@link coalescedReads}).
 */
export type PinnedRead = <
  const abi extends Abi | readonly unknown[],
  functionName extends ContractFunctionName<abi, "pure" | "view">,
  const args extends ContractFunctionArgs<abi, "pure" | "view", functionName>,
>(
  call: Omit<ReadContractParameters<abi, functionName, args>, "blockTag" | "blockNumber"> & {
    /** A fact that never changes (a pool's id, its weights): Ponder caches it at any block. */
    immutable?: boolean;
  },
) => Promise<ReadContractReturnType<abi, functionName, args>>;

/** An event handler's reads: one `eth_call` each, at the end of `blockNumber`. */
export function readsAt(context: Context, blockNumber: bigint): PinnedRead {
  return ({ immutable, ...call }) =>
    context.client.readContract(
      (immutable ? { ...call, cache: "immutable" } : { ...call, blockNumber }) as never,
    );
}

/** A call a state start's batched read answered with a revert (or nothing). */
export class StateCallFailedError extends Error {
  constructor(
    readonly call: { address: `0x${string}`; functionName: string },
    block: bigint,
  ) {
    super(`${call.functionName}() of ${call.address} reverted at block ${block}`);
    this.name = "StateCallFailedError";
  }
}

/**
 * {@link PinnedRead} through `reader`: the calls made while the reads before them are answered
 * go out together, in one `reader.read`. So reads written one pool at a time (each awaiting
 * what its next call needs) cost, across a whole group of pools started together, one batched
 * round per step rather than one request per call: every call made before the next macrotask
 * (`setImmediate`, which runs once the answers' continuations have made their next calls) joins
 * the same round. A call that reverts rejects with {@link StateCallFailedError}; a request the
 * node refuses, with `stateReadError` (every call of its round).
 */
export function coalescedReads(
  reader: StateReader,
  options?: Parameters<StateReader["read"]>[1],
): PinnedRead {
  type Pending = {
    call: ContractFunctionParameters<Abi>;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  };
  let queue: Pending[] = [];
  const flush = async () => {
    const round = queue;
    queue = [];
    try {
      const answers = await reader.read(
        round.map((p) => p.call),
        options,
      );
      round.forEach((pending, i) => {
        const answer = answers[i];
        if (answer?.status === "success") pending.resolve(answer.result);
        else pending.reject(new StateCallFailedError(pending.call, reader.block));
      });
    } catch (error) {
      for (const pending of round) pending.reject(error);
    }
  };
  return ({ immutable: _, ...call }) =>
    new Promise((resolve, reject) => {
      if (queue.length === 0) setImmediate(() => void flush());
      queue.push({
        call: call as ContractFunctionParameters<Abi>,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
    });
}

/** A pool read at the start, for the market tables: its holdings and price then. */
export type PoolSeed = {
  address: `0x${string}`;
  protocolSlug: string;
  token0: `0x${string}`;
  token1: `0x${string}`;
  fee: number;
  createdBlock: bigint;
  balance0: bigint;
  balance1: bigint;
  /** token1 per token0 in raw units, as an exact ratio. */
  price: { numerator: bigint; denominator: bigint };
};

/** What a protocol's state read found: its pools, each naming its tokens. */
export type StateSeed = PoolSeed[];
