/**
 * Runs calls against the chain's latest state with state overrides, in order and sharing
 * state, through `eth_simulateV1`: balance reads before and after a transaction give what the
 * transaction delivered, and the transaction's own `gasUsed`.
 *
 * The simulated block is made to look like the chain's next block to the code it runs: a
 * contract that tells a simulation apart from the real transaction (a hook that is honest only
 * at gas price 0) would be quoted one way and behave another. So the node validates the calls
 * (without validation `eth_simulateV1` charges no gas and runs at base fee 0), the block carries
 * the next block's number, base fee, fee recipient, gas limit, a `prevrandao` of its own and a
 * timestamp after its parent's (both the same in every simulation on one block, so two runs of
 * one transaction on one block see the same block), and each call pays the next block's base fee
 * plus the node's suggested priority fee, as a wallet sending it would. The senders are given the
 * ether that gas costs (and, on a chain that charges for L1 data, the most that fee can be) on
 * top of what they hold, so quoting needs no gas money.
 *
 * Before each simulation the node is asked only for its latest block number: what describes the
 * next block and each sender's balance are read once per base block and shared by every
 * simulation on it (`readsAt`), as every transaction of one block sees the same block fields.
 */
import { randomBytes } from "node:crypto";
import {
  type Address,
  bytesToHex,
  concat,
  type Hex,
  keccak256,
  maxUint256,
  numberToHex,
  type PublicClient,
} from "viem";
import {
  ChainUnavailableError,
  InvalidArgumentError,
  type OpStackFeeParameters,
  opStackL1FeeBound,
} from "../../../engine/index.js";

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
export type SimulationResult = {
  blockNumber: bigint;
  timestamp: bigint;
  /** The gas price each call paid: what its sender's ether balance lost per unit of gas used. */
  gasPrice: bigint;
  results: CallResult[];
};

type RpcCallResult = {
  status: Hex;
  returnData: Hex;
  gasUsed: Hex;
  logs?: { address: Address; topics: Hex[]; data: Hex }[];
  error?: { message?: string; data?: Hex };
};

type SimulatedBlock = { number: Hex; timestamp: Hex; calls: RpcCallResult[] };

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

/** What a contract can read of the block a real transaction sent now would land in. */
export type NextBlock = {
  /** The block the simulation runs on top of. */
  baseBlock: bigint;
  number: bigint;
  timestamp: bigint;
  baseFeePerGas: bigint;
  /** The base block's fee recipient: whoever builds blocks now. */
  feeRecipient: Address;
  prevRandao: Hex;
  gasLimit: bigint;
  /** The priority fee a wallet would pay (the node's `eth_maxPriorityFeePerGas`). */
  maxPriorityFeePerGas: bigint;
};

type RpcBlock = {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
  miner: Address;
  gasLimit: Hex;
  baseFeePerGas?: Hex;
};
type RpcFeeHistory = { oldestBlock: Hex; baseFeePerGas: Hex[] };

/**
 * The next block after `blockNumber` (default the latest) as a transaction sent now would find
 * it. Its base fee is the node's own prediction (`eth_feeHistory` answers one more base fee than
 * blocks asked for: the next block's), so each chain's fee rules apply.
 * @throws SimulationUnavailableError when the node does not answer.
 */
export async function nextBlockOf(
  client: PublicClient,
  params: { blockNumber?: bigint } = {},
): Promise<NextBlock> {
  return readsAt(client, params.blockNumber ?? (await headOf(client))).next;
}

/**
 * What has been read of one block, for simulations on top of it: its next block and the senders'
 * balances on it. Read once per block: a block's contents do not change (a reorg replacing the
 * head at the same height is not told apart: its reads are at most one block's changes off).
 */
type BlockReads = {
  block: bigint;
  next: Promise<NextBlock>;
  balances: Map<Address, Promise<bigint>>;
};

/**
 * What the simulated blocks' `prevrandao` is derived from with the base block's hash: unknown to
 * any contract (which could otherwise tell a simulated block from a real one by computing it from
 * `blockhash`), fixed for the process, so every simulation on one base block sees one value.
 */
const RANDAO_SECRET = bytesToHex(randomBytes(32));

/** The reads of each client's newest block simulated on. */
const blockReads = new WeakMap<PublicClient, BlockReads>();
/** The most senders' balances kept for one block (more are read each time). */
const MAX_BALANCES_PER_BLOCK = 10_000;
/** Each client's head read in flight: requests arriving meanwhile share it. */
const headReads = new WeakMap<PublicClient, Promise<bigint>>();

/**
 * The chain's latest block number (one `eth_blockNumber`, shared by the requests that arrive
 * while it is read).
 * @throws SimulationUnavailableError when the node does not answer.
 */
function headOf(client: PublicClient): Promise<bigint> {
  let pending = headReads.get(client);
  if (!pending) {
    pending = (client.request({ method: "eth_blockNumber" as never }) as Promise<Hex>)
      .then((hex) => BigInt(hex))
      .catch((error: unknown) => {
        throw new SimulationUnavailableError(
          `the chain node did not answer its latest block: ${errorLine(error)}`,
        );
      })
      .finally(() => headReads.delete(client));
    headReads.set(client, pending);
  }
  return pending;
}

/** The reads of `block` (kept when it is the newest block simulated on; a failed read is not). */
function readsAt(client: PublicClient, block: bigint): BlockReads {
  const known = blockReads.get(client);
  if (known?.block === block) return known;
  const reads: BlockReads = { block, next: readNextBlock(client, block), balances: new Map() };
  if (!known || block > known.block) {
    blockReads.set(client, reads);
    reads.next.catch(() => {
      if (blockReads.get(client) === reads) blockReads.delete(client);
    });
  }
  return reads;
}

function errorLine(error: unknown): string {
  return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
}

async function readNextBlock(client: PublicClient, blockNumber: bigint): Promise<NextBlock> {
  const tag = numberToHex(blockNumber);
  let block: RpcBlock | null;
  let history: RpcFeeHistory;
  let tip: Hex;
  try {
    [block, history, tip] = await Promise.all([
      client.request({
        method: "eth_getBlockByNumber" as never,
        params: [tag, false] as never,
      }) as Promise<RpcBlock | null>,
      client.request({
        method: "eth_feeHistory" as never,
        params: ["0x1", tag, []] as never,
      }) as Promise<RpcFeeHistory>,
      client.request({ method: "eth_maxPriorityFeePerGas" as never }) as Promise<Hex>,
    ]);
  } catch (error) {
    throw new SimulationUnavailableError(
      `the chain node did not describe its next block: ${errorLine(error)}`,
    );
  }
  if (!block) throw new SimulationUnavailableError(`the chain node has no block ${tag}`);
  const baseBlock = BigInt(block.number);
  // A head that moved between the two reads: the fee history is of the newer block, and the
  // next base fee of the older one is its own base fee's successor only by the chain's rules.
  const predicted =
    BigInt(history.oldestBlock) === baseBlock ? history.baseFeePerGas[1] : undefined;
  const baseFeePerGas = BigInt(predicted ?? block.baseFeePerGas ?? "0x0");
  return {
    baseBlock,
    number: baseBlock + 1n,
    // A timestamp after its parent's, the same for every simulation on one block (answers to the
    // same request on one block stay the same, deadline included). Not the chain's block time:
    // a contract that remembers earlier blocks' timestamps could still tell the step apart.
    timestamp: BigInt(block.timestamp) + 1n,
    baseFeePerGas,
    feeRecipient: block.miner,
    prevRandao: keccak256(concat([RANDAO_SECRET, block.hash])),
    gasLimit: BigInt(block.gasLimit),
    maxPriorityFeePerGas: BigInt(tip),
  };
}

/** The fees a wallet sends with in `next`: twice its base fee as the cap, the suggested tip. */
export function walletFees(next: NextBlock): {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
} {
  return {
    maxFeePerGas: 2n * next.baseFeePerGas + next.maxPriorityFeePerGas,
    maxPriorityFeePerGas: next.maxPriorityFeePerGas,
  };
}

/**
 * Simulates `calls` in one block on top of block `blockNumber` (default the latest), made to
 * look like the next block, with `overrides` applied first.
 * @example const { results } = await simulateCalls(client, { calls, overrides });
 */
export async function simulateCalls(
  client: PublicClient,
  params: {
    /** Base block; default the latest. */
    blockNumber?: bigint;
    calls: SimulationCall[];
    overrides: Record<Address, AccountOverride>;
    /**
     * The chain's L1 fee parameters when its transactions pay for their L1 data: each sender is
     * given the most its calls' L1 fee can be on top of their gas.
     */
    l1Fee?: OpStackFeeParameters;
  },
): Promise<SimulationResult> {
  // The base block's next block and the senders' balances on it, read in one round trip to the
  // node (none when an earlier simulation on the same block read them).
  const reads = readsAt(client, params.blockNumber ?? (await headOf(client)));
  const given = overridesByAddress(params.overrides);
  const senders = [...new Set(params.calls.map((c) => c.from.toLowerCase() as Address))];
  const [next, held] = await Promise.all([reads.next, heldBalances(client, reads, senders, given)]);
  const fees = walletFees(next);
  for (const c of params.calls) {
    // No account can hold the value and the gas together: the transaction could never be sent.
    if ((c.value ?? 0n) + next.gasLimit * fees.maxFeePerGas > maxUint256) {
      throw new InvalidArgumentError(
        `The transaction sends ${c.value} wei of native currency: with its gas that is more than any account can hold (2^256 - 1 wei).`,
      );
    }
  }
  // No call's gas exceeds the block's: what the node lets a call use by default, at most. A node
  // that charges the L1 fee charges it on the call's bytes as it encodes them (at most the
  // calldata and a transaction's other fields).
  const gasMoney = (c: SimulationCall) =>
    next.gasLimit * fees.maxFeePerGas +
    (params.l1Fee
      ? opStackL1FeeBound(params.l1Fee, (c.data.length - 2) / 2 + TRANSACTION_FIELDS_BYTES)
      : 0n);
  const overrides = withGasMoney(params.overrides, given, params.calls, held, gasMoney);
  let blocks: SimulatedBlock[];
  try {
    blocks = (await client.request({
      method: "eth_simulateV1" as never,
      params: [
        {
          blockStateCalls: [
            {
              blockOverrides: {
                number: numberToHex(next.number),
                time: numberToHex(next.timestamp),
                baseFeePerGas: numberToHex(next.baseFeePerGas),
                feeRecipient: next.feeRecipient,
                prevRandao: next.prevRandao,
                gasLimit: numberToHex(next.gasLimit),
              },
              stateOverrides: rpcStateOverrides(overrides),
              calls: params.calls.map((c) => ({
                from: c.from,
                to: c.to,
                data: c.data,
                value: numberToHex(c.value ?? 0n),
                maxFeePerGas: numberToHex(fees.maxFeePerGas),
                maxPriorityFeePerGas: numberToHex(fees.maxPriorityFeePerGas),
              })),
            },
          ],
          // Validated: gas is bought at the block's base fee, as in the real transaction.
          validation: true,
        },
        numberToHex(next.baseBlock),
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
    blockNumber: next.baseBlock,
    timestamp: BigInt(block.timestamp),
    gasPrice: next.baseFeePerGas + fees.maxPriorityFeePerGas,
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

/**
 * What each of `senders` (lower-case) holds on the reads' block under the overrides: its
 * balance override, or its balance on the chain (read once per block and sender).
 * @throws SimulationUnavailableError when the node does not answer a balance.
 */
async function heldBalances(
  client: PublicClient,
  reads: BlockReads,
  senders: Address[],
  given: Map<Address, [Address, AccountOverride]>,
): Promise<Map<Address, bigint>> {
  try {
    const balances = await Promise.all(
      senders.map(
        async (sender) =>
          given.get(sender)?.[1].balance ?? (await balanceAt(client, reads, sender)),
      ),
    );
    return new Map(senders.map((sender, i) => [sender, balances[i] ?? 0n]));
  } catch (error) {
    throw new SimulationUnavailableError(
      `the chain node did not answer a balance: ${errorLine(error)}`,
    );
  }
}

/** `account`'s balance on the reads' block, read once (a failed read is not kept). */
function balanceAt(client: PublicClient, reads: BlockReads, account: Address): Promise<bigint> {
  const known = reads.balances.get(account);
  if (known) return known;
  const read = client.getBalance({ address: account, blockNumber: reads.block });
  if (reads.balances.size < MAX_BALANCES_PER_BLOCK) {
    reads.balances.set(account, read);
    read.catch(() => reads.balances.delete(account));
  }
  return read;
}

/** `overrides` keyed by lower-case address, each with the address as it was given. */
function overridesByAddress(
  overrides: Record<Address, AccountOverride>,
): Map<Address, [Address, AccountOverride]> {
  const given = new Map<Address, [Address, AccountOverride]>();
  for (const [address, o] of Object.entries(overrides)) {
    given.set(address.toLowerCase() as Address, [address as Address, o]);
  }
  return given;
}

/**
 * The most a signed transaction's fields besides its calldata take (type, chain id, nonce, fees,
 * gas, recipient, value, the lengths, an empty access list and the signature): about 220 bytes.
 */
const TRANSACTION_FIELDS_BYTES = 256;

/**
 * `overrides` with each sender given, on top of what it holds (`held`), the most its calls' gas
 * can cost (`gasMoney` of each): a validated simulation buys gas, and a caller quoting before
 * it holds any ether must still be answered. Gas is bought before the call runs, so during the
 * call the sender holds about what it would in the real transaction.
 */
function withGasMoney(
  overrides: Record<Address, AccountOverride>,
  given: Map<Address, [Address, AccountOverride]>,
  calls: SimulationCall[],
  held: Map<Address, bigint>,
  gasMoney: (call: SimulationCall) => bigint,
): Record<Address, AccountOverride> {
  const owed = new Map<Address, bigint>();
  for (const c of calls) {
    const sender = c.from.toLowerCase() as Address;
    owed.set(sender, (owed.get(sender) ?? 0n) + gasMoney(c));
  }
  const out = { ...overrides };
  for (const [sender, cost] of owed) {
    const [key, o] = given.get(sender) ?? [sender, undefined];
    const funded = (held.get(sender) ?? 0n) + cost;
    out[key] = { ...o, balance: funded > maxUint256 ? maxUint256 : funded };
  }
  return out;
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
