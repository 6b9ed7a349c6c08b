import { getAddress } from "viem";

/** The native currency as a token address (SPEC: 0x followed by forty `e`), lowercase. */
export const NATIVE_TOKEN_ADDRESS = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" as const;

export function isNativeToken(address: string): boolean {
  return address.toLowerCase() === NATIVE_TOKEN_ADDRESS;
}

/** Checksummed for responses; the native token stays lowercase. */
export function displayAddress(a: string): string {
  return isNativeToken(a) ? NATIVE_TOKEN_ADDRESS : getAddress(a);
}
