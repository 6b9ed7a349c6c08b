/**
 * The off-chain L1 data fee (engine/routing/l1-data-fee.ts) against the OP-stack predeploys'
 * own `getL1Fee`, from @eth-optimism/contracts-bedrock's bytecode on anvil, under each upgrade's
 * rules: to the wei, on calldata of every shape (random, ABI-like with zero runs, repetitive,
 * short, long past FastLZ's 8 KiB window); and the bound a simulation funds senders with covers
 * each of them.
 */
import { createPublicClient, type Hex, http, type PublicClient, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { mulberry32 } from "../../devnet/random.js";
import {
  OP_STACK_GAS_PRICE_ORACLE,
  type OpStackFeeParameters,
  opStackL1Fee,
  opStackL1FeeBound,
} from "../../engine/routing/l1-data-fee.js";
import { readOpStackFeeParameters } from "../../src/api/chain/l1-fee.js";
import { startTestAnvil } from "../harness/anvil.js";
import {
  activateUpgrade,
  BASE_LIKE_L1_VALUES,
  gasPriceOracleAbi,
  placeOpStackPredeploys,
  setBedrockL1Values,
  setEcotoneL1Values,
} from "../harness/op-stack.js";

const SEED = 0x11fee;

/** Every parameter at its zero. */
const UNSET: OpStackFeeParameters = {
  isEcotone: false,
  isFjord: false,
  l1BaseFee: 0n,
  blobBaseFee: 0n,
  baseFeeScalar: 0n,
  blobBaseFeeScalar: 0n,
  overhead: 0n,
  scalar: 0n,
};

/** Calldata samples: each shape the compressor treats differently. */
function samples(): Uint8Array[] {
  const next = mulberry32(SEED);
  const random = { int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
  const bytes = (n: number, f: (i: number) => number) =>
    Uint8Array.from({ length: n }, (_, i) => f(i) & 0xff);
  const abiLike = (words: number) =>
    bytes(4 + words * 32, (i) => (i < 4 || (i - 4) % 32 >= 20 ? random.int(0, 255) : 0));
  return [
    new Uint8Array(0),
    bytes(1, () => 7),
    bytes(13, (i) => i),
    bytes(17, () => 0),
    bytes(100, () => random.int(0, 255)),
    abiLike(12),
    abiLike(40),
    bytes(600, (i) => (i % 7 === 0 ? random.int(0, 255) : 0)),
    bytes(1_000, () => 0xab),
    bytes(2_000, (i) => (i % 300 < 150 ? i : 0)),
    // Longer than the 8,191-byte distance a match may reach back.
    bytes(10_000, (i) => (i % 9_000 < 64 ? i % 64 : random.int(0, 3))),
    bytes(5_000, () => random.int(0, 255)),
  ];
}

describe("OP-stack L1 data fee, off the chain vs GasPriceOracle.getL1Fee", () => {
  let anvil: AnvilInstance;
  let client: PublicClient;
  const onChain = async (data: Uint8Array) =>
    await client.readContract({
      address: OP_STACK_GAS_PRICE_ORACLE,
      abi: gasPriceOracleAbi,
      functionName: "getL1Fee",
      args: [toHex(data) as Hex],
    });
  const expectSame = async (params: OpStackFeeParameters) => {
    for (const data of samples()) {
      const fee = await onChain(data);
      expect({ length: data.length, fee: opStackL1Fee(params, data) }).toEqual({
        length: data.length,
        fee,
      });
      // The bound for any bytes of that length covers these, and is not far above random ones.
      const bound = opStackL1FeeBound(params, data.length);
      expect({ length: data.length, covers: bound >= fee }).toEqual({
        length: data.length,
        covers: true,
      });
      if (data.length === 5_000) expect(bound * 100n).toBeLessThan(fee * 105n);
    }
  };

  beforeAll(async () => {
    console.log(`l1-data-fee samples seed ${SEED}`);
    anvil = await startTestAnvil();
    client = createPublicClient({ transport: http(anvil.url) });
    await placeOpStackPredeploys(anvil.url);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("Bedrock: calldata gas plus overhead, × L1 base fee × scalar", async () => {
    await setBedrockL1Values(client, anvil.url, {
      l1BaseFee: 31_000_000_000n,
      overhead: 188n,
      scalar: 684_000n,
    });
    const params = await readOpStackFeeParameters(client, OP_STACK_GAS_PRICE_ORACLE);
    expect(params).toEqual({
      ...UNSET,
      l1BaseFee: 31_000_000_000n,
      overhead: 188n,
      scalar: 684_000n,
    });
    await expectSame(params);
  });

  it("Ecotone: calldata gas at the scaled base and blob fees", async () => {
    await activateUpgrade(client, anvil.url, "ecotone");
    await setEcotoneL1Values(client, anvil.url, BASE_LIKE_L1_VALUES);
    const params = await readOpStackFeeParameters(client, OP_STACK_GAS_PRICE_ORACLE);
    expect(params).toEqual({
      ...UNSET,
      isEcotone: true,
      l1BaseFee: 20_000_000_000n,
      blobBaseFee: 1n,
      baseFeeScalar: 2269n,
      blobBaseFeeScalar: 1_055_762n,
    });
    await expectSame(params);
  });

  it("Fjord: the FastLZ size through the Brotli regression, to the wei", async () => {
    await activateUpgrade(client, anvil.url, "fjord");
    const params = await readOpStackFeeParameters(client, OP_STACK_GAS_PRICE_ORACLE);
    expect(params.isFjord).toBe(true);
    await expectSame(params);
    // A blob fee that matters, and a tiny L1 base fee: the floor of 100 bytes for short data.
    await setEcotoneL1Values(client, anvil.url, {
      ...BASE_LIKE_L1_VALUES,
      l1BaseFee: 7n,
      blobBaseFee: 3_000_000_000n,
    });
    await expectSame(await readOpStackFeeParameters(client, OP_STACK_GAS_PRICE_ORACLE));
  });
});
