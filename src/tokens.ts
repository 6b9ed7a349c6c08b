import type { Context } from "ponder:registry";
import { token } from "ponder:schema";
import { type Address, erc20Abi, hexToString, parseAbi } from "viem";
import { NATIVE_TOKEN_ADDRESS } from "../protocols/native";
import { storableText } from "../protocols/token-metadata";

/** Some old tokens (MKR, SAI) return `bytes32` names and symbols. */
const bytes32MetadataAbi = parseAbi([
  "function name() view returns (bytes32)",
  "function symbol() view returns (bytes32)",
]);

async function readText(
  context: Context,
  address: Address,
  field: "name" | "symbol",
): Promise<string> {
  try {
    return storableText(
      await context.client.readContract({
        address,
        abi: erc20Abi,
        functionName: field,
        cache: "immutable",
      }),
    );
  } catch {
    try {
      const raw = await context.client.readContract({
        address,
        abi: bytes32MetadataAbi,
        functionName: field,
        cache: "immutable",
      });
      return storableText(hexToString(raw, { size: 32 }));
    } catch {
      return "";
    }
  }
}

async function readDecimals(context: Context, address: Address): Promise<number> {
  try {
    return await context.client.readContract({
      address,
      abi: erc20Abi,
      functionName: "decimals",
      cache: "immutable",
    });
  } catch {
    return 18;
  }
}

export type PositionTokenFields = {
  protocolSlug: string;
  underlyingTokens: Address[];
  primaryAddress: Address;
  /** Known constants (V2 LP tokens) spare three RPC calls per pair. */
  metadata?: { name: string; symbol: string; decimals: number };
};

export type TokenToEnsure = { address: Address; position?: PositionTokenFields };

/**
 * Inserts each token the first time it is seen, reading its name, symbol and decimals once
 * (immutable facts). A position token is a `defi` token; anything else is `base`. The reads of
 * all new tokens go out together: an indexing function's `eth_call`s wait behind the backfill's
 * own requests, so one round trip per event instead of one per token is what makes a
 * `PairCreated` cheap.
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
  const read = await Promise.all(
    missing.map(async ({ address, position }) => {
      const [name, symbol, decimals] = position?.metadata
        ? [position.metadata.name, position.metadata.symbol, position.metadata.decimals]
        : await Promise.all([
            readText(context, address, "name"),
            readText(context, address, "symbol"),
            readDecimals(context, address),
          ]);
      return { address, position, name, symbol, decimals };
    }),
  );
  for (const { address, position, name, symbol, decimals } of read) {
    await context.db
      .insert(token)
      .values({
        chainId,
        address,
        name,
        symbol,
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
