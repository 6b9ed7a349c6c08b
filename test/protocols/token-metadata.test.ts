/**
 * Token metadata as the indexer stores it: Postgres `text` refuses U+0000, so a name or symbol
 * holding NUL characters (padded `bytes32` names, or `string` names that carry them) is stored
 * without them rather than stopping the indexer.
 */
import { hexToString, stringToHex } from "viem";
import { describe, expect, it } from "vitest";
import { storableText } from "../../protocols/token-metadata.js";

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
