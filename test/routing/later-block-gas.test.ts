/**
 * The gas limit a route answer carries holds in a later block than the one it was simulated on,
 * after the chain changed in between: here a liquidity provider adds a position whose lower tick
 * lies inside the swap's path, so the mined swap crosses an initialized tick (and writes its
 * storage) that the simulation never touched. The answer is planned in-process on the devnet
 * (the API's planRoute, over a graph holding the one pool) and sent as a client would send it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, erc20Abi, getAddress, type Hex, maxUint256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NonfungiblePositionManagerAbi } from "../../abis/NonfungiblePositionManager.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { createRoutingGraph } from "../../engine/index.js";
import { LATER_BLOCK_GAS } from "../../engine/program/sending.js";
import { planRoute } from "../../src/api/shortcuts/plan-route.js";
import { parseRouteQuery } from "../../src/api/v1/route-query.js";
import { findV3Pool } from "./chain-graph.js";
import { devnetPlanContext, type RoutingDevnet, startRoutingDevnet } from "./devnet.js";
import { quoterV2Single } from "./onchain.js";

let net: RoutingDevnet;
let dir: string;

beforeAll(async () => {
  net = await startRoutingDevnet({ positions: 0 });
  dir = mkdtempSync(join(tmpdir(), "later-block-gas-"));
}, 240_000);

afterAll(async () => {
  await net?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Sends `data` to `to` from the deployer with exactly `gas`; the receipt's status. */
async function sendWithGas(to: Address, data: Hex, gas: bigint) {
  const wallet = net.wallet;
  const hash = await wallet.sendTransaction({
    to,
    data,
    gas,
    account: wallet.account ?? null,
    chain: wallet.chain,
  } as never);
  return (await devnetReceipt(net.client, hash)).status;
}

async function poolTick(pool: Address): Promise<number> {
  const slot0 = await net.client.readContract({
    address: pool,
    abi: UniswapV3PoolAbi,
    functionName: "slot0",
  });
  return slot0[1];
}

describe("the answered gas limit in a later block", () => {
  it("a V3 route still succeeds after a new position puts an initialized tick in its path; without the later-block margin it runs out of gas", async () => {
    const weth = net.token("WETH").address;
    const usdc = net.token("USDC").address;
    const from = net.deployment.deployer;
    const pool = await findV3Pool(net.client, net.deployment.uniswapV3.pools, {
      a: weth,
      b: usdc,
      feePpm: 3000,
    });
    // WETH is token0 here: selling it moves the price (and the tick) down.
    expect(pool.token0).toBe(weth.toLowerCase());
    for (const spender of [
      net.deployment.execution.router,
      net.deployment.uniswapV3.positionManager,
    ]) {
      for (const token of [weth, usdc]) {
        await net.send({
          address: token,
          abi: erc20Abi,
          functionName: "approve",
          args: [spender as Address, maxUint256],
        });
      }
    }

    const graph = createRoutingGraph();
    graph.upsertPool(pool);
    graph.blockNumber = await net.client.getBlockNumber();
    const amountIn = 20n * 10n ** 18n;
    const answer = await planRoute(
      devnetPlanContext(net, { dir, graph }),
      parseRouteQuery(
        `http://x/v1/shortcuts/route?fromAddress=${from}&tokenIn=${weth}&tokenOut=${usdc}&amountIn=${amountIn}&priceImpact=false`,
      ),
    );
    expect(answer.route.map((step) => step.primaryAddress)).toEqual([getAddress(pool.address)]);
    const limit = BigInt(answer.gas);
    const to = answer.tx.to as Address;
    const tickBefore = await poolTick(pool.address);

    // Unchanged state, next block: the limit less the margin is enough, and the swap ends a few
    // ticks lower, crossing no initialized tick.
    const unchanged = await net.client.request({
      method: "evm_snapshot" as never,
      params: [] as never,
    });
    expect(await sendWithGas(to, answer.tx.data, limit - LATER_BLOCK_GAS)).toBe("success");
    const tickAfter = await poolTick(pool.address);
    await net.client.request({ method: "evm_revert" as never, params: [unchanged] as never });

    // A position from a tick inside the swap's path to the top of the range: in range now, its
    // lower tick initialized between where the swap starts and where it ends.
    const spacing = pool.tickSpacing;
    const inside = Math.floor(tickBefore / spacing) * spacing;
    expect(tickAfter).toBeLessThan(inside);
    expect(inside).toBeLessThanOrEqual(tickBefore);
    expect(pool.ticks.filter((t) => tickAfter < t.tick && t.tick <= tickBefore)).toEqual([]);
    await net.send({
      address: net.deployment.uniswapV3.positionManager,
      abi: NonfungiblePositionManagerAbi,
      functionName: "mint",
      args: [
        {
          token0: pool.token0,
          token1: pool.token1,
          fee: 3000,
          tickLower: inside,
          tickUpper: Math.floor(887_272 / spacing) * spacing,
          amount0Desired: 10n ** 16n,
          amount1Desired: 10n ** 8n,
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: from,
          deadline: maxUint256,
        },
      ],
      gas: 1_000_000n,
    });

    // The answer as returned, in later blocks: without the margin it runs out of gas (and,
    // reverted, changes nothing), with it it delivers at least the minimum.
    expect(await sendWithGas(to, answer.tx.data, limit - LATER_BLOCK_GAS)).toBe("reverted");
    // What the swap pays now, with the new position's liquidity: at least the answer's minimum.
    const { amountOut } = await quoterV2Single(net.client, net.deployment, {
      tokenIn: weth,
      tokenOut: usdc,
      fee: 3000,
      amountIn,
    });
    expect(amountOut >= BigInt(answer.minAmountOut)).toBe(true);
    const before = await net.client.readContract({
      address: usdc,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [from],
    });
    expect(await sendWithGas(to, answer.tx.data, limit)).toBe("success");
    const after = await net.client.readContract({
      address: usdc,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [from],
    });
    expect(after - before).toBe(amountOut);
    expect(await poolTick(pool.address)).toBeLessThan(inside);
  }, 120_000);
});
