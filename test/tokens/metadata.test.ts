/**
 * The indexer's token metadata reads against a real node that keeps EIP-170's limit on what a
 * creation returns (as every public chain does): many tokens per `eth_call`, each token's answer
 * the one the single-token reader gives, the number of requests, and the gas of the worst batch.
 */
import {
  type Address,
  BaseError,
  createPublicClient,
  decodeAbiParameters,
  decodeErrorResult,
  getAddress,
  type Hex,
  http,
  numberToHex,
  type PublicClient,
} from "viem";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { indexerInitCode } from "../../abis/generated/IndexerInitCode.js";
import { TokenMetadataBatchReaderAbi } from "../../abis/generated/TokenMetadataBatchReader.js";
import { loadArtifact } from "../../contracts/build.js";
import { type AnvilInstance, DEVNET_CHAIN_ID } from "../../devnet/anvil.js";
import { devnetDeployer } from "../../devnet/world.js";
import {
  decodeTokenMetadata,
  TOKEN_METADATA_BATCH,
  type TokenMetadata,
  tokenMetadataBatchCall,
  tokenMetadataCall,
} from "../../engine/core/token-metadata.js";
import { readTokenMetadata } from "../../src/tokens/metadata.js";
import { startTestAnvil } from "../harness/anvil.js";
import { type RpcRecorder, startRpcRecorder } from "../harness/rpc-recorder.js";

let anvil: AnvilInstance;
let recorder: RpcRecorder;
/** The node as the recorder forwards to it: every request the reads make is seen. */
let client: PublicClient;

type OddKind =
  | "usdt"
  | "bytes32"
  | "nulAndInvalidUtf8"
  | "revertingDecimals"
  | "zeroDecimals"
  | "gasBombSymbol"
  | "megabyteName"
  | "nameOverCap"
  | "gasBombEverything"
  | "notAContract";
/** Every kind of token whose metadata the indexer must survive, by what it is. */
let odd: Record<OddKind, Address>;

/** Addresses from `base` on, one after another. */
function addresses(base: bigint, count: number): Address[] {
  return Array.from({ length: count }, (_, i) =>
    getAddress(numberToHex(base + BigInt(i), { size: 20 })),
  );
}

/** Puts the runtime code of the contract at `template` at each of `targets`. */
async function copyCode(template: Address, targets: readonly Address[]): Promise<void> {
  const code = await client.getCode({ address: template });
  for (const address of targets) {
    await client.request({ method: "anvil_setCode", params: [address, code] } as never);
  }
}

function ethCalls(): { to?: string; data: Hex }[] {
  return recorder
    .requests()
    .filter((r) => r.method === "eth_call")
    .map((r) => r.params[0] as { to?: string; data: Hex });
}

beforeAll(async () => {
  anvil = await startTestAnvil({ codeSizeLimit: true });
  recorder = await startRpcRecorder({ target: anvil.url });
  client = createPublicClient({ transport: http(recorder.url, { retryCount: 0 }) });
  const d = await devnetDeployer(anvil.url);
  const deploy = async (name: string, args: readonly unknown[] = []) => {
    const { abi, bytecode } = loadArtifact(name);
    return await d.deploy(abi, bytecode, args);
  };
  odd = {
    usdt: await deploy("UsdtStyleToken"),
    bytes32: await deploy("Bytes32MetadataToken"),
    nulAndInvalidUtf8: await deploy("OddTextToken"),
    revertingDecimals: await deploy("RevertingDecimalsToken"),
    zeroDecimals: await deploy("ZeroDecimalsToken"),
    gasBombSymbol: await deploy("GasBombSymbolToken"),
    megabyteName: await deploy("LongNameToken", [1n << 20n]),
    nameOverCap: await deploy("LongNameToken", [2_000n]),
    gasBombEverything: await deploy("GasBombMetadataToken"),
    notAContract: "0x000000000000000000000000000000000000dEaD",
  };
});

afterAll(async () => {
  await recorder?.close();
  await anvil?.stop();
});

/** The single-token reader's raw answer for `token`, and what the indexer stores of it. */
async function readAlone(token: Address): Promise<{ raw: Hex; metadata: TokenMetadata }> {
  const { data } = await client.call({ data: tokenMetadataCall(token) });
  const raw = data ?? "0x";
  return { raw, metadata: decodeTokenMetadata(raw) };
}

describe("the batch reader", () => {
  test("answers each odd token with the single-token reader's bytes, decoded alike", async () => {
    const tokens = Object.values(odd);
    const { data } = await client.call({ data: tokenMetadataBatchCall(tokens) });
    const [answers] = decodeAbiParameters([{ type: "bytes[]" }], data ?? "0x");
    expect(answers).toHaveLength(tokens.length);
    for (const [i, token] of tokens.entries()) {
      expect({ token, raw: answers[i] }).toEqual({ token, raw: (await readAlone(token)).raw });
    }

    recorder.clear();
    const read = await readTokenMetadata({ client, chainId: DEVNET_CHAIN_ID, tokens });
    expect(ethCalls()).toHaveLength(1);
    const stored = Object.fromEntries(
      Object.entries(odd).map(([kind, token]) => [kind, read.get(token)]),
    );
    expect(stored).toEqual({
      usdt: { name: "Tether USD", symbol: "USDT", decimals: 6 },
      bytes32: { name: "Maker", symbol: "MKR", decimals: 18 },
      nulAndInvalidUtf8: { name: "NulToken\ufffd \ufffd", symbol: "NUL\ufffd", decimals: 18 },
      revertingDecimals: { name: "No Decimals", symbol: "NODEC", decimals: undefined },
      zeroDecimals: { name: "Whole Unit", symbol: "WHOLE", decimals: 0 },
      gasBombSymbol: { name: "Gas Bomb", symbol: undefined, decimals: 18 },
      // Returning a megabyte costs more than the call's budget; 2,000 bytes pass the size cap.
      megabyteName: { name: undefined, symbol: "LONG", decimals: 18 },
      nameOverCap: { name: undefined, symbol: "LONG", decimals: 18 },
      gasBombEverything: { name: undefined, symbol: undefined, decimals: undefined },
      notAContract: { name: undefined, symbol: undefined, decimals: undefined },
    });
    for (const token of tokens) {
      expect({ token, metadata: read.get(token) }).toEqual({
        token,
        metadata: (await readAlone(token)).metadata,
      });
    }
  });

  test("answers only the tokens that fit under EIP-170's 24,576 bytes; the rest are asked again", async () => {
    // This node refuses a creation that returns more than 24,576 bytes, as public chains do.
    await expect(client.call({ data: "0x6160005ff3" })).resolves.toEqual({
      data: `0x${"00".repeat(24_576)}`,
    });
    await expect(client.call({ data: "0x6160015ff3" })).rejects.toThrow(
      "EVM error CreateContractSizeLimit",
    );

    // 960-byte names: exactly the 1,024-byte cap with the string's offset and length, readable.
    const template = await devnetDeployer(anvil.url).then(async (d) => {
      const { abi, bytecode } = loadArtifact("LongNameToken");
      return await d.deploy(abi, bytecode, [960n]);
    });
    const tokens = addresses(0xb0000n, TOKEN_METADATA_BATCH);
    await copyCode(template, tokens);
    recorder.clear();
    const read = await readTokenMetadata({ client, chainId: DEVNET_CHAIN_ID, tokens });
    const calls = ethCalls();
    // Each answer is 1,504 bytes in the array: 16 fit (24,128 bytes with the array's words).
    expect(calls.map((c) => c.data)).toEqual([
      tokenMetadataBatchCall(tokens),
      tokenMetadataBatchCall(tokens.slice(16)),
    ]);
    const { data } = await client.call({ data: tokenMetadataBatchCall(tokens) });
    expect((data ?? "0x").length).toBe(2 + 2 * 24_128);
    const alone = (await readAlone(template)).metadata;
    expect(alone).toEqual({ name: "", symbol: "LONG", decimals: 18 });
    expect(tokens.map((token) => read.get(token))).toEqual(tokens.map(() => alone));
  });
});

describe("requests", () => {
  let usdtStyle: Address[];

  beforeAll(async () => {
    usdtStyle = addresses(0xa0000n, 2 * TOKEN_METADATA_BATCH + 1);
    await copyCode(odd.usdt, usdtStyle);
  });

  test.each([
    [0, 0],
    [1, 1],
    [32, 1],
    [33, 2],
    [64, 2],
    [65, 3],
  ])("%i tokens cost %i eth_calls, each a whole batch without `to`", async (count, requests) => {
    expect(TOKEN_METADATA_BATCH).toBe(32);
    const tokens = usdtStyle.slice(0, count);
    recorder.clear();
    const read = await readTokenMetadata({ client, chainId: DEVNET_CHAIN_ID, tokens });
    const calls = ethCalls();
    expect(calls).toHaveLength(requests);
    expect(calls.map((c) => c.to)).toEqual(calls.map(() => undefined));
    expect(calls.map((c) => c.data.startsWith(indexerInitCode.TokenMetadataBatchReader))).toEqual(
      calls.map(() => true),
    );
    expect(read.size).toBe(count);
    expect(new Set([...read.values()].map((m) => JSON.stringify(m)))).toEqual(
      new Set(
        count === 0 ? [] : [JSON.stringify({ name: "Tether USD", symbol: "USDT", decimals: 6 })],
      ),
    );
  });

  test("a token named twice is read once", async () => {
    const tokens = usdtStyle.slice(0, TOKEN_METADATA_BATCH);
    recorder.clear();
    const read = await readTokenMetadata({
      client,
      chainId: DEVNET_CHAIN_ID,
      tokens: [...tokens, ...tokens.slice(0, 1), ...tokens.slice(5, 6)],
    });
    expect(ethCalls().map((c) => c.data)).toEqual([tokenMetadataBatchCall(tokens)]);
    expect(read.size).toBe(TOKEN_METADATA_BATCH);
  });
});

describe("the worst batch", () => {
  let bombs: Address[];

  beforeAll(async () => {
    bombs = addresses(0xc0000n, TOKEN_METADATA_BATCH);
    await copyCode(odd.gasBombEverything, bombs);
  });

  test("every token spending its whole budget on each field stays far under 50 M gas", async () => {
    const data = tokenMetadataBatchCall(bombs);
    const gas = await client.estimateGas({ data });
    expect(gas).toBe(21_737_998n);
    // Under anvil's cap (its 30 M block gas limit) every field is read and found unreadable.
    const read = await readTokenMetadata({ client, chainId: DEVNET_CHAIN_ID, tokens: bombs });
    expect(bombs.map((token) => read.get(token))).toEqual(
      bombs.map(() => ({ name: undefined, symbol: undefined, decimals: undefined })),
    );
  });

  test("short of gas, the reader refuses to answer rather than cut a token's budget", async () => {
    const error = await client
      .call({ data: tokenMetadataBatchCall(bombs), gas: 10_000_000n })
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BaseError);
    const revert = (error as BaseError).walk(
      (e) => typeof (e as { data?: unknown }).data === "string",
    ) as { data: Hex } | null;
    const decoded = decodeErrorResult({
      abi: TokenMetadataBatchReaderAbi,
      data: revert?.data ?? "0x",
    });
    // The 17th token's first read would have had less than its 200,000 gas.
    expect({ name: decoded.errorName, args: decoded.args }).toEqual({
      name: "GasBelowBudget",
      args: [bombs[16], 23_387n],
    });
  });

  test("a node whose gas cap is below the worst batch gets each token alone", async () => {
    const warn = vi.spyOn(console, "warn");
    await client.request({ method: "evm_setBlockGasLimit", params: ["0x989680"] } as never);
    try {
      recorder.clear();
      const read = await readTokenMetadata({ client, chainId: DEVNET_CHAIN_ID, tokens: bombs });
      expect(ethCalls().map((c) => c.data)).toEqual([
        tokenMetadataBatchCall(bombs),
        ...bombs.map((token) => tokenMetadataCall(token)),
      ]);
      expect(bombs.map((token) => read.get(token))).toEqual(
        bombs.map(() => ({ name: undefined, symbol: undefined, decimals: undefined })),
      );
      expect(warn.mock.calls).toEqual([
        [
          `Chain 31337: the metadata of 32 tokens could not be read in one request (the node's eth_call gas ran out before token ${bombs[16]}, with 23387 gas left); reading them one by one.`,
        ],
      ]);
    } finally {
      warn.mockRestore();
      await client.request({ method: "evm_setBlockGasLimit", params: ["0x1c9c380"] } as never);
    }
  });
});
