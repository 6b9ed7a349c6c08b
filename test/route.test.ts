import { EnsoClient } from "@ensofinance/sdk";
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  erc4626Abi,
  formatUnits,
  getAddress,
  type Hex,
  maxUint256,
  parseEther,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CoreWalletFactoryAbi } from "../abis/generated/CoreWalletFactory.js";
import { QuoterV2Abi } from "../abis/QuoterV2.js";
import { UniswapV2FactoryAbi } from "../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { UniswapV2Router02Abi } from "../abis/UniswapV2Router02.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/core/native.js";
import type { RouteStep } from "../engine/route/route.js";
import type { TopPool } from "../src/api/ops/top-pools.js";
import { devnetActors } from "./harness/actors.js";
import {
  graphqlQuery,
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
  waitForRoutingGraph,
} from "./harness/service.js";
import { sample } from "./ops/prometheus.js";

type RouteAnswer = {
  route: RouteStep[];
  gas: string;
  gasUsed: string;
  deadline: number;
  beforeSending: unknown[];
  amountOut: string;
  minAmountOut: string;
  priceImpact: number | null;
  createdAt: number;
  blockNumber: number;
  tx: { data: Hex; to: Address; from: Address; value: string };
  feeAmount?: string[];
};

const NATIVE = NATIVE_TOKEN_ADDRESS;

describe("GET /v1/shortcuts/route on the devnet", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  let chainId: number;
  const token = (s: string) => a.token(s);
  const vault = (s: string) => a.vault(s);
  const usd = (s: string, v: number) => a.usd(s, v);
  const user = (i: number) => a.user(i);
  const balanceOf = (t: Address, who: Address) => a.balanceOf(t, who);
  /** Sends and waits; a revert fails the test with its reason, gas limit and gas used. */
  const mine = async (
    w: WalletClient,
    r: { to: Address; data?: Hex; value?: bigint; [k: string]: unknown },
  ) => {
    const receipt = await a.send(w, r);
    if (receipt.status === "success") return receipt;
    const sent = await a.client.getTransaction({ hash: receipt.transactionHash });
    const reason = await a.client
      .call({ ...r, account: w.account, blockNumber: receipt.blockNumber - 1n })
      .then(
        () => "it does not revert on the parent block",
        (e: Error & { shortMessage?: string }) => e.shortMessage ?? e.message,
      );
    throw new Error(
      `transaction reverted in block ${receipt.blockNumber} (gas limit ${sent.gas}, used ${receipt.gasUsed}): ${reason}`,
    );
  };
  /**
   * Sends a route as its strategy needs: an EIP-7702 authorization (delegate), or an approval of
   * tokenIn to the router or to the caller's wallet (none for native currency).
   */
  const sendAs = async (
    strategy: "router" | "corewallet" | "delegate",
    u: ReturnType<typeof user>,
    r: RouteAnswer,
    tokenIn: Address,
    amountIn: bigint,
    wallet: Address | undefined,
  ) => {
    const execution = service.deployment.execution;
    if (strategy === "delegate") {
      const authorization = await u.signAuthorization({
        account: u.account as never,
        contractAddress: execution.delegateExecutor as Address,
        executor: "self",
      });
      return await mine(u, {
        to: r.tx.to,
        data: r.tx.data,
        value: BigInt(r.tx.value),
        authorizationList: [authorization],
      });
    }
    if (tokenIn !== NATIVE) {
      await a.approve(u, tokenIn, strategy === "router" ? r.tx.to : (wallet as Address), amountIn);
    }
    return await mine(u, { to: r.tx.to, data: r.tx.data, value: BigInt(r.tx.value) });
  };
  const fund = (to: Address, t: Address, amount: bigint) => a.fund(to, t, amount);
  const get = async (query: Record<string, string>) => {
    const res = await fetch(`${service.url}/v1/shortcuts/route?${new URLSearchParams(query)}`);
    return { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
  };
  const route = async (query: Record<string, string>): Promise<RouteAnswer> => {
    const res = await get(query);
    if (res.status !== 200) throw new Error(`route ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as RouteAnswer;
  };
  const settle = async () =>
    waitForIndexedBlock(service, await a.client.getBlockNumber({ cacheTime: 0 }));
  /** The devnet's Uniswap V2 pair (and LP token) of two tokens. */
  const v2Pair = async (tokenA: Address, tokenB: Address): Promise<Address> =>
    await a.client.readContract({
      address: service.deployment.uniswapV2.factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [tokenA, tokenB],
    });
  /** The CoreWallet of `from` under the `corewallet` strategy (where its program runs), else none. */
  const walletUnder = async (strategy: string, from: Address): Promise<Address | undefined> =>
    strategy === "corewallet"
      ? await a.client.readContract({
          address: service.deployment.execution.walletFactory as Address,
          abi: CoreWalletFactoryAbi,
          functionName: "walletOf",
          args: [from],
        })
      : undefined;
  /** The devnet's PancakeSwap V1 pair of two tokens (a fork of Uniswap V2, 0.2% fee). */
  const forkPair = async (tokenA: Address, tokenB: Address): Promise<Address> => {
    const fork = service.deployment.uniswapV2Forks?.find((f) => f.slug === "pancakeswap-v1");
    if (!fork) throw new Error("the devnet has no PancakeSwap V1");
    return await a.client.readContract({
      address: fork.factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [tokenA, tokenB],
    });
  };
  /** Waits until the routing graph reflects the head, so that quotes are of the chain's state. */
  const settleGraph = async () => {
    const head = await a.client.getBlockNumber({ cacheTime: 0 });
    await settle();
    await waitForRoutingGraph(service, chainId, head);
  };

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    chainId = service.deployment.chainId;
    a = await devnetActors(service);
  });

  afterAll(async () => {
    await service?.stop();
  });

  test.each([
    ["router", 3],
    ["corewallet", 7],
    ["delegate", 8],
  ] as const)(
    // First, while every venue still trades at the world's reference prices: the V4 native pool
    // (0.01%, no wrapping) is then the best way between ETH and USDC.
    "%s: ETH → USDC and USDC → ETH through the Uniswap V4 native pool, no WETH detour; the receiver gets exactly amountOut and nothing stays behind",
    async (strategy, i) => {
      const u = user(i);
      const from = u.account.address;
      const usdc = token("USDC");
      const v4 = service.deployment.uniswapV4;
      if (!v4) throw new Error("the devnet has no Uniswap V4");
      const native = v4.pools.find((p) => BigInt(p.currency0) === 0n && BigInt(p.hooks) === 0n);
      if (!native) throw new Error("no hookless native V4 pool");
      const execution = service.deployment.execution;
      const wallet = await walletUnder(strategy, from);
      const receiver = `0x00000000000000000000000000000000000b4e0${i}` as Address;
      const send = (r: RouteAnswer, tokenIn: Address, amountIn: bigint) =>
        sendAs(strategy, u, r, tokenIn, amountIn, wallet);
      const v4Step = {
        protocol: "uniswap-v4",
        action: "swap",
        primaryAddress: getAddress(v4.poolManager),
        poolId: native.id.toLowerCase(),
      };
      /** Nothing of either side stays with the executor, the V4 router or the wallet. */
      const nothingLeft = async () => {
        for (const holder of [execution.executor, execution.uniswapV4Router, wallet]) {
          if (!holder) continue;
          expect(await balanceOf(usdc, holder as Address)).toBe(0n);
          expect(await balanceOf(NATIVE, holder as Address)).toBe(0n);
        }
      };
      await settleGraph();

      const ethIn = parseEther("0.5");
      const buy = await route({
        fromAddress: from,
        tokenIn: NATIVE,
        tokenOut: usdc,
        amountIn: ethIn.toString(),
        receiver,
        routingStrategy: strategy,
      });
      // Under delegate the caller's own account runs the program with its own ether.
      expect(buy.tx.value).toBe(strategy === "delegate" ? "0" : ethIn.toString());
      expect(buy.route[0]).toMatchObject({ ...v4Step, tokenIn: [NATIVE] });
      expect(buy.route.some((step) => step.action === "wrap")).toBe(false);
      const usdcBefore = await balanceOf(usdc, receiver);
      expect((await send(buy, NATIVE, ethIn)).status).toBe("success");
      expect((await balanceOf(usdc, receiver)) - usdcBefore).toBe(BigInt(buy.amountOut));
      await nothingLeft();
      await settleGraph();

      const usdcIn = usd("USDC", 1_000);
      await fund(from, usdc, usdcIn);
      const sell = await route({
        fromAddress: from,
        tokenIn: usdc,
        tokenOut: NATIVE,
        amountIn: usdcIn.toString(),
        receiver,
        routingStrategy: strategy,
      });
      expect(sell.route.at(-1)).toMatchObject({ ...v4Step, tokenOut: [NATIVE] });
      expect(sell.route.some((step) => step.action === "unwrap")).toBe(false);
      const ethBefore = await balanceOf(NATIVE, receiver);
      expect((await send(sell, usdc, usdcIn)).status).toBe("success");
      expect((await balanceOf(NATIVE, receiver)) - ethBefore).toBe(BigInt(sell.amountOut));
      await nothingLeft();
      await settleGraph();
    },
  );

  test("a fork by configuration: WETH → LINK goes through PancakeSwap V1's 0.2% pair alone, for exactly its pair's 0.2% output", async () => {
    const u = user(4);
    const from = u.account.address;
    const [weth, link] = [token("WETH"), token("LINK")];
    const pair = await forkPair(weth, link);
    await settleGraph();
    // $150: the pair moves less than the 0.1 point its fee saves, so nothing pays to split.
    const amountIn = parseEther("0.05");
    await fund(from, weth, amountIn);
    const receiver = "0x00000000000000000000000000000000000fa4c0" as Address;
    const r = await route({
      fromAddress: from,
      tokenIn: weth,
      tokenOut: link,
      amountIn: amountIn.toString(),
      receiver,
      routingStrategy: "router",
    });
    // The fee's 0.1 points below Uniswap V2's pair of the same tokens make it the best venue.
    const [reserve0, reserve1] = await a.client.readContract({
      address: pair,
      abi: UniswapV2PairAbi,
      functionName: "getReserves",
      blockNumber: BigInt(r.blockNumber),
    });
    const [reserveIn, reserveOut] =
      weth.toLowerCase() < link.toLowerCase() ? [reserve0, reserve1] : [reserve1, reserve0];
    const expected = (amountIn * 998n * reserveOut) / (reserveIn * 1000n + amountIn * 998n);
    expect(r.route).toEqual([
      {
        tokenIn: [weth],
        positionInId: [`${chainId}:${weth}`],
        tokenOut: [link],
        positionOutId: [`${chainId}:${link}:${weth}`],
        protocol: "pancakeswap-v1",
        action: "swap",
        primaryAddress: pair,
        amountIn: amountIn.toString(),
        amountOut: expected.toString(),
      },
    ]);
    expect(r.amountOut).toBe(expected.toString());
    expect((await sendAs("router", u, r, weth, amountIn, undefined)).status).toBe("success");
    expect(await balanceOf(link, receiver)).toBe(expected);
    await settleGraph();
  });

  test.each([
    ["router", 3],
    ["corewallet", 7],
    ["delegate", 8],
  ] as const)(
    "%s: a large WETH → LINK splits across PancakeSwap V1's pair and Uniswap's; the receiver gets exactly amountOut and nothing stays behind",
    async (strategy, i) => {
      const u = user(i);
      const from = u.account.address;
      const [weth, link] = [token("WETH"), token("LINK")];
      const fork = await forkPair(weth, link);
      const uniswap = await v2Pair(weth, link);
      const execution = service.deployment.execution;
      const wallet = await walletUnder(strategy, from);
      await settleGraph();
      const amountIn = parseEther("150");
      await fund(from, weth, amountIn);
      const receiver = `0x00000000000000000000000000000000000fa5c${i}` as Address;
      const r = await route({
        fromAddress: from,
        tokenIn: weth,
        tokenOut: link,
        amountIn: amountIn.toString(),
        receiver,
        routingStrategy: strategy,
      });
      const venues = r.route.map((step) => [step.protocol, step.primaryAddress]);
      expect(venues).toContainEqual(["pancakeswap-v1", fork]);
      expect(venues).toContainEqual(["uniswap-v2", uniswap]);
      // The legs spend the whole input and what they deliver adds up to the answer.
      const total = (side: "tokenIn" | "tokenOut", t: Address) =>
        r.route
          .filter((step) => step[side][0] === t)
          .reduce(
            (sum, step) => sum + BigInt(side === "tokenIn" ? step.amountIn : step.amountOut),
            0n,
          );
      expect(total("tokenIn", weth)).toBe(amountIn);
      expect(total("tokenOut", link)).toBe(BigInt(r.amountOut));
      expect((await sendAs(strategy, u, r, weth, amountIn, wallet)).status).toBe("success");
      expect(await balanceOf(link, receiver)).toBe(BigInt(r.amountOut));
      for (const holder of [execution.executor, wallet]) {
        if (!holder) continue;
        expect(await balanceOf(weth, holder as Address)).toBe(0n);
        expect(await balanceOf(link, holder as Address)).toBe(0n);
      }
      expect(await balanceOf(weth, from)).toBe(0n);
      await settleGraph();
    },
  );

  test("the fork's pair in the history tables and on the front page: its swaps are pancakeswap-v1's, at 0.2% fees", async () => {
    const [weth, link] = [token("WETH"), token("LINK")];
    const pair = (await forkPair(weth, link)).toLowerCase();
    await settleGraph();
    const { swaps } = await graphqlQuery<{
      swaps: { items: { protocolSlug: string; amountUsd: string; feesUsd: string }[] };
    }>(
      service,
      `{ swaps(where: { pool: "${pair}" }, limit: 100) { items { protocolSlug amountUsd feesUsd } } }`,
    );
    // The swaps of the tests above: the route through the pair alone, and one leg of each split.
    expect(swaps.items).toHaveLength(4);
    for (const s of swaps.items) {
      expect(s.protocolSlug).toBe("pancakeswap-v1");
      expect(BigInt(s.amountUsd)).toBeGreaterThan(0n);
      expect(BigInt(s.feesUsd)).toBe((BigInt(s.amountUsd) * 2000n) / 1_000_000n);
    }
    const volume = swaps.items.reduce((sum, s) => sum + BigInt(s.amountUsd), 0n);
    const overview = (await (await fetch(`${service.url}/overview.json`)).json()) as {
      chains: { id: number; topPools: TopPool[] }[];
    };
    const top = overview.chains.find((c) => c.id === chainId)?.topPools ?? [];
    expect(top.find((p) => p.address.toLowerCase() === pair)).toMatchObject({
      protocolSlug: "pancakeswap-v1",
      pair: "WETH/LINK",
      volume24hUsd: Number((volume * 100n) / 10n ** 18n) / 100,
    });
  });

  test("a fork's LP token has a USD price, its share of the pair's reserves, and a value in balances", async () => {
    const [weth, link] = [token("WETH"), token("LINK")];
    const pair = await forkPair(weth, link);
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    const lp = 10n ** 18n;
    await a.send(a.deployer, {
      to: pair,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [owner, lp] }),
    });
    await settleGraph();
    type Price = { price: number | null; decimals: number | null; blockNumber: number };
    const priceOf = async (t: Address) =>
      (await (await fetch(`${service.url}/v1/prices/${chainId}/${t}`)).json()) as Price;
    const lpPrice = await priceOf(pair);
    // The pair's reserves, each at its token's price, over the LP supply, at the price's block.
    const blockNumber = BigInt(lpPrice.blockNumber);
    const [[reserve0, reserve1], supply] = await Promise.all([
      a.client.readContract({
        address: pair,
        abi: UniswapV2PairAbi,
        functionName: "getReserves",
        blockNumber,
      }),
      a.client.readContract({
        address: pair,
        abi: erc20Abi,
        functionName: "totalSupply",
        blockNumber,
      }),
    ]);
    const [token0, token1] = weth.toLowerCase() < link.toLowerCase() ? [weth, link] : [link, weth];
    let value = 0;
    for (const [t, reserve] of [
      [token0, reserve0],
      [token1, reserve1],
    ] as const) {
      const p = await priceOf(t);
      value += Number(formatUnits(reserve, p.decimals as number)) * (p.price as number);
    }
    const expected = value / Number(formatUnits(supply, 18));
    expect({
      decimals: lpPrice.decimals,
      close: Math.abs((lpPrice.price as number) / expected - 1) < 1e-12,
    }).toEqual({ decimals: 18, close: true });
    const held = (await (
      await fetch(
        `${service.url}/v1/wallet/balances?chainId=${chainId}&eoaAddress=${owner}&tokens=${pair}`,
      )
    ).json()) as Record<string, unknown>[];
    expect(held).toEqual([
      expect.objectContaining({
        token: getAddress(pair),
        amount: lp.toString(),
        symbol: "Cake-LP",
        type: "defi",
        underlyingTokens: [getAddress(token0), getAddress(token1)],
        price: lpPrice.price,
        value: lpPrice.price,
      }),
    ]);
  });

  test("balances: an account's catalogue tokens at one block with USD values; useEoa=false reads its CoreWallet; the client SDK reads them", async () => {
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    await fund(owner, token("USDC"), usd("USDC", 1234));
    await fund(owner, token("WETH"), parseEther("2"));
    const client = new EnsoClient({ apiKey: "none", baseURL: `${service.url}/v1` });
    // The CoreWallet is the spender of its owner's approvals (the SDK's approvals are the
    // router's only: asked plainly).
    const { spender: wallet } = (await (
      await fetch(
        `${service.url}/v1/wallet/approve?chainId=${chainId}&fromAddress=${owner}&tokenAddress=${token("USDC")}&amount=1&routingStrategy=corewallet`,
      )
    ).json()) as { spender: Address };
    await fund(wallet, token("USDC"), usd("USDC", 5));
    await settle();
    const head = Number(await a.client.getBlockNumber({ cacheTime: 0 }));
    type Balance = { token: string; amount: string; value: number | null };
    const balances = async (query: string) =>
      (await (
        await fetch(`${service.url}/v1/wallet/balances?chainId=${chainId}&${query}`)
      ).json()) as Balance[];
    const usdcHeld = {
      token: getAddress(token("USDC")),
      chainId,
      amount: "1234000000",
      decimals: 6,
      name: "USD Coin",
      symbol: "USDC",
      logoUri: null,
      price: 1,
      value: 1234,
      type: "base",
      underlyingTokens: [],
      blockNumber: head,
    };
    const own = await balances(`eoaAddress=${owner}`);
    expect(Object.fromEntries(own.map((b) => [b.token, b.amount]))).toEqual({
      [getAddress(token("WETH"))]: parseEther("2").toString(),
      [getAddress(token("USDC"))]: "1234000000",
    });
    expect(own.find((b) => b.token === usdcHeld.token)).toEqual(usdcHeld);
    // Largest USD value first.
    const values = own.map((b) => b.value ?? -1);
    expect(values).toEqual([...values].sort((x, y) => y - x));
    expect(await balances(`eoaAddress=${owner}&useEoa=false`)).toEqual([
      { ...usdcHeld, amount: "5000000", value: 5 },
    ]);
    expect(await client.getBalances({ chainId, eoaAddress: owner })).toEqual(own);
  });

  test("balances: a position token is listed with the token it holds", async () => {
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    const depositor = user(5);
    const assets = usd("USDC", 300);
    await fund(depositor.account.address, token("USDC"), assets);
    await a.approve(depositor, token("USDC"), vault("svUSDC"), assets);
    await a.send(depositor, {
      to: vault("svUSDC"),
      data: encodeFunctionData({ abi: erc4626Abi, functionName: "deposit", args: [assets, owner] }),
    });
    await settle();
    const shares = await balanceOf(vault("svUSDC"), owner);
    expect(shares).toBeGreaterThan(0n);
    const res = await fetch(
      `${service.url}/v1/wallet/balances?chainId=${chainId}&eoaAddress=${owner}`,
    );
    const held = (await res.json()) as Record<string, unknown>[];
    expect(
      held.map(({ token, amount, type, underlyingTokens }) => ({
        token,
        amount,
        type,
        underlyingTokens,
      })),
    ).toEqual([
      {
        token: getAddress(vault("svUSDC")),
        amount: shares.toString(),
        type: "defi",
        underlyingTokens: [getAddress(token("USDC"))],
      },
    ]);
  });

  test("the client SDK's route request is answered as the same request sent plainly", async () => {
    const from = privateKeyToAccount(generatePrivateKey()).address;
    const amountIn = usd("USDC", 100).toString();
    const plain = await route({
      chainId: String(chainId),
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn,
      routingStrategy: "router",
    });
    const client = new EnsoClient({ apiKey: "none", baseURL: `${service.url}/v1` });
    const viaSdk = await client.getRouteData({
      chainId,
      fromAddress: from,
      tokenIn: [token("USDC")],
      tokenOut: [token("WETH")],
      amountIn: [amountIn],
      routingStrategy: "router",
    });
    expect(viaSdk).toEqual(plain);
  });

  test("prices come from the indexed graph, stamped with its block's own timestamp; native is priced as WETH", async () => {
    await settle();
    const res = await fetch(
      `${service.url}/v1/prices/${chainId}?addresses=${NATIVE}&addresses=${token("WETH")}&addresses=${token("USDC")}`,
    );
    const [native, weth, usdc] = (await res.json()) as {
      price: number | null;
      blockNumber: number;
      timestamp: number;
    }[];
    const block = await a.client.getBlock({ blockNumber: BigInt(weth?.blockNumber ?? -1) });
    expect(weth?.timestamp).toBe(Number(block.timestamp));
    expect(native?.price).toBe(weth?.price);
    expect(usdc).toMatchObject({ price: 1, confidence: 1, decimals: 6, symbol: "USDC" });
  });

  test("router: USDC → WETH, sent as returned, pays exactly the quoted amount", async () => {
    const u = user(0);
    const from = u.account?.address as Address;
    const amountIn = usd("USDC", 25_000);
    await fund(from, token("USDC"), amountIn);
    const r = await route({
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: amountIn.toString(),
    });
    // Simulated at the head (the devnet mines only on transactions, and none was sent since).
    const head = Number(await a.client.getBlockNumber({ cacheTime: 0 }));
    expect(r.blockNumber).toBe(head);
    expect(r.tx.to).toBe(getAddress(service.deployment.execution.router as Address));
    expect(r.tx.from).toBe(getAddress(from));
    expect(r.tx.value).toBe("0");
    expect(BigInt(r.minAmountOut)).toBe((BigInt(r.amountOut) * 9_700n) / 10_000n);
    expect(r.route[0]?.tokenIn).toEqual([getAddress(token("USDC"))]);
    expect(r.route.at(-1)?.tokenOut).toEqual([getAddress(token("WETH"))]);
    expect(r.createdAt).toBe(head);
    await a.approve(u, token("USDC"), r.tx.to, amountIn);
    const before = await balanceOf(token("WETH"), from);
    expect(r.beforeSending).toEqual([
      {
        type: "approve",
        token: getAddress(token("USDC")),
        spender: r.tx.to,
        amount: amountIn.toString(),
      },
    ]);
    // `gas` is the limit to send: exactly that suffices.
    const receipt = await mine(u, {
      to: r.tx.to,
      data: r.tx.data,
      value: BigInt(r.tx.value),
      gas: BigInt(r.gas),
    });
    expect(receipt.status).toBe("success");
    expect((await balanceOf(token("WETH"), from)) - before).toBe(BigInt(r.amountOut));
    expect(await balanceOf(token("USDC"), from)).toBe(0n);
    expect(receipt.gasUsed).toBe(BigInt(r.gasUsed));
    await settle();
  });

  test("router: a default deadline with a zero byte in the calldata: gasUsed is still the transaction's", async () => {
    // The transaction returned is the one simulated. Before, the calldata was simulated with a
    // provisional deadline and its gas patched by the bytes' price, which is off by the refund's
    // cap (a fifth of the gas) moving with it: one zero byte in the deadline made gasUsed 3 short.
    const u = user(0);
    const from = u.account?.address as Address;
    const amountIn = usd("USDC", 10_000);
    await fund(from, token("USDC"), amountIn);
    // The next block's timestamp makes the default deadline (the simulated block's timestamp,
    // one more than the head's, + 1,200 s) end in a zero byte.
    const head = await a.client.getBlock({ blockTag: "latest" });
    const at = ((Number(head.timestamp) + 1_201 + 256) & ~0xff) - 1_201;
    await a.client.request({ method: "evm_setNextBlockTimestamp" as never, params: [at] as never });
    await a.client.request({ method: "evm_mine" as never, params: [] as never });
    await settleGraph();
    const r = await route({
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: amountIn.toString(),
    });
    expect(r.deadline).toBe(at + 1_201);
    expect(r.deadline % 256).toBe(0);
    await a.approve(u, token("USDC"), r.tx.to, amountIn);
    const before = await balanceOf(token("WETH"), from);
    const receipt = await mine(u, { to: r.tx.to, data: r.tx.data, gas: BigInt(r.gas) });
    expect((await balanceOf(token("WETH"), from)) - before).toBe(BigInt(r.amountOut));
    expect(receipt.gasUsed).toBe(BigInt(r.gasUsed));
    await settle();
  });

  test("a route after a second without one is certified: the metrics count it and its gap", async () => {
    const metrics = async () =>
      (await (await fetch(`${service.url}/metrics/api`)).text()) as string;
    const counts = (text: string) => ({
      within: sample(text, "shortcuts_route_certificates_total", { gap: "within_1bp" }) ?? 0,
      beyond: sample(text, "shortcuts_route_certificates_total", { gap: "beyond_1bp" }) ?? 0,
      observed: sample(text, "shortcuts_route_certified_gap_bps_count") ?? 0,
      timed: sample(text, "shortcuts_route_certificate_duration_seconds_count") ?? 0,
      sum: sample(text, "shortcuts_route_certified_gap_bps_sum") ?? 0,
    });
    const request = {
      fromAddress: user(2).account?.address as Address,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: usd("USDC", 10_000).toString(),
    };
    // No route was certified in the last second: the next one is.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const before = counts(await metrics());
    await route(request);
    const once = counts(await metrics());
    // Certified once: counted within or beyond 1 bp, its gap observed (≥ 0 by construction) and
    // its time. What the gap is for given pools is engine/routing's tests' business.
    expect({
      certified: once.within + once.beyond - before.within - before.beyond,
      observed: once.observed - before.observed,
      timed: once.timed - before.timed,
    }).toEqual({ certified: 1, observed: 1, timed: 1 });
    expect(once.sum).toBeGreaterThanOrEqual(before.sum);
  });

  test("router: native → token with a fee and a different receiver", async () => {
    const u = user(1);
    const from = u.account?.address as Address;
    const receiver = "0x00000000000000000000000000000000000bee01" as Address;
    const feeReceiver = "0x00000000000000000000000000000000000fee01" as Address;
    const amountIn = parseEther("3");
    const r = await route({
      fromAddress: from,
      tokenIn: NATIVE,
      // UNI trades against WETH only.
      tokenOut: token("UNI"),
      amountIn: amountIn.toString(),
      receiver,
      fee: "25",
      feeReceiver,
    });
    expect(r.feeAmount).toEqual([((amountIn * 25n) / 10_000n).toString()]);
    expect(r.tx.value).toBe(amountIn.toString());
    // Wrapped first, or sold on the V4 native pool when an earlier test's trades moved its price
    // enough from the V3 pools' (both are the engine's best answer at the state it sees).
    expect(r.route[0]?.tokenIn).toEqual([NATIVE]);
    expect([
      ["wrapped-native", "wrap"],
      ["uniswap-v4", "swap"],
    ]).toContainEqual([r.route[0]?.protocol, r.route[0]?.action]);
    const receipt = await mine(u, { to: r.tx.to, data: r.tx.data, value: BigInt(r.tx.value) });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(token("UNI"), receiver)).toBe(BigInt(r.amountOut));
    expect(await a.client.getBalance({ address: feeReceiver })).toBe((amountIn * 25n) / 10_000n);
    await settle();
  });

  test("router: token → native", async () => {
    const u = user(2);
    const from = u.account?.address as Address;
    // UNI trades against WETH only: the route ends unwrapping WETH, or buying ether on the V4
    // native pool when earlier trades moved its price from the V3 pools'.
    const amountIn = usd("UNI", 5_000);
    await fund(from, token("UNI"), amountIn);
    const r = await route({
      fromAddress: from,
      tokenIn: token("UNI"),
      tokenOut: NATIVE,
      amountIn: amountIn.toString(),
    });
    expect(r.route.at(-1)?.tokenOut).toEqual([NATIVE]);
    expect([
      ["wrapped-native", "unwrap"],
      ["uniswap-v4", "swap"],
    ]).toContainEqual([r.route.at(-1)?.protocol, r.route.at(-1)?.action]);
    await a.approve(u, token("UNI"), r.tx.to, amountIn);
    const before = await a.client.getBalance({ address: from });
    const receipt = await mine(u, { to: r.tx.to, data: r.tx.data });
    const gasCost = receipt.gasUsed * receipt.effectiveGasPrice;
    expect((await a.client.getBalance({ address: from })) - before + gasCost).toBe(
      BigInt(r.amountOut),
    );
    await settle();
  });

  test("toEOA is answered with a Deprecation header, and the same route without it", async () => {
    const query = {
      fromAddress: user(2).account?.address as Address,
      tokenIn: token("USDT"),
      tokenOut: token("WETH"),
      amountIn: usd("USDT", 100).toString(),
    };
    const plain = await get(query);
    const deprecated = await get({ ...query, toEOA: "true" });
    expect([plain.status, deprecated.status]).toEqual([200, 200]);
    expect(plain.headers.get("deprecation")).toBeNull();
    expect(deprecated.headers.get("deprecation")).toBe("true");
    expect(deprecated.body).toEqual(plain.body);
  });

  test("router: USDC → USDC vault share is one deposit step", async () => {
    const u = user(3);
    const from = u.account?.address as Address;
    const amountIn = usd("USDC", 1_000);
    await fund(from, token("USDC"), amountIn);
    const r = await route({
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: vault("svUSDC"),
      amountIn: amountIn.toString(),
    });
    expect(r.route).toHaveLength(1);
    expect(r.route[0]).toMatchObject({
      protocol: "savings-vaults",
      action: "deposit",
      primaryAddress: getAddress(vault("svUSDC")),
      positionOutId: [`${chainId}:${getAddress(vault("svUSDC"))}:${getAddress(token("USDC"))}`],
    });
    await a.approve(u, token("USDC"), r.tx.to, amountIn);
    await mine(u, { to: r.tx.to, data: r.tx.data });
    expect(await balanceOf(vault("svUSDC"), from)).toBe(BigInt(r.amountOut));
    await settle();
  });

  test("router: DAI → USDC vault share swaps then deposits; a share → other token redeems then swaps", async () => {
    const u = user(4);
    const from = u.account?.address as Address;
    const amountIn = usd("DAI", 2_000);
    await fund(from, token("DAI"), amountIn);
    const r = await route({
      fromAddress: from,
      tokenIn: token("DAI"),
      tokenOut: vault("svUSDC"),
      amountIn: amountIn.toString(),
    });
    expect(r.route.map((s) => s.action)).toEqual([
      ...r.route.slice(0, -1).map(() => "swap"),
      "deposit",
    ]);
    await a.approve(u, token("DAI"), r.tx.to, amountIn);
    await mine(u, { to: r.tx.to, data: r.tx.data });
    const shares = await balanceOf(vault("svUSDC"), from);
    expect(shares).toBe(BigInt(r.amountOut));
    await settle();

    const back = await route({
      fromAddress: from,
      tokenIn: vault("svUSDC"),
      tokenOut: token("WETH"),
      amountIn: shares.toString(),
    });
    expect(back.route[0]).toMatchObject({ action: "redeem", protocol: "savings-vaults" });
    // Then swaps (USDC → ETH on the V4 native pool may be wrapped into WETH at the end).
    expect(back.route.slice(1).every((s) => s.action === "swap" || s.action === "wrap")).toBe(true);
    await a.approve(u, vault("svUSDC"), back.tx.to, shares);
    const before = await balanceOf(token("WETH"), from);
    await mine(u, { to: back.tx.to, data: back.tx.data });
    expect((await balanceOf(token("WETH"), from)) - before).toBe(BigInt(back.amountOut));
    await settle();
  });

  test("router: a large trade splits across pools and still pays the quote; after another swap moves the pool it pays at least the minimum", async () => {
    const u = user(5);
    const from = u.account?.address as Address;
    const amountIn = usd("USDC", 3_000_000);
    await fund(from, token("USDC"), amountIn * 2n);
    const r = await route({
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: amountIn.toString(),
    });
    const pools = new Set(r.route.map((s) => s.primaryAddress));
    expect(pools.size).toBeGreaterThan(1);
    // The split must beat the whole amount through any one pool of the pair, each quoted by
    // Uniswap's own periphery at the same block.
    const d = service.deployment;
    const [, v2Out] = await a.client.readContract({
      address: d.uniswapV2.router02,
      abi: UniswapV2Router02Abi,
      functionName: "getAmountsOut",
      args: [amountIn, [token("USDC"), token("WETH")]],
    });
    const v3Outs = await Promise.all(
      [500, 3000].map(async (fee) => {
        const { result } = await a.client.simulateContract({
          address: d.uniswapV3.quoterV2,
          abi: QuoterV2Abi,
          functionName: "quoteExactInputSingle",
          args: [
            {
              tokenIn: token("USDC"),
              tokenOut: token("WETH"),
              amountIn,
              fee,
              sqrtPriceLimitX96: 0n,
            },
          ],
        });
        return result[0];
      }),
    );
    for (const single of [v2Out as bigint, ...v3Outs]) {
      expect(BigInt(r.amountOut)).toBeGreaterThan(single);
    }
    await a.approve(u, token("USDC"), r.tx.to, maxUint256);
    const before = await balanceOf(token("WETH"), from);
    await mine(u, { to: r.tx.to, data: r.tx.data });
    expect((await balanceOf(token("WETH"), from)) - before).toBe(BigInt(r.amountOut));
    await settle();

    // Quote again, then let someone else make the same trade first: the minimum still holds.
    const size = (amountIn / 10n).toString();
    const again = await route({
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: size,
    });
    const other = user(6);
    const otherAddress = other.account?.address as Address;
    await fund(otherAddress, token("USDC"), amountIn / 10n);
    const theirs = await route({
      fromAddress: otherAddress,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: size,
    });
    await a.approve(other, token("USDC"), theirs.tx.to, amountIn / 10n);
    expect((await mine(other, { to: theirs.tx.to, data: theirs.tx.data })).status).toBe("success");
    const mid = await balanceOf(token("WETH"), from);
    const receipt = await mine(u, { to: again.tx.to, data: again.tx.data });
    expect(receipt.status).toBe("success");
    const got = (await balanceOf(token("WETH"), from)) - mid;
    expect(got).toBeGreaterThanOrEqual(BigInt(again.minAmountOut));
    expect(got).toBeLessThan(BigInt(again.amountOut));
    await settle();
  });

  test("router: a large trade routed as a flow (split and merged at intermediate tokens) is simulated, sent as returned and pays exactly amountOut", async () => {
    const u = user(6);
    const from = u.account?.address as Address;
    await settleGraph();
    // The first of these the search answers with a flow: a token other than the input is
    // divided between several steps.
    const candidates: [string, string, number][] = [
      ["LINK", "UNI", 1_000_000],
      ["WBTC", "DAI", 1_000_000],
      ["DAI", "USDT", 1_000_000],
      ["LINK", "UNI", 10_000_000],
    ];
    let found:
      | { answer: RouteAnswer; tokenIn: Address; tokenOut: Address; amountIn: bigint }
      | undefined;
    for (const [symbolIn, symbolOut, dollars] of candidates) {
      const tokenIn = token(symbolIn);
      const amountIn = usd(symbolIn, dollars);
      const answer = await route({
        fromAddress: from,
        tokenIn,
        tokenOut: token(symbolOut),
        amountIn: amountIn.toString(),
      });
      const spent = answer.route.map((step) => (step.tokenIn[0] as string).toLowerCase());
      const divided = spent.filter((t, i) => t !== tokenIn.toLowerCase() && spent.indexOf(t) !== i);
      if (divided.length > 0) {
        found = { answer, tokenIn, tokenOut: token(symbolOut), amountIn };
        break;
      }
    }
    expect(found).toBeDefined();
    if (!found) return;
    const { answer, tokenIn, tokenOut, amountIn } = found;
    // The steps account for the whole input and the whole output.
    const is = (x: string | undefined, y: Address) => x?.toLowerCase() === y.toLowerCase();
    const sum = (steps: typeof answer.route, f: (s: (typeof answer.route)[number]) => string) =>
      steps.reduce((total, s) => total + BigInt(f(s)), 0n);
    expect(
      sum(
        answer.route.filter((s) => is(s.tokenIn[0], tokenIn)),
        (s) => s.amountIn,
      ),
    ).toBe(amountIn);
    expect(
      sum(
        answer.route.filter((s) => is(s.tokenOut[0], tokenOut)),
        (s) => s.amountOut,
      ),
    ).toBe(BigInt(answer.amountOut));
    await fund(from, tokenIn, amountIn);
    await a.approve(u, tokenIn, answer.tx.to, amountIn);
    const before = await balanceOf(tokenOut, from);
    const receipt = await mine(u, { to: answer.tx.to, data: answer.tx.data });
    expect(receipt.status).toBe("success");
    expect((await balanceOf(tokenOut, from)) - before).toBe(BigInt(answer.amountOut));
    // Nothing of any token the route touched stays with the executor.
    const executor = service.deployment.execution.executor as Address;
    const touched = new Set(answer.route.flatMap((s) => [...s.tokenIn, ...s.tokenOut]));
    for (const t of touched) expect([t, await balanceOf(t as Address, executor)]).toEqual([t, 0n]);
    // The next suites quote from the graph: it reflects this trade before they ask.
    await settleGraph();
  });

  test("corewallet: the factory deploys the wallet, pulls the approved input and pays the receiver", async () => {
    const u = user(7);
    const from = u.account?.address as Address;
    const amountIn = usd("LINK", 3_000);
    await fund(from, token("LINK"), amountIn);
    const r = await route({
      fromAddress: from,
      tokenIn: token("LINK"),
      tokenOut: token("USDC"),
      amountIn: amountIn.toString(),
      routingStrategy: "corewallet",
    });
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
    await a.approve(u, token("LINK"), wallet, amountIn);
    const receipt = await mine(u, { to: r.tx.to, data: r.tx.data, value: BigInt(r.tx.value) });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(token("USDC"), from)).toBe(BigInt(r.amountOut));
    expect(await balanceOf(token("LINK"), wallet)).toBe(0n);
    await settle();
  });

  test("delegate: an EIP-7702 account delegating to the delegate executor runs the route itself", async () => {
    const u = user(8);
    const from = u.account?.address as Address;
    const amountIn = usd("USDC", 4_000);
    await fund(from, token("USDC"), amountIn);
    const r = await route({
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: token("WBTC"),
      amountIn: amountIn.toString(),
      routingStrategy: "delegate",
    });
    expect(r.tx.to).toBe(getAddress(from));
    const authorization = await u.signAuthorization({
      account: u.account as never,
      contractAddress: service.deployment.execution.delegateExecutor as Address,
      executor: "self",
    });
    const receipt = await mine(u, {
      to: r.tx.to,
      data: r.tx.data,
      authorizationList: [authorization],
    });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(token("WBTC"), from)).toBe(BigInt(r.amountOut));
    expect(await balanceOf(token("USDC"), from)).toBe(0n);
    await settle();
  });

  test.each([
    ["router", 0],
    ["corewallet", 7],
    ["delegate", 8],
  ] as const)(
    "%s: USDC into the USDC/WETH pair's LP token adds single-sided liquidity, stating and returning the leftovers; the LP token back to USDC removes it and sells the WETH",
    async (strategy, i) => {
      const u = user(i);
      const from = u.account.address;
      const [usdc, weth] = [token("USDC"), token("WETH")];
      const lp = await v2Pair(usdc, weth);
      const execution = service.deployment.execution;
      const wallet = await walletUnder(strategy, from);
      // Where the program runs and the leftovers stay (the router sweeps them back to the caller).
      const holder = wallet ?? from;
      /** Sends a route as its strategy needs: approval, authorization, or neither. */
      const send = (r: RouteAnswer, tokenIn: Address, amountIn: bigint) =>
        sendAs(strategy, u, r, tokenIn, amountIn, wallet);
      const amountIn = usd("USDC", 2_000);
      await fund(from, usdc, amountIn);
      await settleGraph();
      const into = await route({
        fromAddress: from,
        tokenIn: usdc,
        tokenOut: lp,
        amountIn: amountIn.toString(),
        routingStrategy: strategy,
      });
      const add = into.route.at(-1) as RouteStep;
      expect(add).toMatchObject({
        protocol: "uniswap-v2",
        action: "deposit",
        primaryAddress: getAddress(lp),
        tokenOut: [getAddress(lp)],
      });
      // One leg (an LP token is reached through its own pair only): its last step is all of it.
      expect(add.amountOut).toBe(into.amountOut);
      // The pair's two tokens.
      const leftovers = add.leftovers ?? [];
      expect(leftovers.map((l) => l.token).sort()).toEqual(
        [getAddress(usdc), getAddress(weth)].sort(),
      );
      const left = (t: Address) =>
        BigInt(leftovers.find((l) => l.token === getAddress(t))?.amount ?? "x");
      const held = async () => await Promise.all([usdc, weth].map((t) => balanceOf(t, holder)));
      const [usdcBefore, wethBefore] = await held();
      const lpBefore = await balanceOf(lp, from);
      expect((await send(into, usdc, amountIn)).status).toBe("success");
      expect((await balanceOf(lp, from)) - lpBefore).toBe(BigInt(into.amountOut));
      const [usdcAfter, wethAfter] = await held();
      // The caller paid amountIn; what the add left unused of either token is back with it.
      const paid = holder === from ? amountIn : 0n;
      expect((usdcAfter as bigint) - (usdcBefore as bigint)).toBe(left(usdc) - paid);
      expect((wethAfter as bigint) - (wethBefore as bigint)).toBe(left(weth));
      for (const t of [usdc, weth, lp]) {
        expect(await balanceOf(t, execution.executor as Address)).toBe(0n);
      }
      await settleGraph();

      const liquidity = BigInt(into.amountOut);
      const out = await route({
        fromAddress: from,
        tokenIn: lp,
        tokenOut: usdc,
        amountIn: liquidity.toString(),
        routingStrategy: strategy,
      });
      // Removing liquidity first; then, if the other side's share sells better elsewhere, a swap.
      expect(out.route[0]).toMatchObject({
        protocol: "uniswap-v2",
        action: "redeem",
        primaryAddress: getAddress(lp),
        tokenIn: [getAddress(lp)],
        amountIn: liquidity.toString(),
      });
      expect(out.route.at(-1)?.tokenOut).toEqual([getAddress(usdc)]);
      const usdcBack = await balanceOf(usdc, from);
      expect((await send(out, lp, liquidity)).status).toBe("success");
      expect((await balanceOf(usdc, from)) - usdcBack).toBe(BigInt(out.amountOut));
      expect(await balanceOf(lp, from)).toBe(lpBefore);
      if (wallet) expect(await balanceOf(lp, wallet)).toBe(0n);
      await settleGraph();
    },
  );

  test("router: ETH into the UNI/WETH LP token for another receiver: a single-sided add at the end; the leftovers go back to the sender", async () => {
    const u = user(1);
    const from = u.account.address;
    const receiver = "0x00000000000000000000000000000000000bee02" as Address;
    const [uni, weth] = [token("UNI"), token("WETH")];
    const lp = await v2Pair(uni, weth);
    await settleGraph();
    const amountIn = parseEther("1.5");
    const r = await route({
      fromAddress: from,
      tokenIn: NATIVE,
      tokenOut: lp,
      amountIn: amountIn.toString(),
      receiver,
    });
    expect(r.tx.value).toBe(amountIn.toString());
    expect(r.route[0]?.tokenIn).toEqual([NATIVE]);
    const add = r.route.at(-1) as RouteStep;
    expect(add).toMatchObject({
      action: "deposit",
      protocol: "uniswap-v2",
      primaryAddress: getAddress(lp),
    });
    const left = (t: Address) =>
      BigInt(add.leftovers?.find((l) => l.token === getAddress(t))?.amount ?? "x");
    const before = await Promise.all([uni, weth].map((t) => balanceOf(t, from)));
    const receipt = await mine(u, { to: r.tx.to, data: r.tx.data, value: BigInt(r.tx.value) });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(lp, receiver)).toBe(BigInt(r.amountOut));
    const after = await Promise.all([uni, weth].map((t) => balanceOf(t, from)));
    expect((after[0] as bigint) - (before[0] as bigint)).toBe(left(uni));
    expect((after[1] as bigint) - (before[1] as bigint)).toBe(left(weth));
    for (const t of [uni, weth, lp]) {
      expect(await balanceOf(t, service.deployment.execution.executor as Address)).toBe(0n);
    }
    await settle();
  });

  test("bad input gets a 400 naming the parameter; unknown tokens 404; impossible routes 422", async () => {
    const from = "0x00000000000000000000000000000000000a11ce";
    const base = {
      fromAddress: from,
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: "1000000",
    };
    const err = (statusCode: number, message: string) => ({
      status: statusCode,
      body: {
        statusCode,
        error:
          statusCode === 400
            ? "Bad Request"
            : statusCode === 404
              ? "Not Found"
              : "Unprocessable Entity",
        message,
      },
    });
    const cases: [Record<string, string>, ReturnType<typeof err>][] = [
      [
        { ...base, fromAddress: "0x12" },
        err(
          400,
          "Invalid query parameter `fromAddress`: expected an address (0x followed by 40 hex digits).",
        ),
      ],
      [
        { tokenIn: base.tokenIn, tokenOut: base.tokenOut, amountIn: "1" },
        err(400, "Query parameter `fromAddress` is required."),
      ],
      [
        { ...base, amountIn: "-5" },
        err(
          400,
          "Invalid query parameter `amountIn`: expected an amount in wei: a whole number from 1 to 2^256 - 1, in decimal digits.",
        ),
      ],
      [
        { ...base, amountIn: "0x10" },
        err(
          400,
          "Invalid query parameter `amountIn`: expected an amount in wei: a whole number from 1 to 2^256 - 1, in decimal digits.",
        ),
      ],
      [
        { ...base, amountIn: (2n ** 256n).toString() },
        err(
          400,
          "Invalid query parameter `amountIn`: expected an amount in wei: a whole number from 1 to 2^256 - 1, in decimal digits.",
        ),
      ],
      [
        { ...base, amountIn: "0" },
        err(
          400,
          "Invalid query parameter `amountIn`: expected an amount in wei: a whole number from 1 to 2^256 - 1, in decimal digits.",
        ),
      ],
      [
        { ...base, tokenOut: base.tokenIn },
        err(
          400,
          "Query parameters `tokenIn` and `tokenOut` are the same token; there is nothing to route.",
        ),
      ],
      [
        { ...base, fee: "101", feeReceiver: from },
        err(
          400,
          "Invalid query parameter `fee`: expected basis points: a whole number from 0 to 100.",
        ),
      ],
      [
        { ...base, fee: "10" },
        err(400, "Query parameter `feeReceiver` is required when `fee` is greater than 0."),
      ],
      [
        { ...base, slippage: "10001" },
        err(
          400,
          "Invalid query parameter `slippage`: expected basis points: a whole number from 0 to 10000.",
        ),
      ],
      [
        { ...base, routingStrategy: "magic" },
        err(
          400,
          "Invalid query parameter `routingStrategy`: expected one of router, delegate, corewallet.",
        ),
      ],
      [
        { ...base, priceImpact: "yes" },
        err(400, "Invalid query parameter `priceImpact`: expected true or false."),
      ],
      [
        { ...base, chainId: "1" },
        err(400, "Query parameter `chainId`: chain 1 is not indexed here; indexed chains: 31337."),
      ],
      [
        { ...base, spender: "0x00000000000000000000000000000000000b0b00" },
        err(
          400,
          "Query parameter `spender` must equal `fromAddress` with routingStrategy=router: the input is spent from the sender's own account.",
        ),
      ],
      ...(["delegate", "corewallet"] as const).map(
        (routingStrategy): [Record<string, string>, ReturnType<typeof err>] => [
          { ...base, tokenIn: NATIVE, routingStrategy, fee: "10", feeReceiver: from },
          err(
            400,
            "Query parameter `fee`: a fee on a native-currency input needs routingStrategy=router.",
          ),
        ],
      ),
      ...(["delegate", "corewallet"] as const).map(
        (routingStrategy): [Record<string, string>, ReturnType<typeof err>] => [
          {
            ...base,
            tokenOut: NATIVE,
            routingStrategy,
            receiver: "0x00000000000000000000000000000000000b0b00",
          },
          err(
            422,
            `routingStrategy=${routingStrategy} cannot pay native currency to a receiver other than the executing account; use routingStrategy=router.`,
          ),
        ],
      ),
      [
        { ...base, tokenOut: "0x000000000000000000000000000000000000dead" },
        err(
          404,
          `Unknown token 0x000000000000000000000000000000000000dEaD (\`tokenOut\`): no indexed pool or vault on chain ${31337} holds it.`,
        ),
      ],
      [
        { ...base, amountIn: (10n ** 40n).toString() },
        err(
          422,
          `The liquidity between ${getAddress(token("USDC"))} and ${getAddress(token("WETH"))} cannot fill an input of ${10n ** 40n} wei; try a smaller amountIn.`,
        ),
      ],
    ];
    for (const [query, expected] of cases) {
      const res = await get(query);
      expect({ query, status: res.status, body: res.body }).toEqual({ query, ...expected });
    }
  });

  // Last: it stops the chain node.
  test("the chain node unreachable: 503 with a clear message, not a hang or a 500", async () => {
    const query = {
      fromAddress: "0x00000000000000000000000000000000000a11ce",
      tokenIn: token("USDC"),
      tokenOut: token("WETH"),
      amountIn: "1000000",
    };
    await service.anvil.stop();
    const started = Date.now();
    const res = await get(query);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(res.status).toBe(503);
    // Whichever notices first: the freshness check (head block), the gas price (once its
    // cached value has expired) or the simulation.
    const unavailable = (message: string, details?: Record<string, unknown>) => ({
      statusCode: 503,
      error: "Service Unavailable",
      message,
      ...(details ? { details } : {}),
    });
    expect([
      unavailable(
        "The RPC of chain 31337 did not answer, so the freshness of routing data cannot be checked. Retry shortly.",
        { chainId: 31337 },
      ),
      unavailable("The RPC node of chain 31337 is unreachable; try again shortly."),
      unavailable("The RPC node of chain 31337 did not answer the simulation. Retry shortly."),
    ]).toContainEqual(res.body);
  });
});
