/**
 * A node that mines its next block while it simulates on its head can run the simulation on the
 * new block's state and still call it the head's (anvil reads which block a request is for
 * before it waits for the miner to let go of the state). A route planned across that moment saw
 * two states of "one" block: the first run on the next block's, the ones after it on the head's.
 * The answer must be the head's, exactly as a node that did not race would give it, not a 503
 * and not a refusal of the route as a pool that acts otherwise than its state says.
 *
 * Here the race is made, not waited for: a proxy in front of the devnet node shows the service a
 * head one block behind the chain's, and runs the service's first simulation on the chain's
 * newest block (where a trade moved the route's pool) while naming the older one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  numberToHex,
  type PublicClient,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { devnetReceipt } from "../../devnet/receipts.js";
import { ChainUnavailableError } from "../../engine/core/errors.js";
import type { V3Pool } from "../../engine/core/types.js";
import { createRoutingGraph } from "../../engine/index.js";
import { planRoute, type RouteAnswer } from "../../src/api/shortcuts/plan-route.js";
import { parseRouteQuery } from "../../src/api/v1/route-query.js";
import {
  type RecordedRequest,
  type RpcRecorder,
  startRpcRecorder,
} from "../harness/rpc-recorder.js";
import { findV3Pool, readV3Pool } from "./chain-graph.js";
import { devnetPlanContext, type RoutingDevnet, startRoutingDevnet } from "./devnet.js";

let net: RoutingDevnet;
let dir: string;
let pool: V3Pool;
let weth: Address;
let usdc: Address;
const proxies: RpcRecorder[] = [];

/** The route every test plans: 20 WETH to USDC on the devnet's WETH/USDC 0.3% pool. */
const AMOUNT_IN = 20n * 10n ** 18n;
/** A trader's trade on the same pool, mined between the snapshot and the route's simulation. */
const TRADE_WETH = 40n * 10n ** 18n;
const TRADE_USDC = 80_000n * 10n ** 6n;

beforeAll(async () => {
  net = await startRoutingDevnet({ positions: 0 });
  dir = mkdtempSync(join(tmpdir(), "head-race-"));
  weth = net.token("WETH").address;
  usdc = net.token("USDC").address;
  pool = await findV3Pool(net.client, net.deployment.uniswapV3.pools, {
    a: weth,
    b: usdc,
    feePpm: 3000,
  });
  for (const token of [weth, usdc]) {
    await net.send({
      address: token,
      abi: erc20Abi,
      functionName: "approve",
      args: [net.deployment.execution.router, maxUint256],
    });
  }
}, 240_000);

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await net?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A client of `url` with nothing cached (each test's simulations read their block afresh). */
function clientOf(url: string): PublicClient {
  return createPublicClient({
    transport: http(url, { batch: false }),
    cacheTime: 0,
  }) as PublicClient;
}

/** Plans `amountIn` of `tokenIn` to `tokenOut` through the node at `url`, on a graph at `head`. */
async function plan(params: {
  url: string;
  head: bigint;
  /** The pool's state at `head`. */
  state: V3Pool;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
}): Promise<RouteAnswer> {
  const graph = createRoutingGraph();
  graph.upsertPool(params.state);
  graph.blockNumber = params.head;
  const from = net.deployment.deployer;
  return planRoute(
    devnetPlanContext(net, { dir, graph, client: clientOf(params.url), rpcUrl: params.url }),
    parseRouteQuery(
      `http://x/v1/shortcuts/route?fromAddress=${from}&tokenIn=${params.tokenIn}&tokenOut=${params.tokenOut}&amountIn=${params.amountIn}&priceImpact=false`,
    ),
  );
}

/** The deployer trades `amountIn` of `tokenIn` for `tokenOut` on the pool, in a block of its own. */
async function trade(tokenIn: Address, tokenOut: Address, amountIn: bigint): Promise<void> {
  const head = await net.client.getBlockNumber({ cacheTime: 0 });
  const state = await readV3Pool(net.client, pool.address);
  const answer = await plan({ url: net.anvil.url, head, state, tokenIn, tokenOut, amountIn });
  const hash = await net.wallet.sendTransaction({
    to: answer.tx.to as Address,
    data: answer.tx.data,
    account: net.wallet.account ?? null,
    chain: net.wallet.chain,
  } as never);
  expect((await devnetReceipt(net.client, hash)).status).toBe("success");
}

/**
 * A node whose head is `head` to its client, one block behind the chain's, and which runs the
 * simulations `onNewest` picks (by their order, from 0) on the block after it, naming `head`.
 */
async function racingNode(head: bigint, onNewest: (index: number) => boolean) {
  let simulations = 0;
  const proxy = await startRpcRecorder({
    target: net.anvil.url,
    node: async (request: RecordedRequest, forward) => {
      if (request.method === "eth_blockNumber") return { result: numberToHex(head) };
      if (request.method !== "eth_simulateV1") return forward(request);
      if (!onNewest(simulations++)) return forward(request);
      const [payload, base] = request.params as [
        { blockStateCalls: { blockOverrides: Record<string, Hex> }[] },
        Hex,
      ];
      expect(base).toBe(numberToHex(head));
      const newest = await net.client.getBlock({ blockNumber: head + 1n });
      const calls = payload.blockStateCalls.map((b) => ({
        ...b,
        blockOverrides: {
          ...b.blockOverrides,
          number: numberToHex(head + 2n),
          time: numberToHex(newest.timestamp + 1n),
        },
      }));
      return forward({
        method: request.method,
        params: [{ ...payload, blockStateCalls: calls }, numberToHex(head + 1n)],
      });
    },
  });
  proxies.push(proxy);
  const simulated = () => proxy.requests().filter((r) => r.method === "eth_simulateV1").length;
  return { url: proxy.url, simulated };
}

/** What an answer is made of, without the time it was made at. */
function made(answer: RouteAnswer) {
  const { createdAt: _, ...rest } = answer;
  return rest;
}

describe("a simulation run on the state of the block the node was mining", () => {
  test("a trade in the route's favour in that block: the head's answer, the same as from a node that did not race (not a 503)", async () => {
    const head = await net.client.getBlockNumber({ cacheTime: 0 });
    const state = await readV3Pool(net.client, pool.address);
    // Someone buys WETH on the pool in the next block: selling WETH there pays more.
    await trade(usdc, weth, TRADE_USDC);
    expect(await net.client.getBlockNumber({ cacheTime: 0 })).toBe(head + 1n);
    const route = { head, state, tokenIn: weth, tokenOut: usdc, amountIn: AMOUNT_IN };
    const honest = await racingNode(head, () => false);
    const expected = await plan({ ...route, url: honest.url });
    expect(honest.simulated()).toBe(1);
    const racing = await racingNode(head, (i) => i === 0);
    const answer = await plan({ ...route, url: racing.url });
    expect(made(answer)).toEqual(made(expected));
    expect(answer.blockNumber).toBe(Number(head));
    // The first run (more than the quote, on the newer state), a run with that run's minimum on
    // the head (the quote), and one with the quote's minimum (the quote again).
    expect(racing.simulated()).toBe(3);
    // What the head's state pays: the pool's exact quote on the snapshot, the only step.
    expect(answer.route.map((step) => (step as { amountOut: string }).amountOut)).toEqual([
      answer.amountOut,
    ]);
  }, 120_000);

  test("a trade against the route in that block: the head's answer, not a refusal of the pool", async () => {
    const head = await net.client.getBlockNumber({ cacheTime: 0 });
    const state = await readV3Pool(net.client, pool.address);
    // Someone sells WETH on the pool in the next block: selling WETH there pays less.
    await trade(weth, usdc, TRADE_WETH);
    const route = { head, state, tokenIn: weth, tokenOut: usdc, amountIn: AMOUNT_IN };
    const honest = await racingNode(head, () => false);
    const expected = await plan({ ...route, url: honest.url });
    const racing = await racingNode(head, (i) => i === 0);
    const answer = await plan({ ...route, url: racing.url });
    expect(made(answer)).toEqual(made(expected));
    // The first run (less than the quote), the same transaction once more on the head before the
    // route is judged (the quote: delivered), then the transaction with the first run's minimum
    // and the one with the quote's.
    expect(racing.simulated()).toBe(4);
  }, 120_000);

  test("a node whose every run differs from the one before: a 503 after four runs", async () => {
    const head = await net.client.getBlockNumber({ cacheTime: 0 });
    const state = await readV3Pool(net.client, pool.address);
    await trade(usdc, weth, TRADE_USDC);
    const racing = await racingNode(head, (i) => i % 2 === 0);
    const error = await plan({
      url: racing.url,
      head,
      state,
      tokenIn: weth,
      tokenOut: usdc,
      amountIn: AMOUNT_IN,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ChainUnavailableError);
    expect((error as ChainUnavailableError).message).toBe(
      `The chain node simulated the same transaction on block ${head} 4 times with different results.`,
    );
    expect(racing.simulated()).toBe(4);
  }, 120_000);
});
