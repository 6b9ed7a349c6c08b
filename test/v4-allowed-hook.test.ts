/**
 * An operator's V4 hook allow-list, end to end: with `UNISWAP_V4_HOOKS_<chainId>` naming the
 * devnet's fee-taking hook (beforeSwap + beforeSwapReturnDelta: it keeps 1% of every exact
 * input), its pool enters the routing graph; a bundle swapping on it is answered with what the
 * simulation delivered — V4Quoter's amount, 1% of the input short of the pool math — and sent as
 * returned it pays exactly that. Without the allow-list the pool is not in the graph (bundle.test.ts).
 */
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { V4QuoterAbi } from "../abis/V4Quoter.js";
import { uniswapV4ExactIn } from "../engine/protocols/uniswap-v4/math.js";
import { devnetActors } from "./harness/actors.js";
import { type ServiceInstance, startService } from "./harness/service.js";
import { readV4Pool } from "./routing/chain-graph.js";

type BundleAnswer = {
  tx: { data: `0x${string}`; to: Address; from: Address; value: string };
  amountsOut: Record<string, string>;
  blockNumber: number;
};

describe("a V4 pool whose hook alters swaps, admitted by the operator's allow-list", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;

  beforeAll(async () => {
    service = await startService({
      database: "pglite",
      env: (d) => {
        if (!d.uniswapV4) throw new Error("the devnet has no Uniswap V4");
        return { [`UNISWAP_V4_HOOKS_${d.chainId}`]: d.uniswapV4.hooks.returnsDelta };
      },
    });
    a = await devnetActors(service);
  });

  afterAll(async () => {
    await service?.stop();
  });

  test("a bundle's swap on it is quoted by the simulation (the hook's 1% included) and pays exactly that", async () => {
    const v4 = service.deployment.uniswapV4;
    if (!v4) throw new Error("the devnet has no Uniswap V4");
    const key = v4.pools.find((p) => p.hooks.toLowerCase() === v4.hooks.returnsDelta.toLowerCase());
    if (!key) throw new Error("no pool with the fee-taking hook");
    const [usdc, weth] = [a.token("USDC"), a.token("WETH")];
    const u = a.user(5);
    const from = u.account.address;
    const amountIn = a.usd("USDC", 2_000);
    await a.fund(from, usdc, amountIn);
    const res = await fetch(`${service.url}/v1/shortcuts/bundle?fromAddress=${from}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        {
          protocol: "uniswap-v4",
          action: "swap",
          args: {
            primaryAddress: v4.poolManager,
            poolId: key.id,
            tokenIn: usdc,
            tokenOut: weth,
            amountIn: amountIn.toString(),
          },
        },
      ]),
    });
    const body = (await res.json()) as BundleAnswer;
    expect(res.status).toBe(200);
    const delivered = BigInt(body.amountsOut[weth] as string);
    // What the chain's own quoter says at the simulated block: the hook keeps 1% of the input.
    const pool = await readV4Pool(a.client, v4, key);
    const zeroForOne = pool.token0 === usdc.toLowerCase();
    const { result } = await a.client.simulateContract({
      address: v4.quoter,
      abi: V4QuoterAbi,
      functionName: "quoteExactInputSingle",
      args: [{ poolKey: key, zeroForOne, exactAmount: amountIn, hookData: "0x" }],
    });
    expect(delivered).toBe(result[0]);
    const math = uniswapV4ExactIn({ pool, zeroForOne, amountIn });
    const swapped = uniswapV4ExactIn({ pool, zeroForOne, amountIn: amountIn - amountIn / 100n });
    expect(math.ok && swapped.ok).toBe(true);
    if (math.ok && swapped.ok) {
      expect(delivered).toBe(swapped.amountOut);
      expect(delivered).toBeLessThan(math.amountOut);
    }
    await a.approve(u, usdc, body.tx.to, amountIn);
    const before = await a.balanceOf(weth, from);
    const receipt = await a.send(u, { to: body.tx.to, data: body.tx.data });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(weth, from)) - before).toBe(delivered);
  });
});
