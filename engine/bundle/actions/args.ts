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

/** A literal amount in wei (decimal string) or `{ useOutputOfCallAt: i, index?: n }`. */
export const amountArg = z.union(
  [
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
      "expected an amount in wei (a decimal string) or an output reference { useOutputOfCallAt: <earlier action index> }",
  },
);

/** Slippage in basis points, as a number or a decimal string. */
export const slippageArg = z
  .union([z.number(), z.string()])
  .refine((v) => /^[0-9]+$/.test(String(v)) && Number(v) <= 10_000, {
    message: "expected basis points: a whole number from 0 to 10000",
  })
  .transform(Number);
