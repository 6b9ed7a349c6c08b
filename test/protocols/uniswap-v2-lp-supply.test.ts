/**
 * A V2 pair's LP supply changes only by mints (transfers from the zero address) and burns
 * (transfers to it): the indexer asks the node for exactly those, never for the pairs' every
 * `Transfer` — above 1,000 pairs Ponder drops the addresses from `eth_getLogs` and keeps the
 * topics, so a request for the `Transfer` topic alone would download every ERC-20 transfer on
 * the chain. The supply still equals the chain's after a transfer between holders, a burn and a
 * mint.
 */
import { type Address, encodeEventTopics, encodeFunctionData, erc20Abi } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { devnetActors } from "../harness/actors.js";

import { type RpcRecorder, startRpcRecorder } from "../harness/rpc-recorder.js";
import {
  graphqlQuery,
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
} from "../harness/service.js";

let service: ServiceInstance;
let recorder: RpcRecorder;

beforeAll(async () => {
  service = await startService({
    database: "pglite",
    ponderRpcUrl: async (anvilUrl) => {
      recorder = await startRpcRecorder({ target: anvilUrl });
      return recorder.url;
    },
  });
});

afterAll(async () => {
  await service?.stop();
  await recorder?.close();
});

const [TRANSFER] = encodeEventTopics({ abi: erc20Abi, eventName: "Transfer" });
const ZERO_TOPIC = `0x${"0".repeat(64)}`;

type LogFilter = { blockHash?: string; topics?: (string | string[] | null)[] };

/**
 * The topic filters of every range `eth_getLogs` the indexer sent that can match a `Transfer`.
 * (Once at the head, Ponder reads each new block's logs whole, by block hash, and filters them
 * itself: one block's logs, whatever the filters.)
 */
function transferRequests(): (string | string[] | null)[][] {
  return recorder
    .requests()
    .filter((r) => r.method === "eth_getLogs")
    .map((r) => r.params[0] as LogFilter)
    .filter((filter) => filter.blockHash === undefined)
    .map((filter) => filter.topics ?? [])
    .filter((topics) => {
      const first = topics[0];
      return first === null || first === undefined || [first].flat().includes(TRANSFER as string);
    });
}

describe("V2 LP supply", () => {
  test("the pairs' transfers are asked for only from or to the zero address", () => {
    const requests = transferRequests();
    const side = (topics: (string | string[] | null)[]) =>
      topics[1] === ZERO_TOPIC && (topics[2] ?? null) === null
        ? "mints"
        : (topics[1] ?? null) === null && topics[2] === ZERO_TOPIC
          ? "burns"
          : JSON.stringify(topics);
    expect(new Set(requests.map(side))).toEqual(new Set(["mints", "burns"]));
  });

  test("a transfer between holders leaves the supply; a burn lowers it; both equal the chain's", async () => {
    const { client, deployer, user, send } = await devnetActors(service);
    const pair = service.deployment.uniswapV2.pairs[0] as Address;
    const supplyOnChain = () =>
      client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "totalSupply" });
    const indexedSupply = async () => {
      const { v2Pair } = await graphqlQuery<{ v2Pair: { totalSupply: string } }>(
        service,
        `{ v2Pair(chainId: ${service.deployment.chainId}, address: "${pair}") { totalSupply } }`,
      );
      return BigInt(v2Pair.totalSupply);
    };
    const before = await supplyOnChain();
    expect(await indexedSupply()).toBe(before);

    const holder = user(1);
    const held = await client.readContract({
      address: pair,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [deployer.account.address],
    });
    const moved = held / 4n;
    const transfer = (to: Address, amount: bigint) =>
      encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] });
    // Between holders: the supply does not move.
    await send(deployer, { to: pair, data: transfer(holder.account.address, moved) });
    // The holder returns half to the pair and burns it.
    await send(holder, { to: pair, data: transfer(pair, moved / 2n) });
    const burn = await send(holder, {
      to: pair,
      data: encodeFunctionData({
        abi: UniswapV2PairAbi,
        functionName: "burn",
        args: [holder.account.address],
      }),
    });
    await waitForIndexedBlock(service, burn.blockNumber);

    const after = await supplyOnChain();
    expect(after).toBe(before - moved / 2n);
    expect(await indexedSupply()).toBe(after);
  });
});
