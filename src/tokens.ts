import type { Context } from "ponder:registry";
import { token } from "ponder:schema";
import { type Address, getAddress } from "viem";
import { NATIVE_TOKEN_ADDRESS } from "../protocols/native";
import {
  decodeTokenMetadata,
  type TokenMetadata,
  tokenMetadataCall,
} from "../protocols/token-metadata";

/**
 * Reads a token's name, symbol and decimals in one `eth_call` (immutable facts, cached by
 * Ponder). Each field is read with a gas budget, so a token that reverts, loops or answers
 * garbage gives "unreadable" for that field instead of an RPC error that would be retried.
 */
async function readMetadata(context: Context, address: Address): Promise<TokenMetadata> {
  try {
    const answer = await context.client.call({
      data: tokenMetadataCall(address),
      cache: "immutable",
    });
    return decodeTokenMetadata(answer.data ?? "0x");
  } catch (error) {
    console.warn(
      `Token ${getAddress(address)} on chain ${context.chain.id}: its metadata could not be read (${(error as Error).message.split("\n")[0]}).`,
    );
    return { name: undefined, symbol: undefined, decimals: undefined };
  }
}

export type PositionTokenFields = {
  protocolSlug: string;
  underlyingTokens: Address[];
  primaryAddress: Address;
  /** Known constants (V2 LP tokens) spare three RPC calls per pair. */
  metadata?: { name: string; symbol: string; decimals: number };
};

/**
 * Inserts a token the first time it is seen, reading its name, symbol and decimals once
 * (immutable facts). A position token is a `defi` token; anything else is `base`.
 */
export async function ensureToken(
  context: Context,
  address: Address,
  blockNumber: bigint,
  position?: PositionTokenFields,
): Promise<void> {
  const chainId = context.chain.id;
  const existing = await context.db.find(token, { chainId, address });
  if (existing) {
    // A token first seen in a pool and later recognised as a position (a vault share traded in
    // a pool) becomes a position token.
    if (position && existing.type === "base") {
      await context.db.update(token, { chainId, address }).set({
        type: "defi",
        protocolSlug: position.protocolSlug,
        underlyingTokens: position.underlyingTokens,
        primaryAddress: position.primaryAddress,
        updatedBlock: blockNumber,
      });
    }
    return;
  }
  const { name, symbol, decimals } = position?.metadata ?? (await readMetadata(context, address));
  if (decimals === undefined) {
    // Amounts of a token without decimals cannot be shown or priced: its pools are indexed
    // and routed, but the catalogue does not list it.
    console.warn(
      `Token ${getAddress(address)} on chain ${chainId} is left out of the catalogue: decimals() reverted or did not return a number from 0 to 255.`,
    );
    return;
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
      createdBlock: blockNumber,
      updatedBlock: blockNumber,
    })
    .onConflictDoNothing();
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
