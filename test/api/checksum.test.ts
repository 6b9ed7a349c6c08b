import { getAddress, InvalidAddressError } from "viem";
import { describe, expect, test } from "vitest";
import { mulberry32 } from "../../devnet/random.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { checksumAddress } from "../../src/api/checksum.js";
import { formatAddress } from "../../src/api/schemas.js";

/** EIP-55's own test vectors: all caps, all lower, then mixed case. */
const EIP55_VECTORS = [
  "0x52908400098527886E0F7030069857D2E4169EE7",
  "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
  "0xde709f2102306220921060314715629080e2fb77",
  "0x27b1fdb04752bbc536007a920d24acb045561c26",
  "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
  "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
];

const SEED = 55;
const RANDOM_ADDRESSES = 20_000;
const HEX = "0123456789abcdef";

describe("checksumAddress", () => {
  test.each(EIP55_VECTORS)("EIP-55 vector %s, from lowercase and from uppercase hex", (vector) => {
    const hex = vector.slice(2);
    expect(checksumAddress(`0x${hex.toLowerCase()}`)).toBe(vector);
    expect(checksumAddress(`0x${hex.toUpperCase()}`)).toBe(vector);
    expect(checksumAddress(vector)).toBe(vector);
  });

  test(`${RANDOM_ADDRESSES} random addresses in random case (mulberry32 seed ${SEED}) match viem's getAddress`, () => {
    const random = mulberry32(SEED);
    const mismatches: { address: string; ours: string; viem: string }[] = [];
    for (let n = 0; n < RANDOM_ADDRESSES; n++) {
      let address = "0x";
      for (let i = 0; i < 40; i++) {
        const digit = HEX[Math.floor(random() * 16)] as string;
        address += random() < 0.5 ? digit : digit.toUpperCase();
      }
      const ours = checksumAddress(address);
      const viem = getAddress(address);
      if (ours !== viem) mismatches.push({ address, ours, viem });
    }
    // The count and the first few, so a failure stays readable.
    expect({ count: mismatches.length, first: mismatches.slice(0, 5) }).toEqual({
      count: 0,
      first: [],
    });
  });

  test.each([
    ["too short", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea"],
    ["too long", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00"],
    ["no 0x", "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00"],
    ["capital X", "0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
    ["a letter past f", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg"],
    // Code 0x10 becomes "0" once the case bit is set: it must still be refused.
    ["a control character", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea\u0010d"],
    ["empty", ""],
  ])("refuses %s, as getAddress does", (_, address) => {
    expect(() => getAddress(address)).toThrow(InvalidAddressError);
    expect(() => checksumAddress(address)).toThrow(InvalidAddressError);
  });
});

describe("formatAddress", () => {
  test("the native token stays lowercase, whatever its case", () => {
    expect(formatAddress(NATIVE_TOKEN_ADDRESS)).toBe("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
    expect(formatAddress("0xEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE")).toBe(
      "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    );
  });

  test.each([
    "",
    "not an address",
    "0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea",
    "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg",
  ])("returns %j unchanged: it is no address", (value) => {
    expect(formatAddress(value)).toBe(value);
  });

  test("checksums an address, from any case", () => {
    expect(formatAddress("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")).toBe(
      "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    );
    expect(formatAddress("0xD1220A0CF47C7B9BE7A2E6BA89F429762E7B9ADB")).toBe(
      "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    );
  });
});
