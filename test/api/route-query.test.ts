/**
 * The route query's defaults and limits (docs/routes-and-bundles.md): `maxHops` 3 (at most 3),
 * `slippage` 300 bps, the router strategy, price impact on, and `toEOA` accepted but marked as
 * deprecated.
 */
import { describe, expect, test } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { parseRouteQuery } from "../../src/api/v1/route-query.js";

const from = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const usdc = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
const weth = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2";
const base = `http://x/v1/shortcuts/route?chainId=1&fromAddress=${from}&tokenIn=${usdc}&tokenOut=${weth}&amountIn=1000`;

function errorOf(url: string): { status: number; body: unknown } {
  try {
    parseRouteQuery(url);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.statusCode, body: error.toBody() };
    throw error;
  }
  throw new Error("expected an ApiError");
}

describe("parseRouteQuery", () => {
  test("fills the documented defaults", () => {
    expect(parseRouteQuery(base)).toEqual({
      chainId: 1,
      // Addresses are normalised to lowercase for the engine.
      fromAddress: from.toLowerCase(),
      tokenIn: usdc.toLowerCase(),
      tokenOut: weth.toLowerCase(),
      amountIn: 1000n,
      receiver: undefined,
      spender: from.toLowerCase(),
      routingStrategy: "router",
      usedToEOA: false,
      toEOA: undefined,
      priceImpact: true,
      slippage: 300,
      fee: undefined,
      feeReceiver: undefined,
      tokenInAmountToApprove: undefined,
      tokenInAmountToTransfer: undefined,
      maxHops: 3,
      deadline: undefined,
    });
  });

  test("maxHops is 1 to 3", () => {
    expect(parseRouteQuery(`${base}&maxHops=1`).maxHops).toBe(1);
    expect(errorOf(`${base}&maxHops=4`)).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: "Invalid query parameter `maxHops`: expected a whole number from 1 to 3.",
      },
    });
  });

  test("toEOA is accepted and marked as used (the handler answers with a Deprecation header)", () => {
    expect(parseRouteQuery(`${base}&toEOA=true`)).toMatchObject({
      usedToEOA: true,
      toEOA: true,
    });
    expect(parseRouteQuery(`${base}&toEOA=false`)).toMatchObject({
      usedToEOA: true,
      toEOA: false,
    });
  });
});
