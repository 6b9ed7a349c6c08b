/**
 * Finds where an ERC20 keeps a holder's balance and allowance, so that a simulation can give
 * the caller the tokens and the approval it does not have yet (state overrides).
 *
 * The storage keys `balanceOf(holder)` reads come from `eth_createAccessList`; at most
 * MAX_KEYS_TRIED of them (those that are a mapping entry of the holder first) are then tried in
 * one `eth_call`: `contracts/lens/StorageSlotProbe.sol`, put in the token's place by a state
 * override, writes a marker to each key in turn and runs the token's own code to see whether
 * `balanceOf` answers it. Every request has a gas limit, and a search makes three requests at
 * most, however many keys the token reads. When the key is a Solidity or Vyper mapping entry
 * `keccak(holder . p)` / `keccak(p . holder)`, the mapping slot `p` is cached per token and later
 * holders cost no RPC; otherwise the key itself is cached per holder. A token whose storage is
 * not found is remembered for FAILURE_TTL_MS, whoever the holder. A search stops at its next
 * request once the request it serves has met its deadline.
 */
import {
  type Address,
  BaseError,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  HttpRequestError,
  hexToBigInt,
  keccak256,
  numberToHex,
  type PublicClient,
  pad,
  size,
  slice,
  TimeoutError,
} from "viem";
import { apiProbeRuntimeCode } from "../../../abis/generated/ApiProbeRuntimeCode.js";
import { StorageSlotProbeAbi } from "../../../abis/generated/StorageSlotProbe.js";
import { requestSignal } from "../ops/deadline.js";
import { SimulationUnavailableError } from "./simulate.js";

type MappingLayout = { slot: bigint; order: "key-first" | "slot-first" };
type SlotRule =
  | { kind: "mapping"; layout: MappingLayout }
  | { kind: "exact"; key: Hex; holder: string };

const MARKER = 0x5eed_5eed_5eed_5eed_5eed_5eed_5eedn;
const SLOT_SEARCH_LIMIT = 64n;
/** Gas the access list's run of `balanceOf`/`allowance` may use: any real token's, many times. */
export const ACCESS_LIST_GAS = 1_000_000n;
/** Storage keys tried per search: a real token's balance is one of its first few. */
export const MAX_KEYS_TRIED = 32;
/** Gas each run of the token's read may use inside the probe. */
export const GAS_PER_TRY = 150_000n;
/** The probe's own gas per key (writing and restoring it, the loop) and for the call itself. */
const PROBE_GAS_PER_KEY = 30_000n;
const PROBE_BASE_GAS = 100_000n;
/** Where the probe finds the token's code (StorageSlotProbe.TOKEN_CODE). */
const PROBE_TOKEN_CODE = "0x00000000000000000000000000000000005107E5" as const;
/** How long a token whose storage was not found is answered from memory. */
export const FAILURE_TTL_MS = 10 * 60_000;
/** Tokens remembered per cache: anyone can ask about any contract. */
const MAX_CACHED_TOKENS = 10_000;

function mappingKey(key: Hex, layout: MappingLayout): Hex {
  const k = pad(key, { size: 32 });
  const p = numberToHex(layout.slot, { size: 32 });
  return keccak256(layout.order === "key-first" ? `${k}${p.slice(2)}` : `${p}${k.slice(2)}`);
}

function nestedKey(owner: Hex, spender: Hex, layout: MappingLayout): Hex {
  const inner = mappingKey(owner, layout);
  return layout.order === "key-first"
    ? keccak256(`${pad(spender, { size: 32 })}${inner.slice(2)}`)
    : keccak256(`${inner}${pad(spender, { size: 32 }).slice(2)}`);
}

/** Every key a mapping at slots 0–63 would keep `holder`'s entry at, with its layout. */
function mappingKeysOf(holder: Hex, nested?: Hex): Map<Hex, MappingLayout> {
  const keys = new Map<Hex, MappingLayout>();
  for (let slot = 0n; slot < SLOT_SEARCH_LIMIT; slot++) {
    for (const order of ["key-first", "slot-first"] as const) {
      const layout = { slot, order };
      keys.set(nested ? nestedKey(holder, nested, layout) : mappingKey(holder, layout), layout);
    }
  }
  return keys;
}

/**
 * Whether `error` says the node could not be reached (network, HTTP status, timeout) rather than
 * that the call itself failed.
 */
function nodeUnreachable(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;
}

/** Throws the deadline's answer when the request this work serves has already been answered. */
function stopIfAbandoned(): void {
  requestSignal()?.throwIfAborted();
}

async function accessedKeys(client: PublicClient, token: Address, data: Hex): Promise<Hex[]> {
  stopIfAbandoned();
  let result: Awaited<ReturnType<PublicClient["createAccessList"]>>;
  try {
    result = await client.createAccessList({ to: token, data, gas: ACCESS_LIST_GAS });
  } catch (error) {
    if (nodeUnreachable(error))
      throw new SimulationUnavailableError("the chain node does not answer");
    // The read itself fails (not an ERC20, or it needs more gas than any token): no key to find.
    return [];
  }
  const entry = result.accessList.find((e) => e.address.toLowerCase() === token.toLowerCase());
  return (entry?.storageKeys ?? []) as Hex[];
}

/** The first of `keys` whose value the token's read `data` answers, in one probing call. */
async function probeKeys(
  client: PublicClient,
  token: Address,
  data: Hex,
  keys: readonly Hex[],
): Promise<Hex | undefined> {
  try {
    stopIfAbandoned();
    const code = await client.getCode({ address: token });
    if (!code || code === "0x") return undefined;
    stopIfAbandoned();
    const { data: out } = await client.call({
      to: token,
      data: encodeFunctionData({
        abi: StorageSlotProbeAbi,
        functionName: "probe",
        args: [data, [...keys], MARKER, GAS_PER_TRY],
      }),
      gas: BigInt(keys.length) * (GAS_PER_TRY + PROBE_GAS_PER_KEY) + PROBE_BASE_GAS,
      stateOverride: [
        { address: token, code: apiProbeRuntimeCode.StorageSlotProbe },
        { address: PROBE_TOKEN_CODE, code },
      ],
    });
    if (out === undefined) return undefined;
    const found = decodeFunctionResult({
      abi: StorageSlotProbeAbi,
      functionName: "probe",
      data: out,
    });
    return found === 0n ? undefined : keys[Number(found) - 1];
  } catch (error) {
    if (nodeUnreachable(error))
      throw new SimulationUnavailableError("the chain node does not answer");
    // The probe reverted or ran out of gas: no key found. (The deadline's answer goes on up.)
    if (error instanceof BaseError) return undefined;
    throw error;
  }
}

/** A Map that forgets its oldest entries beyond `MAX_CACHED_TOKENS`. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_CACHED_TOKENS) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}

/** Caches of discovered layouts and of tokens searched in vain, per chain and token (lowercase). */
export class TokenSlotFinder {
  private readonly balances = new Map<string, SlotRule>();
  private readonly allowances = new Map<string, SlotRule>();
  /** Until when (ms) a token's balance or allowance search is known to fail. */
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly client: PublicClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** The storage key holding `holder`'s balance of `token`. */
  async balanceKey(token: Address, holder: Address): Promise<Hex> {
    const cacheKey = token.toLowerCase();
    const rule = this.balances.get(cacheKey);
    if (rule?.kind === "mapping") return mappingKey(holder, rule.layout);
    if (rule?.kind === "exact" && rule.holder === holder.toLowerCase()) return rule.key;
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [holder] });
    const found = await this.search(token, "balance", data, () => mappingKeysOf(holder));
    remember(
      this.balances,
      cacheKey,
      found.layout
        ? { kind: "mapping", layout: found.layout }
        : { kind: "exact", key: found.key, holder: holder.toLowerCase() },
    );
    return found.key;
  }

  /** The storage key holding `owner`'s allowance of `token` to `spender`. */
  async allowanceKey(token: Address, owner: Address, spender: Address): Promise<Hex> {
    const cacheKey = token.toLowerCase();
    const rule = this.allowances.get(cacheKey);
    if (rule?.kind === "mapping") return nestedKey(owner, spender, rule.layout);
    const holder = `${owner}:${spender}`.toLowerCase();
    if (rule?.kind === "exact" && rule.holder === holder) return rule.key;
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: "allowance",
      args: [owner, spender],
    });
    const found = await this.search(token, "allowance", data, () => mappingKeysOf(owner, spender));
    remember(
      this.allowances,
      cacheKey,
      found.layout
        ? { kind: "mapping", layout: found.layout }
        : { kind: "exact", key: found.key, holder },
    );
    return found.key;
  }

  /**
   * The key `data` (the token's read) answers from: the keys it reads, those that are a mapping
   * entry of the holder first, at most MAX_KEYS_TRIED of them, tried in one call.
   * @throws SlotNotFoundError when none is (remembered for FAILURE_TTL_MS).
   */
  private async search(
    token: Address,
    what: "balance" | "allowance",
    data: Hex,
    mappingKeys: () => Map<Hex, MappingLayout>,
  ): Promise<{ key: Hex; layout?: MappingLayout }> {
    const failureKey = `${what}:${token.toLowerCase()}`;
    const failedUntil = this.failures.get(failureKey);
    if (failedUntil !== undefined && failedUntil > this.now())
      throw new SlotNotFoundError(token, what);
    const accessed = await accessedKeys(this.client, token, data);
    const layouts = mappingKeys();
    const candidates = [
      ...accessed.filter((k) => layouts.has(k)),
      ...accessed.filter((k) => !layouts.has(k)),
    ].slice(0, MAX_KEYS_TRIED);
    const key =
      candidates.length === 0 ? undefined : await probeKeys(this.client, token, data, candidates);
    if (key === undefined) {
      remember(this.failures, failureKey, this.now() + FAILURE_TTL_MS);
      throw new SlotNotFoundError(token, what);
    }
    return { key, layout: layouts.get(key) };
  }
}

/**
 * Storage writes that give `holder` a balance of `amount` of `token` (and that allowance to
 * `spender`) for a simulation. Where a token keeps a value somewhere no override can reach (a
 * rebasing balance computed from shares), the holder's own value is used when it is enough.
 * @throws SlotNotFoundError when it is not (with the value the holder has).
 */
export async function fundingStateDiff(
  slots: TokenSlotFinder,
  client: PublicClient,
  params: { token: Address; holder: Address; amount: bigint; spender?: Address },
): Promise<Record<Hex, Hex>> {
  const { token, holder, amount, spender } = params;
  const stateDiff: Record<Hex, Hex> = {};
  /** Overrides the word at `key()`, or, where it cannot be located, checks the holder's own. */
  const give = async (
    what: "balance" | "allowance",
    key: () => Promise<Hex>,
    read: () => Promise<bigint>,
  ) => {
    try {
      stateDiff[await key()] = storageWord(amount);
    } catch (error) {
      if (!(error instanceof SlotNotFoundError)) throw error;
      const held = await read().catch((cause: unknown) => {
        if (nodeUnreachable(cause))
          throw new SimulationUnavailableError("the chain node does not answer");
        // The read reverted or ran out of gas: the holder has none to speak of.
        if (cause instanceof BaseError) return 0n;
        throw cause;
      });
      if (held < amount) throw new SlotNotFoundError(token, what, { holder, held });
    }
  };
  /** The holder's own value: the first word `data` answers, read with a try's gas. */
  const own = (data: Hex) => async () => {
    stopIfAbandoned();
    const { data: out } = await client.call({ to: token, data, gas: GAS_PER_TRY });
    return out === undefined || size(out) < 32 ? 0n : hexToBigInt(slice(out, 0, 32));
  };
  await give(
    "balance",
    () => slots.balanceKey(token, holder),
    own(encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [holder] })),
  );
  if (spender) {
    await give(
      "allowance",
      () => slots.allowanceKey(token, holder, spender),
      own(
        encodeFunctionData({
          abi: erc20Abi,
          functionName: "allowance",
          args: [holder, spender],
        }),
      ),
    );
  }
  return stateDiff;
}

/** The token's balance or allowance storage could not be located (and the holder's own fell short). */
export class SlotNotFoundError extends Error {
  override readonly name = "SlotNotFoundError";
  constructor(
    readonly token: Address,
    readonly what: "balance" | "allowance",
    readonly holding?: { holder: Address; held: bigint },
  ) {
    super(`could not locate the ${what} storage of token ${token}`);
  }

  /** What a client can do about it, as a sentence. */
  get remedy(): string {
    if (!this.holding) return "";
    return ` ${this.holding.holder} has ${this.holding.held} of it, less than the ${this.what === "balance" ? "amount" : "allowance"} needed: ${this.what === "balance" ? "hold" : "approve"} the amount first, then ask again.`;
  }
}

/** A 32-byte storage word holding `value`. */
export function storageWord(value: bigint): Hex {
  return encodeAbiParameters([{ type: "uint256" }], [value]);
}
