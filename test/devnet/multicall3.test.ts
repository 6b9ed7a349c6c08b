/**
 * Multicall3 at its canonical address on the devnet, placed by its published pre-signed
 * deployment: the transaction is the one its signer signed (recovered, nonce 0, so the address
 * follows), placing it twice sends nothing, and batched reads pinned to a block go through it.
 */
import {
  createPublicClient,
  getContractAddress,
  http,
  type PublicClient,
  parseAbi,
  parseEther,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerializedLegacy,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AnvilInstance, DEVNET_CHAIN_ID } from "../../devnet/anvil.js";
import {
  MULTICALL3_ADDRESS,
  multicall3Deployment,
  placeMulticall3,
} from "../../devnet/multicall3.js";
import { chainOf } from "../../devnet/world.js";
import { startTestAnvil } from "../harness/anvil.js";

/** Multicall3's helpers that read the chain. */
const multicall3Abi = parseAbi([
  "function getChainId() view returns (uint256)",
  "function getBlockNumber() view returns (uint256)",
  "function getEthBalance(address addr) view returns (uint256)",
]);

let anvil: AnvilInstance;
let client: PublicClient;

beforeAll(async () => {
  anvil = await startTestAnvil({ chainId: DEVNET_CHAIN_ID });
  client = createPublicClient({
    chain: await chainOf(anvil.url),
    transport: http(anvil.url),
  }) as PublicClient;
});

afterAll(async () => {
  await anvil?.stop();
});

describe("Multicall3 on the devnet", () => {
  test("the deployment is the published one: its signer's first transaction, for any chain", async () => {
    const { signer } = multicall3Deployment();
    const transaction = multicall3Deployment().transaction as TransactionSerializedLegacy;
    expect(await recoverTransactionAddress({ serializedTransaction: transaction })).toBe(signer);
    const parsed = parseTransaction(transaction);
    expect({
      type: parsed.type,
      nonce: parsed.nonce,
      chainId: parsed.chainId,
      gas: parsed.gas,
      gasPrice: parsed.gasPrice,
    }).toEqual({
      type: "legacy",
      nonce: 0,
      chainId: undefined,
      gas: 1_000_000n,
      gasPrice: 100_000_000_000n,
    });
    expect(getContractAddress({ from: signer, nonce: 0n })).toBe(MULTICALL3_ADDRESS);
  });

  test("placed once, at its address; placed again, nothing is sent", async () => {
    const before = await client.getBlockNumber({ cacheTime: 0 });
    expect(await client.getCode({ address: MULTICALL3_ADDRESS })).toBeUndefined();
    expect(await placeMulticall3(client)).toBe(true);
    const placed = await client.getBlockNumber({ cacheTime: 0 });
    expect(placed).toBe(before + 1n);
    expect(await placeMulticall3(client)).toBe(true);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(placed);
  });

  test("batched reads pinned to a block go through it (viem's multicall, the chain's address)", async () => {
    const { signer } = multicall3Deployment();
    const blockNumber = await client.getBlockNumber({ cacheTime: 0 });
    const receipt = await client.getTransactionReceipt({
      hash: (await client.getBlock({ blockNumber, includeTransactions: true })).transactions[0]
        ?.hash as `0x${string}`,
    });
    await client.request({ method: "evm_mine" as never });
    const read = (functionName: "getChainId" | "getBlockNumber") =>
      ({ address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName }) as const;
    const results = await client.multicall({
      contracts: [
        read("getChainId"),
        read("getBlockNumber"),
        {
          address: MULTICALL3_ADDRESS,
          abi: multicall3Abi,
          functionName: "getEthBalance",
          args: [signer],
        },
      ],
      blockNumber,
      allowFailure: false,
    });
    // What the signer had left: 0.1 ether less the deployment's gas at 100 gwei.
    expect(results).toEqual([
      BigInt(DEVNET_CHAIN_ID),
      blockNumber,
      parseEther("0.1") - receipt.gasUsed * 100_000_000_000n,
    ]);
  });
});
