import { EnsoClient } from "@ensofinance/sdk";
import { type Address, getAddress, type Hex, maxUint256, parseEther, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/core/native.js";
import type { RouteStep } from "../engine/route/route.js";
import { devnetActors } from "./harness/actors.js";
import {
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
  waitForRoutingGraph,
} from "./harness/service.js";

type BundleAnswer = {
  bundle: { protocol: string; action: string; args: Record<string, unknown> }[];
  tx: { data: Hex; to: Address; from: Address; value: string };
  gas: string;
  gasUsed: string;
  beforeSending: unknown[];
  createdAt: number;
  blockNumber: number;
  amountsOut: Record<string, string>;
  route?: RouteStep[];
};

const NATIVE = NATIVE_TOKEN_ADDRESS;
const ref = (i: number, index?: number) =>
  index === undefined ? { useOutputOfCallAt: i } : { useOutputOfCallAt: i, index };

describe("POST /v1/shortcuts/bundle on the devnet", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  const post = async (query: Record<string, string>, body: unknown, raw?: string) => {
    const res = await fetch(`${service.url}/v1/shortcuts/bundle?${new URLSearchParams(query)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: raw ?? JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const bundle = async (
    query: Record<string, string>,
    actions: unknown[],
  ): Promise<BundleAnswer> => {
    const res = await post(query, actions);
    if (res.status !== 200) throw new Error(`bundle ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as BundleAnswer;
  };
  const settle = async () =>
    waitForIndexedBlock(service, await a.client.getBlockNumber({ cacheTime: 0 }));
  const pool = (t0: Address, t1: Address, kind: "v2" | "v3"): Address => {
    const d = service.deployment;
    const list = kind === "v2" ? d.uniswapV2.pairs : d.uniswapV3.pools;
    // The first pool of the kind that holds both tokens (read from the chain once, below).
    const found = list.find(
      (p) => pools.get(p)?.has(t0.toLowerCase()) && pools.get(p)?.has(t1.toLowerCase()),
    );
    if (!found) throw new Error("no pool");
    return found;
  };
  const pools = new Map<Address, Set<string>>();

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    a = await devnetActors(service);
    for (const p of [
      ...service.deployment.uniswapV2.pairs,
      ...service.deployment.uniswapV3.pools,
    ]) {
      const [t0, t1] = await Promise.all([
        a.client.readContract({ address: p, abi: UniswapV2PairAbi, functionName: "token0" }),
        a.client.readContract({ address: p, abi: UniswapV2PairAbi, functionName: "token1" }),
      ]);
      pools.set(p, new Set([t0.toLowerCase(), t1.toLowerCase()]));
    }
  });

  afterAll(async () => {
    await service?.stop();
  });

  test("the client SDK's bundle, with `enso` for core, is answered as the same bundle sent plainly", async () => {
    const from = a.user(0).account.address;
    const third = "0x0000000000000000000000000000000000007413" as Address;
    const usdc = a.token("USDC");
    const actions = (protocol: string) => [
      {
        protocol,
        action: "route",
        args: {
          tokenIn: NATIVE_TOKEN_ADDRESS,
          tokenOut: usdc,
          amountIn: parseEther("0.1").toString(),
        },
      },
      {
        protocol,
        action: "transfer",
        args: { token: usdc, receiver: third, amount: { useOutputOfCallAt: 0 } },
      },
    ];
    const chainId = service.deployment.chainId;
    const plain = await bundle(
      { chainId: String(chainId), fromAddress: from, routingStrategy: "router" },
      actions("core"),
    );
    const client = new EnsoClient({ apiKey: "none", baseURL: `${service.url}/v1` });
    const viaSdk = await client.getBundleData(
      { chainId, fromAddress: from, routingStrategy: "router" },
      actions("enso") as never,
    );
    expect(viaSdk).toEqual(plain);
    expect(plain.bundle.map((b) => b.protocol)).toEqual(["core", "core"]);
  });

  test("SPEC example (router): ETH → USDC, deposit into the USDC vault, transfer the shares to a third address", async () => {
    const u = a.user(0);
    const from = u.account.address;
    const third = "0x0000000000000000000000000000000000007411" as Address;
    const usdc = a.token("USDC");
    const vault = a.vault("svUSDC");
    const r = await bundle({ fromAddress: from }, [
      {
        protocol: "core",
        action: "route",
        args: {
          tokenIn: NATIVE,
          tokenOut: usdc,
          amountIn: parseEther("1").toString(),
          slippage: 100,
        },
      },
      {
        protocol: "savings-vaults",
        action: "deposit",
        args: { primaryAddress: vault, tokenIn: usdc, tokenOut: vault, amountIn: ref(0) },
      },
      {
        protocol: "core",
        action: "transfer",
        args: { token: vault, receiver: third, amount: ref(1) },
      },
    ]);
    expect(r.tx.to).toBe(getAddress(service.deployment.execution.router as Address));
    expect(r.tx.value).toBe(parseEther("1").toString());
    expect(r.bundle).toEqual([
      {
        protocol: "core",
        action: "route",
        args: {
          tokenIn: NATIVE,
          tokenOut: getAddress(usdc),
          amountIn: parseEther("1").toString(),
          slippage: 100,
        },
      },
      {
        protocol: "savings-vaults",
        action: "deposit",
        args: {
          primaryAddress: getAddress(vault),
          tokenIn: getAddress(usdc),
          tokenOut: getAddress(vault),
          amountIn: { useOutputOfCallAt: 0, index: 0 },
        },
      },
      {
        protocol: "core",
        action: "transfer",
        args: {
          token: getAddress(vault),
          receiver: third,
          amount: { useOutputOfCallAt: 1, index: 0 },
        },
      },
    ]);
    // The Uniswap V4 native pool (0.01%, no wrapping) is the best way from ETH to USDC.
    expect(r.route?.[0]).toMatchObject({
      protocol: "uniswap-v4",
      action: "swap",
      tokenIn: [NATIVE],
    });
    const shares = r.amountsOut[getAddress(vault)];
    expect(shares).toBeDefined();
    expect(r.beforeSending).toEqual([]);
    const receipt = await a.send(u, {
      to: r.tx.to,
      data: r.tx.data,
      value: BigInt(r.tx.value),
      gas: BigInt(r.gas),
    });
    expect(receipt.status).toBe("success");
    expect(await a.balanceOf(vault, third)).toBe(BigInt(shares as string));
    expect(receipt.gasUsed).toBe(BigInt(r.gasUsed));
    // Nothing stays with the router's executor.
    const executor = service.deployment.execution.executor as Address;
    for (const t of [usdc, vault, a.token("WETH"), NATIVE as Address])
      expect(await a.balanceOf(t, executor)).toBe(0n);
    await settle();
  });

  test("router: a call mixes literals with two earlier outputs (add liquidity with the two halves of a split)", async () => {
    const u = a.user(1);
    const from = u.account.address;
    const weth = a.token("WETH");
    const usdc = a.token("USDC");
    const router02 = service.deployment.uniswapV2.router02;
    const pair = pool(weth, usdc, "v2");
    const executor = service.deployment.execution.executor as Address;
    const r = await bundle({ fromAddress: from }, [
      {
        protocol: "wrapped-native",
        action: "deposit",
        args: { amountIn: parseEther("2").toString() },
      },
      { protocol: "core", action: "split", args: { amount: ref(0), bps: [5000, 5000] } },
      {
        protocol: "core",
        action: "route",
        args: { tokenIn: weth, tokenOut: usdc, amountIn: ref(1, 0) },
      },
      {
        protocol: "core",
        action: "approve",
        args: { token: weth, spender: router02, amount: ref(1, 1) },
      },
      {
        protocol: "core",
        action: "approve",
        args: { token: usdc, spender: router02, amount: ref(2) },
      },
      {
        protocol: "core",
        action: "call",
        args: {
          address: router02,
          method: "addLiquidity",
          abi: "function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity)",
          // Minted to the executing account (the router's executor), handed on by the transfer.
          args: [weth, usdc, ref(1, 1), ref(2), "0", "0", executor, maxUint256.toString()],
        },
      },
      {
        protocol: "core",
        action: "approve",
        args: { token: weth, spender: router02, amount: "0" },
      },
      {
        protocol: "core",
        action: "approve",
        args: { token: usdc, spender: router02, amount: "0" },
      },
      {
        protocol: "core",
        action: "transfer",
        args: { token: pair, receiver: from, amount: ref(5, 2) },
      },
    ]);
    const lp = r.amountsOut[getAddress(pair)];
    expect(lp).toBeDefined();
    const before = await a.balanceOf(pair, from);
    const receipt = await a.send(u, { to: r.tx.to, data: r.tx.data, value: BigInt(r.tx.value) });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(pair, from)) - before).toBe(BigInt(lp as string));
    for (const t of [weth, usdc, pair]) expect(await a.balanceOf(t, executor)).toBe(0n);
    await settle();
  });

  test("delegate: wrap → swap on a named V3 pool → deposit, with one output used twice (split into two deposits)", async () => {
    const u = a.user(2);
    const from = u.account.address;
    const third = "0x0000000000000000000000000000000000007412" as Address;
    const weth = a.token("WETH");
    const usdc = a.token("USDC");
    const vault = a.vault("svUSDC");
    const r = await bundle({ fromAddress: from, routingStrategy: "delegate" }, [
      {
        protocol: "wrapped-native",
        action: "deposit",
        args: { amountIn: parseEther("1.5").toString() },
      },
      {
        protocol: "uniswap-v3",
        action: "swap",
        args: {
          primaryAddress: pool(weth, usdc, "v3"),
          tokenIn: weth,
          tokenOut: usdc,
          amountIn: ref(0),
        },
      },
      { protocol: "core", action: "split", args: { amount: ref(1), bps: [6000, 4000] } },
      {
        protocol: "savings-vaults",
        action: "deposit",
        args: { primaryAddress: vault, tokenIn: usdc, tokenOut: vault, amountIn: ref(2, 0) },
      },
      {
        protocol: "savings-vaults",
        action: "deposit",
        args: {
          primaryAddress: vault,
          tokenIn: usdc,
          tokenOut: vault,
          amountIn: ref(2, 1),
          receiver: third,
        },
      },
    ]);
    expect(r.tx.to).toBe(getAddress(from));
    const authorization = await u.signAuthorization({
      account: u.account as never,
      contractAddress: service.deployment.execution.delegateExecutor as Address,
      executor: "self",
    });
    const sharesBefore = await a.balanceOf(vault, from);
    const receipt = await a.send(u, {
      to: r.tx.to,
      data: r.tx.data,
      authorizationList: [authorization],
    });
    expect(receipt.status).toBe("success");
    const mine = (await a.balanceOf(vault, from)) - sharesBefore;
    const theirs = await a.balanceOf(vault, third);
    expect(theirs).toBeGreaterThan(0n);
    expect(mine + theirs).toBe(BigInt(r.amountsOut[getAddress(vault)] as string));
    // 60/40 of the same USDC amount, deposited at the same share price.
    expect(mine * 4n - theirs * 6n).toBeLessThanOrEqual(10n);
    expect(mine * 4n - theirs * 6n).toBeGreaterThanOrEqual(-10n);
    await settle();
  });

  test("router: swap on a named Uniswap V4 pool (manager and pool id), USDC → ETH, for a third address as the bundle's receiver", async () => {
    const u = a.user(7);
    const from = u.account.address;
    const third = "0x0000000000000000000000000000000000007413" as Address;
    const usdc = a.token("USDC");
    const v4 = service.deployment.uniswapV4;
    if (!v4) throw new Error("the devnet has no Uniswap V4");
    const native = v4.pools.find((p) => BigInt(p.currency0) === 0n && BigInt(p.hooks) === 0n);
    if (!native) throw new Error("no hookless native V4 pool");
    const amountIn = a.usd("USDC", 1_500);
    await a.fund(from, usdc, amountIn);
    // Native ether leaves a program only by the bundle's final sweep, to its receiver.
    const r = await bundle({ fromAddress: from, receiver: third }, [
      {
        protocol: "uniswap-v4",
        action: "swap",
        args: {
          primaryAddress: v4.poolManager,
          poolId: native.id,
          tokenIn: usdc,
          tokenOut: NATIVE,
          amountIn: amountIn.toString(),
        },
      },
    ]);
    expect(r.beforeSending).toEqual([
      { type: "approve", token: getAddress(usdc), spender: r.tx.to, amount: amountIn.toString() },
    ]);
    await a.approve(u, usdc, r.tx.to, amountIn);
    const receipt = await a.send(u, { to: r.tx.to, data: r.tx.data, value: BigInt(r.tx.value) });
    expect(receipt.status).toBe("success");
    const sent = await a.balanceOf(NATIVE, third);
    expect(sent).toBeGreaterThan(0n);
    expect(sent).toBe(BigInt(r.amountsOut[NATIVE] as string));
    const executor = service.deployment.execution.executor as Address;
    for (const t of [usdc, NATIVE as Address]) expect(await a.balanceOf(t, executor)).toBe(0n);
    await settle();
  });

  test("a V4 pool whose hook can alter swaps is not in the graph without the operator's allow-list: naming it is a 400", async () => {
    const v4 = service.deployment.uniswapV4;
    if (!v4) throw new Error("the devnet has no Uniswap V4");
    const key = v4.pools.find((p) => p.hooks.toLowerCase() === v4.hooks.returnsDelta.toLowerCase());
    if (!key) throw new Error("no pool with the fee-taking hook");
    const res = await post({ fromAddress: a.user(6).account.address }, [
      {
        protocol: "uniswap-v4",
        action: "swap",
        args: {
          primaryAddress: v4.poolManager,
          poolId: key.id,
          tokenIn: a.token("USDC"),
          tokenOut: a.token("WETH"),
          amountIn: "1000000",
        },
      },
    ]);
    expect(res).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: `actions[0].args.poolId: ${key.id.toLowerCase()} is not a routable pool of the Uniswap V4 pool manager ${getAddress(v4.poolManager)} on chain ${service.deployment.chainId}: no such pool is indexed, or its hook runs during swaps (where it could trade against them or change their amounts) and is not in UNISWAP_V4_HOOKS_${service.deployment.chainId}.`,
      },
    });
  });

  test("corewallet: redeem vault shares → swap the asset on a named V2 pair", async () => {
    const u = a.user(3);
    const from = u.account.address;
    const usdt = a.token("USDT");
    const weth = a.token("WETH");
    const vault = a.vault("yvUSDT");
    // Get shares the ordinary way first.
    await a.fund(from, usdt, a.usd("USDT", 5_000));
    await a.approve(u, usdt, vault, a.usd("USDT", 5_000));
    await a.send(u, {
      to: vault,
      data: `0x6e553f65${a.usd("USDT", 5_000).toString(16).padStart(64, "0")}${from.slice(2).toLowerCase().padStart(64, "0")}` as Hex,
    });
    const shares = await a.balanceOf(vault, from);
    const r = await bundle({ fromAddress: from, routingStrategy: "corewallet" }, [
      {
        protocol: "yield-vaults",
        action: "redeem",
        args: {
          primaryAddress: vault,
          tokenIn: vault,
          tokenOut: usdt,
          amountIn: shares.toString(),
        },
      },
      {
        protocol: "uniswap-v2",
        action: "swap",
        args: {
          primaryAddress: pool(usdt, weth, "v2"),
          tokenIn: usdt,
          tokenOut: weth,
          amountIn: ref(0),
        },
      },
    ]);
    expect(r.tx.to).toBe(getAddress(service.deployment.execution.walletFactory as Address));
    const wallet = (await a.client.readContract({
      address: service.deployment.execution.walletFactory as Address,
      abi: [
        {
          type: "function",
          name: "walletOf",
          stateMutability: "view",
          inputs: [{ type: "address" }],
          outputs: [{ type: "address" }],
        },
      ],
      functionName: "walletOf",
      args: [from],
    })) as Address;
    await a.approve(u, vault, wallet, shares);
    const before = await a.balanceOf(weth, from);
    const receipt = await a.send(u, { to: r.tx.to, data: r.tx.data });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(weth, from)) - before).toBe(
      BigInt(r.amountsOut[getAddress(weth)] as string),
    );
    expect(await a.balanceOf(vault, from)).toBe(0n);
    await settle();
  });

  test("delegate: V2 liquidity in and out through named-pair actions, then balance and minimum checks", async () => {
    const u = a.user(8);
    const from = u.account.address;
    const weth = a.token("WETH");
    const usdc = a.token("USDC");
    const pair = pool(weth, usdc, "v2");
    const actions = [
      {
        protocol: "wrapped-native",
        action: "deposit",
        args: { amountIn: parseEther("2").toString() },
      },
      { protocol: "core", action: "split", args: { amount: ref(0), bps: [5000, 5000] } },
      {
        protocol: "uniswap-v2",
        action: "swap",
        args: { primaryAddress: pair, tokenIn: weth, tokenOut: usdc, amountIn: ref(1, 0) },
      },
      {
        protocol: "uniswap-v2",
        action: "deposit",
        args: { primaryAddress: pair, tokenIn: [weth, usdc], amountIn: [ref(1, 1), ref(2)] },
      },
      {
        protocol: "uniswap-v2",
        action: "redeem",
        args: { primaryAddress: pair, amountIn: ref(3) },
      },
      { protocol: "core", action: "balance", args: { token: usdc } },
      { protocol: "core", action: "minamountout", args: { token: usdc, amount: "1" } },
    ];
    const r = await bundle({ fromAddress: from, routingStrategy: "delegate" }, actions);
    const authorization = await u.signAuthorization({
      account: u.account as never,
      contractAddress: service.deployment.execution.delegateExecutor as Address,
      executor: "self",
    });
    const before = { weth: await a.balanceOf(weth, from), usdc: await a.balanceOf(usdc, from) };
    const receipt = await a.send(u, {
      to: r.tx.to,
      data: r.tx.data,
      authorizationList: [authorization],
    });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(usdc, from)) - before.usdc).toBe(
      BigInt(r.amountsOut[getAddress(usdc)] as string),
    );
    expect((await a.balanceOf(weth, from)) - before.weth).toBe(
      BigInt(r.amountsOut[getAddress(weth)] as string),
    );
    expect(await a.balanceOf(pair, from)).toBe(0n);
    await settle();

    // The same bundle with a minimum it cannot meet fails in simulation, naming that action.
    const tooMuch = [
      ...actions.slice(0, 6),
      {
        protocol: "core",
        action: "minamountout",
        args: { token: usdc, amount: (10n ** 30n).toString() },
      },
    ];
    const res = await post({ fromAddress: from, routingStrategy: "delegate" }, tooMuch);
    expect(res.status).toBe(422);
    expect((res.body as { message: string }).message).toMatch(
      /^Action 6 \(core minamountout\) failed in simulation: Step \d+ \(check minimum output on 0x[0-9a-fA-F]{40}\) failed: /,
    );
  });

  test("router: a V2 deposit's literal amount is pulled from the caller like any other input", async () => {
    const u = a.user(0);
    const from = u.account.address;
    const weth = a.token("WETH");
    const usdc = a.token("USDC");
    const pair = pool(weth, usdc, "v2");
    const executor = service.deployment.execution.executor as Address;
    const routed = a.usd("USDC", 1_000);
    const deposited = a.usd("USDC", 2_000);
    const actions = [
      {
        protocol: "core",
        action: "route",
        args: { tokenIn: usdc, tokenOut: weth, amountIn: routed.toString() },
      },
      {
        protocol: "uniswap-v2",
        action: "deposit",
        args: {
          primaryAddress: pair,
          tokenIn: [usdc, weth],
          amountIn: [deposited.toString(), ref(0)],
        },
      },
      {
        protocol: "core",
        action: "transfer",
        args: { token: pair, receiver: from, amount: ref(1) },
      },
    ];
    const r = await bundle({ fromAddress: from, routingStrategy: "router" }, actions);
    // Both USDC amounts, the routed and the deposited one, are approved and pulled by the router.
    expect(r.beforeSending).toEqual([
      {
        type: "approve",
        token: getAddress(usdc),
        spender: r.tx.to,
        amount: (routed + deposited).toString(),
      },
    ]);
    await a.fund(from, usdc, routed + deposited);
    await a.approve(u, usdc, r.tx.to, routed + deposited);
    const lpBefore = await a.balanceOf(pair, from);
    const usdcBefore = await a.balanceOf(usdc, from);
    const receipt = await a.send(u, { to: r.tx.to, data: r.tx.data });
    expect(receipt.status).toBe("success");
    expect((await a.balanceOf(pair, from)) - lpBefore).toBe(
      BigInt(r.amountsOut[getAddress(pair)] as string),
    );
    // The caller paid both literal amounts; of the deposited USDC, what the pair did not take
    // (its ratio, as its Mint event says) came back.
    const [mint] = parseEventLogs({ abi: UniswapV2PairAbi, eventName: "Mint", logs: receipt.logs });
    const usdcIsToken0 = usdc.toLowerCase() < weth.toLowerCase();
    const taken = usdcIsToken0 ? mint?.args.amount0 : mint?.args.amount1;
    expect(taken).toBeGreaterThan(0n);
    expect((await a.balanceOf(usdc, from)) - usdcBefore).toBe(-routed - (taken as bigint));
    for (const t of [weth, usdc, pair]) expect(await a.balanceOf(t, executor)).toBe(0n);
    await settle();
  });

  test("router: a route into a V2 LP token, then a transfer of it; the add's leftovers go to the receiver", async () => {
    const u = a.user(2);
    const from = u.account.address;
    const third = "0x0000000000000000000000000000000000007415" as Address;
    const dai = a.token("DAI");
    const weth = a.token("WETH");
    const usdc = a.token("USDC");
    const pair = pool(weth, usdc, "v2");
    const executor = service.deployment.execution.executor as Address;
    const amountIn = a.usd("DAI", 1_500);
    // Quoted on the chain's own state, so that the stated leftovers are the ones made.
    await settle();
    await waitForRoutingGraph(
      service,
      service.deployment.chainId,
      await a.client.getBlockNumber({ cacheTime: 0 }),
    );
    const r = await bundle({ fromAddress: from, routingStrategy: "router" }, [
      {
        protocol: "core",
        action: "route",
        args: { tokenIn: dai, tokenOut: pair, amountIn: amountIn.toString() },
      },
      {
        protocol: "core",
        action: "transfer",
        args: { token: pair, receiver: third, amount: ref(0) },
      },
    ]);
    const add = r.route?.at(-1) as RouteStep;
    expect(add).toMatchObject({
      protocol: "uniswap-v2",
      action: "deposit",
      primaryAddress: getAddress(pair),
    });
    const leftovers = add.leftovers ?? [];
    expect(leftovers.map((l) => l.token).sort()).toEqual(
      [getAddress(usdc), getAddress(weth)].sort(),
    );
    await a.fund(from, dai, amountIn);
    await a.approve(u, dai, r.tx.to, amountIn);
    const before = await Promise.all([pair, usdc, weth].map((t) => a.balanceOf(t, third)));
    const mine = await Promise.all([usdc, weth].map((t) => a.balanceOf(t, from)));
    const receipt = await a.send(u, { to: r.tx.to, data: r.tx.data });
    expect(receipt.status).toBe("success");
    const after = await Promise.all([pair, usdc, weth].map((t) => a.balanceOf(t, third)));
    expect((after[0] as bigint) - (before[0] as bigint)).toBe(
      BigInt(r.amountsOut[getAddress(pair)] as string),
    );
    // The leftovers went to the bundle's receiver (the caller), not to the transfer's.
    expect(after.slice(1)).toEqual(before.slice(1));
    const left = (t: Address) =>
      BigInt(leftovers.find((l) => l.token === getAddress(t))?.amount ?? "x");
    expect((await a.balanceOf(usdc, from)) - (mine[0] as bigint)).toBe(left(usdc));
    expect((await a.balanceOf(weth, from)) - (mine[1] as bigint)).toBe(left(weth));
    for (const t of [dai, weth, usdc, pair]) expect(await a.balanceOf(t, executor)).toBe(0n);
    await settle();
  });

  test("a call to transferFrom(victim, attacker) cannot take the victim's tokens", async () => {
    const victim = a.user(4);
    const attacker = a.user(5);
    const usdc = a.token("USDC");
    const router = service.deployment.execution.router as Address;
    await a.fund(victim.account.address, usdc, a.usd("USDC", 10_000));
    await a.approve(victim, usdc, router, maxUint256);
    const steal = {
      protocol: "core",
      action: "call",
      args: {
        address: usdc,
        method: "transferFrom",
        abi: "function transferFrom(address from, address to, uint256 amount) returns (bool)",
        args: [victim.account.address, attacker.account.address, a.usd("USDC", 10_000).toString()],
      },
    };
    for (const routingStrategy of ["router", "delegate", "corewallet"]) {
      const actions = [
        { protocol: "wrapped-native", action: "deposit", args: { amountIn: "1000" } },
        steal,
      ];
      const res = await post({ fromAddress: attacker.account.address, routingStrategy }, actions);
      expect({ routingStrategy, status: res.status }).toEqual({ routingStrategy, status: 422 });
      expect((res.body as { message: string }).message).toMatch(
        /^Action 1 \(core call\) failed in simulation: Step \d+ \(call transferFrom on 0x[0-9a-fA-F]{40}\) failed: ERC20: insufficient allowance \(0x[0-9a-fA-F]{40} may spend 0, needs 10000000000\)\.$/,
      );
    }
    expect(await a.balanceOf(usdc, victim.account.address)).toBe(a.usd("USDC", 10_000));
  });

  test("malformed bundles get a 400 naming the action and field", async () => {
    const from = a.user(6).account.address;
    const usdc = a.token("USDC");
    const vault = a.vault("svUSDC");
    const wrapOne = { protocol: "wrapped-native", action: "deposit", args: { amountIn: "1000" } };
    const bad = (message: string) => ({
      status: 400,
      body: { statusCode: 400, error: "Bad Request", message },
    });
    const cases: [unknown, ReturnType<typeof bad>][] = [
      [[], bad("The bundle is empty: send at least one action.")],
      [
        Array.from({ length: 33 }, () => wrapOne),
        bad("The bundle has 33 actions; at most 32 are accepted."),
      ],
      [
        { protocol: "core" },
        bad("The request body must be a JSON array of actions { protocol, action, args }."),
      ],
      [
        [wrapOne, { protocol: "sushiswap", action: "swap", args: {} }],
        bad(
          'actions[1].protocol: unknown protocol "sushiswap"; known protocols and actions: core (route, call, transfer, approve, balance, split, minamountout); uniswap-v2 (swap, deposit, redeem); pancakeswap-v1 (swap); pancakeswap-v2 (swap); sushiswap-v2 (swap); uniswap-v3 (swap); pancakeswap-v3 (swap); sushiswap-v3 (swap); uniswap-v4 (swap); savings-vaults (deposit, redeem); yield-vaults (deposit, redeem); aave-v3 (deposit, withdraw, borrow, repay); balancer-v2 (swap, deposit, redeem); wrapped-native (deposit, withdraw).',
        ),
      ],
      [
        [wrapOne, { protocol: "core", action: "teleport", args: {} }],
        bad(
          'actions[1].action: core has no action "teleport"; its actions: route, call, transfer, approve, balance, split, minamountout.',
        ),
      ],
      [
        [
          wrapOne,
          wrapOne,
          {
            protocol: "savings-vaults",
            action: "deposit",
            args: { primaryAddress: vault, tokenIn: usdc, tokenOut: vault },
          },
        ],
        bad("actions[2].args.amountIn is required."),
      ],
      [
        [
          wrapOne,
          wrapOne,
          {
            protocol: "savings-vaults",
            action: "deposit",
            args: { primaryAddress: vault, tokenIn: usdc, tokenOut: vault, amountIn: 5.5 },
          },
        ],
        bad(
          "actions[2].args.amountIn: expected an amount in wei (a decimal string, or a JSON integer up to 2^53 - 1) or an output reference { useOutputOfCallAt: <earlier action index> }.",
        ),
      ],
      [
        [
          wrapOne,
          {
            protocol: "core",
            action: "transfer",
            args: { token: usdc, receiver: from, amount: ref(1) },
          },
        ],
        bad(
          "actions[1].args.amount: useOutputOfCallAt 1 does not point to an earlier action (this is action 1).",
        ),
      ],
      [
        [
          wrapOne,
          {
            protocol: "core",
            action: "transfer",
            args: { token: usdc, receiver: from, amount: ref(5) },
          },
        ],
        bad(
          "actions[1].args.amount: useOutputOfCallAt 5 does not point to an earlier action (this is action 1).",
        ),
      ],
      [
        [
          wrapOne,
          {
            protocol: "core",
            action: "approve",
            args: { token: usdc, spender: from, amount: "1" },
          },
          {
            protocol: "core",
            action: "transfer",
            args: { token: usdc, receiver: from, amount: ref(1) },
          },
        ],
        bad("actions[2].args.amount: action 1 (core approve) has no output to use."),
      ],
      [
        [
          wrapOne,
          {
            protocol: "core",
            action: "call",
            args: {
              address: usdc,
              method: "symbol",
              abi: "function symbol() view returns (string)",
              args: [],
            },
          },
          {
            protocol: "core",
            action: "transfer",
            args: { token: usdc, receiver: from, amount: ref(1) },
          },
        ],
        bad("actions[2].args.amount: output 0 of action 1 is not an amount."),
      ],
      [
        [
          wrapOne,
          {
            protocol: "core",
            action: "call",
            args: { address: usdc, method: "approve", abi: "function approve(address", args: [] },
          },
        ],
        bad(
          'actions[1].args.abi: "function approve(address" is not a one-line function signature such as "function deposit(uint256 assets, address receiver) returns (uint256)".',
        ),
      ],
      [
        [
          wrapOne,
          {
            protocol: "core",
            action: "call",
            args: {
              address: usdc,
              method: "transfer",
              abi: "function approve(address spender, uint256 amount) returns (bool)",
              args: [from, "1"],
            },
          },
        ],
        bad(
          'actions[1].args.method: "transfer" is not the function in args.abi (which declares approve).',
        ),
      ],
      [
        [
          wrapOne,
          {
            protocol: "core",
            action: "call",
            args: {
              address: usdc,
              method: "approve",
              abi: "function approve(address spender, uint256 amount) returns (bool)",
              args: [from],
            },
          },
        ],
        bad("actions[1].args.args: approve takes 2 arguments, 1 given."),
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await post({ fromAddress: from }, body);
      const name = JSON.stringify(body).slice(0, 80);
      expect({ name, ...res }).toEqual({ name, ...expected });
    }
    expect(await post({ fromAddress: from }, undefined, "[{")).toEqual(
      bad("The request body is not valid JSON: send a JSON array of actions."),
    );
    expect(await post({}, [wrapOne])).toEqual(bad("Query parameter `fromAddress` is required."));
  });

  test("a step that reverts in simulation is a 422 naming the action and the decoded reason", async () => {
    const from = a.user(7).account.address;
    const usdc = a.token("USDC");
    const res = await post({ fromAddress: from }, [
      { protocol: "wrapped-native", action: "deposit", args: { amountIn: "1000" } },
      {
        protocol: "core",
        action: "call",
        args: {
          address: usdc,
          method: "transfer",
          abi: "function transfer(address to, uint256 amount) returns (bool)",
          args: [from, (10n ** 30n).toString()],
        },
      },
    ]);
    expect(res.status).toBe(422);
    const body = res.body as { message: string; details: { actionIndex: number } };
    expect(body.details.actionIndex).toBe(1);
    expect(body.message).toMatch(
      /^Action 1 \(core call\) failed in simulation: Step \d+ \(call transfer on 0x[0-9a-fA-F]{40}\) failed: ERC20: transfer amount exceeds balance \(0x[0-9a-fA-F]{40} has 0, needs 1000000000000000000000000000000\)\.$/,
    );
  });
});
