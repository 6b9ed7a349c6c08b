/**
 * Finds where an ERC20 keeps a holder's balance and allowance, so that a simulation can give
 * the caller the tokens and the approval it does not have yet (state overrides).
 *
 * The storage keys `balanceOf(holder)` reads come from `eth_createAccessList`; each is tried by
 * overriding it with a marker and reading `balanceOf` again. When the key is a Solidity or
 * Vyper mapping entry `keccak(holder . p)` / `keccak(p . holder)`, the mapping slot `p` is cached
 * per token and later holders cost no RPC; otherwise the key itself is cached per holder.
 */
import {
  type Address,
  BaseError,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  HttpRequestError,
  keccak256,
  numberToHex,
  type PublicClient,
  pad,
  TimeoutError,
} from "viem";
import { SimulationUnavailableError } from "./simulate.js";

type MappingLayout = { slot: bigint; order: "key-first" | "slot-first" };
type SlotRule =
  | { kind: "mapping"; layout: MappingLayout }
  | { kind: "exact"; key: Hex; holder: string };

const MARKER = 0x5eed_5eed_5eed_5eed_5eed_5eed_5eedn;
const SLOT_SEARCH_LIMIT = 64n;

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

function layoutFor(key: Hex, holder: Hex, nested?: Hex): MappingLayout | undefined {
  for (let slot = 0n; slot < SLOT_SEARCH_LIMIT; slot++) {
    for (const order of ["key-first", "slot-first"] as const) {
      const layout = { slot, order };
      const candidate = nested ? nestedKey(holder, nested, layout) : mappingKey(holder, layout);
      if (candidate === key) return layout;
    }
  }
  return undefined;
}

/**
 * Whether `error` says the node could not be reached (network, HTTP status, timeout) rather than
 * that the call itself failed.
 */
function nodeUnreachable(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;
}

async function accessedKeys(client: PublicClient, token: Address, data: Hex): Promise<Hex[]> {
  let result: Awaited<ReturnType<PublicClient["createAccessList"]>>;
  try {
    result = await client.createAccessList({ to: token, data });
  } catch (error) {
    if (nodeUnreachable(error))
      throw new SimulationUnavailableError("the chain node does not answer");
    // The read itself fails (not an ERC20, say): no key to find.
    return [];
  }
  const entry = result.accessList.find((e) => e.address.toLowerCase() === token.toLowerCase());
  return (entry?.storageKeys ?? []) as Hex[];
}

async function readsMarker(
  client: PublicClient,
  token: Address,
  data: Hex,
  key: Hex,
): Promise<boolean> {
  try {
    const { data: out } = await client.call({
      to: token,
      data,
      stateOverride: [
        { address: token, stateDiff: [{ slot: key, value: numberToHex(MARKER, { size: 32 }) }] },
      ],
    });
    return out !== undefined && BigInt(out) === MARKER;
  } catch (error) {
    if (nodeUnreachable(error))
      throw new SimulationUnavailableError("the chain node does not answer");
    return false;
  }
}

/** Caches of discovered layouts, per chain and token (lowercase). */
export class TokenSlotFinder {
  private readonly balances = new Map<string, SlotRule>();
  private readonly allowances = new Map<string, SlotRule>();

  constructor(private readonly client: PublicClient) {}

  /** The storage key holding `holder`'s balance of `token`. */
  async balanceKey(token: Address, holder: Address): Promise<Hex> {
    const cacheKey = token.toLowerCase();
    const rule = this.balances.get(cacheKey);
    if (rule?.kind === "mapping") return mappingKey(holder, rule.layout);
    if (rule?.kind === "exact" && rule.holder === holder.toLowerCase()) return rule.key;
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [holder] });
    for (const key of await accessedKeys(this.client, token, data)) {
      if (!(await readsMarker(this.client, token, data, key))) continue;
      const layout = layoutFor(key, holder);
      this.balances.set(
        cacheKey,
        layout ? { kind: "mapping", layout } : { kind: "exact", key, holder: holder.toLowerCase() },
      );
      return key;
    }
    throw new SlotNotFoundError(token, "balance");
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
    for (const key of await accessedKeys(this.client, token, data)) {
      if (!(await readsMarker(this.client, token, data, key))) continue;
      const layout = layoutFor(key, owner, spender);
      this.allowances.set(
        cacheKey,
        layout ? { kind: "mapping", layout } : { kind: "exact", key, holder },
      );
      return key;
    }
    throw new SlotNotFoundError(token, "allowance");
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
        return 0n;
      });
      if (held < amount) throw new SlotNotFoundError(token, what, { holder, held });
    }
  };
  await give(
    "balance",
    () => slots.balanceKey(token, holder),
    () =>
      client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [holder],
      }),
  );
  if (spender) {
    await give(
      "allowance",
      () => slots.allowanceKey(token, holder, spender),
      () =>
        client.readContract({
          address: token,
          abi: erc20Abi,
          functionName: "allowance",
          args: [holder, spender],
        }),
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
