import type { Context } from "ponder:registry";
import { token } from "ponder:schema";
import { type Address, getAddress } from "viem";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/index.js";
import { readTokenMetadata, UNREADABLE_METADATA } from "./metadata.js";

export type PositionTokenFields = {
  protocolSlug: string;
  underlyingTokens: Address[];
  primaryAddress: Address;
  /** Known constants (V2 LP tokens) spare the metadata read per pair. */
  metadata?: { name: string; symbol: string; decimals: number };
};

export type TokenToEnsure = {
  address: Address;
  position?: PositionTokenFields;
  /** The block it was first seen in, when not the call's own (a state start's pools). */
  seenAt?: bigint;
};

/**
 * Inserts each token the first time it is seen, reading its name, symbol and decimals once
 * (immutable facts, cached by Ponder; `TOKEN_METADATA_BATCH` tokens an `eth_call`, so a state
 * start's hundreds of thousands of tokens cost a few thousand requests). A position token is a
 * `defi` token; anything else is `base`. The reads of all new tokens go out together: an
 * indexing function's `eth_call`s wait behind the backfill's own requests, so one round trip per
 * event instead of one per token is what makes a `PairCreated` cheap. A token whose decimals
 * cannot be read is left out, with the reason in the log.
 */
export async function ensureTokens(
  context: Context,
  tokens: readonly TokenToEnsure[],
  blockNumber: bigint,
): Promise<void> {
  const chainId = context.chain.id;
  const missing: TokenToEnsure[] = [];
  for (const t of tokens) {
    const existing = await context.db.find(token, { chainId, address: t.address });
    if (!existing) {
      missing.push(t);
      continue;
    }
    // A token first seen in a pool and later recognised as a position (a vault share traded in
    // a pool) becomes a position token.
    if (t.position && existing.type === "base") {
      await context.db.update(token, { chainId, address: t.address }).set({
        type: "defi",
        protocolSlug: t.position.protocolSlug,
        underlyingTokens: t.position.underlyingTokens,
        primaryAddress: t.position.primaryAddress,
        updatedBlock: blockNumber,
      });
    }
  }
  // A position token whose metadata is given (a V2 LP token) costs no read.
  const read = await readTokenMetadata({
    client: context.client,
    chainId,
    tokens: missing.filter((t) => !t.position?.metadata).map((t) => t.address),
  });
  for (const { address, position, seenAt } of missing) {
    const { name, symbol, decimals } =
      position?.metadata ?? read.get(address) ?? UNREADABLE_METADATA;
    if (decimals === undefined) {
      // Amounts of a token without decimals cannot be shown or priced: its pools are indexed
      // and routed, but the catalogue does not list it.
      console.warn(
        `Token ${getAddress(address)} on chain ${chainId} is left out of the catalogue: decimals() reverted or did not return a number from 0 to 255.`,
      );
      continue;
    }
    for (const [field, value] of [
      ["name", name],
      ["symbol", symbol],
    ] as const) {
      if (value === undefined) {
        console.warn(
          `Token ${getAddress(address)} on chain ${chainId}: ${field}() reverted, ran out of gas or returned no text; it is listed with an empty ${field}.`,
        );
      }
    }
    await context.db
      .insert(token)
      .values({
        chainId,
        address,
        name: name ?? "",
        symbol: symbol ?? "",
        decimals,
        type: position ? "defi" : "base",
        protocolSlug: position?.protocolSlug ?? null,
        underlyingTokens: position?.underlyingTokens ?? [],
        primaryAddress: position?.primaryAddress ?? null,
        createdBlock: seenAt ?? blockNumber,
        updatedBlock: seenAt ?? blockNumber,
      })
      .onConflictDoNothing();
  }
}

/** The chain's native currency, listed as a base token at `0xeeee…eeee`. */
export async function ensureNativeToken(context: Context, blockNumber: bigint): Promise<void> {
  await context.db
    .insert(token)
    .values({
      chainId: context.chain.id,
      address: NATIVE_TOKEN_ADDRESS,
      name: "Ether",
      symbol: "ETH",
      decimals: 18,
      type: "base",
      protocolSlug: null,
      underlyingTokens: [],
      primaryAddress: null,
      createdBlock: blockNumber,
      updatedBlock: blockNumber,
    })
    .onConflictDoNothing();
}
