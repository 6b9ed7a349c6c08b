import { type Hex, hexToBytes } from "viem";

/**
 * Intrinsic gas of a transaction's calldata (EIP-2028: 4 per zero byte, 16 per other byte).
 * Re-encoding a simulated transaction with other argument values changes only this part.
 */
export function calldataGas(data: Hex): bigint {
  let gas = 0n;
  for (const byte of hexToBytes(data)) gas += byte === 0 ? 4n : 16n;
  return gas;
}
