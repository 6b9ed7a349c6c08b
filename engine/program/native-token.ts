import { type Address, isAddressEqual } from "viem";

/** The address that stands for the native currency in token positions (SPEC §1). */
export const NATIVE_TOKEN_ADDRESS = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" as const;

/** Whether `token` is the native-currency placeholder (any letter case). */
export function isNativeToken(token: Address): boolean {
  return isAddressEqual(token, NATIVE_TOKEN_ADDRESS);
}
