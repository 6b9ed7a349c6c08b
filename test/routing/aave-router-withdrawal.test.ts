/**
 * An aToken route under the router when the aToken's own transfer rounds down: the router pulls
 * `amountIn` aTokens into its executor, and the AToken credits it `amountIn.rayDiv(index)` scaled,
 * worth `amountIn - 1` when that scaled amount was rounded down. The withdrawal must take all the
 * executor holds (Aave refuses to withdraw `amountIn`: NOT_ENOUGH_AVAILABLE_USER_BALANCE), and the
 * receiver gets exactly what the transfer delivered.
 */
import { type Address, erc20Abi, getAddress, maxUint256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AaveV3PoolAbi } from "../../abis/AaveV3Pool.js";
import type { AaveV3Reserve } from "../../devnet/deployment.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { buildRoute, createRoutingGraph } from "../../engine/index.js";
import { aaveNormalizedIncome, RAY } from "../../engine/protocols/aave-v3/math.js";
import { parseRouteQuery } from "../../src/api/v1/route-query.js";
import { readAaveReserve } from "./chain-graph.js";
import { executionOf, type RoutingDevnet, startRoutingDevnet } from "./devnet.js";

let net: RoutingDevnet;

beforeAll(async () => {
  net = await startRoutingDevnet({ positions: 0 });
}, 240_000);

afterAll(async () => {
  await net?.stop();
});

const balanceOf = async (token: Address, account: Address) =>
  await net.client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [account],
  });

async function evm<T>(method: string, params: unknown[] = []): Promise<T> {
  return (await net.client.request({ method: method as never, params: params as never })) as T;
}

describe("the router's Aave withdrawal", () => {
  it("withdraws all the executor holds when the aToken pull credits it one wei less than amountIn", async () => {
    const aave = net.deployment.aaveV3;
    if (!aave) throw new Error("the devnet has no Aave V3");
    const reserve = aave.reserves.find((r) => r.symbol === "USDC") as AaveV3Reserve;
    const from = net.deployment.deployer;
    const executor = net.deployment.execution.executor as Address;
    const router = net.deployment.execution.router as Address;
    await net.send({
      address: reserve.aToken,
      abi: erc20Abi,
      functionName: "approve",
      args: [router, maxUint256],
    });
    // A year on, the liquidity index is far enough above one ray that many amounts round down.
    const { timestamp } = await net.client.getBlock();
    await evm("evm_mine", [Number(timestamp + 365n * 24n * 3600n)]);
    const head = await net.client.getBlock();
    const sendAt = head.timestamp + 10n;
    const data = await net.client.readContract({
      address: aave.pool,
      abi: AaveV3PoolAbi,
      functionName: "getReserveData",
      args: [reserve.asset],
    });
    const index = aaveNormalizedIncome(
      {
        liquidityIndex: data.liquidityIndex,
        liquidityRate: data.currentLiquidityRate,
        lastUpdateTimestamp: BigInt(data.lastUpdateTimestamp),
      },
      sendAt,
    );
    expect(index).toBeGreaterThan(RAY + RAY / 1000n);
    // The first amount from 1,000 USDC up whose scaled amount (a × RAY / index, to the nearest)
    // is worth less than itself; the chain confirms it below.
    let amountIn = 1_000_000_000n;
    while (true) {
      const scaled = (amountIn * RAY + index / 2n) / index;
      if ((scaled * index + RAY / 2n) / RAY === amountIn - 1n) break;
      amountIn++;
    }

    // On the chain, at that block time: a transfer of amountIn to an empty account credits it
    // amountIn - 1 (checked in a snapshot, then undone).
    const snapshot = await evm<string>("evm_snapshot");
    const probe = "0x00000000000000000000000000000000000a70e1" as Address;
    await evm("evm_setNextBlockTimestamp", [Number(sendAt)]);
    await net.send({
      address: reserve.aToken,
      abi: erc20Abi,
      functionName: "transfer",
      args: [probe, amountIn],
    });
    expect(await balanceOf(reserve.aToken, probe)).toBe(amountIn - 1n);
    await evm("evm_revert", [snapshot]);

    const graph = createRoutingGraph();
    graph.upsertPool(await readAaveReserve(net.client, aave.pool, reserve.asset));
    graph.blockNumber = head.number;
    const route = buildRoute({
      chain: {
        id: net.deployment.chainId,
        name: "devnet",
        title: "Devnet",
        rpc: [net.anvil.url],
        startBlock: 0,
        weth: net.deployment.weth,
        vaults: [],
        stablecoins: [],
        execution: net.deployment.execution,
        devnet: true,
      },
      contracts: executionOf(net.deployment.execution),
      graph,
      gasPriceWei: 1n,
      request: parseRouteQuery(
        `http://x/v1/shortcuts/route?fromAddress=${from}&tokenIn=${reserve.aToken}&tokenOut=${reserve.asset}&amountIn=${amountIn}`,
      ),
    });
    expect(
      route.quote.legs.map((leg) => leg.hops.map((h) => [h.edge.action, h.amountOut])),
    ).toEqual([[["redeem", amountIn]]]);
    const { tx } = route.encode(amountIn - 1n, sendAt + 60n);
    const before = await balanceOf(reserve.asset, from);
    await evm("evm_setNextBlockTimestamp", [Number(sendAt)]);
    const hash = await net.wallet.sendTransaction({
      to: tx.to,
      data: tx.data,
      gas: 2_000_000n,
      account: net.wallet.account ?? null,
      chain: net.wallet.chain,
    } as never);
    const receipt = await devnetReceipt(net.client, hash);
    expect(receipt.status).toBe("success");
    expect((await balanceOf(reserve.asset, from)) - before).toBe(amountIn - 1n);
    expect(await balanceOf(reserve.aToken, executor)).toBe(0n);
    expect(await balanceOf(reserve.asset, executor)).toBe(0n);
    expect(getAddress(tx.to)).toBe(getAddress(router));
  }, 120_000);
});
