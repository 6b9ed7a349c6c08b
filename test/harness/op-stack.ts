/**
 * Makes a local anvil chain look like an OP-stack chain to what reads its L1 data fee: the
 * `GasPriceOracle` and `L1Block` predeploys at their addresses, with the runtime code of
 * @eth-optimism/contracts-bedrock's build placed there (on a real chain each address holds a
 * proxy to that implementation; the proxy adds nothing to what the fee reads), the L1 values set
 * by the depositor account as each L2 block's first transaction sets them, and Ecotone and Fjord
 * switched on by the depositor as their upgrade transactions do.
 */
import {
  type Address,
  concatHex,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  numberToHex,
  type PublicClient,
  parseAbi,
  toHex,
} from "viem";
import { readNpmDeployedArtifact } from "../../devnet/artifacts.js";
import { OP_STACK_GAS_PRICE_ORACLE, OP_STACK_L1_BLOCK } from "../../engine/routing/l1-data-fee.js";
import { jsonRpc } from "./json-rpc.js";

/** The account that sends an OP-stack chain's system transactions (L1 values, upgrades). */
export const DEPOSITOR_ACCOUNT: Address = "0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001";

export const gasPriceOracleAbi = parseAbi([
  "function getL1Fee(bytes data) view returns (uint256)",
  "function isEcotone() view returns (bool)",
  "function isFjord() view returns (bool)",
  "function setEcotone()",
  "function setFjord()",
]);

const l1BlockAbi = parseAbi([
  "function setL1BlockValues(uint64 number, uint64 timestamp, uint256 basefee, bytes32 hash, uint64 sequenceNumber, bytes32 batcherHash, uint256 l1FeeOverhead, uint256 l1FeeScalar)",
]);

/** The L1 values the depositor sets: Ecotone's packed `setL1BlockValuesEcotone` fields. */
export type L1Values = {
  baseFeeScalar: number;
  blobBaseFeeScalar: number;
  l1BaseFee: bigint;
  blobBaseFee: bigint;
};

/** Base's fee scalars since Ecotone, with an L1 base fee of 20 gwei and blobs at 1 wei. */
export const BASE_LIKE_L1_VALUES: L1Values = {
  baseFeeScalar: 2269,
  blobBaseFeeScalar: 1_055_762,
  l1BaseFee: 20_000_000_000n,
  blobBaseFee: 1n,
};

/** Places the two predeploys' code (no upgrade on yet: Bedrock's rules). */
export async function placeOpStackPredeploys(rpcUrl: string): Promise<void> {
  for (const [address, name] of [
    [OP_STACK_GAS_PRICE_ORACLE, "OpStackGasPriceOracle"],
    [OP_STACK_L1_BLOCK, "OpStackL1Block"],
  ] as const) {
    await jsonRpc(rpcUrl, "anvil_setCode", [address, readNpmDeployedArtifact(name).code]);
  }
  await jsonRpc(rpcUrl, "anvil_setBalance", [DEPOSITOR_ACCOUNT, numberToHex(10n ** 18n)]);
  await jsonRpc(rpcUrl, "anvil_impersonateAccount", [DEPOSITOR_ACCOUNT]);
}

/** Sends one system transaction from the depositor account and waits for its receipt. */
async function depositorSends(client: PublicClient, rpcUrl: string, to: Address, data: Hex) {
  const wallet = createWalletClient({ transport: http(rpcUrl) });
  const hash = await wallet.sendTransaction({
    account: DEPOSITOR_ACCOUNT,
    chain: null,
    to,
    data,
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`system transaction to ${to} reverted`);
}

/** Bedrock's L1 values (before Ecotone): overhead and scalar, priced on calldata gas. */
export async function setBedrockL1Values(
  client: PublicClient,
  rpcUrl: string,
  values: { l1BaseFee: bigint; overhead: bigint; scalar: bigint },
): Promise<void> {
  const data = encodeFunctionData({
    abi: l1BlockAbi,
    functionName: "setL1BlockValues",
    args: [
      1n,
      1n,
      values.l1BaseFee,
      `0x${"11".repeat(32)}`,
      0n,
      `0x${"00".repeat(32)}`,
      values.overhead,
      values.scalar,
    ],
  });
  await depositorSends(client, rpcUrl, OP_STACK_L1_BLOCK, data);
}

/** The depositor's `setL1BlockValuesEcotone` with `values` (packed, as the protocol sends it). */
export async function setEcotoneL1Values(
  client: PublicClient,
  rpcUrl: string,
  values: L1Values,
): Promise<void> {
  const data = concatHex([
    "0x440a5e20", // setL1BlockValuesEcotone()
    toHex(values.baseFeeScalar, { size: 4 }),
    toHex(values.blobBaseFeeScalar, { size: 4 }),
    toHex(0n, { size: 8 }), // sequence number
    toHex(1n, { size: 8 }), // L1 timestamp
    toHex(1n, { size: 8 }), // L1 block number
    toHex(values.l1BaseFee, { size: 32 }),
    toHex(values.blobBaseFee, { size: 32 }),
    `0x${"11".repeat(32)}`, // L1 block hash
    `0x${"00".repeat(32)}`, // batcher hash
  ]);
  await depositorSends(client, rpcUrl, OP_STACK_L1_BLOCK, data);
}

/** Switches the oracle to `upgrade`'s pricing, as the upgrade's deposit transaction does. */
export async function activateUpgrade(
  client: PublicClient,
  rpcUrl: string,
  upgrade: "ecotone" | "fjord",
): Promise<void> {
  const functionName = upgrade === "ecotone" ? "setEcotone" : "setFjord";
  await depositorSends(
    client,
    rpcUrl,
    OP_STACK_GAS_PRICE_ORACLE,
    encodeFunctionData({ abi: gasPriceOracleAbi, functionName }),
  );
}

/**
 * The predeploys placed with `values` and the chain at Fjord, as Base is today: the depositor
 * activates Ecotone, sets the L1 values, then activates Fjord.
 */
export async function makeOpStackChain(
  client: PublicClient,
  rpcUrl: string,
  values: L1Values = BASE_LIKE_L1_VALUES,
): Promise<void> {
  await placeOpStackPredeploys(rpcUrl);
  await activateUpgrade(client, rpcUrl, "ecotone");
  await setEcotoneL1Values(client, rpcUrl, values);
  await activateUpgrade(client, rpcUrl, "fjord");
}
