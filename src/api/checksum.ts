/**
 * EIP-55 address checksums, hashed with hash-wasm's Keccak-256 (WebAssembly) instead of viem's.
 *
 * Why: `GET /v1/tokens` serialises pages of 1,000 tokens, up to ~4,000 addresses a page (each
 * token's own, its underlying tokens, its primary address), and viem's `getAddress` hashes each
 * with a Keccak written in JavaScript: on a mainnet-sized catalogue that was most of a page's
 * time (`bench/results/scale.md`). A reused hash-wasm hasher fed bytes and read as binary is
 * several times cheaper per address (strings in and hex out would give much of that back, hence
 * the byte buffers below).
 */

import { createKeccak } from "hash-wasm";
import { InvalidAddressError } from "viem";

/**
 * Created once: instantiating the WebAssembly module is asynchronous, so the module waits for
 * it when it loads and every call after that is synchronous. One hasher is safe to share
 * because `checksumAddress` runs init → update → digest without yielding.
 */
const keccak = await createKeccak(256);

const ZERO = 0x30; // "0"
const NINE = 0x39; // "9"
const LOWER_A = 0x61; // "a"
const LOWER_F = 0x66; // "f"
const LOWER_X = 0x78; // "x"
/** ASCII lowercase and uppercase letters differ in this one bit. */
const CASE_BIT = 0x20;

/** The 40 hex digits, lowercase, as ASCII codes: what EIP-55 hashes. Reused by every call. */
const digits = new Uint8Array(40);
/**
 * The checksummed address as character codes, "0x" included. A plain array because TypeScript
 * types `String.fromCharCode.apply`'s arguments as `number[]`, not a typed array. Reused, so the
 * result string is the only allocation besides the 32-byte digest hash-wasm returns.
 */
const chars: number[] = new Array<number>(42).fill(0);
chars[0] = ZERO;
chars[1] = LOWER_X;

/**
 * The EIP-55 checksummed form of an address: each hex letter is uppercased where the matching
 * nibble of keccak256(lowercase hex digits) is 8 or more. Gives the same string as viem's
 * `getAddress` for every address, in any case.
 *
 * @param address `0x` followed by 40 hex digits, in any case.
 * @throws {InvalidAddressError} (viem's, as `getAddress` throws) when `address` is not that.
 * @example
 * checksumAddress("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
 * // "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
 */
export function checksumAddress(address: string): string {
  if (
    address.length !== 42 ||
    address.charCodeAt(0) !== ZERO ||
    address.charCodeAt(1) !== LOWER_X
  ) {
    throw new InvalidAddressError({ address });
  }
  for (let i = 0; i < 40; i++) {
    const code = address.charCodeAt(i + 2);
    // Setting the case bit lowercases A–F and leaves the digits as they are (0x30–0x39
    // already have it); it also maps other characters onto these ranges, hence the check of
    // `code` itself for digits.
    const lower = code | CASE_BIT;
    if (!((code >= ZERO && code <= NINE) || (lower >= LOWER_A && lower <= LOWER_F))) {
      throw new InvalidAddressError({ address });
    }
    digits[i] = lower;
  }

  keccak.init();
  keccak.update(digits);
  const hash = keccak.digest("binary");

  for (let i = 0; i < 40; i++) {
    const lower = digits[i] as number;
    const byte = hash[i >> 1] as number;
    // Digit i of the address pairs with nibble i of the hash: the high nibble for even i.
    const nibble = (i & 1) === 0 ? byte >> 4 : byte & 0x0f;
    chars[i + 2] = lower >= LOWER_A && nibble >= 8 ? lower ^ CASE_BIT : lower;
  }
  return String.fromCharCode.apply(null, chars);
}
