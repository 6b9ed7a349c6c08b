/**
 * Aave V3 end to end on the devnet: its aTokens in the catalogue, routes into and out of them
 * and bundles with its actions executed under each routing strategy, the health-factor refusal,
 * and a bundle that tries to borrow against someone else's collateral.
 *
 * aToken amounts: an aToken balance is a scaled balance times the liquidity index, rounded half
 * up, and the index grows every second. The answer's amounts are what the simulation delivered
 * at the head; the transaction runs one block later, where a holder's balance, rounded again at
 * a higher index, can come out one wei apart. Receivers of aTokens are therefore checked to within
 * 1 wei of `amountOut`; every other amount exactly.
 */
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  parseEther,
  parseEventLogs,
  parseUnits,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AaveV3PoolAbi } from "../abis/AaveV3Pool.js";
import { CoreWalletFactoryAbi } from "../abis/generated/CoreWalletFactory.js";
import { DevPriceFeedAbi } from "../abis/generated/DevPriceFeed.js";
import type { AaveV3Deployment } from "../devnet/deployment.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/core/native.js";
import type { RouteStep } from "../engine/route/route.js";
import { devnetActors } from "./harness/actors.js";
import { sendAnswerAs } from "./harness/send-route.js";
import {
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
  waitForRoutingGraph,
} from "./harness/service.js";

type Answer = {
  tx: { data: Hex; to: Address; from: Address; value: string };
  amountOut?: string;
  amountsOut?: Record<string, string>;
  route?: RouteStep[];
};

const STRATEGIES = [
  ["router", 1],
  ["corewallet", 2],
  ["delegate", 3],
] as const;

describe("Aave V3 on the devnet", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  let aave: AaveV3Deployment;
  const reserve = (symbol: string) => {
    const r = aave.reserves.find((x) => x.symbol === symbol);
    if (!r) throw new Error(`no ${symbol} reserve`);
    return r;
  };
  const settleGraph = async () => {
    const head = await a.client.getBlockNumber({ cacheTime: 0 });
    await waitForIndexedBlock(service, head);
    await waitForRoutingGraph(service, service.deployment.chainId, head);
  };
  const get = async (path: string) => {
    const res = await fetch(`${service.url}${path}`);
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const routeOf = async (query: Record<string, string>): Promise<Answer> => {
    const res = await get(`/v1/shortcuts/route?${new URLSearchParams(query)}`);
    if (res.status !== 200) throw new Error(`route ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Answer;
  };
  const post = async (query: Record<string, string>, actions: unknown[]) => {
    const res = await fetch(`${service.url}/v1/shortcuts/bundle?${new URLSearchParams(query)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(actions),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const bundleOf = async (query: Record<string, string>, actions: unknown[]) => {
    const res = await post(query, actions);
    if (res.status !== 200) throw new Error(`bundle ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Answer;
  };
  const walletOf = async (from: Address) =>
    await a.client.readContract({
      address: service.deployment.execution.walletFactory as Address,
      abi: CoreWalletFactoryAbi,
      functionName: "walletOf",
      args: [from],
    });
  /** Sends an answer's transaction as its strategy needs (approval of `tokenIn`, or delegation). */
  const sendAs = async (
    strategy: (typeof STRATEGIES)[number][0],
    u: ReturnType<typeof a.user>,
    answer: Answer,
    tokenIn: Address | undefined,
    amountIn: bigint,
  ) =>
    await sendAnswerAs(
      service,
      a,
      strategy,
      u,
      answer,
      tokenIn && { token: tokenIn, amount: amountIn },
    );
  /** Supplies `amount` of `asset` to Aave from user `u` itself (to give it aTokens or collateral). */
  const supplyAs = async (u: ReturnType<typeof a.user>, asset: Address, amount: bigint) => {
    await a.fund(u.account.address, asset, amount);
    await a.approve(u, asset, aave.pool, amount);
    const receipt = await a.send(u, {
      to: aave.pool,
      data: encodeFunctionData({
        abi: AaveV3PoolAbi,
        functionName: "supply",
        args: [asset, amount, u.account.address, 0],
      }),
    });
    expect(receipt.status).toBe("success");
  };

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    a = await devnetActors(service);
    if (!service.deployment.aaveV3) throw new Error("the devnet has no Aave V3");
    aave = service.deployment.aaveV3;
  });

  afterAll(async () => {
    await service?.stop();
  });

  test("the catalogue lists each reserve's aToken as a position in its asset, Aave V3 with its reserve count, and its four methods", async () => {
    const list = (await get("/v1/tokens?protocolSlug=aave-v3")).body as {
      data: Record<string, unknown>[];
    };
    const expected = await Promise.all(
      aave.reserves.map(async (r) => ({
        chainId: service.deployment.chainId,
        address: getAddress(r.aToken),
        type: "defi",
        protocolSlug: "aave-v3",
        underlyingTokens: [getAddress(r.asset)],
        name: await a.client.readContract({
          address: r.aToken,
          abi: erc20Abi,
          functionName: "name",
        }),
        symbol: await a.client.readContract({
          address: r.aToken,
          abi: erc20Abi,
          functionName: "symbol",
        }),
        decimals: await a.client.readContract({
          address: r.aToken,
          abi: erc20Abi,
          functionName: "decimals",
        }),
        primaryAddress: getAddress(aave.pool),
      })),
    );
    expect(list.data).toEqual(
      expected.sort((x, y) => (x.address.toLowerCase() < y.address.toLowerCase() ? -1 : 1)),
    );
    const projects = (await get("/v1/projects")).body as { id: string; poolCount: number }[];
    expect(projects.find((p) => p.id === "aave-v3")?.poolCount).toBe(4);
    const standards = (await get("/v1/standards/aave-v3")).body as {
      methods: { method: string }[];
    };
    expect(standards.methods.map((m) => m.method)).toEqual([
      "deposit",
      "withdraw",
      "borrow",
      "repay",
    ]);
  });

  test.each(STRATEGIES)(
    "%s: DAI into aUSDC swaps then supplies; aUSDC back to USDC withdraws; the amounts are delivered",
    async (strategy, i) => {
      const u = a.user(i);
      const from = u.account.address;
      const usdc = reserve("USDC");
      const dai = a.token("DAI");
      const amountIn = a.usd("DAI", 3_000);
      await a.fund(from, dai, amountIn);
      await settleGraph();
      const into = await routeOf({
        fromAddress: from,
        tokenIn: dai,
        tokenOut: usdc.aToken,
        amountIn: amountIn.toString(),
        routingStrategy: strategy,
      });
      expect(into.route?.at(-1)).toMatchObject({
        protocol: "aave-v3",
        action: "deposit",
        primaryAddress: getAddress(usdc.aToken),
        tokenIn: [getAddress(usdc.asset)],
        tokenOut: [getAddress(usdc.aToken)],
      });
      const before = await a.balanceOf(usdc.aToken, from);
      expect((await sendAs(strategy, u, into, dai, amountIn)).status).toBe("success");
      const got = (await a.balanceOf(usdc.aToken, from)) - before;
      expect(got - BigInt(into.amountOut as string)).toBeGreaterThanOrEqual(-1n);
      expect(got - BigInt(into.amountOut as string)).toBeLessThanOrEqual(1n);
      await settleGraph();

      const out = await routeOf({
        fromAddress: from,
        tokenIn: usdc.aToken,
        tokenOut: usdc.asset,
        amountIn: (got / 2n).toString(),
        routingStrategy: strategy,
      });
      expect(out.route).toEqual([
        expect.objectContaining({
          protocol: "aave-v3",
          action: "redeem",
          amountIn: (got / 2n).toString(),
        }),
      ]);
      const usdcBefore = await a.balanceOf(usdc.asset, from);
      expect((await sendAs(strategy, u, out, usdc.aToken, got / 2n)).status).toBe("success");
      expect((await a.balanceOf(usdc.asset, from)) - usdcBefore).toBe(
        BigInt(out.amountOut as string),
      );
      const executor = service.deployment.execution.executor as Address;
      for (const t of [usdc.asset, usdc.aToken, dai])
        expect(await a.balanceOf(t, executor)).toBe(0n);
      await settleGraph();
    },
  );

  test("router: aWETH to USDC withdraws, then swaps the WETH; the caller gets exactly amountOut", async () => {
    const u = a.user(4);
    const from = u.account.address;
    const weth = reserve("WETH");
    const usdc = a.token("USDC");
    await supplyAs(u, weth.asset, parseUnits("2", 18));
    await settleGraph();
    const aTokens = await a.balanceOf(weth.aToken, from);
    const answer = await routeOf({
      fromAddress: from,
      tokenIn: weth.aToken,
      tokenOut: usdc,
      amountIn: aTokens.toString(),
    });
    expect(answer.route?.[0]).toMatchObject({
      protocol: "aave-v3",
      action: "redeem",
      tokenIn: [getAddress(weth.aToken)],
      tokenOut: [getAddress(weth.asset)],
    });
    expect(answer.route?.at(-1)?.tokenOut).toEqual([getAddress(usdc)]);
    const before = await a.balanceOf(usdc, from);
    expect((await sendAs("router", u, answer, weth.aToken, aTokens)).status).toBe("success");
    expect((await a.balanceOf(usdc, from)) - before).toBe(BigInt(answer.amountOut as string));
    const executor = service.deployment.execution.executor as Address;
    for (const t of [weth.asset, weth.aToken, usdc])
      expect(await a.balanceOf(t, executor)).toBe(0n);
    await settleGraph();
  });

  test.each(STRATEGIES)(
    "%s: SPEC 4.2 on Aave — ETH → USDC, supply it, transfer the aUSDC by the supply's output to a third address",
    async (strategy, i) => {
      const u = a.user(i + 3);
      const from = u.account.address;
      const third = `0x00000000000000000000000000000000000a4e0${i}` as Address;
      const usdc = reserve("USDC");
      const amountIn = parseEther("0.5");
      await settleGraph();
      const answer = await bundleOf({ fromAddress: from, routingStrategy: strategy }, [
        {
          protocol: "core",
          action: "route",
          args: {
            tokenIn: NATIVE_TOKEN_ADDRESS,
            tokenOut: usdc.asset,
            amountIn: amountIn.toString(),
          },
        },
        {
          protocol: "aave-v3",
          action: "deposit",
          args: {
            primaryAddress: aave.pool,
            tokenIn: usdc.asset,
            amountIn: { useOutputOfCallAt: 0 },
          },
        },
        {
          protocol: "core",
          action: "transfer",
          args: { token: usdc.aToken, receiver: third, amount: { useOutputOfCallAt: 1 } },
        },
      ]);
      const promised = BigInt(answer.amountsOut?.[getAddress(usdc.aToken)] as string);
      expect(promised).toBeGreaterThan(0n);
      expect((await sendAs(strategy, u, answer, NATIVE_TOKEN_ADDRESS, amountIn)).status).toBe(
        "success",
      );
      const got = await a.balanceOf(usdc.aToken, third);
      expect(got - promised).toBeGreaterThanOrEqual(-1n);
      expect(got - promised).toBeLessThanOrEqual(1n);
      const executor = service.deployment.execution.executor as Address;
      for (const t of [usdc.asset, usdc.aToken]) expect(await a.balanceOf(t, executor)).toBe(0n);
      await settleGraph();
    },
  );

  test("router: a borrow is refused with a 400 that says to use delegate or corewallet", async () => {
    const res = await post({ fromAddress: a.user(1).account.address }, [
      {
        protocol: "aave-v3",
        action: "borrow",
        args: { primaryAddress: aave.pool, tokenOut: reserve("USDC").asset, amountOut: "1000000" },
      },
    ]);
    expect(res).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message:
          "actions[0].action: an Aave borrow charges the account that runs the program, and under routingStrategy=router that is the router's executor, which holds none of your collateral: use routingStrategy=delegate or corewallet to borrow against your own.",
      },
    });
  });

  test("delegate: supply WETH and borrow USDC against it (the account's own position); the caller's core wallet then repays part of that debt on its behalf", async () => {
    const u = a.user(7);
    const from = u.account.address;
    const [weth, usdc] = [reserve("WETH"), reserve("USDC")];
    const collateral = parseUnits("2", 18);
    await a.fund(from, weth.asset, collateral);
    const borrowed = a.usd("USDC", 2_000);
    await settleGraph();
    const answer = await bundleOf({ fromAddress: from, routingStrategy: "delegate" }, [
      {
        protocol: "aave-v3",
        action: "deposit",
        args: { primaryAddress: aave.pool, tokenIn: weth.asset, amountIn: collateral.toString() },
      },
      {
        protocol: "aave-v3",
        action: "borrow",
        args: { primaryAddress: aave.pool, tokenOut: usdc.asset, amountOut: borrowed.toString() },
      },
    ]);
    const usdcBefore = await a.balanceOf(usdc.asset, from);
    expect((await sendAs("delegate", u, answer, undefined, 0n)).status).toBe("success");
    expect((await a.balanceOf(usdc.asset, from)) - usdcBefore).toBe(borrowed);
    const debt = await a.balanceOf(usdc.variableDebtToken, from);
    expect(debt).toBeGreaterThanOrEqual(borrowed);
    expect(debt - borrowed).toBeLessThanOrEqual(1n);
    await settleGraph();

    // The wallet pulls the repayment from the caller and repays the caller's debt.
    const part = borrowed / 4n;
    const repay = await bundleOf({ fromAddress: from, routingStrategy: "corewallet" }, [
      {
        protocol: "aave-v3",
        action: "repay",
        args: {
          primaryAddress: aave.pool,
          tokenIn: usdc.asset,
          amountIn: part.toString(),
          onBehalfOf: from,
        },
      },
    ]);
    const wallet = await walletOf(from);
    const receipt = await sendAs("corewallet", u, repay, usdc.asset, part);
    expect(receipt.status).toBe("success");
    const repaid = parseEventLogs({ abi: AaveV3PoolAbi, eventName: "Repay", logs: receipt.logs });
    expect(repaid.map((l) => l.args)).toEqual([
      {
        reserve: getAddress(usdc.asset),
        user: getAddress(from),
        repayer: getAddress(wallet),
        amount: part,
        useATokens: false,
      },
    ]);
    expect(await a.balanceOf(usdc.asset, wallet)).toBe(0n);
    expect(
      await a.client.readContract({
        address: usdc.asset,
        abi: erc20Abi,
        functionName: "allowance",
        args: [wallet, aave.pool],
      }),
    ).toBe(0n);
    await settleGraph();
  });

  test("corewallet: the wallet supplies the pulled WETH and borrows USDC against it for itself; the USDC reaches the caller", async () => {
    const u = a.user(0);
    const from = u.account.address;
    const [weth, usdc] = [reserve("WETH"), reserve("USDC")];
    const collateral = parseUnits("1", 18);
    await a.fund(from, weth.asset, collateral);
    const borrowed = a.usd("USDC", 1_000);
    await settleGraph();
    const answer = await bundleOf({ fromAddress: from, routingStrategy: "corewallet" }, [
      {
        protocol: "aave-v3",
        action: "deposit",
        args: { primaryAddress: aave.pool, tokenIn: weth.asset, amountIn: collateral.toString() },
      },
      {
        protocol: "aave-v3",
        action: "borrow",
        args: { primaryAddress: aave.pool, tokenOut: usdc.asset, amountOut: borrowed.toString() },
      },
    ]);
    expect(answer.amountsOut?.[getAddress(usdc.asset)]).toBe(borrowed.toString());
    const wallet = await walletOf(from);
    const usdcBefore = await a.balanceOf(usdc.asset, from);
    expect((await sendAs("corewallet", u, answer, weth.asset, collateral)).status).toBe("success");
    expect((await a.balanceOf(usdc.asset, from)) - usdcBefore).toBe(borrowed);
    // The position is the wallet's: its collateral, its debt; the caller holds neither.
    expect(await a.balanceOf(weth.aToken, wallet)).toBeGreaterThanOrEqual(collateral - 1n);
    expect(await a.balanceOf(usdc.variableDebtToken, wallet)).toBeGreaterThanOrEqual(borrowed);
    expect(await a.balanceOf(usdc.variableDebtToken, from)).toBe(0n);
    await settleGraph();
  });

  test("delegate: a bundle that leaves the account liquidatable is refused with a 422 naming its health factor", async () => {
    const u = a.user(8);
    const from = u.account.address;
    const [weth, usdc] = [reserve("WETH"), reserve("USDC")];
    await supplyAs(u, weth.asset, parseUnits("1", 18));
    // Borrow close to the loan-to-value, then WETH's price falls by half: the position is unsafe.
    const borrowed = a.usd("USDC", 2_300);
    const borrow = await a.send(u, {
      to: aave.pool,
      data: encodeFunctionData({
        abi: AaveV3PoolAbi,
        functionName: "borrow",
        args: [usdc.asset, borrowed, 2n, 0, from],
      }),
    });
    expect(borrow.status).toBe("success");
    const feed = weth.priceFeed;
    const price = await a.client.readContract({
      address: feed,
      abi: DevPriceFeedAbi,
      functionName: "latestAnswer",
    });
    const deployer = a.deployer;
    await a.send(deployer, {
      to: feed,
      data: encodeFunctionData({
        abi: DevPriceFeedAbi,
        functionName: "setAnswer",
        args: [price / 2n],
      }),
    });
    try {
      await settleGraph();
      const small = a.usd("USDC", 10);
      await a.fund(from, usdc.asset, small);
      const res = await post({ fromAddress: from, routingStrategy: "delegate" }, [
        {
          protocol: "aave-v3",
          action: "deposit",
          args: { primaryAddress: aave.pool, tokenIn: usdc.asset, amountIn: small.toString() },
        },
      ]);
      expect(res.status).toBe(422);
      const body = res.body as { message: string; statusCode: number; error: string };
      const match = body.message.match(
        /^The bundle would leave (0x[0-9a-fA-F]{40}) with an Aave V3 health factor of (0\.\d{6}) on pool (0x[0-9a-fA-F]{40}) \(below 1: the position could be liquidated\)\. Borrow less or supply more collateral\.$/,
      );
      expect(match?.[1]).toBe(getAddress(from));
      expect(match?.[3]).toBe(getAddress(aave.pool));
      const [, , , , , healthFactor] = await a.client.readContract({
        address: aave.pool,
        abi: AaveV3PoolAbi,
        functionName: "getUserAccountData",
        args: [from],
      });
      expect(healthFactor).toBeLessThan(10n ** 18n);
      // The health factor named is the account's after the bundle: the $10 supply raised it a
      // little (by 0.8 × $10 of collateral over some $2,300 of debt), not above 1.
      const named = Number(match?.[2]);
      const before = Number(healthFactor) / 1e18;
      expect(named).toBeGreaterThan(before);
      expect(named - before).toBeLessThan(0.01);
    } finally {
      await a.send(deployer, {
        to: feed,
        data: encodeFunctionData({
          abi: DevPriceFeedAbi,
          functionName: "setAnswer",
          args: [price],
        }),
      });
    }
  });

  test("a bundle that borrows against someone else's collateral fails: the pool charges only an account that delegated its credit", async () => {
    const victim = a.user(5);
    const attacker = a.user(6);
    const [weth, usdc] = [reserve("WETH"), reserve("USDC")];
    await supplyAs(victim, weth.asset, parseUnits("3", 18));
    await settleGraph();
    const debtBefore = await a.balanceOf(usdc.variableDebtToken, victim.account.address);
    const call = {
      protocol: "core",
      action: "call",
      args: {
        address: aave.pool,
        method: "borrow",
        abi: "function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)",
        args: [usdc.asset, a.usd("USDC", 1_000).toString(), "2", "0", victim.account.address],
      },
    };
    // The victim delegated no credit to anyone: the debt token's borrow allowance underflows.
    // (Under the router the wrapped ether, used by no later action, is swept out first.)
    for (const [strategy, step] of [
      ["router", 2],
      ["delegate", 2],
    ] as const) {
      const res = await post({ fromAddress: attacker.account.address, routingStrategy: strategy }, [
        // The router needs an input it pulls: 1,000 wei of ether, wrapped.
        { protocol: "wrapped-native", action: "deposit", args: { amountIn: "1000" } },
        call,
      ]);
      expect(res).toEqual({
        status: 422,
        body: {
          statusCode: 422,
          error: "Unprocessable Entity",
          message: `Action 1 (core call) failed in simulation: Step ${step} (call borrow on ${getAddress(aave.pool)}) failed: panic 0x11 (arithmetic overflow or underflow).`,
          details: {
            blockNumber: Number(await a.client.getBlockNumber({ cacheTime: 0 })),
            actionIndex: 1,
          },
        },
      });
    }
    expect(await a.balanceOf(usdc.variableDebtToken, victim.account.address)).toBe(debtBefore);
    expect(await a.balanceOf(usdc.asset, attacker.account.address)).toBe(0n);
  });
});
