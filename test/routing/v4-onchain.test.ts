/**
 * The engine's Uniswap V4 math against the real PoolManager and V4Quoter on a fresh devnet, to
 * the wei: every routable pool of the world (native currency, several fees and tick spacings,
 * an afterSwap-only hook, a protocol fee) in both directions over random amounts, including
 * swaps that cross dozens of initialized ticks and swaps the pool cannot fill; the pool whose
 * hook keeps part of the input, which the math cannot quote and the graph leaves out; and the
 * same after random activity.
 */
import fc from "fast-check";
import { type Address, BaseError, maxUint256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { V4LiquidityHelperAbi } from "../../abis/generated/V4LiquidityHelper.js";
import { runActivity } from "../../devnet/activity.js";
import type { UniswapV4Deployment } from "../../devnet/deployment.js";
import { mulberry32 } from "../../devnet/random.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { liquidityForAmounts } from "../../devnet/uniswap-v4.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/protocols/native.js";
import { uniswapV4PoolKey } from "../../engine/protocols/uniswap-v4/pool.js";
import { getSqrtRatioAtTick } from "../../engine/routing/math/tick-math.js";
import { uniswapV4ExactIn, uniswapV4SwapFee } from "../../engine/routing/math/uniswap-v4.js";
import type { V4Pool } from "../../engine/routing/types.js";
import { readDevnetGraph, readV4Pool } from "./chain-graph.js";
import { type RoutingDevnet, startRoutingDevnet } from "./devnet.js";
import { v4QuoterSingle } from "./onchain.js";

/** A uniform fraction in [0, 1] (fc.double favours tiny and extreme values). */
const fraction = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 1_000_000);

let net: RoutingDevnet;
let v4: UniswapV4Deployment;

async function readPools(): Promise<V4Pool[]> {
  return await Promise.all(v4.pools.map((key) => readV4Pool(net.client, v4, key)));
}

/** What the pool manager holds of a currency (native: its ether balance). */
async function managerHolds(token: Address): Promise<bigint> {
  if (token === NATIVE_TOKEN_ADDRESS)
    return await net.client.getBalance({ address: v4.poolManager });
  return await net.client.readContract({
    address: token,
    abi: DevTokenAbi,
    functionName: "balanceOf",
    args: [v4.poolManager],
  });
}

/** The quoter's answer, or `undefined` when it reverts (a swap the pool cannot fill). */
async function quoter(
  pool: V4Pool,
  tokenIn: Address,
  amountIn: bigint,
): Promise<bigint | undefined> {
  try {
    return await v4QuoterSingle(net.client, net.deployment, pool, tokenIn, amountIn);
  } catch (error) {
    if (error instanceof BaseError) return undefined;
    throw error;
  }
}

/**
 * Random exact-input swaps on `pools`, both ways, up to twice what the manager holds of the
 * input (log-uniform, or deep into the tick table), against V4Quoter. Returns the most ticks one
 * swap crossed and how many swaps the pools could not fill.
 */
async function check(pools: V4Pool[], numRuns: number, seed: number) {
  let mostTicks = 0;
  let unfilled = 0;
  const held = new Map<Address, bigint>();
  for (const pool of pools) {
    for (const token of [pool.token0, pool.token1]) held.set(token, await managerHolds(token));
  }
  await fc.assert(
    fc.asyncProperty(
      fc.nat(),
      fc.boolean(),
      fc.boolean(),
      fraction,
      fc.bigInt(0n, 999n),
      async (index, zeroForOne, deep, size, low) => {
        const pool = pools[index % pools.length] as V4Pool;
        const tokenIn = zeroForOne ? pool.token0 : pool.token1;
        const h = held.get(tokenIn) as bigint;
        const amountIn =
          (deep
            ? (h * BigInt(Math.floor(size * 1e6))) / 1_000_000n
            : BigInt(Math.floor(10 ** (size * Math.log10(Number(h) * 2))))) +
          low +
          1n;
        const ours = uniswapV4ExactIn({ pool, zeroForOne, amountIn });
        const chain = await quoter(pool, tokenIn, amountIn);
        if (ours.ok) {
          expect(ours.amountOut).toBe(chain);
          mostTicks = Math.max(mostTicks, ours.ticksCrossed);
        } else if (ours.reason === "zero-output") {
          // The quoter answers 0 or refuses; either way nothing comes out.
          expect(chain ?? 0n).toBe(0n);
        } else {
          expect(ours.reason).toBe("exceeds-liquidity");
          expect(chain).toBeUndefined();
          unfilled++;
        }
      },
    ),
    { numRuns, seed },
  );
  return { mostTicks, unfilled };
}

beforeAll(async () => {
  net = await startRoutingDevnet({ positions: 0 });
  v4 = net.deployment.uniswapV4 as UniswapV4Deployment;
  // Narrow positions in the native ETH/USDC pool, so that large swaps cross dozens of ticks.
  const native = v4.pools.find((p) => BigInt(p.currency0) === 0n && BigInt(p.hooks) === 0n);
  if (!native) throw new Error("the devnet has no hookless native pool");
  const pool = await readV4Pool(net.client, v4, native);
  const usdc = net.token("USDC");
  await net.send({
    address: usdc.address,
    abi: DevTokenAbi,
    functionName: "approve",
    args: [v4.liquidityHelper, maxUint256],
  });
  const random = mulberry32(4);
  const center = Math.floor(pool.tick / pool.tickSpacing) * pool.tickSpacing;
  for (let i = 0; i < 30; i++) {
    const lower = center - (1 + Math.floor(random() * 60)) * pool.tickSpacing;
    const upper = center + (1 + Math.floor(random() * 60)) * pool.tickSpacing;
    const liquidity = liquidityForAmounts(
      pool.sqrtPriceX96,
      getSqrtRatioAtTick(lower),
      getSqrtRatioAtTick(upper),
      10n ** 18n,
      3_000n * 10n ** 6n,
    );
    const hash = await net.wallet.writeContract({
      address: v4.liquidityHelper,
      abi: V4LiquidityHelperAbi,
      functionName: "modifyLiquidity",
      args: [
        uniswapV4PoolKey(pool),
        lower,
        upper,
        liquidity,
        `0x${i.toString(16).padStart(64, "0")}`,
      ],
      value: 2n * 10n ** 18n,
      account: net.wallet.account ?? null,
      chain: net.wallet.chain,
      gas: 3_000_000n,
    });
    expect((await devnetReceipt(net.client, hash)).status).toBe("success");
  }
}, 240_000);

afterAll(async () => {
  await net?.stop();
});

describe("Uniswap V4 quotes against V4Quoter", () => {
  it("every routable pool, both ways, random amounts (seed 41)", async () => {
    const pools = (await readPools()).filter((p) => p.admission === "exact");
    // Native, 0.05%, 0.01%, 0.25%, the afterSwap hook and the protocol fee at least.
    expect(pools.length).toBeGreaterThanOrEqual(6);
    expect(pools.some((p) => p.token0 === NATIVE_TOKEN_ADDRESS)).toBe(true);
    expect(pools.some((p) => p.protocolFee !== 0)).toBe(true);
    expect(pools.some((p) => BigInt(p.hooks) !== 0n)).toBe(true);
    const { mostTicks, unfilled } = await check(pools, 120, 41);
    expect(mostTicks).toBeGreaterThanOrEqual(20);
    expect(unfilled).toBeGreaterThan(0);
  }, 240_000);

  it("the protocol fee is composed with the LP fee, per direction", async () => {
    const pool = (await readPools()).find((p) => p.protocolFee !== 0) as V4Pool;
    const zeroForOne = pool.protocolFee & 0xfff;
    const oneForZero = pool.protocolFee >>> 12;
    expect(uniswapV4SwapFee(pool.feePpm, pool.protocolFee, true)).toBe(
      zeroForOne + pool.feePpm - Math.floor((zeroForOne * pool.feePpm) / 1_000_000),
    );
    expect(uniswapV4SwapFee(pool.feePpm, pool.protocolFee, false)).toBe(
      oneForZero + pool.feePpm - Math.floor((oneForZero * pool.feePpm) / 1_000_000),
    );
    // Without the protocol fee the math would quote more than the chain pays.
    const amountIn = (await managerHolds(pool.token0)) / 1000n;
    const withFee = uniswapV4ExactIn({ pool, zeroForOne: true, amountIn });
    const without = uniswapV4ExactIn({
      pool: { ...pool, protocolFee: 0 },
      zeroForOne: true,
      amountIn,
    });
    expect(withFee.ok && without.ok).toBe(true);
    if (withFee.ok && without.ok) {
      expect(withFee.amountOut).toBe(await quoter(pool, pool.token0, amountIn));
      expect(without.amountOut).toBeGreaterThan(withFee.amountOut);
    }
  });

  it("a hook that keeps part of the input: the math cannot quote it, and the graph leaves it out", async () => {
    const key = v4.pools.find((p) => p.hooks.toLowerCase() === v4.hooks.returnsDelta.toLowerCase());
    if (!key) throw new Error("the devnet has no pool with the returnsDelta hook");
    const pool = await readV4Pool(net.client, v4, key);
    expect(pool.admission).toBe("simulated");
    const amountIn = (await managerHolds(pool.token0)) / 1000n;
    const math = uniswapV4ExactIn({ pool, zeroForOne: true, amountIn });
    const chain = await quoter(pool, pool.token0, amountIn);
    expect(math.ok).toBe(true);
    expect(chain).toBeDefined();
    // The hook keeps 1% of the input: the pool swaps 99% of it.
    const swapped = uniswapV4ExactIn({
      pool,
      zeroForOne: true,
      amountIn: amountIn - amountIn / 100n,
    });
    expect(swapped.ok && swapped.amountOut).toBe(chain);
    if (math.ok) expect(chain).toBeLessThan(math.amountOut);
    const graph = await readDevnetGraph(net.client, net.deployment);
    expect(graph.pool(pool.address)).toBeUndefined();
    expect(
      graph.pool((await readPools()).find((p) => p.admission === "exact")?.address as Address),
    ).toBeDefined();
  });

  it("after random activity (seed 43)", async () => {
    await runActivity({ rpcUrl: net.anvil.url, deployment: net.deployment, steps: 30, seed: 6 });
    const pools = (await readPools()).filter((p) => p.admission === "exact");
    await check(pools, 60, 43);
  }, 240_000);
});
