/**
 * Safe to sign, end to end on the devnet service, for the three routing strategies: a client
 * that follows an answer (its `beforeSending` steps, then `tx` with exactly `gas` as the limit)
 * succeeds on the first try; a sandwich that moves the price past the slippage makes the
 * transaction revert; a bundle paying a receiver moves only what the transaction made, never
 * the account's savings; 1 wei forced into the router's executor blocks nobody; no allowance of
 * the executor outlives a transaction; deadlines hold on chain; an ERC20 transfer made through a
 * `call` counts as a delivery (SPEC 4.2's own example).
 */
import {
  type Address,
  type BaseError,
  decodeErrorResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  isHex,
  parseEther,
  type TransactionReceipt,
  type WalletClient,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ShortcutRouterAbi } from "../abis/generated/ShortcutRouter.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { UniswapV3PoolAbi } from "../abis/UniswapV3Pool.js";
import { loadArtifact } from "../contracts/build.js";
import { devnetReceipt } from "../devnet/receipts.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/core/native.js";
import { devnetActors } from "./harness/actors.js";
import {
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
  waitForRoutingGraph,
} from "./harness/service.js";

type Strategy = "router" | "delegate" | "corewallet";
type BeforeSending =
  | { type: "approve"; token: Address; spender: Address; amount: string }
  | { type: "delegate"; account: Address; delegateTo: Address };
type Answer = {
  tx: { data: Hex; to: Address; from: Address; value: string };
  gas: string;
  gasUsed: string;
  deadline: number;
  blockNumber: number;
  beforeSending: BeforeSending[];
  amountOut?: string;
  minAmountOut?: string;
  amountsOut?: Record<string, string>;
};

const STRATEGIES: Strategy[] = ["router", "delegate", "corewallet"];
const ref = (i: number) => ({ useOutputOfCallAt: i });

describe("safe to sign: the three strategies on the devnet", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  const v3Pools = new Map<Address, Set<string>>();
  const v3Fees = new Map<Address, number>();

  const get = async (path: string, query: Record<string, string>) => {
    const res = await fetch(`${service.url}${path}?${new URLSearchParams(query)}`);
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const post = async (query: Record<string, string>, actions: unknown[]) => {
    const res = await fetch(`${service.url}/v1/shortcuts/bundle?${new URLSearchParams(query)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(actions),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const ok = <T>(res: { status: number; body: unknown }): T => {
    if (res.status !== 200) throw new Error(`${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as T;
  };
  const route = async (query: Record<string, string>) =>
    ok<Answer>(await get("/v1/shortcuts/route", query));
  const bundle = async (query: Record<string, string>, actions: unknown[]) =>
    ok<Answer>(await post(query, actions));
  /** The index and the routing snapshot have seen the chain's head. */
  const settle = async () => {
    const head = await a.client.getBlockNumber({ cacheTime: 0 });
    await waitForIndexedBlock(service, head);
    await waitForRoutingGraph(service, service.deployment.chainId, head);
  };

  /** Does what `beforeSending` says, then sends `tx` with exactly `gas` as its gas limit. */
  const follow = async (wallet: WalletClient, answer: Answer): Promise<TransactionReceipt> => {
    let authorizationList: unknown[] | undefined;
    for (const step of answer.beforeSending) {
      if (step.type === "approve") {
        await a.approve(wallet, step.token, step.spender, BigInt(step.amount));
      } else {
        expect(step.account).toBe(getAddress(wallet.account?.address as Address));
        authorizationList = [
          await wallet.signAuthorization({
            account: wallet.account as never,
            contractAddress: step.delegateTo,
            executor: "self",
          }),
        ];
      }
    }
    const request = {
      to: answer.tx.to,
      data: answer.tx.data,
      value: BigInt(answer.tx.value),
      ...(authorizationList ? { authorizationList } : {}),
    };
    const receipt = await a.send(wallet, { ...request, gas: BigInt(answer.gas) });
    return receipt;
  };

  const walletOf = async (owner: Address): Promise<Address> =>
    getAddress(
      (await a.client.readContract({
        address: service.deployment.execution.walletFactory as Address,
        abi: loadArtifact("CoreWalletFactory").abi,
        functionName: "walletOf",
        args: [owner],
      })) as Address,
    );

  /** The USDC/WETH V3 pool of the 0.3% tier (the shallower one of the devnet's two). */
  const usdcWethV3Pool = (): Address => {
    const usdc = a.token("USDC").toLowerCase();
    const weth = a.token("WETH").toLowerCase();
    const found = [...v3Pools].find(
      ([p, t]) => t.has(usdc) && t.has(weth) && v3Fees.get(p) === 3000,
    );
    if (!found) throw new Error("no USDC/WETH V3 pool");
    return found[0];
  };

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    a = await devnetActors(service);
    for (const p of service.deployment.uniswapV3.pools) {
      const [t0, t1] = await Promise.all([
        a.client.readContract({ address: p, abi: UniswapV2PairAbi, functionName: "token0" }),
        a.client.readContract({ address: p, abi: UniswapV2PairAbi, functionName: "token1" }),
      ]);
      v3Pools.set(p, new Set([t0.toLowerCase(), t1.toLowerCase()]));
      v3Fees.set(
        p,
        await a.client.readContract({ address: p, abi: UniswapV3PoolAbi, functionName: "fee" }),
      );
    }
  });

  afterAll(async () => {
    await service?.stop();
  });

  test("each strategy's route and bundle, sent as answered (beforeSending, then exactly `gas`), succeeds on the first try", async () => {
    const executor = getAddress(service.deployment.execution.executor as Address);
    for (const [i, strategy] of STRATEGIES.entries()) {
      const u = a.user(1 + i);
      const from = getAddress(u.account.address);
      const amountIn = a.usd("USDC", 2_000);
      await a.fund(from, a.token("USDC"), 2n * amountIn);
      const r = await route({
        fromAddress: from,
        tokenIn: a.token("USDC"),
        tokenOut: a.token("WETH"),
        amountIn: amountIn.toString(),
        routingStrategy: strategy,
      });
      if (strategy === "delegate") {
        expect(r.beforeSending).toEqual([
          {
            type: "delegate",
            account: from,
            delegateTo: getAddress(service.deployment.execution.delegateExecutor as Address),
          },
        ]);
      } else {
        // router: the router; corewallet: the caller's own wallet (walletOf), not tx.to (the
        // factory, which a client approving `tx.to` would wrongly approve).
        const spender =
          strategy === "router"
            ? getAddress(service.deployment.execution.router as Address)
            : await walletOf(from);
        expect(r.beforeSending).toEqual([
          {
            type: "approve",
            token: getAddress(a.token("USDC")),
            spender,
            amount: amountIn.toString(),
          },
        ]);
        expect(r.tx.to).toBe(
          getAddress(
            (strategy === "router"
              ? service.deployment.execution.router
              : service.deployment.execution.walletFactory) as Address,
          ),
        );
      }
      const before = await a.balanceOf(a.token("WETH"), from);
      const receipt = await follow(u, r);
      expect({ strategy, status: receipt.status }).toEqual({ strategy, status: "success" });
      expect((await a.balanceOf(a.token("WETH"), from)) - before).toBe(BigInt(r.amountOut ?? 0));
      await settle();

      const b = await bundle({ fromAddress: from, routingStrategy: strategy }, [
        {
          protocol: "core",
          action: "route",
          args: {
            tokenIn: a.token("USDC"),
            tokenOut: a.token("WETH"),
            amountIn: amountIn.toString(),
          },
        },
      ]);
      const receiptB = await follow(u, b);
      expect({ strategy, status: receiptB.status }).toEqual({ strategy, status: "success" });
      await settle();
    }
    expect(await a.balanceOf(a.token("USDC"), executor)).toBe(0n);
  });

  test("a sandwich that moves the price past the slippage makes every strategy's named-pool swap revert", async () => {
    const pool = usdcWethV3Pool();
    const attacker = a.user(0);
    const attackerFrom = getAddress(attacker.account.address);
    for (const [i, strategy] of STRATEGIES.entries()) {
      const u = a.user(4 + i);
      const from = getAddress(u.account.address);
      const amountIn = a.usd("USDC", 20_000);
      await a.fund(from, a.token("USDC"), amountIn);
      const victimActions = [
        {
          protocol: "uniswap-v3",
          action: "swap",
          args: {
            primaryAddress: pool,
            tokenIn: a.token("USDC"),
            tokenOut: a.token("WETH"),
            amountIn: amountIn.toString(),
          },
        },
      ];
      const victim = await bundle({ fromAddress: from, routingStrategy: strategy }, victimActions);
      const quoted = BigInt(victim.amountsOut?.[getAddress(a.token("WETH"))] ?? 0);
      // The front-runner buys WETH on the same pool first, moving its price well past 3%.
      const big = a.usd("USDC", 2_500_000);
      await a.fund(attackerFrom, a.token("USDC"), big);
      const front = await bundle({ fromAddress: attackerFrom }, [
        {
          protocol: "uniswap-v3",
          action: "swap",
          args: {
            primaryAddress: pool,
            tokenIn: a.token("USDC"),
            tokenOut: a.token("WETH"),
            amountIn: big.toString(),
          },
        },
      ]);
      expect((await follow(attacker, front)).status).toBe("success");
      await settle();
      // The same swap now pays more than 3% less than the answer said.
      const moved = await bundle({ fromAddress: from, routingStrategy: strategy }, victimActions);
      const now = BigInt(moved.amountsOut?.[getAddress(a.token("WETH"))] ?? 0);
      expect(now).toBeLessThan((quoted * 9_700n) / 10_000n);
      const usdcBefore = await a.balanceOf(a.token("USDC"), from);
      const wethBefore = await a.balanceOf(a.token("WETH"), from);
      const receipt = await follow(u, victim);
      expect({ strategy, status: receipt.status }).toEqual({ strategy, status: "reverted" });
      // The approval (router, corewallet) or delegation happened; the funds did not move.
      expect(await a.balanceOf(a.token("USDC"), from)).toBe(usdcBefore);
      expect(await a.balanceOf(a.token("WETH"), from)).toBe(wethBefore);
      // The back-run: the attacker sells the WETH again, restoring the pool for the next case.
      const wethHeld = await a.balanceOf(a.token("WETH"), attackerFrom);
      const back = await bundle({ fromAddress: attackerFrom }, [
        {
          protocol: "uniswap-v3",
          action: "swap",
          args: {
            primaryAddress: pool,
            tokenIn: a.token("WETH"),
            tokenOut: a.token("USDC"),
            amountIn: wethHeld.toString(),
          },
        },
      ]);
      expect((await follow(attacker, back)).status).toBe("success");
      await settle();
    }
  });

  /** The V2 pair of two devnet tokens, with its token0. */
  const v2PairOf = async (x: Address, y: Address) => {
    for (const pair of service.deployment.uniswapV2.pairs) {
      const [token0, token1] = await Promise.all(
        (["token0", "token1"] as const).map(async (functionName) =>
          getAddress(
            await a.client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName }),
          ),
        ),
      );
      if (new Set([token0, token1, getAddress(x), getAddress(y)]).size === 2) {
        return { pair, token0 };
      }
    }
    throw new Error("no such V2 pair");
  };

  /** The revert data of `tx` sent from `from` now ('no revert' when it would succeed). */
  const revertOf = async (from: Address, tx: Answer["tx"]): Promise<Hex> => {
    const reverted = await a.client
      .call({ account: from, to: tx.to, data: tx.data, value: BigInt(tx.value) })
      .then(
        () => "no revert",
        (error: BaseError) => {
          const withData = error.walk(
            (e) => typeof (e as { data?: unknown }).data === "string",
          ) as { data: Hex } | null;
          return withData?.data ?? `no revert data in ${error.message}`;
        },
      );
    if (!isHex(reverted)) throw new Error(reverted);
    return reverted;
  };

  test("a V2 swap paid on to a merchant and sandwiched between the answer and the transaction reverts under every strategy; the merchant's amount is checked", async () => {
    const usdc = getAddress(a.token("USDC"));
    const weth = getAddress(a.token("WETH"));
    const { pair, token0 } = await v2PairOf(usdc, weth);
    const merchant = "0x000000000000000000000000000000000000bEEF" as Address;
    const courier = "0x000000000000000000000000000000000000C0C0" as Address;
    const deployer = getAddress(a.deployer.account.address);
    const reserves = async () => {
      const [r0, r1] = await a.client.readContract({
        address: pair,
        abi: UniswapV2PairAbi,
        functionName: "getReserves",
      });
      return token0 === usdc ? { usdc: r0, weth: r1 } : { usdc: r1, weth: r0 };
    };
    /** UniswapV2Library.getAmountOut. */
    const amountOut = (amountIn: bigint, reserveIn: bigint, reserveOut: bigint) =>
      (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n);
    /** Someone else's swap on the pair (sent to it, then `swap`), as a sandwich's legs are. */
    const swapOnPair = async (tokenIn: Address, amountIn: bigint): Promise<bigint> => {
      const r = await reserves();
      const out =
        tokenIn === usdc
          ? amountOut(amountIn, r.usdc, r.weth)
          : amountOut(amountIn, r.weth, r.usdc);
      await a.fund(pair, tokenIn, amountIn);
      const [out0, out1] = tokenIn === token0 ? [0n, out] : [out, 0n];
      await a.send(a.deployer, {
        to: pair,
        data: encodeFunctionData({
          abi: UniswapV2PairAbi,
          functionName: "swap",
          args: [out0, out1, deployer, "0x"],
        }),
      });
      return out;
    };
    const errorsAbi = [
      ...loadArtifact("RouterExecutor").abi,
      ...loadArtifact("DelegateExecutor").abi,
      ...loadArtifact("CoreWallet").abi,
      ...loadArtifact("MinAmountOutCheck").abi,
    ].filter((item) => item.type === "error");
    for (const [i, strategy] of STRATEGIES.entries()) {
      const u = a.user(4 + i);
      const from = getAddress(u.account.address);
      const account =
        strategy === "router"
          ? getAddress(service.deployment.execution.executor as Address)
          : strategy === "delegate"
            ? from
            : await walletOf(from);
      const amountIn = a.usd("USDC", 5_000);
      const courierFee = a.usd("USDC", 10);
      await a.fund(from, usdc, amountIn + courierFee);
      const answer = await bundle({ fromAddress: from, routingStrategy: strategy }, [
        {
          protocol: "uniswap-v2",
          action: "swap",
          args: { primaryAddress: pair, tokenIn: usdc, tokenOut: weth, amountIn: `${amountIn}` },
        },
        {
          protocol: "core",
          action: "transfer",
          args: { token: weth, receiver: merchant, amount: ref(0) },
        },
        {
          protocol: "core",
          action: "transfer",
          args: { token: usdc, receiver: courier, amount: `${courierFee}` },
        },
      ]);
      const before = await reserves();
      const listed = amountOut(amountIn, before.usdc, before.weth);
      // Both payees are listed, and so both are checked.
      expect({ strategy, amountsOut: answer.amountsOut }).toEqual({
        strategy,
        amountsOut: { [weth]: `${listed}`, [usdc]: `${courierFee}` },
      });
      // The sandwich's front leg: 22.3% more USDC in the pair, so the swap pays about 2/3 of
      // what was listed, far below the 97% minimum.
      const front = await swapOnPair(usdc, (before.usdc * 223n) / 1000n);
      const moved = await reserves();
      const paying = amountOut(amountIn, moved.usdc, moved.weth);
      expect(paying).toBeLessThan((listed * 6_700n) / 10_000n);
      const merchantBefore = await a.balanceOf(weth, merchant);
      const receipt = await follow(u, answer);
      expect
        .soft({
          strategy,
          status: receipt.status,
          merchantGot: (await a.balanceOf(weth, merchant)) - merchantBefore,
        })
        .toEqual({ strategy, status: "reverted", merchantGot: 0n });
      // The swap's own minimum stops it first: its output, on the account that runs the
      // program, is the simulated amount less the bundle's 300 bps.
      const outer = decodeErrorResult({ abi: errorsAbi, data: await revertOf(from, answer.tx) });
      expect(outer.errorName).toBe("ExecutionFailed");
      const [, target, reason] = outer.args as [bigint, Address, Hex];
      const inner = decodeErrorResult({ abi: errorsAbi, data: reason });
      expect({ strategy, target, errorName: inner.errorName, args: inner.args }).toEqual({
        strategy,
        target: getAddress(service.deployment.execution.minAmountOutCheck as Address),
        errorName: "InsufficientOutput",
        args: [weth, account, paying, (listed * 9_700n) / 10_000n],
      });
      // The back leg restores the pair for the next strategy.
      await swapOnPair(weth, front);
      await settle();
    }
  });

  test("delegate with a receiver hands over only what the transaction made: the account's savings in every touched token stay to the wei", async () => {
    const u = a.user(7);
    const from = getAddress(u.account.address);
    const receiver = "0x000000000000000000000000000000000000c0fe" as Address;
    const usdc = a.token("USDC");
    const weth = a.token("WETH");
    await a.fund(from, usdc, a.usd("USDC", 10_000));
    await a.fund(from, weth, parseEther("20"));
    const savings = {
      usdc: await a.balanceOf(usdc, from),
      weth: await a.balanceOf(weth, from),
    };
    const b = await bundle({ fromAddress: from, routingStrategy: "delegate", receiver }, [
      {
        protocol: "wrapped-native",
        action: "deposit",
        args: { amountIn: parseEther("1").toString() },
      },
      {
        protocol: "uniswap-v3",
        action: "swap",
        args: { primaryAddress: usdcWethV3Pool(), tokenIn: weth, tokenOut: usdc, amountIn: ref(0) },
      },
    ]);
    const delivered = BigInt(b.amountsOut?.[getAddress(usdc)] ?? 0);
    expect(b.amountsOut).toEqual({ [getAddress(usdc)]: delivered.toString() });
    const nativeBefore = await a.balanceOf(NATIVE_TOKEN_ADDRESS, from);
    const receipt = await follow(u, b);
    expect(receipt.status).toBe("success");
    expect(await a.balanceOf(usdc, receiver)).toBe(delivered);
    expect(await a.balanceOf(weth, receiver)).toBe(0n);
    expect(await a.balanceOf(usdc, from)).toBe(savings.usdc);
    expect(await a.balanceOf(weth, from)).toBe(savings.weth);
    expect(nativeBefore - (await a.balanceOf(NATIVE_TOKEN_ADDRESS, from))).toBe(
      parseEther("1") + receipt.gasUsed * receipt.effectiveGasPrice,
    );
    await settle();
  });

  test("router with a receiver pulls exactly amountIn: the caller's savings in every touched token stay to the wei", async () => {
    const u = a.user(2);
    const from = getAddress(u.account.address);
    const receiver = "0x000000000000000000000000000000000000d00d" as Address;
    const usdc = a.token("USDC");
    const weth = a.token("WETH");
    await a.fund(from, usdc, a.usd("USDC", 10_000));
    await a.fund(from, weth, parseEther("20"));
    const savings = { usdc: await a.balanceOf(usdc, from), weth: await a.balanceOf(weth, from) };
    const amountIn = a.usd("USDC", 1_000);
    const b = await bundle({ fromAddress: from, receiver }, [
      {
        protocol: "core",
        action: "route",
        args: { tokenIn: usdc, tokenOut: weth, amountIn: amountIn.toString() },
      },
    ]);
    const delivered = BigInt(b.amountsOut?.[getAddress(weth)] ?? 0);
    expect(b.amountsOut).toEqual({ [getAddress(weth)]: delivered.toString() });
    expect((await follow(u, b)).status).toBe("success");
    expect(await a.balanceOf(weth, receiver)).toBe(delivered);
    expect(await a.balanceOf(usdc, from)).toBe(savings.usdc - amountIn);
    expect(await a.balanceOf(weth, from)).toBe(savings.weth);
    await settle();
  });

  test("corewallet with a receiver leaves what the wallet held before in the wallet", async () => {
    const u = a.user(8);
    const from = getAddress(u.account.address);
    const receiver = "0x000000000000000000000000000000000000beef" as Address;
    const usdc = a.token("USDC");
    const weth = a.token("WETH");
    const wallet = await walletOf(from);
    await a.fund(wallet, usdc, a.usd("USDC", 5_000));
    await a.fund(wallet, weth, parseEther("3"));
    const held = { usdc: await a.balanceOf(usdc, wallet), weth: await a.balanceOf(weth, wallet) };
    const amountIn = a.usd("USDC", 1_000);
    await a.fund(from, usdc, amountIn);
    const b = await bundle({ fromAddress: from, routingStrategy: "corewallet", receiver }, [
      {
        protocol: "core",
        action: "route",
        args: { tokenIn: usdc, tokenOut: weth, amountIn: amountIn.toString() },
      },
    ]);
    expect(b.beforeSending).toEqual([
      {
        type: "approve",
        token: getAddress(usdc),
        spender: getAddress(wallet),
        amount: amountIn.toString(),
      },
    ]);
    const receipt = await follow(u, b);
    expect(receipt.status).toBe("success");
    const delivered = BigInt(b.amountsOut?.[getAddress(weth)] ?? 0);
    expect(delivered).toBeGreaterThan(0n);
    expect(await a.balanceOf(weth, receiver)).toBe(delivered);
    expect(await a.balanceOf(usdc, wallet)).toBe(held.usdc);
    expect(await a.balanceOf(weth, wallet)).toBe(held.weth);
    await settle();
  });

  test("minamountout counts what the transaction made, not what the account already held", async () => {
    const u = a.user(7);
    const from = getAddress(u.account.address);
    const usdc = a.token("USDC");
    await a.fund(from, usdc, a.usd("USDC", 1_000));
    // The account holds thousands of USDC; a 0.001 ETH swap makes only a few.
    const res = await post({ fromAddress: from, routingStrategy: "delegate" }, [
      {
        protocol: "wrapped-native",
        action: "deposit",
        args: { amountIn: parseEther("0.001").toString() },
      },
      {
        protocol: "uniswap-v3",
        action: "swap",
        args: {
          primaryAddress: usdcWethV3Pool(),
          tokenIn: a.token("WETH"),
          tokenOut: usdc,
          amountIn: ref(0),
        },
      },
      {
        protocol: "core",
        action: "minamountout",
        args: { token: usdc, amount: a.usd("USDC", 100).toString() },
      },
    ]);
    expect(res.status).toBe(422);
    expect((res.body as { message: string }).message).toMatch(
      new RegExp(
        `^Action 2 \\(core minamountout\\) failed in simulation: Step \\d+ \\(check minimum output on 0x[0-9a-fA-F]{40}\\) failed: ${from} received \\d+ of ${getAddress(usdc)}, less than the minimum ${a.usd("USDC", 100)}\\.$`,
      ),
    );
  });

  test("1 wei of native forced into the executor by SELFDESTRUCT and 1 wei of tokenIn sent to it block no route or bundle", async () => {
    const executor = service.deployment.execution.executor as Address;
    const artifact = loadArtifact("ForceSend");
    const hash = await a.deployer.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args: [executor],
      value: 1n,
    } as never);
    expect((await devnetReceipt(a.client as never, hash)).status).toBe("success");
    await a.fund(executor, a.token("USDC"), 1n);
    expect(await a.balanceOf(NATIVE_TOKEN_ADDRESS, executor)).toBe(1n);
    await settle();
    const u = a.user(6);
    const from = getAddress(u.account.address);
    const amountIn = a.usd("USDC", 500);
    await a.fund(from, a.token("USDC"), 2n * amountIn);
    const r = await route({
      fromAddress: from,
      tokenIn: a.token("USDC"),
      tokenOut: a.token("WETH"),
      amountIn: amountIn.toString(),
    });
    expect((await follow(u, r)).status).toBe("success");
    await settle();
    const b = await bundle({ fromAddress: from }, [
      {
        protocol: "core",
        action: "route",
        args: { tokenIn: a.token("USDC"), tokenOut: a.token("DAI"), amountIn: amountIn.toString() },
      },
    ]);
    expect((await follow(u, b)).status).toBe("success");
    await settle();
  });

  test("approvals made by router bundles (approve, and approve through call) are reset within the transaction", async () => {
    const u = a.user(6);
    const from = getAddress(u.account.address);
    const executor = service.deployment.execution.executor as Address;
    const spender = "0x000000000000000000000000000000000000a77a" as Address;
    const usdc = a.token("USDC");
    const weth = a.token("WETH");
    const amountIn = a.usd("USDC", 300);
    await a.fund(from, usdc, amountIn);
    const b = await bundle({ fromAddress: from }, [
      {
        protocol: "core",
        action: "route",
        args: { tokenIn: usdc, tokenOut: weth, amountIn: amountIn.toString() },
      },
      { protocol: "core", action: "approve", args: { token: weth, spender, amount: "5" } },
      {
        protocol: "core",
        action: "call",
        args: {
          address: usdc,
          method: "approve",
          abi: "function approve(address spender, uint256 amount) returns (bool)",
          args: [spender, "7"],
        },
      },
    ]);
    // `follow` → the shared harness checks every Approval of the executor ends at zero.
    const receipt = await follow(u, b);
    expect(receipt.status).toBe("success");
    const allowance = (token: Address) =>
      a.client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "allowance",
        args: [executor, spender],
      });
    expect([await allowance(weth), await allowance(usdc)]).toEqual([0n, 0n]);
    await settle();
  });

  test("tokens a router bundle's call makes and no action names reach the receiver (swept), not the executor", async () => {
    const u = a.user(4);
    const from = getAddress(u.account.address);
    const executor = service.deployment.execution.executor as Address;
    const router02 = service.deployment.uniswapV2.router02;
    const [usdc, dai, weth] = [a.token("USDC"), a.token("DAI"), a.token("WETH")];
    const amountIn = a.usd("USDC", 400);
    await a.fund(from, usdc, amountIn);
    // Router02 pays WETH to the executor; no action of the bundle names WETH.
    const b = await bundle({ fromAddress: from }, [
      {
        protocol: "core",
        action: "route",
        args: { tokenIn: usdc, tokenOut: dai, amountIn: amountIn.toString() },
      },
      {
        protocol: "core",
        action: "approve",
        args: { token: dai, spender: router02, amount: ref(0) },
      },
      {
        protocol: "core",
        action: "call",
        args: {
          address: router02,
          method: "swapExactTokensForTokens",
          abi: "function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
          args: [ref(0), "1", [dai, weth], executor, "99999999999"],
        },
      },
    ]);
    const delivered = BigInt(b.amountsOut?.[getAddress(weth)] ?? 0);
    expect(delivered).toBeGreaterThan(0n);
    const before = await a.balanceOf(weth, from);
    expect((await follow(u, b)).status).toBe("success");
    expect((await a.balanceOf(weth, from)) - before).toBe(delivered);
    expect(await a.balanceOf(weth, executor)).toBe(0n);
    expect(await a.balanceOf(dai, executor)).toBe(0n);
    await settle();
  });

  test("SPEC 4.2 under the router: route, deposit into a vault, then a core call of the share's transfer(third, output of the deposit)", async () => {
    const u = a.user(3);
    const from = getAddress(u.account.address);
    const third = "0x0000000000000000000000000000000000007412" as Address;
    const vault = a.vault("svUSDC");
    const b = await bundle({ fromAddress: from }, [
      {
        protocol: "core",
        action: "route",
        args: {
          tokenIn: NATIVE_TOKEN_ADDRESS,
          tokenOut: a.token("USDC"),
          amountIn: parseEther("1").toString(),
        },
      },
      {
        protocol: "savings-vaults",
        action: "deposit",
        args: {
          primaryAddress: vault,
          tokenIn: a.token("USDC"),
          tokenOut: vault,
          amountIn: ref(0),
        },
      },
      {
        protocol: "core",
        action: "call",
        args: {
          address: vault,
          method: "transfer",
          abi: "function transfer(address to, uint256 amount) returns (bool)",
          args: [third, ref(1)],
        },
      },
    ]);
    const shares = BigInt(b.amountsOut?.[getAddress(vault)] ?? 0);
    expect(Object.keys(b.amountsOut ?? {})).toEqual([getAddress(vault)]);
    const receipt = await follow(u, b);
    expect(receipt.status).toBe("success");
    expect(await a.balanceOf(vault, third)).toBe(shares);
    await settle();
  });
  test("deadlines: an explicit past deadline is a 422; the default (simulated block + 20 min) reverts once passed", async () => {
    const u = a.user(5);
    const from = getAddress(u.account.address);
    const usdc = a.token("USDC");
    const amountIn = a.usd("USDC", 100);
    await a.fund(from, usdc, 2n * amountIn);
    const latest = await a.client.getBlock();
    for (const strategy of STRATEGIES) {
      const res = await get("/v1/shortcuts/route", {
        fromAddress: from,
        tokenIn: usdc,
        tokenOut: a.token("WETH"),
        amountIn: amountIn.toString(),
        routingStrategy: strategy,
        deadline: String(latest.timestamp - 1n),
      });
      expect({ strategy, status: res.status }).toEqual({ strategy, status: 422 });
      expect((res.body as { message: string }).message).toMatch(
        new RegExp(
          `the deadline ${latest.timestamp - 1n} passed \\(block time \\d+\\): DeadlineExpired\\.$`,
        ),
      );
    }
    for (const strategy of STRATEGIES) {
      const r = await route({
        fromAddress: from,
        tokenIn: usdc,
        tokenOut: a.token("WETH"),
        amountIn: amountIn.toString(),
        routingStrategy: strategy,
      });
      const now = (await a.client.getBlock()).timestamp;
      // The simulated block's timestamp: at or after the last mined block's, not in the future.
      expect(BigInt(r.deadline) - 1_200n).toBeGreaterThanOrEqual(latest.timestamp);
      expect(BigInt(r.deadline) - 1_200n).toBeLessThanOrEqual(now + 2n);
      await a.client.request({
        method: "evm_setNextBlockTimestamp" as never,
        params: [`0x${(BigInt(r.deadline) + 1n).toString(16)}`] as never,
      });
      const receipt = await follow(u, r);
      expect({ strategy, status: receipt.status }).toEqual({ strategy, status: "reverted" });
      await settle();
    }
  });
  test("router: a bundle's named V2 swap is checked on chain at the default 300 bps below the simulated amount, to the wei", async () => {
    // A named V2 swap carries a minimum of its own (as the router's check of the receiver's
    // growth does, at the same amount). The pair's input reserve is raised (tokens minted to it,
    // then `sync`) by the largest amount that still lets the swap pay 97% of the simulated
    // amount, or by one wei more; the pair's own formula gives the swap's output either way.
    const usdc = getAddress(a.token("USDC"));
    const weth = getAddress(a.token("WETH"));
    const pairs = await Promise.all(
      service.deployment.uniswapV2.pairs.map(async (pair) => ({
        pair,
        token0: getAddress(
          await a.client.readContract({
            address: pair,
            abi: UniswapV2PairAbi,
            functionName: "token0",
          }),
        ),
        token1: getAddress(
          await a.client.readContract({
            address: pair,
            abi: UniswapV2PairAbi,
            functionName: "token1",
          }),
        ),
      })),
    );
    const found = pairs.find(
      (p) => new Set([p.token0, p.token1]).has(usdc) && new Set([p.token0, p.token1]).has(weth),
    );
    if (!found) throw new Error("no USDC/WETH V2 pair");
    const { pair } = found;
    const u = a.user(8);
    const from = getAddress(u.account.address);
    const amountIn = a.usd("USDC", 1_000);
    const swap = [
      {
        protocol: "uniswap-v2",
        action: "swap",
        args: {
          primaryAddress: pair,
          tokenIn: usdc,
          tokenOut: weth,
          amountIn: amountIn.toString(),
        },
      },
    ];
    /** UniswapV2Library.getAmountOut with the input reserve raised by `extra`. */
    const outAfter = async (extra: bigint) => {
      const [r0, r1] = await a.client.readContract({
        address: pair,
        abi: UniswapV2PairAbi,
        functionName: "getReserves",
      });
      const [reserveIn, reserveOut] = found.token0 === usdc ? [r0, r1] : [r1, r0];
      const inWithFee = amountIn * 997n;
      return (inWithFee * reserveOut) / ((reserveIn + extra) * 1000n + inWithFee);
    };
    /** The bundle's answer, and the input-reserve raise that sits at its minimum. */
    const atTheBound = async () => {
      const answer = await bundle({ fromAddress: from }, swap);
      const simulated = BigInt(answer.amountsOut?.[weth] ?? 0);
      expect(simulated).toBe(await outAfter(0n));
      const min = (simulated * 9_700n) / 10_000n;
      // The largest raise with outAfter(raise) >= min (outAfter only falls as the raise grows).
      let [lo, hi] = [0n, 10n ** 30n];
      while (hi - lo > 1n) {
        const mid = (lo + hi) / 2n;
        if ((await outAfter(mid)) >= min) lo = mid;
        else hi = mid;
      }
      return { answer, min, raise: lo };
    };
    const raiseInputReserve = async (amount: bigint) => {
      await a.fund(pair, usdc, amount);
      await a.send(a.deployer, {
        to: pair,
        data: encodeFunctionData({ abi: UniswapV2PairAbi, functionName: "sync" }),
      });
    };
    await a.fund(from, usdc, 2n * amountIn);

    // At the bound: the swap pays at least the minimum, and the transaction goes through.
    const ok = await atTheBound();
    await raiseInputReserve(ok.raise);
    const paying = await outAfter(0n);
    expect(paying).toBeGreaterThanOrEqual(ok.min);
    const wethBefore = await a.balanceOf(weth, from);
    expect((await follow(u, ok.answer)).status).toBe("success");
    expect((await a.balanceOf(weth, from)) - wethBefore).toBe(paying);
    await settle();

    // One wei past it: the swap's own check refuses, naming the token, the executor that the
    // pair paid, what arrived and the minimum, which is the simulated amount less 300 bps.
    const short = await atTheBound();
    await raiseInputReserve(short.raise + 1n);
    const arriving = await outAfter(0n);
    expect(arriving).toBeLessThan(short.min);
    for (const step of short.answer.beforeSending) {
      if (step.type === "approve")
        await a.approve(u, step.token, step.spender, BigInt(step.amount));
    }
    // The revert data of the node's error, wherever viem's error chain carries it.
    const reverted = await a.client
      .call({ account: from, to: short.answer.tx.to, data: short.answer.tx.data })
      .then(
        () => "the transaction did not revert",
        (error: BaseError) => {
          const withData = error.walk(
            (e) => typeof (e as { data?: unknown }).data === "string",
          ) as { data: Hex } | null;
          return withData?.data ?? `no revert data in ${error.message}`;
        },
      );
    if (!isHex(reverted)) throw new Error(reverted);
    const errorsAbi = [
      ...ShortcutRouterAbi,
      ...loadArtifact("RouterExecutor").abi,
      ...loadArtifact("MinAmountOutCheck").abi,
    ].filter((item) => item.type === "error");
    const outer = decodeErrorResult({ abi: errorsAbi, data: reverted });
    expect(outer.errorName).toBe("ExecutionFailed");
    const [, target, reason] = outer.args as [bigint, Address, Hex];
    const decoded = decodeErrorResult({ abi: errorsAbi, data: reason });
    expect({ target, errorName: decoded.errorName, args: decoded.args }).toEqual({
      target: getAddress(service.deployment.execution.minAmountOutCheck as Address),
      errorName: "InsufficientOutput",
      args: [
        weth,
        getAddress(service.deployment.execution.executor as Address),
        arriving,
        short.min,
      ],
    });
    const usdcBefore = await a.balanceOf(usdc, from);
    expect((await follow(u, short.answer)).status).toBe("reverted");
    expect(await a.balanceOf(usdc, from)).toBe(usdcBefore);
    await settle();
  });
});
