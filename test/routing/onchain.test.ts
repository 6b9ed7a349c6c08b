/**
 * The engine's pool math and routes against the real contracts on a fresh devnet, to the wei:
 * V2 against Router02.getAmountsOut, V3 against QuoterV2 (including swaps across dozens of
 * initialized ticks and swaps the pool cannot fill), vaults against previewDeposit and
 * previewRedeem (also after yield), before and after random activity; every hop of the
 * routes the search returns against the same on-chain quoters; and pools at their price limit,
 * where `pool.swap` and QuoterV2 revert 'SPL' and the engine fills nothing.
 */
import fc from "fast-check";
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  maxUint256,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { NonfungiblePositionManagerAbi } from "../../abis/NonfungiblePositionManager.js";
import { SwapRouterAbi } from "../../abis/SwapRouter.js";
import { UniswapV3FactoryAbi } from "../../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { runActivity } from "../../devnet/activity.js";
import { amountForUsd } from "../../devnet/world.js";
import type { Edge, V2Pool, V3Pool, VaultPool } from "../../engine/core/types.js";
import { quoteEdge, quoteFlow, routeHops } from "../../engine/index.js";
import { mulDiv, Q96 } from "../../engine/math/full-math.js";
import {
  getSqrtRatioAtTick,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
} from "../../engine/math/tick-math.js";
import { uniswapV3ExactIn } from "../../engine/math/uniswap-v3.js";
import { previewDeposit, previewRedeem } from "../../engine/protocols/erc4626/math.js";
import type { RoutingGraph } from "../../engine/routing/graph.js";
import { findRoute } from "../../engine/routing/search.js";
import { readDevnetGraph, readV3Pool } from "./chain-graph.js";
import { type RoutingDevnet, startRoutingDevnet } from "./devnet.js";
import { chainHopOut, quoterV2Single, router02AmountOut, vaultPreview } from "./onchain.js";

/** A uniform fraction in [0, 1] (fc.double favours tiny and extreme values). */
const fraction = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 1_000_000);

let net: RoutingDevnet;
let graph: RoutingGraph;

const poolsOf = <K extends "v2" | "v3" | "erc4626">(kind: K) =>
  [...graph.pools()].filter((p) => p.kind === kind) as (K extends "v2"
    ? V2Pool
    : K extends "v3"
      ? V3Pool
      : VaultPool)[];

async function balanceOf(token: Address, account: Address): Promise<bigint> {
  return await net.client.readContract({
    address: token,
    abi: DevTokenAbi,
    functionName: "balanceOf",
    args: [account],
  });
}

/** A random V2 path of 1–3 hops (no token twice) from the choices. */
function v2Path(choices: number[]): Edge[] {
  const pairs = poolsOf("v2");
  const first = pairs[(choices[0] as number) % pairs.length] as V2Pool;
  let token = (choices[1] as number) % 2 === 0 ? first.token0 : first.token1;
  const seen = new Set([token]);
  const edges: Edge[] = [];
  for (let hop = 0; hop < 1 + ((choices[2] as number) % 3); hop++) {
    const next = graph
      .edgesFrom(token)
      .filter((e) => e.pool.kind === "v2" && e.action === "swap" && !seen.has(e.tokenOut));
    if (next.length === 0) break;
    const edge = next[(choices[3 + hop] as number) % next.length] as Edge;
    edges.push(edge);
    seen.add(edge.tokenOut);
    token = edge.tokenOut;
  }
  return edges;
}

async function checkV2(numRuns: number, seed: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
      fraction,
      fc.bigInt(0n, 999n),
      async (choices, size, low) => {
        const edges = v2Path(choices);
        const first = edges[0] as Edge;
        const pair = first.pool as V2Pool;
        const reserveIn = first.tokenIn === pair.token0 ? pair.reserve0 : pair.reserve1;
        // Up to three times the first pair's reserve, log-uniform.
        const amountIn = BigInt(Math.floor(10 ** (size * Math.log10(Number(reserveIn) * 3)))) + low;
        let ours: bigint | undefined = amountIn;
        for (const edge of edges) ours = ours === undefined ? undefined : quoteEdge(edge, ours);
        const path = [first.tokenIn, ...edges.map((e) => e.tokenOut)];
        const chain = router02AmountOut(net.client, net.deployment, amountIn, path);
        if (ours === undefined) {
          // An output of zero: Router02 returns the zero at the last hop, or refuses to go on
          // from a zero amount with its own reason. Any other failure (the node's included) fails.
          const answer = await chain.catch(
            async (error) => await revertReason(Promise.reject(error)),
          );
          if (answer !== 0n) expect(answer).toBe("UniswapV2Library: INSUFFICIENT_INPUT_AMOUNT");
        } else {
          expect(ours).toBe(await chain);
        }
      },
    ),
    { numRuns, seed },
  );
}

/** Log-uniform up to twice what the pool holds: most swaps stay in range, some drain it. */
function logUpToTwiceHeld(size: number, held: bigint): bigint {
  return BigInt(Math.floor(10 ** (size * Math.log10(Number(held) * 2))));
}

/** Between half and one and a half times what the pool holds: deep into the tick table. */
function deepIntoTheTicks(size: number, held: bigint): bigint {
  return (held * BigInt(Math.floor((0.5 + size) * 1e6))) / 1_000_000n;
}

async function checkV3(
  pools: V3Pool[],
  numRuns: number,
  seed: number,
  /** Size in [0, 1] → amount, given what the pool holds of the input token. */
  sizing: (size: number, held: bigint) => bigint = logUpToTwiceHeld,
): Promise<number> {
  let mostTicks = 0;
  const balances = new Map<string, bigint>();
  for (const pool of pools) {
    for (const token of [pool.token0, pool.token1]) {
      balances.set(`${pool.address}:${token}`, await balanceOf(token, pool.address));
    }
  }
  await fc.assert(
    fc.asyncProperty(
      fc.nat(),
      fc.boolean(),
      fraction,
      fc.bigInt(0n, 999n),
      async (index, zeroForOne, size, low) => {
        const pool = pools[index % pools.length] as V3Pool;
        const [tokenIn, tokenOut] = zeroForOne
          ? [pool.token0, pool.token1]
          : [pool.token1, pool.token0];
        const held = balances.get(`${pool.address}:${tokenIn}`) as bigint;
        const amountIn = sizing(size, held) + low + 1n;
        const ours = uniswapV3ExactIn({ pool, zeroForOne, amountIn });
        const chain = await quoterV2Single(net.client, net.deployment, {
          tokenIn,
          tokenOut,
          fee: pool.feePpm,
          amountIn,
        });
        if (ours.ok) {
          expect(ours.amountOut).toBe(chain.amountOut);
          expect(ours.sqrtPriceX96After).toBe(chain.sqrtPriceX96After);
          mostTicks = Math.max(mostTicks, ours.ticksCrossed);
        } else if (ours.reason === "zero-output") {
          expect(chain.amountOut).toBe(0n);
        } else {
          // The pool stopped at the price limit with input left: it cannot fill the amount.
          expect(chain.sqrtPriceX96After).toBe(
            zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n,
          );
        }
      },
    ),
    { numRuns, seed },
  );
  return mostTicks;
}

async function checkVaults(numRuns: number, seed: number): Promise<void> {
  const vaults = poolsOf("erc4626");
  await fc.assert(
    fc.asyncProperty(fc.nat(), fc.boolean(), fraction, async (i, deposit, size) => {
      const vault = vaults[i % vaults.length] as VaultPool;
      const bound = deposit ? vault.totalAssets * 3n : vault.totalSupply;
      const amount = BigInt(Math.floor(10 ** (size * Math.log10(Number(bound))))) + 1n;
      const ours = deposit ? previewDeposit(vault, amount) : previewRedeem(vault, amount);
      const chain = await vaultPreview(
        net.client,
        vault.address,
        deposit ? "deposit" : "redeem",
        amount,
      );
      expect(ours).toBe(chain);
    }),
    { numRuns, seed },
  );
}

/** The reason string a call reverts with (throws if it does not revert with one). */
async function revertReason(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    const reverted =
      error instanceof BaseError
        ? error.walk((e) => e instanceof ContractFunctionRevertedError)
        : undefined;
    if (reverted instanceof ContractFunctionRevertedError) return reverted.reason;
    throw error;
  }
  throw new Error("the call did not revert");
}

/**
 * A new 0.01% pool (tick spacing 1, so a position can span MIN_TICK to MAX_TICK: the only way
 * to hold liquidity at the bounds) of two devnet tokens, initialized at `sqrtPriceX96`, with
 * one such position bought with at most `amounts` of token0 and token1. The amounts differ by
 * pool: NonfungiblePositionManager's LiquidityAmounts overflows uint128 on much of a token
 * whose side of the range is only a few price units wide.
 */
async function fullRangePool(
  symbols: [string, string],
  sqrtPriceX96: bigint,
  amounts: [bigint, bigint],
): Promise<Address> {
  const { factory, positionManager } = net.deployment.uniswapV3;
  const [t0, t1] = symbols
    .map((s) => net.token(s).address)
    .sort((x, y) => (x.toLowerCase() < y.toLowerCase() ? -1 : 1)) as [Address, Address];
  await net.send({
    address: factory,
    abi: UniswapV3FactoryAbi,
    functionName: "createPool",
    args: [t0, t1, 100],
    gas: 8_000_000n,
  });
  const pool = getAddress(
    await net.client.readContract({
      address: factory,
      abi: UniswapV3FactoryAbi,
      functionName: "getPool",
      args: [t0, t1, 100],
    }),
  );
  await net.send({
    address: pool,
    abi: UniswapV3PoolAbi,
    functionName: "initialize",
    args: [sqrtPriceX96],
  });
  for (const [t, amount] of [
    [t0, amounts[0]],
    [t1, amounts[1]],
  ] as const) {
    await net.send({
      address: t,
      abi: DevTokenAbi,
      functionName: "mint",
      args: [net.deployment.deployer, amount],
    });
  }
  await net.send({
    address: positionManager,
    abi: NonfungiblePositionManagerAbi,
    functionName: "mint",
    args: [
      {
        token0: t0,
        token1: t1,
        fee: 100,
        tickLower: MIN_TICK,
        tickUpper: MAX_TICK,
        amount0Desired: amounts[0],
        amount1Desired: amounts[1],
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: net.deployment.deployer,
        deadline: maxUint256,
      },
    ],
  });
  return pool;
}

/** The pool as the engine reads it, checked to hold its one position in range. */
async function readFullRangePool(address: Address): Promise<V3Pool> {
  const pool = await readV3Pool(net.client, address);
  expect(pool.ticks).toEqual([
    { tick: MIN_TICK, liquidityNet: pool.liquidity },
    { tick: MAX_TICK, liquidityNet: -pool.liquidity },
  ]);
  return pool;
}

/** QuoterV2's quote for `amountIn` through the V3 pool, one way or the other. */
function quoteOnChain(pool: V3Pool, zeroForOne: boolean, amountIn: bigint) {
  return quoterV2Single(net.client, net.deployment, {
    tokenIn: zeroForOne ? pool.token0 : pool.token1,
    tokenOut: zeroForOne ? pool.token1 : pool.token0,
    fee: pool.feePpm,
    amountIn,
  });
}

/** Our exact-input quote is QuoterV2's, amount and price after. */
async function expectSameAsChain(pool: V3Pool, zeroForOne: boolean, amountIn: bigint) {
  const chain = await quoteOnChain(pool, zeroForOne, amountIn);
  const ours = uniswapV3ExactIn({ pool, zeroForOne, amountIn });
  expect(ours.ok && [ours.amountOut, ours.sqrtPriceX96After]).toEqual([
    chain.amountOut,
    chain.sqrtPriceX96After,
  ]);
}

/** `pool.swap` called directly with our programs' price limit, for its revert reason. */
async function directSwapRevert(pool: V3Pool, zeroForOne: boolean, amountIn: bigint) {
  return await revertReason(
    net.client.simulateContract({
      account: net.deployment.deployer,
      address: pool.address,
      abi: UniswapV3PoolAbi,
      functionName: "swap",
      args: [
        net.deployment.deployer,
        zeroForOne,
        amountIn,
        zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n,
        "0x",
      ],
    }),
  );
}

describe("routing engine against the devnet contracts", () => {
  beforeAll(async () => {
    net = await startRoutingDevnet();
    graph = await readDevnetGraph(net.client, net.deployment);
  });
  afterAll(async () => {
    await net?.stop();
  });

  it("V2 quotes equal Router02.getAmountsOut over random 1–3 hop paths and sizes", async () => {
    await checkV2(50, 11);
  });

  it("V3 quotes equal QuoterV2 (amount and price after), dust to pool-draining", async () => {
    await checkV3(poolsOf("v3"), 60, 12);
  });

  it("V3 quotes equal QuoterV2 for large swaps across dozens of initialized ticks", async () => {
    const pools = await Promise.all(net.manyTickPools.map((p) => readV3Pool(net.client, p)));
    expect(Math.min(...pools.map((p) => p.ticks.length))).toBeGreaterThan(40);
    const mostTicks = await checkV3(pools, 40, 13, deepIntoTheTicks);
    expect(mostTicks).toBeGreaterThanOrEqual(20);
  });

  it("a V3 swap larger than the pool can fill is reported as such", async () => {
    const pool = poolsOf("v3")[0] as V3Pool;
    const held = await balanceOf(pool.token1, pool.address);
    const result = uniswapV3ExactIn({ pool, zeroForOne: false, amountIn: held * 1_000_000n });
    expect(result).toEqual({ ok: false, reason: "exceeds-liquidity" });
    const chain = await quoterV2Single(net.client, net.deployment, {
      tokenIn: pool.token1,
      tokenOut: pool.token0,
      fee: pool.feePpm,
      amountIn: held * 1_000_000n,
    });
    expect(chain.sqrtPriceX96After).toBe(MAX_SQRT_RATIO - 1n);
  });

  it("vault previews equal previewDeposit/previewRedeem, also after yield", async () => {
    await checkVaults(40, 14);
    // Yield: assets arrive without shares, so the share price moves off any round ratio.
    for (const v of net.deployment.vaults) {
      const asset = net.deployment.tokens.find((t) => t.address === v.asset);
      if (!asset) throw new Error("vault asset not deployed");
      await net.send({
        address: v.asset,
        abi: DevTokenAbi,
        functionName: "transfer",
        args: [v.address, amountForUsd(asset, 12_345.678901)],
      });
    }
    graph = await readDevnetGraph(net.client, net.deployment);
    for (const vault of poolsOf("erc4626"))
      expect(vault.totalAssets).toBeGreaterThan(vault.totalSupply);
    await checkVaults(40, 15);
  });

  it("all of it still holds after random swaps, mints, burns, deposits and yield", async () => {
    await runActivity({ rpcUrl: net.anvil.url, deployment: net.deployment, steps: 30, seed: 5 });
    graph = await readDevnetGraph(net.client, net.deployment);
    await checkV2(25, 21);
    await checkV3(poolsOf("v3"), 30, 22);
    await checkVaults(20, 23);
  });

  it("every hop of the routes found on the devnet equals the chain's own quote", async () => {
    const gasPriceWei = await net.client.getGasPrice();
    const symbols = ["WETH", "USDC", "USDT", "DAI", "WBTC", "LINK", "UNI", "PEPE", "FROG"];
    const vaultShares = net.deployment.vaults.map((v) => v.address.toLowerCase() as Address);
    const tokens = [
      ...symbols.map((s) => net.token(s).address.toLowerCase() as Address),
      ...vaultShares,
    ];
    // A share is sized as its asset (same decimals, close to one for one).
    const priceOf = (i: number) => {
      const symbol = symbols[i];
      if (symbol) return net.token(symbol);
      const vault = net.deployment.vaults[i - symbols.length];
      const asset = net.deployment.tokens.find((t) => t.address === vault?.asset);
      if (!asset) throw new Error(`no asset for vault ${vault?.address}`);
      return asset;
    };
    /**
     * A path of at most `most` hops from `from` to `to` as routes are made (no token and no pool
     * twice) that carries `amount` to a positive output at every hop, quoted exactly: its pools,
     * or undefined when there is none.
     */
    const pathCarrying = (
      from: Address,
      to: Address,
      amount: bigint,
      most: number,
    ): Address[] | undefined => {
      const walk = (
        token: Address,
        held: bigint,
        tokens: Address[],
        pools: Address[],
      ): Address[] | undefined => {
        if (pools.length === most) return undefined;
        for (const edge of graph.edgesFrom(token)) {
          const pool = edge.pool.address;
          if (tokens.includes(edge.tokenOut) || pools.includes(pool)) continue;
          const out = quoteEdge(edge, held);
          if (out === undefined || out === 0n) continue;
          if (edge.tokenOut === to) return [...pools, pool];
          const found = walk(edge.tokenOut, out, [...tokens, edge.tokenOut], [...pools, pool]);
          if (found) return found;
        }
        return undefined;
      };
      return walk(from, amount, [from], []);
    };
    let splits = 0;
    let flows = 0;
    let routes = 0;
    let apart = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.nat(),
        fraction.map((f) => 1 + 6 * f),
        async (a, b, size) => {
          const tokenIn = tokens[a % tokens.length] as Address;
          // Any token but tokenIn.
          const tokenOut = tokens[(a + 1 + (b % (tokens.length - 1))) % tokens.length] as Address;
          const amountIn = amountForUsd(priceOf(a % tokens.length), 10 ** size);
          const found = findRoute({
            graph,
            tokenIn,
            tokenOut,
            amountIn,
            gasPriceWei,
            weth: net.deployment.weth,
          });
          if (!found.ok) {
            // Some vault share pairs are four hops apart (redeem, two swaps, deposit), and no
            // vault redeems more shares than it has issued: no path within reach carries the
            // amount (the engine says no-path when none is reached at all).
            expect(["no-path", "insufficient-liquidity"]).toContain(found.reason);
            expect({
              tokenIn,
              tokenOut,
              path: pathCarrying(tokenIn, tokenOut, amountIn, 3),
            }).toEqual({
              tokenIn,
              tokenOut,
              path: undefined,
            });
            apart++;
            return;
          }
          routes++;
          const { quote } = found;
          if (quote.flow) {
            // A flow: its input spent, its output made, each hop as its exact re-quote says.
            flows++;
            const hops = quote.flow.hops;
            const sum = (list: typeof hops, f: (h: (typeof hops)[number]) => bigint) =>
              list.reduce((total, h) => total + f(h), 0n);
            expect(
              sum(
                hops.filter((h) => h.edge.tokenIn === tokenIn),
                (h) => h.amountIn,
              ),
            ).toBe(amountIn);
            expect(
              sum(
                hops.filter((h) => h.edge.tokenOut === tokenOut),
                (h) => h.amountOut,
              ),
            ).toBe(quote.amountOut);
            const again = quoteFlow({ tokenIn, tokenOut, amountIn, hops });
            expect(again.ok && again.flow.hops).toEqual(hops);
          } else {
            expect(quote.legs.reduce((s, l) => s + l.amountIn, 0n)).toBe(amountIn);
            expect(quote.legs.reduce((s, l) => s + l.amountOut, 0n)).toBe(quote.amountOut);
            if (quote.legs.length > 1) splits++;
            for (const leg of quote.legs) {
              expect((leg.hops[0] as { amountIn: bigint }).amountIn).toBe(leg.amountIn);
            }
          }
          for (const hop of routeHops(quote)) {
            expect(hop.amountOut).toBe(await chainHopOut(net.client, net.deployment, hop));
          }
        },
      ),
      { numRuns: 40, seed: 31 },
    );
    // Every run either compared each hop of its route or was checked to have none within reach.
    expect(routes + apart).toBe(40);
    expect(apart).toBeGreaterThan(0);
    expect(splits).toBeGreaterThan(0);
    expect(flows).toBeGreaterThan(0);
  });

  describe("V3 pools at their price limit", () => {
    beforeAll(async () => {
      // The 0.01% tier (tick spacing 1), as governance enabled it on mainnet.
      await net.send({
        address: net.deployment.uniswapV3.factory,
        abi: UniswapV3FactoryAbi,
        functionName: "enableFeeAmount",
        args: [100, 1],
      });
    });

    it("at MIN_SQRT_RATIO with liquidity, 2 wei of token0 revert 'SPL' and fill nothing here", async () => {
      // Only initialization sets a price this low (a swap's limit stays above it). The one
      // position holds only token0.
      const amount0 = 10n ** 38n;
      const low = await readFullRangePool(
        await fullRangePool(["LINK", "UNI"], MIN_SQRT_RATIO, [amount0, 0n]),
      );
      expect([low.sqrtPriceX96, low.tick]).toEqual([MIN_SQRT_RATIO, MIN_TICK]);
      // LiquidityAmounts.getLiquidityForAmount0 for a price at the position's lower bound.
      expect(low.liquidity).toBe(
        mulDiv(
          amount0,
          mulDiv(MIN_SQRT_RATIO, MAX_SQRT_RATIO, Q96),
          MAX_SQRT_RATIO - MIN_SQRT_RATIO,
        ),
      );
      expect(await directSwapRevert(low, true, 2n)).toBe("SPL");
      expect(await revertReason(quoteOnChain(low, true, 2n))).toBe("SPL");
      expect(uniswapV3ExactIn({ pool: low, zeroForOne: true, amountIn: 2n })).toEqual({
        ok: false,
        reason: "price-limit",
      });
      const blocked: Edge = {
        pool: low,
        tokenIn: low.token0,
        tokenOut: low.token1,
        action: "swap",
      };
      expect(quoteEdge(blocked, 2n)).toBeUndefined();
      await expectSameAsChain(low, false, 2n);
    });

    it("pushed to MAX_SQRT_RATIO - 1 by a swap, 2 wei of token1 revert 'SPL' and fill nothing here", async () => {
      // NonfungiblePositionManager cannot price a position a unit below MAX_SQRT_RATIO: the
      // pool starts a tick lower, and a swap buying token0 with no limit stops at the limit.
      const address = await fullRangePool(["LINK", "AAVE"], getSqrtRatioAtTick(MAX_TICK - 1), [
        10n ** 14n,
        10n ** 38n,
      ]);
      const before = await readFullRangePool(address);
      const push = 10n ** 36n;
      const { deployer, uniswapV3 } = net.deployment;
      await net.send({
        address: before.token1,
        abi: DevTokenAbi,
        functionName: "mint",
        args: [deployer, push],
      });
      await net.send({
        address: before.token1,
        abi: DevTokenAbi,
        functionName: "approve",
        args: [uniswapV3.swapRouter, maxUint256],
      });
      await net.send({
        address: uniswapV3.swapRouter,
        abi: SwapRouterAbi,
        functionName: "exactInputSingle",
        args: [
          {
            tokenIn: before.token1,
            tokenOut: before.token0,
            fee: 100,
            recipient: deployer,
            deadline: maxUint256,
            amountIn: push,
            amountOutMinimum: 0n,
            sqrtPriceLimitX96: 0n,
          },
        ],
      });
      const high = await readFullRangePool(address);
      expect([high.sqrtPriceX96, high.tick]).toEqual([MAX_SQRT_RATIO - 1n, MAX_TICK - 1]);
      expect(await directSwapRevert(high, false, 2n)).toBe("SPL");
      expect(await revertReason(quoteOnChain(high, false, 2n))).toBe("SPL");
      expect(uniswapV3ExactIn({ pool: high, zeroForOne: false, amountIn: 2n })).toEqual({
        ok: false,
        reason: "price-limit",
      });
      await expectSameAsChain(high, true, 2n);
    });

    it("one price unit inside the limit, the pool swaps and so does the engine", async () => {
      const inside = await readFullRangePool(
        await fullRangePool(["UNI", "AAVE"], MIN_SQRT_RATIO + 2n, [10n ** 38n, 1n]),
      );
      expect([inside.sqrtPriceX96, inside.tick]).toEqual([MIN_SQRT_RATIO + 2n, MIN_TICK]);
      // 2 wei move a price this coarse by nothing: the fee takes them, nothing comes out.
      const chain = await quoteOnChain(inside, true, 2n);
      expect([chain.amountOut, chain.sqrtPriceX96After]).toEqual([0n, MIN_SQRT_RATIO + 2n]);
      expect(uniswapV3ExactIn({ pool: inside, zeroForOne: true, amountIn: 2n })).toEqual({
        ok: false,
        reason: "zero-output",
      });
    });
  });
});
