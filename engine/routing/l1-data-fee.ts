/**
 * The L1 data fee of an OP-stack chain: what a transaction pays, besides its L2 gas, for its bytes
 * to be posted to L1. The chain's `GasPriceOracle` predeploy (`getL1Fee`) computes it from the
 * L1 values its `L1Block` predeploy holds; this is the same arithmetic off the chain, from those
 * values read once per block (`OpStackFeeParameters`), so the route search can price candidate
 * calldata without asking the chain for each.
 *
 * Each upgrade priced the bytes differently (`GasPriceOracle.sol` of @eth-optimism/contracts-bedrock):
 * - Bedrock: calldata gas (16 a non-zero byte, 4 a zero one, plus 68 × 16 for the signature)
 *   plus the overhead, × L1 base fee × scalar / 10^6;
 * - Ecotone: the same calldata gas × (baseFeeScalar × 16 × l1BaseFee + blobBaseFeeScalar ×
 *   blobBaseFee) / (16 × 10^6);
 * - Fjord: the FastLZ-compressed size + 68, through a linear regression onto a Brotli size
 *   (floored at 100 bytes), × the same scaled fee / 10^12.
 */

/** The `GasPriceOracle` predeploy's address on every OP-stack chain. */
export const OP_STACK_GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F";
/** The `L1Block` predeploy's address on every OP-stack chain. */
export const OP_STACK_L1_BLOCK = "0x4200000000000000000000000000000000000015";

/** The `L1FeeVault` predeploy: every transaction's L1 data fee is credited to it. */
export const OP_STACK_L1_FEE_VAULT = "0x420000000000000000000000000000000000001A";

/** What the predeploys answer for one block, everything the fee depends on. */
export type OpStackFeeParameters = {
  isEcotone: boolean;
  isFjord: boolean;
  l1BaseFee: bigint;
  /** Ecotone on (0 before). */
  blobBaseFee: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  /** Bedrock only (`L1Block.l1FeeOverhead`; 0 from Ecotone on). */
  overhead: bigint;
  /** Bedrock only (`L1Block.l1FeeScalar`; 0 from Ecotone on). */
  scalar: bigint;
};

/** Bytes `getL1Fee` adds for the signature its unsigned input lacks. */
const SIGNATURE_BYTES = 68n;
const DECIMALS_SCALE = 1_000_000n;
/** Fjord's regression of the FastLZ size onto the Brotli size, both × 10^6. */
const COST_INTERCEPT = -42_585_600n;
const COST_FASTLZ_COEF = 836_500n;
const MIN_TRANSACTION_SIZE_SCALED = 100n * DECIMALS_SCALE;

/** `GasPriceOracle._getCalldataGas`: 16 gas a non-zero byte, 4 a zero one, plus the signature's. */
function calldataGas(data: Uint8Array): bigint {
  let total = 0;
  for (const byte of data) total += byte === 0 ? 4 : 16;
  return BigInt(total) + SIGNATURE_BYTES * 16n;
}

/** `baseFeeScalar × 16 × l1BaseFee + blobBaseFeeScalar × blobBaseFee`: the price from Ecotone on. */
function scaledFee(p: OpStackFeeParameters): bigint {
  return p.baseFeeScalar * 16n * p.l1BaseFee + p.blobBaseFeeScalar * p.blobBaseFee;
}

/** `GasPriceOracle._fjordL1Cost` of a FastLZ size (the signature's 68 bytes included). */
function fjordCost(p: OpStackFeeParameters, fastLzSize: bigint): bigint {
  let estimated = COST_INTERCEPT + COST_FASTLZ_COEF * fastLzSize;
  if (estimated < MIN_TRANSACTION_SIZE_SCALED) estimated = MIN_TRANSACTION_SIZE_SCALED;
  return (estimated * scaledFee(p)) / (DECIMALS_SCALE * DECIMALS_SCALE);
}

/**
 * `GasPriceOracle.getL1Fee(data)` computed off the chain, to the wei, from the block's parameters.
 * @example opStackL1Fee(params, hexToBytes(tx.data))
 */
export function opStackL1Fee(p: OpStackFeeParameters, data: Uint8Array): bigint {
  if (p.isFjord) return fjordCost(p, BigInt(fastLzCompressedLength(data)) + SIGNATURE_BYTES);
  if (p.isEcotone) return (calldataGas(data) * scaledFee(p)) / (16n * DECIMALS_SCALE);
  return ((calldataGas(data) + p.overhead) * p.l1BaseFee * p.scalar) / DECIMALS_SCALE;
}

/**
 * The most L1 fee a transaction of at most `byteLength` bytes can be charged under `p`, whatever
 * its bytes: each one non-zero (16 calldata gas) and none compressed (FastLZ stores a run of 32
 * literal bytes in 33), the signature's 68 bytes counted on top. What a simulation must give a
 * sender besides its gas so that a node charging the L1 fee does not refuse the call.
 */
export function opStackL1FeeBound(p: OpStackFeeParameters, byteLength: number): bigint {
  const n = BigInt(byteLength);
  if (p.isFjord) return fjordCost(p, n + (n + 31n) / 32n + SIGNATURE_BYTES);
  const gas = 16n * n + SIGNATURE_BYTES * 16n;
  if (p.isEcotone) return (gas * scaledFee(p)) / (16n * DECIMALS_SCALE);
  return ((gas + p.overhead) * p.l1BaseFee * p.scalar) / DECIMALS_SCALE;
}

/**
 * The L1 fee of one more byte of a transaction's (FastLZ-compressed) calldata: what the route
 * search charges a route for each byte its calldata is estimated to take. Fjord's fee is linear in
 * the compressed size above its floor; before Fjord a compressed byte is priced as a non-zero
 * calldata byte (compressed bytes are nearly all non-zero), which the route's estimate of its
 * compressed size stands for.
 */
export function opStackFeePerByte(p: OpStackFeeParameters): bigint {
  if (p.isFjord) return (COST_FASTLZ_COEF * scaledFee(p)) / (DECIMALS_SCALE * DECIMALS_SCALE);
  if (p.isEcotone) return scaledFee(p) / DECIMALS_SCALE;
  return (16n * p.l1BaseFee * p.scalar) / DECIMALS_SCALE;
}

/** FastLZ's hash table: 2^13 entries of the last position each 3-byte sequence was seen at. */
const HASH_LOG = 13;
const HASH_MASK = (1 << HASH_LOG) - 1;
/** The farthest back a match may reach (a 13-bit distance). */
const MAX_DISTANCE = 8191;
/** A match's length field holds up to 262 more bytes per 3-byte instruction. */
const MAX_MATCH_RUN = 262;

/** The three bytes at `i`, little-endian (what FastLZ hashes and compares). */
function u24(data: Uint8Array, i: number): number {
  return (data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16);
}

/**
 * Bits 19..31 of 2654435769 × v: the product is taken at 256 bits in the contract, and those bits
 * lie within its low 32, which `Math.imul` gives exactly.
 */
function hash(v: number): number {
  return (Math.imul(2654435769 | 0, v) >>> 19) & HASH_MASK;
}

/** Output bytes of `runs` literal bytes: a control byte per run of up to 32, then the bytes. */
function literalBytes(runs: number): number {
  const full = Math.floor(runs / 32);
  const rest = runs % 32;
  return full * 33 + (rest > 0 ? rest + 1 : 0);
}

/** Output bytes of a match of `length` (beyond its first 3 bytes): 3 per 262, then 2 or 3. */
function matchBytes(length: number): number {
  let out = 0;
  let l = length;
  for (; l >= MAX_MATCH_RUN + 1; l -= MAX_MATCH_RUN) out += 3;
  return out + (l >= 7 ? 3 : 2);
}

/**
 * The length of Solady's `LibZip.flzCompress(data)` (FastLZ level 1), which Fjord's
 * `GasPriceOracle` prices: the same parse step by step, counting the output instead of writing it.
 * Positions are offsets from the data's start; an empty hash slot reads as position 0, as in the
 * contract (its table starts zeroed).
 */
export function fastLzCompressedLength(data: Uint8Array): number {
  const table = new Uint32Array(1 << HASH_LOG);
  const ipLimit = data.length - 13;
  let out = 0;
  let anchor = 0;
  let ip = 2;
  while (ip < ipLimit) {
    let ref = 0;
    let distance = 0;
    for (;;) {
      const seq = u24(data, ip);
      const h = hash(seq);
      ref = table[h] as number;
      table[h] = ip;
      distance = ip - ref;
      if (ip >= ipLimit) break;
      ip++;
      if (distance <= MAX_DISTANCE && seq === u24(data, ref)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > anchor) out += literalBytes(ip - anchor);
    // The match runs on past its first 3 bytes while the bytes agree, up to 4 bytes before the
    // end; the contract's loop counts the first differing byte too (it stops after it).
    const end = ipLimit + 9 - (ip + 3);
    let length = 0;
    while (length < end) {
      const same = data[ref + 3 + length] === data[ip + 3 + length];
      length++;
      if (!same) break;
    }
    out += matchBytes(length);
    ip += length;
    table[hash(u24(data, ip))] = ip;
    ip++;
    table[hash(u24(data, ip))] = ip;
    ip++;
    anchor = ip;
  }
  return out + literalBytes(data.length - anchor);
}
