/**
 * The reverts of Balancer V2's math, by the code of its `BalancerErrors.sol`: a pool reverts
 * with the reason `BAL#` and the code padded to three digits, which `reason` spells the same way.
 */
export const BALANCER_ERROR_CODES = {
  ADD_OVERFLOW: 0,
  SUB_OVERFLOW: 1,
  MUL_OVERFLOW: 3,
  ZERO_DIVISION: 4,
  DIV_INTERNAL: 5,
  X_OUT_OF_BOUNDS: 6,
  Y_OUT_OF_BOUNDS: 7,
  PRODUCT_OUT_OF_BOUNDS: 8,
  INVALID_EXPONENT: 9,
  OUT_OF_BOUNDS: 100,
  MAX_IN_RATIO: 304,
  MAX_OUT_RATIO: 305,
  MIN_BPT_IN_FOR_TOKEN_OUT: 306,
  ZERO_INVARIANT: 311,
  STABLE_INVARIANT_DIDNT_CONVERGE: 321,
  STABLE_GET_BALANCE_DIDNT_CONVERGE: 322,
} as const;

export type BalancerErrorName = keyof typeof BALANCER_ERROR_CODES;

/**
 * Where the chain's pool would revert: the Solidity library's error, so that a caller can tell
 * a swap beyond a weighted pool's 30% limit (`MAX_IN_RATIO`) from an arithmetic underflow.
 */
export class BalancerMathError extends Error {
  override readonly name = "BalancerMathError";
  readonly shortMessage: string;
  /** The revert reason the pool gives, e.g. `BAL#304`. */
  readonly reason: string;
  constructor(
    readonly error: BalancerErrorName,
    readonly operation: string,
  ) {
    const reason = `BAL#${BALANCER_ERROR_CODES[error].toString().padStart(3, "0")}`;
    super(`${operation} reverts with ${reason} (${error})`);
    this.shortMessage = `${operation}: ${error}`;
    this.reason = reason;
  }
}
