/**
 * Single-sided Uniswap V2 liquidity against the real pairs on a fresh devnet: the engine's
 * `deposit` (sell the right share of one token, add both, mint) and `redeem` (burn, sell the
 * other side back) edges quote exactly what the router's program makes on chain — the LP
 * tokens or the output to the wei, the leftovers the route states to the wei, the executor
 * left with nothing — over random pairs, sides and sizes, on fixed seeds.
 */
import fc from "fast-check";
import { type Address, erc20Abi, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { ProgramValuesAbi } from "../../abis/generated/ProgramValues.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import type { ExecutionAddresses } from "../../engine/core/execution-addresses.js";
import type { Edge, QuotedHop, RouteQuote, V2Pool } from "../../engine/core/types.js";
import { hopLeftovers, planRouteProgram, simulateEdge } from "../../engine/index.js";
import { encodeRouterSwapTx } from "../../engine/program/encode.js";
import { describeRevert } from "../../engine/program/revert.js";
import { uniswapV2ZapIn } from "../../engine/protocols/uniswap-v2/math.js";
import { findRevertData } from "../execution/harness.js";
import { readV2Pool } from "./chain-graph.js";
import { type RoutingDevnet, startRoutingDevnet } from "./devnet.js";

let net: RoutingDevnet;

/** A uniform fraction in [0, 1]. */
const fraction = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 1_000_000);

const lower = (a: Address) => a.toLowerCase() as Address;

async function balanceOf(token: Address, account: Address): Promise<bigint> {
  return await net.client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [account],
  });
}

/** Gives the deployer `amount` of `token` (minting a DevToken, wrapping ether for WETH). */
async function fundDeployer(token: Address, amount: bigint): Promise<void> {
  const { deployment } = net;
  if (lower(token) === lower(deployment.weth)) {
    const hash = await net.wallet.writeContract({
      address: deployment.weth,
      abi: WETH9Abi,
      functionName: "deposit",
      value: amount,
      account: net.wallet.account ?? null,
      chain: net.wallet.chain,
    });
    await devnetReceipt(net.client, hash);
    return;
  }
  await net.send({
    address: token,
    abi: DevTokenAbi,
    functionName: "mint",
    args: [deployment.deployer, amount],
  });
}

/**
 * Runs `hop` alone through the router as a route from the deployer to itself. When it reverts,
 * `failure` is the innermost error the simulation at the same state reported.
 */
async function runThroughRouter(
  hop: QuotedHop,
): Promise<{ status: string; gasUsed: bigint; failure?: { errorName?: string; args: unknown[] } }> {
  const { deployment } = net;
  const execution = deployment.execution as ExecutionAddresses;
  const quote: RouteQuote = {
    tokenIn: hop.edge.tokenIn,
    tokenOut: hop.edge.tokenOut,
    amountIn: hop.amountIn,
    amountOut: hop.amountOut,
    legs: [{ amountIn: hop.amountIn, amountOut: hop.amountOut, hops: [hop] }],
    gasUnits: 0n,
    gasCostInTokenOut: 0n,
  };
  const program = planRouteProgram({
    strategy: "router",
    execution,
    swapRouter: deployment.uniswapV3.swapRouter,
    weth: deployment.weth,
    account: execution.executor,
    receiver: deployment.deployer,
    refundTo: deployment.deployer,
    quote,
  });
  await net.send({
    address: hop.edge.tokenIn,
    abi: erc20Abi,
    functionName: "approve",
    args: [execution.router, hop.amountIn],
  });
  const tx = encodeRouterSwapTx({
    router: execution.router,
    from: deployment.deployer,
    tokenIn: hop.edge.tokenIn,
    amountIn: hop.amountIn,
    tokenOut: hop.edge.tokenOut,
    minAmountOut: hop.amountOut,
    receiver: deployment.deployer,
    program,
  });
  let failure: { errorName?: string; args: unknown[] } | undefined;
  try {
    await net.client.call({
      account: deployment.deployer,
      to: tx.to,
      data: tx.data,
      gas: 2_000_000n,
    });
  } catch (error) {
    const data = findRevertData(error);
    if (data === undefined) throw error;
    const reason = describeRevert({ data, calls: program.calls });
    failure = { errorName: reason.errorName, args: [...reason.args] };
  }
  const hash = await net.wallet.sendTransaction({
    to: tx.to,
    data: tx.data as Hex,
    gas: 2_000_000n,
    account: net.wallet.account ?? null,
    chain: net.wallet.chain,
  });
  const receipt = await devnetReceipt(net.client, hash);
  return { status: receipt.status, gasUsed: receipt.gasUsed, ...(failure ? { failure } : {}) };
}

/**
 * Why the pair refuses a deposit of `amountIn` of `tokenIn` the engine finds nothing to mint for,
 * from the chain's own sizing of it: a sale that buys nothing fails the swap; otherwise the mint
 * of what is added mints nothing.
 */
async function depositRefusal(pair: V2Pool, tokenIn: Address, amountIn: bigint): Promise<string> {
  const other = tokenIn === pair.token0 ? pair.token1 : pair.token0;
  const [, swapOut] = await net.client.readContract({
    address: net.deployment.execution.programValues as Address,
    abi: ProgramValuesAbi,
    functionName: "uniswapV2ZapIn",
    args: [pair.address, tokenIn, other, amountIn],
  });
  return swapOut === 0n
    ? "UniswapV2: INSUFFICIENT_OUTPUT_AMOUNT"
    : "UniswapV2: INSUFFICIENT_LIQUIDITY_MINTED";
}

/**
 * Asserts that the pair refuses `edge` for `amountIn`, as the engine's zero-output quote says:
 * the router's run of it reverts in the pair with `reason`, and moves nothing.
 */
async function expectPairRefuses(
  pair: V2Pool,
  edge: Edge,
  amountIn: bigint,
  reason: string,
): Promise<void> {
  const me = net.deployment.deployer;
  const tokens = [pair.token0, pair.token1, pair.address];
  const before = await Promise.all(tokens.map((t) => balanceOf(t, me)));
  // The smallest minimum the router takes: the refusal is the pair's, not the router's check.
  const run = await runThroughRouter({ edge, amountIn, amountOut: 1n });
  expect(run.status).toBe("reverted");
  expect(run.failure).toEqual({ errorName: "Error", args: [reason] });
  expect(await Promise.all(tokens.map((t) => balanceOf(t, me)))).toEqual(before);
}

/** Log-uniform from 1,000 units up to `top`. */
function logUpTo(size: number, top: bigint): bigint {
  return 1_000n + BigInt(Math.floor(10 ** (size * Math.log10(Number(top)))));
}

describe("single-sided Uniswap V2 liquidity against the devnet contracts", () => {
  let pairs: Address[];
  beforeAll(async () => {
    net = await startRoutingDevnet({ positions: 0 });
    pairs = net.deployment.uniswapV2.pairs;
  });
  afterAll(async () => {
    await net?.stop();
  });

  const pairAt = async (i: number): Promise<V2Pool> =>
    await readV2Pool(net.client, pairs[i % pairs.length] as Address);

  it("ProgramValues.uniswapV2ZapIn sizes a deposit as the engine does, to the wei; where the engine finds nothing to mint, the pair refuses", async () => {
    let compared = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.boolean(), fraction, async (i, side, size) => {
        const pair = await pairAt(i);
        const [tokenIn, other] = side ? [pair.token0, pair.token1] : [pair.token1, pair.token0];
        const [reserveIn, reserveOut] = side
          ? [pair.reserve0, pair.reserve1]
          : [pair.reserve1, pair.reserve0];
        const amountIn = logUpTo(size, reserveIn * 10n);
        const ours = uniswapV2ZapIn({
          amountIn,
          reserveIn,
          reserveOut,
          totalSupply: pair.totalSupply,
        });
        if (!ours) {
          const edge: Edge = { pool: pair, tokenIn, tokenOut: pair.address, action: "deposit" };
          expect(simulateEdge(edge, amountIn)).toEqual({ ok: false, reason: "zero-output" });
          await fundDeployer(tokenIn, amountIn);
          await expectPairRefuses(
            pair,
            edge,
            amountIn,
            await depositRefusal(pair, tokenIn, amountIn),
          );
          refused++;
          return;
        }
        const chain = await net.client.readContract({
          address: net.deployment.execution.programValues as Address,
          abi: ProgramValuesAbi,
          functionName: "uniswapV2ZapIn",
          args: [pair.address, tokenIn, other, amountIn],
        });
        expect(chain).toEqual([ours?.swapIn, ours?.swapOut, ours?.depositIn, ours?.depositOther]);
        compared++;
      }),
      { numRuns: 60, seed: 41 },
    );
    // Every run took one of the two checked branches, and the seed reaches both.
    expect(compared + refused).toBe(60);
    expect(refused).toBeGreaterThan(0);
  });

  it("a deposit mints exactly the quoted LP tokens and returns exactly the stated leftovers", async () => {
    const { deployment } = net;
    const executor = deployment.execution.executor as Address;
    let executed = 0;
    let refused = 0;
    let withDust = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.boolean(), fraction, async (i, side, size) => {
        const pair = await pairAt(i);
        const tokenIn = side ? pair.token0 : pair.token1;
        const other = side ? pair.token1 : pair.token0;
        const reserveIn = side ? pair.reserve0 : pair.reserve1;
        // Up to twice the pair's reserve: from dust to most of the pool's depth.
        const amountIn = logUpTo(size, reserveIn * 2n);
        const edge: Edge = { pool: pair, tokenIn, tokenOut: pair.address, action: "deposit" };
        const quoted = simulateEdge(edge, amountIn);
        if (!quoted.ok) {
          // Dust: nothing to mint once part of it is sold; the pair refuses it too.
          expect(quoted.reason).toBe("zero-output");
          await fundDeployer(tokenIn, amountIn);
          await expectPairRefuses(
            pair,
            edge,
            amountIn,
            await depositRefusal(pair, tokenIn, amountIn),
          );
          refused++;
          return;
        }
        const hop: QuotedHop = { edge, amountIn, amountOut: quoted.amountOut };
        const leftovers = hopLeftovers(hop);
        expect(leftovers.map((l) => l.token)).toEqual([tokenIn, other]);
        await fundDeployer(tokenIn, amountIn);
        const me = deployment.deployer;
        const before = await Promise.all(
          [tokenIn, other, pair.address].map((t) => balanceOf(t, me)),
        );
        const { status } = await runThroughRouter(hop);
        expect(status).toBe("success");
        const after = await Promise.all(
          [tokenIn, other, pair.address].map((t) => balanceOf(t, me)),
        );
        const [dustIn, dustOther] = leftovers.map((l) => l.amount) as [bigint, bigint];
        const change = (k: number) => (after[k] as bigint) - (before[k] as bigint);
        expect(change(2)).toBe(quoted.amountOut);
        expect(change(0)).toBe(dustIn - amountIn);
        expect(change(1)).toBe(dustOther);
        for (const t of [tokenIn, other, pair.address])
          expect(await balanceOf(t, executor)).toBe(0n);
        executed++;
        if (dustIn + dustOther > 0n) withDust++;
      }),
      { numRuns: 30, seed: 42 },
    );
    expect(executed + refused).toBe(30);
    expect(refused).toBeGreaterThan(0);
    // Rounding leaves something unused in some of them: the sweep back is exercised.
    expect(withDust).toBeGreaterThan(0);
  });

  it("a redeem pays exactly the quoted amount of the one token asked for", async () => {
    const { deployment } = net;
    const executor = deployment.execution.executor as Address;
    const me = deployment.deployer;
    let executed = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.boolean(), fraction, async (i, side, size) => {
        const pair = await pairAt(i);
        const held = await balanceOf(pair.address, me);
        const tokenOut = side ? pair.token0 : pair.token1;
        const other = side ? pair.token1 : pair.token0;
        // The deployer seeded every pair: up to all the LP tokens it holds.
        const top = logUpTo(size, held);
        const liquidity = top < held ? top : held;
        const edge: Edge = { pool: pair, tokenIn: pair.address, tokenOut, action: "redeem" };
        const quoted = simulateEdge(edge, liquidity);
        if (!quoted.ok) {
          // Dust: the burn would pay nothing of one side; the pair refuses it too.
          expect(quoted.reason).toBe("zero-output");
          await expectPairRefuses(
            pair,
            edge,
            liquidity,
            "UniswapV2: INSUFFICIENT_LIQUIDITY_BURNED",
          );
          refused++;
          return;
        }
        const hop: QuotedHop = { edge, amountIn: liquidity, amountOut: quoted.amountOut };
        expect(hopLeftovers(hop)).toEqual([]);
        const before = await Promise.all([tokenOut, other].map((t) => balanceOf(t, me)));
        const { status } = await runThroughRouter(hop);
        expect(status).toBe("success");
        const after = await Promise.all([tokenOut, other].map((t) => balanceOf(t, me)));
        expect((after[0] as bigint) - (before[0] as bigint)).toBe(quoted.amountOut);
        expect(after[1]).toBe(before[1]);
        expect(await balanceOf(pair.address, me)).toBe(held - liquidity);
        for (const t of [tokenOut, other, pair.address])
          expect(await balanceOf(t, executor)).toBe(0n);
        executed++;
      }),
      { numRuns: 30, seed: 43 },
    );
    expect(executed + refused).toBe(30);
    expect(refused).toBeGreaterThan(0);
  });

  it("a deposit or redeem the pair cannot take is refused by the quote, as the pair would revert", async () => {
    const pair = await pairAt(0);
    const redeem: Edge = {
      pool: pair,
      tokenIn: pair.address,
      tokenOut: pair.token0,
      action: "redeem",
    };
    // Past the supply less the 1,000 locked forever: more than anyone can hold.
    expect(simulateEdge(redeem, pair.totalSupply - 999n)).toEqual({
      ok: false,
      reason: "exceeds-liquidity",
    });
    // One wei sells nothing and buys nothing to add beside it: the pair would mint nothing.
    const deposit: Edge = {
      pool: pair,
      tokenIn: pair.token0,
      tokenOut: pair.address,
      action: "deposit",
    };
    expect(simulateEdge(deposit, 1n)).toEqual({ ok: false, reason: "zero-output" });
  });
});
