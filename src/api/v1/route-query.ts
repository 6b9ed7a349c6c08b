import { z } from "zod";
import type { RouteRequest } from "../../../engine/index.js";
import { MAX_FEE_BPS } from "../../../engine/index.js";
import { ApiError } from "../errors.js";
import { parseQuery } from "../query.js";
import { addressParam, deadlineParam, positiveIntParam } from "../schemas.js";

const MAX_UINT256 = 2n ** 256n - 1n;

/** An amount in wei: decimal digits only, from 1 to 2^256 − 1. */
export const amountParam = z
  .string()
  .refine((v) => /^[0-9]+$/.test(v) && BigInt(v) > 0n && BigInt(v) <= MAX_UINT256, {
    message: "expected an amount in wei: a whole number from 1 to 2^256 - 1, in decimal digits",
  })
  .transform((v) => BigInt(v));

/** An amount in wei that may be zero. */
export const amountOrZeroParam = z
  .string()
  .refine((v) => /^[0-9]+$/.test(v) && BigInt(v) <= MAX_UINT256, {
    message: "expected an amount in wei: a whole number from 0 to 2^256 - 1, in decimal digits",
  })
  .transform((v) => BigInt(v));

const booleanParam = z
  .enum(["true", "false"], { error: "expected true or false" })
  .transform((v) => v === "true");

function bpsParam(max: number) {
  return z
    .string()
    .refine((v) => /^[0-9]+$/.test(v) && Number(v) <= max, {
      message: `expected basis points: a whole number from 0 to ${max}`,
    })
    .transform(Number);
}

/** The query of `GET /v1/shortcuts/route` (SPEC 4.3, DESIGN.md §5). */
export const routeQuerySchema = z.object({
  chainId: positiveIntParam("a chain id").optional(),
  fromAddress: addressParam,
  tokenIn: z.array(addressParam).min(1),
  tokenOut: z.array(addressParam).min(1),
  amountIn: z.array(amountParam).min(1),
  receiver: addressParam.optional(),
  spender: addressParam.optional(),
  routingStrategy: z
    .enum(["router", "delegate", "corewallet"], {
      error: "expected one of router, delegate, corewallet",
    })
    .default("router"),
  toEOA: booleanParam.optional(),
  priceImpact: booleanParam.default(true),
  slippage: bpsParam(10_000).default(300),
  // The engine's bound, so that the edge refuses with a 400 every fee the encoder would refuse.
  fee: bpsParam(MAX_FEE_BPS).optional(),
  feeReceiver: addressParam.optional(),
  tokenInAmountToApprove: amountOrZeroParam.optional(),
  tokenInAmountToTransfer: amountOrZeroParam.optional(),
  maxHops: z
    .string()
    .refine((v) => /^[1-3]$/.test(v), { message: "expected a whole number from 1 to 3" })
    .transform(Number)
    .default(3),
  deadline: deadlineParam.optional(),
});

/** Parses and checks the route query; every problem is a 400 naming the parameter. */
export function parseRouteQuery(url: string): RouteRequest {
  const q = parseQuery(url, routeQuerySchema);
  if (q.tokenIn.length > 1) {
    throw new ApiError(
      400,
      `Query parameter \`tokenIn\`: ${q.tokenIn.length} input tokens were given; routes take one.`,
    );
  }
  if (q.tokenOut.length > 1) {
    throw new ApiError(
      400,
      `Query parameter \`tokenOut\`: ${q.tokenOut.length} output tokens were given; routes take one.`,
    );
  }
  if (q.amountIn.length !== q.tokenIn.length) {
    throw new ApiError(
      400,
      `Query parameter \`amountIn\`: ${q.amountIn.length} amounts were given for ${q.tokenIn.length} input token; give one amount per tokenIn.`,
    );
  }
  const tokenIn = q.tokenIn[0] as `0x${string}`;
  const tokenOut = q.tokenOut[0] as `0x${string}`;
  if (tokenIn === tokenOut) {
    throw new ApiError(
      400,
      "Query parameters `tokenIn` and `tokenOut` are the same token; there is nothing to route.",
    );
  }
  if (q.fee !== undefined && q.fee > 0 && q.feeReceiver === undefined) {
    throw new ApiError(
      400,
      "Query parameter `feeReceiver` is required when `fee` is greater than 0.",
    );
  }
  return {
    chainId: q.chainId,
    fromAddress: q.fromAddress,
    tokenIn,
    tokenOut,
    amountIn: q.amountIn[0] as bigint,
    receiver: q.receiver,
    spender: q.spender ?? q.fromAddress,
    routingStrategy: q.routingStrategy,
    usedToEOA: q.toEOA !== undefined,
    toEOA: q.toEOA,
    priceImpact: q.priceImpact,
    slippage: q.slippage,
    fee: q.fee,
    feeReceiver: q.feeReceiver,
    tokenInAmountToApprove: q.tokenInAmountToApprove,
    tokenInAmountToTransfer: q.tokenInAmountToTransfer,
    maxHops: q.maxHops,
    deadline: q.deadline,
  };
}
