/**
 * The route fee's bound lives in one place, the engine's MAX_FEE_BPS (the contract's own
 * constant is checked equal to it against the chain, in test/execution/router-checks.test.ts):
 * the API refuses a fee above it with a 400 naming `fee`, so that no fee reaches the encoder
 * (whose refusal would be a 500) or the router (whose refusal would be a 422).
 */
import { describe, expect, test } from "vitest";
import { MAX_FEE_BPS } from "../../engine/program/encode.js";
import { ApiError } from "../../src/api/errors.js";
import { parseRouteQuery } from "../../src/api/v1/route-query.js";

const from = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const feeReceiver = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const usdc = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
const weth = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2";
const base = `http://x/v1/shortcuts/route?chainId=1&fromAddress=${from}&tokenIn=${usdc}&tokenOut=${weth}&amountIn=1000&feeReceiver=${feeReceiver}`;

function errorOf(url: string): { status: number; body: unknown } {
  try {
    parseRouteQuery(url);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.statusCode, body: error.toBody() };
    throw error;
  }
  throw new Error("expected an ApiError");
}

describe("the route fee's bound", () => {
  test("is SPEC's 100 bps", () => {
    expect(MAX_FEE_BPS).toBe(100);
  });

  test("fee=100 is taken as it is", () => {
    expect(parseRouteQuery(`${base}&fee=100`)).toMatchObject({
      fee: 100,
      feeReceiver: feeReceiver.toLowerCase(),
    });
  });

  test("fee=101 is a 400 naming the parameter and the range", () => {
    expect(errorOf(`${base}&fee=101`)).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message:
          "Invalid query parameter `fee`: expected basis points: a whole number from 0 to 100.",
      },
    });
  });
});
