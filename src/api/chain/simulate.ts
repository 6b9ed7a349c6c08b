/**
 * Runs calls against the chain's latest state with state overrides, in order and sharing
 * state, through `eth_simulateV1`: balance reads before and after a transaction give what the
 * transaction delivered, and the transaction's own `gasUsed`.
 */
import { type Address, type Hex, numberToHex, type PublicClient } from "viem";
import { ChainUnavailableError } from "../../../engine/errors.js";

export type SimulationCall = { from: Address; to: Address; data: Hex; value?: bigint };

export type AccountOverride = {
  balance?: bigint;
  code?: Hex;
  /** Storage words to replace (slot → 32-byte value). */
  stateDiff?: Record<Hex, Hex>;
};

/** A log a simulated call emitted. */
export type SimulationLog = { address: Address; topics: Hex[]; data: Hex };

export type CallResult =
  | { ok: true; returnData: Hex; gasUsed: bigint; logs: SimulationLog[] }
  | { ok: false; revertData: Hex; message: string; gasUsed: bigint };

/**
 * `blockNumber`: the block the calls ran on top of (the simulated block is the next one);
 * `timestamp`: the simulated block's timestamp (what `block.timestamp` was in the calls).
 */
export type SimulationResult = { blockNumber: bigint; timestamp: bigint; results: CallResult[] };

type RpcCallResult = {
  status: Hex;
  returnData: Hex;
  gasUsed: Hex;
  logs?: { address: Address; topics: Hex[]; data: Hex }[];
  error?: { message?: string; data?: Hex };
};

type SimulatedBlock = { number: Hex; timestamp: Hex; parentHash?: Hex; calls: RpcCallResult[] };

const ZERO_HASH = `0x${"0".repeat(64)}`;

/**
 * The block a simulation ran on top of, from the simulated block: nodes that report its parent
 * (geth, reth) number it base + 1; anvil numbers it as the base block itself and reports no
 * parent. Reading the base from the answer, rather than asking for the head first, saves a
 * round trip and cannot disagree with the state the node actually used.
 */
function baseBlockOf(block: SimulatedBlock): bigint {
  const number = BigInt(block.number);
  return block.parentHash === undefined || block.parentHash === ZERO_HASH ? number : number - 1n;
}

/** The node cannot simulate (unreachable, or no `eth_simulateV1`). */
export class SimulationUnavailableError extends Error {
  override readonly name = "SimulationUnavailableError";
}

/** The failure a request meets when `chainId`'s node cannot simulate it (`cause`: why). */
export function simulationUnavailable(chainId: number, cause?: unknown): ChainUnavailableError {
  return new ChainUnavailableError(
    `The RPC node of chain ${chainId} did not answer the simulation. Retry shortly.`,
    { chainId, cause },
  );
}

/**
 * Simulates `calls` in one block on top of block `blockNumber`, with `overrides` applied first.
 * @example const { results } = await simulateCalls(client, { blockNumber, calls, overrides });
 */
export async function simulateCalls(
  client: PublicClient,
  params: {
    /** Base block; default the latest. */
    blockNumber?: bigint;
    calls: SimulationCall[];
    overrides: Record<Address, AccountOverride>;
  },
): Promise<SimulationResult> {
  const stateOverrides = rpcStateOverrides(params.overrides);
  let blocks: SimulatedBlock[];
  try {
    blocks = (await client.request({
      method: "eth_simulateV1" as never,
      params: [
        {
          blockStateCalls: [
            {
              stateOverrides,
              calls: params.calls.map((c) => ({
                from: c.from,
                to: c.to,
                data: c.data,
                value: numberToHex(c.value ?? 0n),
              })),
            },
          ],
          validation: false,
        },
        params.blockNumber === undefined ? "latest" : numberToHex(params.blockNumber),
      ] as never,
    })) as SimulatedBlock[];
  } catch (error) {
    throw new SimulationUnavailableError(
      `the chain node could not simulate: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
    );
  }
  const block = blocks[0];
  if (!block) throw new SimulationUnavailableError("the chain node returned no simulated block");
  const calls = block.calls;
  return {
    blockNumber: params.blockNumber ?? baseBlockOf(block),
    timestamp: BigInt(block.timestamp),
    results: calls.map((c) =>
      c.status === "0x1"
        ? {
            ok: true,
            returnData: c.returnData,
            gasUsed: BigInt(c.gasUsed),
            logs: (c.logs ?? []).map((l) => ({
              address: l.address,
              topics: l.topics,
              data: l.data,
            })),
          }
        : {
            ok: false,
            revertData: (c.error?.data ?? c.returnData ?? "0x") as Hex,
            message: c.error?.message ?? "execution reverted",
            gasUsed: BigInt(c.gasUsed),
          },
    ),
  };
}

/** State overrides in the JSON-RPC shape of `eth_simulateV1`. */
function rpcStateOverrides(
  overrides: Record<Address, AccountOverride>,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [address, o] of Object.entries(overrides)) {
    const entry: Record<string, unknown> = {};
    if (o.balance !== undefined) entry.balance = numberToHex(o.balance);
    if (o.code !== undefined) entry.code = o.code;
    if (o.stateDiff !== undefined) entry.stateDiff = o.stateDiff;
    out[address] = entry;
  }
  return out;
}
