/**
 * Balancer V2's `FixedPoint` and `Math` libraries (solidity-utils, Solidity 0.7) over `bigint`.
 *
 * Values are uint256: each function checks what its Solidity original checks and throws the same
 * `BAL#` error where the chain reverts (a product past 2^256 - 1, a subtraction below zero, a
 * division by zero), so that a quote fails exactly where the pool does. Fixed-point numbers
 * carry 18 decimals (`ONE` = 1e18).
 */
import { BalancerMathError } from "./errors.js";
import { pow } from "./log-exp-math.js";

export const ONE = 10n ** 18n;
const TWO = 2n * ONE;
const FOUR = 4n * ONE;
const MAX_UINT256 = (1n << 256n) - 1n;
/** The relative error `pow` may carry, 1e-14: `powDown` and `powUp` step past it. */
const MAX_POW_RELATIVE_ERROR = 10_000n;

/** `a + b`, reverting past uint256 as `Math.add` and `FixedPoint.add`. */
export function add(a: bigint, b: bigint): bigint {
  const c = a + b;
  if (c > MAX_UINT256) throw new BalancerMathError("ADD_OVERFLOW", "add");
  return c;
}

/** `a - b`, reverting below zero as `Math.sub` and `FixedPoint.sub`. */
export function sub(a: bigint, b: bigint): bigint {
  if (b > a) throw new BalancerMathError("SUB_OVERFLOW", "sub");
  return a - b;
}

/** `a × b`, reverting past uint256 as `Math.mul`. */
export function mul(a: bigint, b: bigint): bigint {
  const c = a * b;
  if (c > MAX_UINT256) throw new BalancerMathError("MUL_OVERFLOW", "mul");
  return c;
}

/** Integer floor division, as `Math.divDown`. */
export function divDownInteger(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new BalancerMathError("ZERO_DIVISION", "divDown");
  return a / b;
}

/** Integer ceiling division, as `Math.divUp`: zero stays zero, anything else is 1 + (a - 1) / b. */
export function divUpInteger(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new BalancerMathError("ZERO_DIVISION", "divUp");
  return a === 0n ? 0n : 1n + (a - 1n) / b;
}

/** Fixed-point product rounded down. */
export function mulDown(a: bigint, b: bigint): bigint {
  return mul(a, b) / ONE;
}

/** Fixed-point product rounded up (the assembly's `(product - 1) / ONE + 1`, zero for zero). */
export function mulUp(a: bigint, b: bigint): bigint {
  const product = mul(a, b);
  return product === 0n ? 0n : (product - 1n) / ONE + 1n;
}

/** `a × ONE`, the inflation before a fixed-point division; its overflow is `DIV_INTERNAL`. */
function inflate(a: bigint, b: bigint, operation: string): bigint {
  if (b === 0n) throw new BalancerMathError("ZERO_DIVISION", operation);
  const inflated = a * ONE;
  if (inflated > MAX_UINT256) throw new BalancerMathError("DIV_INTERNAL", operation);
  return inflated;
}

/** Fixed-point quotient rounded down. */
export function divDown(a: bigint, b: bigint): bigint {
  return inflate(a, b, "divDown") / b;
}

/** Fixed-point quotient rounded up. */
export function divUp(a: bigint, b: bigint): bigint {
  const inflated = inflate(a, b, "divUp");
  return inflated === 0n ? 0n : (inflated - 1n) / b + 1n;
}

/**
 * x^y rounded down: exact products for the exponents 1, 2 and 4 (the common weights' ratios),
 * otherwise `LogExpMath.pow` less its largest error, floored at zero.
 */
export function powDown(x: bigint, y: bigint): bigint {
  if (y === ONE) return x;
  if (y === TWO) return mulDown(x, x);
  if (y === FOUR) {
    const square = mulDown(x, x);
    return mulDown(square, square);
  }
  const raw = pow(x, y);
  const maxError = add(mulUp(raw, MAX_POW_RELATIVE_ERROR), 1n);
  return raw < maxError ? 0n : raw - maxError;
}

/** x^y rounded up: as {@link powDown}, with the error added instead. */
export function powUp(x: bigint, y: bigint): bigint {
  if (y === ONE) return x;
  if (y === TWO) return mulUp(x, x);
  if (y === FOUR) {
    const square = mulUp(x, x);
    return mulUp(square, square);
  }
  const raw = pow(x, y);
  return add(raw, add(mulUp(raw, MAX_POW_RELATIVE_ERROR), 1n));
}

/** 1 - x, zero when x is above one (strips a power's error instead of reverting). */
export function complement(x: bigint): bigint {
  return x < ONE ? ONE - x : 0n;
}
