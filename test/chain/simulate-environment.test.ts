/**
 * The simulation looks like the real transaction to the code it runs: a probe contract records
 * what it can read of its transaction and block (gas price, base fee, `tx.origin`, block number,
 * timestamp, coinbase, prevrandao, gas limit, chain id) once in `simulateCalls` and once in the
 * same call mined for real in the next block, sent as a wallet sends it. Without this, a
 * contract that is honest only at gas price 0 or base fee 0 is quoted one way and pays another.
 */
import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  decodeEventLog,
  decodeFunctionResult,
  encodeFunctionData,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { EnvironmentProbeAbi } from "../../abis/generated/EnvironmentProbe.js";
import { loadArtifact } from "../../contracts/build.js";
import { type AnvilInstance, DEVNET_ACCOUNT_KEYS, DEVNET_CHAIN_ID } from "../../devnet/anvil.js";
import { chainOf } from "../../devnet/world.js";
import {
  nextBlockOf,
  SimulationUnavailableError,
  simulateCalls,
  walletFees,
} from "../../src/api/chain/simulate.js";
import { startTestAnvil } from "../harness/anvil.js";

describe("simulateCalls: what a contract reads is what it reads in the real transaction", () => {
  let anvil: AnvilInstance;
  let client: PublicClient;
  let probe: Address;
  // A funded account that sends the real transaction; the simulation needs none of its ether.
  const sender = privateKeyToAccount(DEVNET_ACCOUNT_KEYS[3]);

  beforeAll(async () => {
    anvil = await startTestAnvil({ chainId: DEVNET_CHAIN_ID });
    client = createPublicClient({ transport: http(anvil.url) });
    const wallet = createWalletClient({
      account: sender,
      chain: await chainOf(anvil.url),
      transport: http(anvil.url),
    });
    const artifact = loadArtifact("EnvironmentProbe");
    const hash = await wallet.deployContract({
      abi: EnvironmentProbeAbi,
      bytecode: artifact.bytecode,
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (!receipt.contractAddress) throw new Error("the probe was not deployed");
    probe = receipt.contractAddress;
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  test("gas price, base fee, origin and block fields agree with the call mined in the next block", async () => {
    const data = encodeFunctionData({ abi: EnvironmentProbeAbi, functionName: "record" });
    const base = await client.getBlock();
    const next = await nextBlockOf(client);
    expect(next.baseBlock).toBe(base.number);
    const simulation = await simulateCalls(client, {
      calls: [{ from: sender.address, to: probe, data }],
      overrides: {},
    });
    const [call] = simulation.results;
    if (!call?.ok) throw new Error("the probe's call failed in simulation");
    const simulated = decodeFunctionResult({
      abi: EnvironmentProbeAbi,
      functionName: "record",
      data: call.returnData,
    });

    // The same call, mined for real in the next block, with a wallet's fees for that block.
    const wallet = createWalletClient({
      account: sender,
      chain: await chainOf(anvil.url),
      transport: http(anvil.url),
    });
    // The one field a node chooses freely per block: the block is made at the simulated time.
    await client.request({
      method: "evm_setNextBlockTimestamp" as never,
      params: [Number(simulated.timestamp)] as never,
    });
    const hash = await wallet.sendTransaction({ to: probe, data, ...walletFees(next) });
    const receipt = await client.waitForTransactionReceipt({ hash });
    const log = receipt.logs.find((l) => l.address.toLowerCase() === probe.toLowerCase());
    if (!log) throw new Error("the probe logged nothing");
    const mined = decodeEventLog({ abi: EnvironmentProbeAbi, ...log }).args.seen;

    expect(receipt.blockNumber).toBe(base.number + 1n);
    expect({ ...simulated, prevrandao: 0n, originBalance: 0n }).toEqual({
      ...mined,
      prevrandao: 0n,
      originBalance: 0n,
    });
    // Each block's randomness is its own; neither is left at zero.
    expect(simulated.prevrandao).not.toBe(0n);
    expect(mined.prevrandao).not.toBe(0n);
    // What a real transaction cannot show: no gas price, no base fee, the base block's number
    // and time (eth_simulateV1 without validation or block fields shows all four).
    expect(simulated.gasPrice).toBe(next.baseFeePerGas + next.maxPriorityFeePerGas);
    expect(simulated.baseFee).toBe(next.baseFeePerGas);
    expect(simulated.baseFee).toBeGreaterThan(0n);
    expect(simulated.number).toBe(base.number + 1n);
    expect(simulated.timestamp).toBeGreaterThan(base.timestamp);
    expect(simulated.origin).toBe(sender.address);
    expect(simulated.coinbase).toBe(base.miner);
  });

  test("a sender holding no ether is still simulated (gas money is added, never subtracted)", async () => {
    const broke = "0x000000000000000000000000000000000000bEEF" as Address;
    expect(await client.getBalance({ address: broke })).toBe(0n);
    const simulation = await simulateCalls(client, {
      calls: [
        {
          from: broke,
          to: probe,
          data: encodeFunctionData({ abi: EnvironmentProbeAbi, functionName: "record" }),
        },
      ],
      overrides: {},
    });
    const [call] = simulation.results;
    if (!call?.ok) throw new Error("the probe's call failed in simulation");
    const seen = decodeFunctionResult({
      abi: EnvironmentProbeAbi,
      functionName: "record",
      data: call.returnData,
    });
    expect(seen.origin).toBe(broke);
    expect(seen.gasPrice).toBeGreaterThan(0n);
  });

  /**
   * A client of the same node that lists the methods it asked for, and fails the methods in
   * `failing` as an unreachable node would.
   */
  function countingClient() {
    const asked: string[] = [];
    const failing = new Set<string>();
    const counting = createPublicClient({
      transport: custom(
        {
          request: async ({ method, params }) => {
            asked.push(method);
            if (failing.has(method)) throw new Error(`${method}: connection refused`);
            return client.request({ method, params } as never);
          },
        },
        { retryCount: 0 },
      ),
    }) as PublicClient;
    const count = () => {
      const counts: Record<string, number> = {};
      for (const m of asked) counts[m] = (counts[m] ?? 0) + 1;
      return counts;
    };
    return { client: counting, asked, failing, count };
  }

  const record = () => encodeFunctionData({ abi: EnvironmentProbeAbi, functionName: "record" });
  const broke = "0x000000000000000000000000000000000000bEEF" as Address;

  test("simulations on one block read its next block and each sender's balance once; a new block is read afresh", async () => {
    const node = countingClient();
    const calls = [
      { from: sender.address, to: probe, data: record() },
      { from: broke, to: probe, data: record() },
    ];
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const first = await simulateCalls(node.client, { calls, overrides: {} });
    const second = await simulateCalls(node.client, { calls, overrides: {} });
    expect(first.blockNumber).toBe(head);
    expect(second.blockNumber).toBe(head);
    expect(node.count()).toEqual({
      eth_blockNumber: 2,
      eth_getBlockByNumber: 1,
      eth_feeHistory: 1,
      eth_maxPriorityFeePerGas: 1,
      eth_getBalance: 2,
      eth_simulateV1: 2,
    });

    // A new block: its fields and the balances on it are read, and the calls run on top of it.
    await client.request({ method: "evm_mine" as never });
    const third = await simulateCalls(node.client, { calls, overrides: {} });
    expect(third.blockNumber).toBe(head + 1n);
    expect(node.count()).toEqual({
      eth_blockNumber: 3,
      eth_getBlockByNumber: 2,
      eth_feeHistory: 2,
      eth_maxPriorityFeePerGas: 2,
      eth_getBalance: 4,
      eth_simulateV1: 3,
    });
  });

  test("simulations that arrive together share one read of the head and of its block", async () => {
    const node = countingClient();
    const calls = [{ from: sender.address, to: probe, data: record() }];
    const answers = await Promise.all(
      [1, 2, 3].map(() => simulateCalls(node.client, { calls, overrides: {} })),
    );
    const head = await client.getBlockNumber({ cacheTime: 0 });
    expect(answers.map((a) => a.blockNumber)).toEqual([head, head, head]);
    expect(node.count()).toEqual({
      eth_blockNumber: 1,
      eth_getBlockByNumber: 1,
      eth_feeHistory: 1,
      eth_maxPriorityFeePerGas: 1,
      eth_getBalance: 1,
      eth_simulateV1: 3,
    });
  });

  test("every simulation on one block sees one prevrandao, after a newer block was simulated on too; the next block another", async () => {
    const calls = [{ from: sender.address, to: probe, data: record() }];
    const prevrandao = async (blockNumber?: bigint) => {
      const [call] = (await simulateCalls(client, { calls, overrides: {}, blockNumber })).results;
      if (!call?.ok) throw new Error("the probe's call failed in simulation");
      return decodeFunctionResult({
        abi: EnvironmentProbeAbi,
        functionName: "record",
        data: call.returnData,
      }).prevrandao;
    };
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const first = await prevrandao(head);
    await client.request({ method: "evm_mine" as never });
    const newer = await prevrandao();
    // The older block's reads are no longer the ones kept: read again, the same value.
    expect(await prevrandao(head)).toBe(first);
    expect(newer).not.toBe(first);
    expect(await prevrandao(head + 1n)).toBe(newer);
  });

  test("a read the node failed is not kept: the next simulation on the block reads it again", async () => {
    const node = countingClient();
    const calls = [{ from: sender.address, to: probe, data: record() }];
    node.failing.add("eth_feeHistory");
    await expect(simulateCalls(node.client, { calls, overrides: {} })).rejects.toThrow(
      new SimulationUnavailableError(
        "the chain node did not describe its next block: An unknown RPC error occurred.",
      ),
    );
    node.failing.clear();
    node.failing.add("eth_getBalance");
    await expect(simulateCalls(node.client, { calls, overrides: {} })).rejects.toThrow(
      SimulationUnavailableError,
    );
    node.failing.clear();
    const simulation = await simulateCalls(node.client, { calls, overrides: {} });
    expect(simulation.results[0]?.ok).toBe(true);
    expect(node.count()).toEqual({
      // The block, failed once, read again and kept; the balance, failed once, read again.
      eth_blockNumber: 3,
      eth_getBlockByNumber: 2,
      eth_feeHistory: 2,
      eth_maxPriorityFeePerGas: 2,
      eth_getBalance: 3,
      eth_simulateV1: 1,
    });
  });
});
