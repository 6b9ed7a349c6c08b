/** zod pieces shared by the bundle actions' argument schemas. */
import { z } from "zod";
import type { AmountArg } from "./types.js";

const MAX_UINT256 = 2n ** 256n - 1n;

/** An address in any case, validated; lowercase inside (the native token stays 0xeeee…). */
export const addressArg = z
  .string({ error: "expected an address string" })
  .refine((v) => /^0x[0-9a-fA-F]{40}$/.test(v), {
    message: "expected an address (0x followed by 40 hex digits)",
  })
  .transform((v) => v.toLowerCase() as `0x${string}`);

/**
 * A JSON integer a client may send for a number: up to 2^53 - 1, the largest every JSON parser
 * reads exactly. Larger amounts are decimal strings.
 */
const jsonInteger = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** How `/v1/standards` and `/v1/actions` describe an amount argument (`amountArg`). */
export const AMOUNT_DESCRIPTION =
  "Amount in wei (a decimal string, or a JSON integer up to 2^53 - 1) or an output reference { useOutputOfCallAt: i }";

/**
 * A literal amount in wei — a decimal string, or a JSON integer up to 2^53 - 1 — or
 * `{ useOutputOfCallAt: i, index?: n }`.
 */
export const amountArg = z.union(
  [
    jsonInteger.transform((v): AmountArg => BigInt(v)),
    z
      .string()
      .refine((v) => /^[0-9]+$/.test(v) && BigInt(v) <= MAX_UINT256, {
        message: "expected an amount in wei (a decimal string up to 2^256 - 1)",
      })
      .transform((v): AmountArg => BigInt(v)),
    z
      .object({
        useOutputOfCallAt: z.number().int().min(0),
        index: z.number().int().min(0).optional(),
      })
      .strict()
      .transform((r): AmountArg => ({ ref: r.useOutputOfCallAt, index: r.index ?? 0 })),
  ],
  {
    error:
      "expected an amount in wei (a decimal string, or a JSON integer up to 2^53 - 1) or an output reference { useOutputOfCallAt: <earlier action index> }",
  },
);

/** A share in basis points (0 to 10000), as a JSON integer or a decimal string. */
export const bpsArg = z
  .union(
    [
      jsonInteger,
      z
        .string()
        .regex(/^[0-9]+$/)
        .transform(Number),
    ],
    {
      error:
        "expected basis points: a whole number from 0 to 10000 (a JSON integer or a decimal string)",
    },
  )
  .refine((v) => v <= 10_000, {
    message:
      "expected basis points: a whole number from 0 to 10000 (a JSON integer or a decimal string)",
  });

/** Slippage in basis points: the same rule as every share. */
export const slippageArg = bpsArg;
