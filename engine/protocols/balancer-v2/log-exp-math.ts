/**
 * Balancer V2's `LogExpMath` over `bigint`: x^y as exp(y·ln x), with the same decompositions,
 * series and truncations as the Solidity library, so the result is its result to the wei.
 *
 * The library computes in int256 with Solidity 0.7's division, which truncates toward zero as
 * `bigint` division does (and `%` keeps the dividend's sign in both). Arguments and results are
 * 18-decimal fixed point; inner steps use 20 decimals, and 36 for ln near one.
 */
import { BalancerMathError } from "./errors.js";

const ONE_18 = 10n ** 18n;
const ONE_20 = 10n ** 20n;
const ONE_36 = 10n ** 36n;

// exp's domain: its 20-decimal result must fit in int256 above, and be at least 1e-18 below
// (ln(2^255 / 1e20) ≈ 130.7 and ln(1e-18) ≈ -41.4, with a margin).
const MAX_NATURAL_EXPONENT = 130n * ONE_18;
const MIN_NATURAL_EXPONENT = -41n * ONE_18;

// ln is computed with 36 decimals between 0.9 and 1.1, where ln is small and digits are cheap.
const LN_36_LOWER_BOUND = ONE_18 - 10n ** 17n;
const LN_36_UPPER_BOUND = ONE_18 + 10n ** 17n;

/** y's bound: y·ln(x) must not overflow before the final division. */
const MILD_EXPONENT_BOUND = 2n ** 254n / ONE_20;

// x_n = 2^(7-n) and a_n = e^(x_n). a0 and a1 are integers (no decimals), x0 and x1 have 18
// decimals; from x2 on both have 20 decimals.
const x0 = 128_000000000000000000n;
const a0 = 38877084059945950922200000000000000000000000000000000000n;
const x1 = 64_000000000000000000n;
const a1 = 6235149080811616882910000000n;
/** x2…x11 with a2…a11, 20 decimals. */
const TERMS_20: readonly (readonly [bigint, bigint])[] = [
  [3200000000000000000000n, 7896296018268069516100000000000000n],
  [1600000000000000000000n, 888611052050787263676000000n],
  [800000000000000000000n, 298095798704172827474000n],
  [400000000000000000000n, 5459815003314423907810n],
  [200000000000000000000n, 738905609893065022723n],
  [100000000000000000000n, 271828182845904523536n],
  [50000000000000000000n, 164872127070012814685n],
  [25000000000000000000n, 128402541668774148407n],
  [12500000000000000000n, 113314845306682631683n],
  [6250000000000000000n, 106449445891785942956n],
];
/** exp stops at x9 (its Taylor series is precise enough from there); ln goes on to x11. */
const EXP_TERMS = TERMS_20.slice(0, 8);

/**
 * x^y for 18-decimal x and y, as `LogExpMath.pow`: 0^0 is one, 0^y zero; reverts where x does
 * not fit int256, y is past its bound or y·ln(x) is outside exp's domain.
 */
export function pow(x: bigint, y: bigint): bigint {
  if (y === 0n) return ONE_18;
  if (x === 0n) return 0n;
  if (x >> 255n !== 0n) throw new BalancerMathError("X_OUT_OF_BOUNDS", "pow");
  if (y >= MILD_EXPONENT_BOUND) throw new BalancerMathError("Y_OUT_OF_BOUNDS", "pow");
  let logxTimesY: bigint;
  if (LN_36_LOWER_BOUND < x && x < LN_36_UPPER_BOUND) {
    const ln36x = ln36(x);
    // ln36x has 36 decimals: multiply its top and bottom 18 decimals by y separately, so the
    // product cannot overflow.
    logxTimesY = (ln36x / ONE_18) * y + ((ln36x % ONE_18) * y) / ONE_18;
  } else {
    logxTimesY = lnPositive(x) * y;
  }
  logxTimesY /= ONE_18;
  if (logxTimesY < MIN_NATURAL_EXPONENT || logxTimesY > MAX_NATURAL_EXPONENT) {
    throw new BalancerMathError("PRODUCT_OUT_OF_BOUNDS", "pow");
  }
  return exp(logxTimesY);
}

/** e^x for a signed 18-decimal x, as `LogExpMath.exp`. */
export function exp(x: bigint): bigint {
  if (x < MIN_NATURAL_EXPONENT || x > MAX_NATURAL_EXPONENT) {
    throw new BalancerMathError("INVALID_EXPONENT", "exp");
  }
  // e^-x = 1 / e^x, in 18-decimal fixed point.
  if (x < 0n) return (ONE_18 * ONE_18) / exp(-x);
  let rest = x;
  // a0 and a1 are too large for 18 decimals: they multiply the result as plain integers.
  let firstAN = 1n;
  if (rest >= x0) {
    rest -= x0;
    firstAN = a0;
  } else if (rest >= x1) {
    rest -= x1;
    firstAN = a1;
  }
  rest *= 100n; // to 20 decimals
  let product = ONE_20;
  for (const [xn, an] of EXP_TERMS) {
    if (rest >= xn) {
      rest -= xn;
      product = (product * an) / ONE_20;
    }
  }
  // Taylor series of e^rest, 12 terms, each the previous times rest over n.
  let seriesSum = ONE_20 + rest;
  let term = rest;
  for (let n = 2n; n <= 12n; n++) {
    term = (term * rest) / ONE_20 / n;
    seriesSum += term;
  }
  return (((product * seriesSum) / ONE_20) * firstAN) / 100n;
}

/** ln(a) for a positive 18-decimal a, as `LogExpMath.ln`. */
export function ln(a: bigint): bigint {
  if (a <= 0n) throw new BalancerMathError("OUT_OF_BOUNDS", "ln");
  if (LN_36_LOWER_BOUND < a && a < LN_36_UPPER_BOUND) return ln36(a) / ONE_18;
  return lnPositive(a);
}

/** `LogExpMath._ln`: ln of an 18-decimal a > 0 by decomposition into the a_n. */
function lnPositive(a: bigint): bigint {
  // ln(a) = -ln(1/a): the recursion runs once, with an argument above one.
  if (a < ONE_18) return -lnPositive((ONE_18 * ONE_18) / a);
  let rest = a;
  let sum = 0n;
  // Integer (not fixed-point) divisions: a0 and a1 carry no decimals.
  if (rest >= a0 * ONE_18) {
    rest /= a0;
    sum += x0;
  }
  if (rest >= a1 * ONE_18) {
    rest /= a1;
    sum += x1;
  }
  sum *= 100n;
  rest *= 100n;
  for (const [xn, an] of TERMS_20) {
    if (rest >= an) {
      rest = (rest * ONE_20) / an;
      sum += xn;
    }
  }
  // rest is now below a11 (about 1.06): ln(rest) = 2·(z + z^3/3 + … + z^11/11), z = (rest-1)/(rest+1).
  return (sum + 2n * oddSeries(rest, ONE_20, 11n)) / 100n;
}

/** `LogExpMath._ln_36`: ln near one with 36 decimals, returned with 36 decimals. */
function ln36(x: bigint): bigint {
  return 2n * oddSeries(x * ONE_18, ONE_36, 15n);
}

/**
 * z + z^3/3 + … + z^last/last with z = (v - one) / (v + one), in the fixed point of `one`:
 * the series both ln functions share, to 11 terms for 20 decimals and to 15 for 36.
 */
function oddSeries(v: bigint, one: bigint, last: bigint): bigint {
  const z = ((v - one) * one) / (v + one);
  const zSquared = (z * z) / one;
  let num = z;
  let seriesSum = num;
  for (let n = 3n; n <= last; n += 2n) {
    num = (num * zSquared) / one;
    seriesSum += num / n;
  }
  return seriesSum;
}
