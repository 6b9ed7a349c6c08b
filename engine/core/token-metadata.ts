/** What the indexer stores of a token's metadata, whatever the token returns. */
import {
  type Address,
  concat,
  decodeAbiParameters,
  encodeAbiParameters,
  type Hex,
  hexToBigInt,
  hexToString,
  size,
  slice,
} from "viem";
import { indexerInitCode } from "../../abis/generated/IndexerInitCode.js";

/**
 * A token's name or symbol as stored: without NUL characters, which Postgres `text` refuses
 * (a token whose metadata holds them would otherwise stop the indexer on its first event).
 * A `bytes32` name (MKR, SAI) is padded with them; some `string` names carry them too.
 * @example storableText("Maker\u0000\u0000") // "Maker"
 */
export function storableText(value: string): string {
  return value.replaceAll("\u0000", "");
}

/** A token's metadata; undefined where the token gave no readable answer. */
export type TokenMetadata = {
  name: string | undefined;
  symbol: string | undefined;
  decimals: number | undefined;
};

/**
 * How many tokens one {@link tokenMetadataBatchCall} reads.
 *
 * - Gas: the worst token spends its whole 200,000-gas budget on each of its three fields; 32 of
 *   them need 21.7 M gas in all (`test/tokens/metadata.test.ts` measures it). No batch can need
 *   much more: its calls are at most 32 × 3 × ~203,000 ≈ 19.5 M and its answer at most
 *   24,576 bytes × 200 gas ≈ 4.9 M, under 25 M, half of geth's default `eth_call` gas cap (50 M)
 *   and under the 30 M block gas limit that anvil, and the nodes capping an `eth_call` at the
 *   block's limit, allow (geth, Erigon and reth keep EIP-7825's 16.8 M transaction cap out of an
 *   `eth_call`).
 * - Answer size: what a constructor returns becomes a contract's code, which EIP-170 caps at
 *   24,576 bytes and prices at 200 gas a byte. An ordinary token's answer is 576–704 bytes (a
 *   name and symbol of up to 96 bytes each), so 32 of them always fit; the reader answers as many
 *   tokens as fit and the rest are asked again, so tokens with kilobyte names cost more requests,
 *   never a refused one.
 * - Request size: the creation code and 32 addresses are ~2.3 KB, far below the 49,152 bytes
 *   (EIP-3860) a node accepts as an `eth_call` without `to`.
 *
 * 400,000 tokens are 12,500 requests.
 */
export const TOKEN_METADATA_BATCH = 32;

/**
 * The data of an `eth_call` without `to` that reads a token's metadata through
 * `contracts/lens/TokenMetadataReader.sol`: one request for the three fields, each read with a
 * gas budget, so a token whose `symbol()` loops or reverts gives an answer, not an RPC error
 * (which a node reports, and an indexer retries, like a network failure).
 */
export function tokenMetadataCall(token: Address): Hex {
  return concat([
    indexerInitCode.TokenMetadataReader,
    encodeAbiParameters([{ type: "address" }], [token]),
  ]);
}

/**
 * The data of an `eth_call` without `to` that reads the metadata of up to
 * {@link TOKEN_METADATA_BATCH} tokens through `contracts/lens/TokenMetadataBatchReader.sol`: each
 * token's fields read as {@link tokenMetadataCall} reads them, with the same budgets.
 * @example tokenMetadataBatchCall([usdc, weth]) // creation code ++ abi.encode(address[])
 */
export function tokenMetadataBatchCall(tokens: readonly Address[]): Hex {
  return concat([
    indexerInitCode.TokenMetadataBatchReader,
    encodeAbiParameters([{ type: "address[]" }], [tokens]),
  ]);
}

/** A `string` answer, or a `bytes32` one (MKR-style), as stored; undefined if neither. */
function decodeText(ok: boolean, raw: Hex): string | undefined {
  if (!ok || size(raw) === 0) return undefined;
  try {
    return storableText(decodeAbiParameters([{ type: "string" }], raw)[0]);
  } catch {
    return size(raw) === 32 ? storableText(hexToString(raw, { size: 32 })) : undefined;
  }
}

/** `decimals()`: a number from 0 to 255, else undefined. */
function decodeDecimals(ok: boolean, raw: Hex): number | undefined {
  if (!ok || size(raw) < 32) return undefined;
  const value = hexToBigInt(slice(raw, 0, 32));
  return value <= 255n ? Number(value) : undefined;
}

/**
 * Decodes what {@link tokenMetadataBatchCall} returns: the answers of its first tokens, in order
 * (as many as fit in one answer: at least one, usually all), each decoded by
 * {@link decodeTokenMetadata} as if it had been read alone.
 */
export function decodeTokenMetadataBatch(answer: Hex): TokenMetadata[] {
  const [answers] = decodeAbiParameters([{ type: "bytes[]" }], answer);
  return answers.map((tokenAnswer) => decodeTokenMetadata(tokenAnswer));
}

/** Decodes what {@link tokenMetadataCall} returns. */
export function decodeTokenMetadata(answer: Hex): TokenMetadata {
  const [nameOk, name, symbolOk, symbol, decimalsOk, decimals] = decodeAbiParameters(
    [
      { type: "bool" },
      { type: "bytes" },
      { type: "bool" },
      { type: "bytes" },
      { type: "bool" },
      { type: "bytes" },
    ],
    answer,
  );
  return {
    name: decodeText(nameOk, name),
    symbol: decodeText(symbolOk, symbol),
    decimals: decodeDecimals(decimalsOk, decimals),
  };
}
