/**
 * A Uniswap V4 hook that runs during swaps cannot be routed on its flags' word. The attack: a
 * hook with `beforeSwap` and `afterSwap` only (no return-delta permission, a static fee) sells
 * into its own pool ahead of the swapper and back after it, while the pool manager is unlocked
 * by the swapper — a sandwich inside the swapper's own transaction — and stays honest when it
 * sees gas price 0 or base fee 0, as a simulation without validation shows. Here it sits on the
 * cheapest WETH/USDC pool of the devnet, deep enough to take a 50 WETH route.
 *
 * - The hook does what it says on the chain, and the service's simulation sees it do so.
 * - Without the allow-list its pool is not routed: a route delivers to the wei what it quoted,
 *   and a bundle naming the pool is a 400 saying why.
 * - Taken as exact anyway (a graph built here, policy bypassed), the route is refused with a 422
 *   instead of being served with a minimum derived from the degraded amount; a route on a
 *   snapshot the chain has moved past is still served.
 */
import {
  type Address,
  concat,
  createPublicClient,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { V4LiquidityHelperAbi } from "../abis/generated/V4LiquidityHelper.js";
import { V4SandwichHookAbi } from "../abis/generated/V4SandwichHook.js";
import { V4SwapHelperAbi } from "../abis/generated/V4SwapHelper.js";
import { PoolManagerAbi } from "../abis/PoolManager.js";
import { StateViewAbi } from "../abis/StateView.js";
import { V4QuoterAbi } from "../abis/V4Quoter.js";
import { WETH9Abi } from "../abis/WETH9.js";
import { indexedChains } from "../chains.js";
import { loadArtifact } from "../contracts/build.js";
import type { UniswapV4Deployment, UniswapV4PoolKey } from "../devnet/deployment.js";
import { liquidityForAmounts, mineHookSalt, uniswapV4PoolId } from "../devnet/uniswap-v4.js";
import { QuoteNotDeliveredError } from "../engine/core/errors.js";
import { DETERMINISTIC_DEPLOYMENT_PROXY } from "../engine/core/execution-addresses.js";
import { getSqrtRatioAtTick } from "../engine/math/tick-math.js";
import type { RouteRequest } from "../engine/route/route.js";
import { simulateCalls } from "../src/api/chain/simulate.js";
import { TokenSlotFinder } from "../src/api/chain/slots.js";
import { engineApiError } from "../src/api/errors.js";
import { planRoute } from "../src/api/shortcuts/plan-route.js";
import { devnetActors } from "./harness/actors.js";
import { type ServiceInstance, startService, waitForRoutingGraph } from "./harness/service.js";
import { readDevnetGraph, readV4Pool } from "./routing/chain-graph.js";

/** `Hooks.BEFORE_SWAP_FLAG | Hooks.AFTER_SWAP_FLAG`. */
const SANDWICH_FLAGS = (1 << 7) | (1 << 6);
/** The front-run, in basis points of the swapper's input: its loss stays inside a 3% slippage. */
const FRONT_RUN_BPS = 500_000n;
const WETH_IN = 50n * 10n ** 18n;

type RouteAnswer = {
  route: { protocol: string; poolId?: string; primaryAddress: string }[];
  amountOut: string;
  minAmountOut: string;
  gas: string;
  tx: { data: Hex; to: Address; from: Address; value: string };
};

describe("a V4 hook with beforeSwap and afterSwap that sandwiches the swapper", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  let v4: UniswapV4Deployment;
  let key: UniswapV4PoolKey & { id: Hex };
  let hook: Address;
  let weth: Address;
  let usdc: Address;
  const owner = 7;

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    a = await devnetActors(service);
    if (!service.deployment.uniswapV4) throw new Error("the devnet has no Uniswap V4");
    v4 = service.deployment.uniswapV4;
    [weth, usdc] = [a.token("WETH"), a.token("USDC")];

    // The hook, at a CREATE2 address carrying exactly its two flags.
    const artifact = loadArtifact("V4SandwichHook");
    const initCode = concat([
      artifact.bytecode,
      encodeAbiParameters(
        [{ type: "address" }, { type: "address" }],
        [v4.poolManager, a.user(owner).account.address],
      ),
    ]);
    const mined = mineHookSalt({ initCode, flags: SANDWICH_FLAGS });
    await a.send(a.deployer, {
      to: DETERMINISTIC_DEPLOYMENT_PROXY,
      data: concat([mined.salt, initCode]),
    });
    hook = mined.address;
    await a.send(a.user(owner), {
      to: hook,
      data: encodeFunctionData({
        abi: V4SandwichHookAbi,
        functionName: "setFrontRunBps",
        args: [FRONT_RUN_BPS],
      }),
    });

    // Its pool: WETH/USDC at 0.01%, at the hookless 0.05% pool's price, $20M a side within 6%.
    const reference = v4.pools.find(
      (p) => p.fee === 500 && p.hooks === "0x0000000000000000000000000000000000000000",
    );
    if (!reference) throw new Error("no hookless WETH/USDC 0.05% pool");
    const [sqrtPriceX96, tick] = await a.client.readContract({
      address: v4.stateView,
      abi: StateViewAbi,
      functionName: "getSlot0",
      args: [reference.id],
    });
    const [currency0, currency1] =
      weth.toLowerCase() < usdc.toLowerCase() ? [weth, usdc] : [usdc, weth];
    const poolKey = { currency0, currency1, fee: 100, tickSpacing: 10, hooks: hook };
    key = { ...poolKey, id: uniswapV4PoolId(poolKey) };
    await a.send(a.deployer, {
      to: v4.poolManager,
      data: encodeFunctionData({
        abi: PoolManagerAbi,
        functionName: "initialize",
        args: [poolKey, sqrtPriceX96],
      }),
    });
    const wethAmount = 6_666n * 10n ** 18n;
    const usdcAmount = 20_000_000n * 10n ** 6n;
    await a.send(a.deployer, {
      to: weth,
      data: encodeFunctionData({ abi: WETH9Abi, functionName: "deposit" }),
      value: wethAmount,
    });
    await a.fund(a.deployer.account.address, usdc, usdcAmount);
    const center = Math.floor(tick / 10) * 10;
    const [lower, upper] = [center - 600, center + 610];
    const liquidity = liquidityForAmounts(
      sqrtPriceX96,
      getSqrtRatioAtTick(lower),
      getSqrtRatioAtTick(upper),
      currency0 === weth ? wethAmount : usdcAmount,
      currency0 === weth ? usdcAmount : wethAmount,
    );
    await a.send(a.deployer, {
      to: v4.liquidityHelper,
      data: encodeFunctionData({
        abi: V4LiquidityHelperAbi,
        functionName: "modifyLiquidity",
        args: [poolKey, lower, upper, liquidity, `0x${"00".repeat(31)}01`],
      }),
    });
    await waitForRoutingGraph(service, service.deployment.chainId, await a.client.getBlockNumber());
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
  });

  test("without the allow-list the pool is not routed: the route pays to the wei what it quoted", async () => {
    const victim = a.user(5);
    const me = victim.account.address;
    await a.fund(me, weth, WETH_IN);
    const params = new URLSearchParams({
      fromAddress: me,
      tokenIn: weth,
      tokenOut: usdc,
      amountIn: WETH_IN.toString(),
    });
    const res = await fetch(`${service.url}/v1/shortcuts/route?${params}`);
    const body = (await res.json()) as RouteAnswer;
    expect(res.status).toBe(200);
    expect(body.route.map((s) => s.poolId).filter((id) => id === key.id)).toEqual([]);
    await a.approve(victim, weth, body.tx.to, WETH_IN);
    const ownerAddress = a.user(owner).account.address;
    const [usdcBefore, ownerBefore] = [
      await a.balanceOf(usdc, me),
      await a.balanceOf(weth, ownerAddress),
    ];
    // Sent with the answer's gas limit, unchanged, as a client may.
    const receipt = await a.send(victim, {
      to: body.tx.to,
      data: body.tx.data,
      gas: BigInt(body.gas),
    });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(usdc, me)) - usdcBefore).toBe(BigInt(body.amountOut));
    expect(await a.balanceOf(weth, ownerAddress)).toBe(ownerBefore);
  });

  test("a bundle naming the pool is a 400 saying why", async () => {
    const me = a.user(5).account.address;
    const res = await fetch(`${service.url}/v1/shortcuts/bundle?fromAddress=${me}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        {
          protocol: "uniswap-v4",
          action: "swap",
          args: {
            primaryAddress: v4.poolManager,
            poolId: key.id,
            tokenIn: weth,
            tokenOut: usdc,
            amountIn: WETH_IN.toString(),
          },
        },
      ]),
    });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: `actions[0].args.poolId: ${key.id.toLowerCase()} is not a routable pool of the Uniswap V4 pool manager ${getAddress(v4.poolManager)} on chain ${service.deployment.chainId}: no such pool is indexed, or its hook runs during swaps (where it could trade against them or change their amounts) and is not in UNISWAP_V4_HOOKS_${service.deployment.chainId}.`,
      },
    });
  });

  describe("on a graph built here, taking the pool as exact", () => {
    let client: PublicClient;
    const request = (fromAddress: Address): RouteRequest => ({
      chainId: service.deployment.chainId,
      fromAddress,
      tokenIn: weth.toLowerCase() as Address,
      tokenOut: usdc.toLowerCase() as Address,
      amountIn: WETH_IN,
      receiver: undefined,
      spender: fromAddress,
      routingStrategy: "router",
      usedToEOA: false,
      toEOA: undefined,
      priceImpact: false,
      slippage: 300,
      fee: undefined,
      feeReceiver: undefined,
      tokenInAmountToApprove: undefined,
      tokenInAmountToTransfer: undefined,
      maxHops: 3,
      deadline: undefined,
    });
    const context = async (graph: Awaited<ReturnType<typeof readDevnetGraph>>) => {
      const [chain] = indexedChains(service.env);
      if (!chain) throw new Error("no devnet chain in the service's environment");
      return {
        chain,
        client,
        graph,
        slots: new TokenSlotFinder(client),
        gasPriceWei: 10n ** 9n,
        stablecoins: chain.stablecoins ?? [],
      };
    };

    beforeAll(() => {
      client = createPublicClient({
        transport: http(service.anvil.url),
        cacheTime: 0,
      }) as PublicClient;
    });

    test("a route through the sandwiching pool: 422, the amounts named", async () => {
      const graph = await readDevnetGraph(client, service.deployment);
      const pool = await readV4Pool(client, v4, key);
      graph.upsertPool({ ...pool, admission: "exact" });
      const me = a.user(4).account.address;
      const error = await planRoute(await context(graph), request(me)).then(
        (answer) =>
          answer.route.map((step) => (step as { poolId?: string }).poolId ?? step.protocol),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(QuoteNotDeliveredError);
      const refused = error as QuoteNotDeliveredError;
      const blockNumber = graph.blockNumber;
      // The answer's body, as the API's error handler writes it.
      expect(engineApiError(refused).toBody()).toEqual({
        statusCode: 422,
        error: "Unprocessable Entity",
        message: `The route's transaction delivered ${refused.simulated} wei of ${getAddress(usdc)} in simulation on block ${blockNumber}, but its pools' state there gives ${refused.quoted} wei: code on the route acts otherwise than its state says, so no safe minimum can be set. The route is refused.`,
        details: {
          blockNumber: Number(blockNumber),
          quoted: refused.quoted.toString(),
          simulated: refused.simulated.toString(),
        },
      });
      // Part of the input goes through the sandwiching pool: the route delivers less than quoted.
      expect(refused.simulated).toBeLessThan(refused.quoted);
    });

    test("sent for real, the swap is sandwiched; at gas price 0 it is not; the service's simulation sees the real one", async () => {
      const victim = a.user(6);
      const me = victim.account.address;
      await a.fund(me, weth, WETH_IN);
      await a.approve(victim, weth, v4.swapHelper, WETH_IN);
      const zeroForOne = key.currency0 === weth;
      const swap = {
        to: v4.swapHelper,
        data: encodeFunctionData({
          abi: V4SwapHelperAbi,
          functionName: "swap",
          args: [key, zeroForOne, -WETH_IN, 0n],
        }),
      };
      // What an `eth_call` quote sees: gas price 0, base fee 0.
      const { result: quoted } = await a.client.simulateContract({
        address: v4.quoter,
        abi: V4QuoterAbi,
        functionName: "quoteExactInputSingle",
        args: [{ poolKey: key, zeroForOne, exactAmount: WETH_IN, hookData: "0x" }],
      });
      const ownerAddress = a.user(owner).account.address;
      const read = (token: Address, account: Address) => ({
        from: me,
        to: token,
        data: encodeFunctionData({ abi: DevTokenAbi, functionName: "balanceOf", args: [account] }),
      });
      const simulation = await simulateCalls(a.client, {
        calls: [
          read(usdc, me),
          read(weth, ownerAddress),
          { from: me, ...swap },
          read(usdc, me),
          read(weth, ownerAddress),
        ],
        overrides: {},
      });
      const word = (i: number) => {
        const r = simulation.results[i];
        if (!r?.ok) throw new Error(`simulated call ${i} failed`);
        return BigInt(r.returnData);
      };
      const [usdcBefore, ownerBefore] = [
        await a.balanceOf(usdc, me),
        await a.balanceOf(weth, ownerAddress),
      ];
      // Its own gas limit: an estimate runs at gas price 0, where the hook does not trade.
      const receipt = await a.send(victim, { ...swap, gas: 3_000_000n });
      expect(receipt.status).toBe("success");
      const delivered = (await a.balanceOf(usdc, me)) - usdcBefore;
      const taken = (await a.balanceOf(weth, ownerAddress)) - ownerBefore;
      // The service's simulation predicts the real transaction to the wei, hook's cut included.
      expect(delivered).toBe(word(3) - word(0));
      expect(taken).toBe(word(4) - word(1));
      // The quote at gas price 0 promised more than 2% above what was paid; the owner took WETH.
      expect(quoted[0] - delivered).toBeGreaterThan(quoted[0] / 50n);
      expect(taken).toBeGreaterThan(0n);
    });

    test("a snapshot the chain moved past is judged on its own block: served, at what the chain pays now", async () => {
      const graph = await readDevnetGraph(client, service.deployment);
      // Someone sells WETH on the hookless 0.05% pool the route takes, after the snapshot.
      const trader = a.user(3);
      const reference = v4.pools.find(
        (p) => p.fee === 500 && p.hooks === "0x0000000000000000000000000000000000000000",
      );
      if (!reference) throw new Error("no hookless WETH/USDC 0.05% pool");
      await a.fund(trader.account.address, weth, WETH_IN);
      await a.send(trader, {
        to: weth,
        data: encodeFunctionData({
          abi: DevTokenAbi,
          functionName: "approve",
          args: [v4.swapHelper, maxUint256],
        }),
      });
      await a.send(trader, {
        to: v4.swapHelper,
        data: encodeFunctionData({
          abi: V4SwapHelperAbi,
          functionName: "swap",
          args: [reference, reference.currency0 === weth, -WETH_IN, 0n],
        }),
      });
      expect(await client.getBlockNumber()).toBeGreaterThan(graph.blockNumber);
      const me = a.user(4).account.address;
      const answer = await planRoute(await context(graph), request(me));
      // What the stale snapshot quoted: the hops that end in USDC.
      const quoted = answer.route
        .filter((step) => step.tokenOut[0] === getAddress(usdc))
        .reduce((sum, step) => sum + BigInt((step as { amountOut: string }).amountOut), 0n);
      expect(BigInt(answer.amountOut)).toBeLessThan(quoted);
      // Served on the chain's latest block, and sent as returned it pays exactly that.
      expect(BigInt(answer.blockNumber)).toBe(await client.getBlockNumber());
      const sender = a.user(4);
      await a.fund(me, weth, WETH_IN);
      await a.approve(sender, weth, answer.tx.to as Address, WETH_IN);
      const before = await a.balanceOf(usdc, me);
      const receipt = await a.send(sender, { to: answer.tx.to as Address, data: answer.tx.data });
      expect(receipt.status).toBe("success");
      expect((await a.balanceOf(usdc, me)) - before).toBe(BigInt(answer.amountOut));
      // Its minimum follows what the chain pays now, and the transaction with that minimum is
      // the one whose gas is reported.
      expect(BigInt(answer.minAmountOut)).toBe((BigInt(answer.amountOut) * 9_700n) / 10_000n);
      expect(receipt.gasUsed).toBe(BigInt(answer.gasUsed));
    });
  });
});
