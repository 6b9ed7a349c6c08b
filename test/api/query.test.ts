import { describe, expect, test } from "vitest";
import { z } from "zod";
import { ApiError } from "../../src/api/errors.js";
import { collectQuery, parseQuery } from "../../src/api/query.js";
import { addressParam, formatAddress, positiveIntParam } from "../../src/api/schemas.js";

const schema = z.object({
  chainId: positiveIntParam("a chain id").optional(),
  tokenIn: z.array(addressParam).optional(),
});
const a = `0x${"Ab".repeat(20)}`;
const b = `0x${"cD".repeat(20)}`;

function errorOf(fn: () => unknown): { status: number; body: unknown } {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.statusCode, body: error.toBody() };
    throw error;
  }
  throw new Error("expected an ApiError");
}

describe("collectQuery", () => {
  test("folds repeated, bracketed and percent-encoded bracketed names into one list", () => {
    const q = collectQuery(`http://x/?tokenIn=${a}&tokenIn%5B%5D=${b}&tokenIn[]=${a}&chainId=1`);
    expect([...q.entries()]).toEqual([
      ["tokenIn", [a, b, a]],
      ["chainId", ["1"]],
    ]);
  });
});

describe("parseQuery", () => {
  test("parses scalars and arrays, lowercasing addresses", () => {
    expect(parseQuery(`http://x/?chainId=31337&tokenIn=${a}`, schema)).toEqual({
      chainId: 31337,
      tokenIn: [a.toLowerCase()],
    });
    expect(parseQuery("http://x/", schema)).toEqual({});
  });

  test("rejects unknown parameters, naming them and listing the accepted ones", () => {
    expect(errorOf(() => parseQuery("http://x/?chainid=1", schema))).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: "Unknown query parameter `chainid`; accepted: chainId, tokenIn.",
      },
    });
  });

  test("rejects a scalar given twice", () => {
    expect(errorOf(() => parseQuery("http://x/?chainId=1&chainId=1", schema)).body).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "Query parameter `chainId` must be given once; it was given 2 times.",
    });
  });

  test("names the array parameter whose element is malformed", () => {
    expect(errorOf(() => parseQuery(`http://x/?tokenIn=${a}&tokenIn=0x12`, schema)).body).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message:
        "Invalid query parameter `tokenIn`: expected an address (0x followed by 40 hex digits).",
    });
  });

  test.each(["0", "-5", "1e3", "0x10", " 1", "1.0", "9007199254740992", ""])(
    "chainId=%j is rejected",
    (value) => {
      expect(
        errorOf(() => parseQuery(`http://x/?chainId=${encodeURIComponent(value)}`, schema)).body,
      ).toEqual({
        statusCode: 400,
        error: "Bad Request",
        message:
          "Invalid query parameter `chainId`: expected a chain id: a whole number from 1 to 9007199254740991.",
      });
    },
  );
});

describe("formatAddress", () => {
  test("checksums addresses but keeps the native token lowercase", () => {
    expect(formatAddress("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2")).toBe(
      "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
    );
    expect(formatAddress("0xEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE")).toBe(
      "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    );
  });
});
