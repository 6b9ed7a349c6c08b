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
