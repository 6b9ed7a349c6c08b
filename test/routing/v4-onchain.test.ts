/**
 * The engine's Uniswap V4 math against the real PoolManager and V4Quoter on a fresh devnet, to
 * the wei: every pool of the world the math can quote (native currency, several fees and tick
 * spacings, an afterSwap-only hook that changes nothing — whose pool the graph still leaves out —
 * and a protocol fee) in both directions over random amounts, including swaps that cross dozens
 * of initialized ticks and swaps the pool cannot fill; the pool whose
 * hook keeps part of the input, which the math cannot quote and the graph leaves out; and the
 * same after random activity.
 */
import fc from "fast-check";
import { type Address, BaseError, ContractFunctionRevertedError, maxUint256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { V4LiquidityHelperAbi } from "../../abis/generated/V4LiquidityHelper.js";
import { PoolManagerAbi } from "../../abis/PoolManager.js";
import { runActivity } from "../../devnet/activity.js";
import type { UniswapV4Deployment } from "../../devnet/deployment.js";
import { mulberry32 } from "../../devnet/random.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { liquidityForAmounts } from "../../devnet/uniswap-v4.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import type { V4Pool } from "../../engine/core/types.js";
import { getSqrtRatioAtTick } from "../../engine/math/tick-math.js";
import { uniswapV4ExactIn, uniswapV4SwapFee } from "../../engine/protocols/uniswap-v4/math.js";
import { uniswapV4PoolKey } from "../../engine/protocols/uniswap-v4/pool.js";
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

/**
 * The devnet's afterSwap-only hook only counts swaps, so its pool swaps as the math says; the
 * graph still leaves it out unless allow-listed (a hook that runs during a swap could trade).
 */
function honestHook(pool: V4Pool): boolean {
  return pool.hooks === v4.hooks.afterSwap.toLowerCase();
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

/**
 * The quoter's answer, or `undefined` when it reverts (a swap the pool cannot fill). Any other
 * failure, the node's included, is thrown: it is no answer to compare with.
 */
async function quoter(
  pool: V4Pool,
  tokenIn: Address,
  amountIn: bigint,
): Promise<bigint | undefined> {
  try {
    return await v4QuoterSingle(net.client, net.deployment, pool, tokenIn, amountIn);
  } catch (error) {
    if (
      error instanceof BaseError &&
      error.walk((e) => e instanceof ContractFunctionRevertedError) !== null
    ) {
      return undefined;
    }
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
    const pools = (await readPools()).filter((p) => p.admission === "exact" || honestHook(p));
    // Native, 0.05%, 0.01%, 0.25%, the afterSwap hook and the protocol fee at least.
    expect(pools.length).toBeGreaterThanOrEqual(6);
    expect(pools.some((p) => p.token0 === NATIVE_TOKEN_ADDRESS)).toBe(true);
    expect(pools.some((p) => p.protocolFee !== 0)).toBe(true);
    expect(pools.some((p) => BigInt(p.hooks) !== 0n)).toBe(true);
    const { mostTicks, unfilled } = await check(pools, 120, 41);
    expect(mostTicks).toBeGreaterThanOrEqual(20);
    expect(unfilled).toBeGreaterThan(0);
  }, 240_000);

  it("the protocol fee is composed with the LP fee as v4-core's own test vectors say", () => {
    // ProtocolFeeLibraryTest.test_calculateSwapFee in v4-core: calculateSwapFee(protocol, lp).
    const both = (fee: number) => fee | (fee << 12);
    expect(uniswapV4SwapFee(1_000_000, both(1000), true)).toBe(1_000_000);
    expect(uniswapV4SwapFee(3000, both(1000), true)).toBe(3997);
    expect(uniswapV4SwapFee(0, both(1000), false)).toBe(1000);
    expect(uniswapV4SwapFee(0, 0, true)).toBe(0);
    expect(uniswapV4SwapFee(1000, 0, false)).toBe(1000);
    // Each direction reads its own 12 bits.
    expect(uniswapV4SwapFee(3000, 1000, true)).toBe(3997);
    expect(uniswapV4SwapFee(3000, 1000, false)).toBe(3000);
    expect(uniswapV4SwapFee(3000, 1000 << 12, false)).toBe(3997);
  });

  it("quotes equal V4Quoter's on a pool whose protocol fee and LP fee compose with a non-zero product term", async () => {
    // The WETH/USDT pool (0.25%) given protocol fees of 0.1% selling currency0 and 0.04% selling
    // currency1: swap fees of 3498 and 2899 millionths (1000·2500/1e6 = 2.5 and 400·2500/1e6 = 1
    // floored away), where an uncomposed sum would charge 3500 and 2900.
    const weth = net.token("WETH").address.toLowerCase();
    const usdt = net.token("USDT").address.toLowerCase();
    const key = v4.pools.find((p) => {
      const pair = [p.currency0.toLowerCase(), p.currency1.toLowerCase()];
      return p.fee === 2500 && BigInt(p.hooks) === 0n && pair.includes(weth) && pair.includes(usdt);
    });
    if (!key) throw new Error("the devnet has no hookless WETH/USDT 0.25% V4 pool");
    const snapshot = await net.client.request({
      method: "evm_snapshot" as never,
      params: [] as never,
    });
    try {
      await net.send({
        address: v4.poolManager,
        abi: PoolManagerAbi,
        functionName: "setProtocolFee",
        args: [key, 1000 | (400 << 12)],
      });
      const pool = await readV4Pool(net.client, v4, key);
      expect({ feePpm: pool.feePpm, protocolFee: pool.protocolFee }).toEqual({
        feePpm: 2500,
        protocolFee: 1000 | (400 << 12),
      });
      const random = mulberry32(44);
      for (const zeroForOne of [true, false]) {
        const tokenIn = zeroForOne ? pool.token0 : pool.token1;
        const held = await managerHolds(tokenIn);
        for (let i = 0; i < 8; i++) {
          // From a thousandth to a tenth of what the manager holds of the input.
          const amountIn = (held * BigInt(1 + Math.floor(random() * 100))) / 1000n + BigInt(i);
          const ours = uniswapV4ExactIn({ pool, zeroForOne, amountIn });
          expect(ours.ok).toBe(true);
          if (ours.ok) expect(ours.amountOut).toBe(await quoter(pool, tokenIn, amountIn));
        }
      }
    } finally {
      await net.client.request({ method: "evm_revert" as never, params: [snapshot] as never });
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
    // The afterSwap hook's pool too: its hook runs during swaps, and it is not allow-listed.
    const counted = (await readPools()).find(honestHook);
    expect(counted?.admission).toBe("simulated");
    expect(graph.pool(counted?.address as Address)).toBeUndefined();
    expect(
      graph.pool((await readPools()).find((p) => p.admission === "exact")?.address as Address),
    ).toBeDefined();
  });

  it("after random activity (seed 43)", async () => {
    await runActivity({ rpcUrl: net.anvil.url, deployment: net.deployment, steps: 30, seed: 6 });
    const pools = (await readPools()).filter((p) => p.admission === "exact" || honestHook(p));
    await check(pools, 60, 43);
  }, 240_000);
});
