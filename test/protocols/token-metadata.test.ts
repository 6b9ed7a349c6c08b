/**
 * Token metadata as the indexer stores it: Postgres `text` refuses U+0000, so a name or symbol
 * holding NUL characters (padded `bytes32` names, or `string` names that carry them) is stored
 * without them rather than stopping the indexer.
 */
import { encodeAbiParameters, type Hex, hexToString, stringToHex } from "viem";
import { describe, expect, it } from "vitest";
import { indexerInitCode } from "../../abis/generated/IndexerInitCode.js";
import {
  decodeTokenMetadata,
  decodeTokenMetadataBatch,
  storableText,
  tokenMetadataBatchCall,
  tokenMetadataCall,
} from "../../engine/core/token-metadata.js";

describe("storableText", () => {
  it("drops NUL characters wherever they are and keeps everything else", () => {
    expect(storableText("Maker\u0000\u0000\u0000")).toBe("Maker");
    expect(storableText("\u0000A\u0000B\u0000")).toBe("AB");
    expect(storableText("Ünï©ødé \ufffd token")).toBe("Ünï©ødé \ufffd token");
    expect(storableText("\u0000\u0000")).toBe("");
  });

  it("turns a bytes32 name (MKR's) into its text", () => {
    const raw = stringToHex("Maker", { size: 32 });
    expect(hexToString(raw)).toHaveLength(32);
    expect(storableText(hexToString(raw))).toBe("Maker");
  });
});

describe("decodeTokenMetadata: what the deployless reader answers", () => {
  const answer = (fields: [boolean, Hex][]) =>
    encodeAbiParameters(
      fields.flatMap(() => [{ type: "bool" }, { type: "bytes" }]),
      fields.flat(),
    );
  const text = (value: string) => encodeAbiParameters([{ type: "string" }], [value]);
  const word = (value: bigint) => encodeAbiParameters([{ type: "uint256" }], [value]);

  it("reads string and bytes32 metadata, dropping NULs", () => {
    expect(
      decodeTokenMetadata(
        answer([
          [true, text("Tether USD")],
          [true, stringToHex("MKR", { size: 32 })],
          [true, word(6n)],
        ]),
      ),
    ).toEqual({ name: "Tether USD", symbol: "MKR", decimals: 6 });
  });

  it("leaves undefined what reverted, ran out of gas, returned nothing or no valid value", () => {
    expect(
      decodeTokenMetadata(
        answer([
          [false, "0x08c379a0"],
          [true, "0x"],
          [true, word(256n)],
        ]),
      ),
    ).toEqual({ name: undefined, symbol: undefined, decimals: undefined });
    // 40 bytes: neither an ABI string nor a bytes32.
    expect(
      decodeTokenMetadata(
        answer([
          [true, `0x${"ab".repeat(40)}`],
          [true, text("\u0000OK\u0000")],
          [true, word(0n)],
        ]),
      ),
    ).toEqual({ name: undefined, symbol: "OK", decimals: 0 });
  });

  it("asks the reader with its creation code and the token as the constructor argument", () => {
    const token = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
    const data = tokenMetadataCall(token);
    expect(data.slice(-40)).toBe(token.slice(2).toLowerCase());
    expect(data.length).toBe(indexerInitCode.TokenMetadataReader.length + 64);
  });

  it("decodes each answer of a batch as it decodes a single one", () => {
    const usdt = answer([
      [true, text("Tether USD")],
      [true, text("USDT")],
      [true, word(6n)],
    ]);
    const unreadable = answer([
      [false, "0x"],
      [true, "0x"],
      [true, word(256n)],
    ]);
    const batch = encodeAbiParameters([{ type: "bytes[]" }], [[usdt, unreadable]]);
    expect(decodeTokenMetadataBatch(batch)).toEqual([
      { name: "Tether USD", symbol: "USDT", decimals: 6 },
      { name: undefined, symbol: undefined, decimals: undefined },
    ]);
  });

  it("asks the batch reader with its creation code and the tokens as an address array", () => {
    const tokens = [
      "0xdAC17F958D2ee523a2206206994597C13D831ec7",
      "0x9f8F72aA9304c8B593d555F12eF6589cC3A579A2",
    ] as const;
    expect(tokenMetadataBatchCall(tokens)).toBe(
      `${indexerInitCode.TokenMetadataBatchReader}${encodeAbiParameters([{ type: "address[]" }], [tokens]).slice(2)}`,
    );
  });
});
