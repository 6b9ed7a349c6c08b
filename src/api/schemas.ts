import { z } from "zod";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/index.js";
import { checksumAddress } from "./checksum.js";

/** `0x` and 40 hex digits in any case: what viem's `isAddress(a, { strict: false })` accepts. */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A 0x-prefixed 40-hex-digit address in any case; normalised to lowercase. */
export const addressParam = z
  .string()
  .refine((v) => ADDRESS.test(v), {
    message: "expected an address (0x followed by 40 hex digits)",
  })
  .transform((v) => v.toLowerCase() as `0x${string}`);

/** A positive integer written in decimal digits (no sign, no exponent, no hex). */
export function positiveIntParam(what: string, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .refine((v) => /^[0-9]+$/.test(v) && Number(v) >= 1 && Number(v) <= max, {
      message: `expected ${what}: a whole number from 1 to ${max}`,
    })
    .transform(Number);
}

/** A transaction deadline: unix seconds, a whole number from 1 to 2^64 − 1. */
export const deadlineParam = z
  .string()
  .refine((v) => /^[0-9]{1,20}$/.test(v) && BigInt(v) >= 1n && BigInt(v) < 2n ** 64n, {
    message: "expected a unix time in seconds: a whole number from 1 to 2^64 - 1",
  })
  .transform((v) => BigInt(v));

/**
 * Checksummed address for responses; the native token stays lowercase as SPEC.md writes it, and
 * a string that is no address comes back as it is.
 */
export function formatAddress(address: string): string {
  if (address.toLowerCase() === NATIVE_TOKEN_ADDRESS) return NATIVE_TOKEN_ADDRESS;
  return ADDRESS.test(address) ? checksumAddress(address) : address;
}
