import {
  type Address,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  type WalletClient,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadArtifact } from "../contracts/build.js";
import { devnetReceipt } from "../devnet/receipts.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/core/native.js";
import { devnetActors } from "./harness/actors.js";
import { type ServiceInstance, startService, waitForIndexedBlock } from "./harness/service.js";

type ApproveAnswer = {
  tx: { data: Hex; to: Address; from: Address; value: string };
  gas: string;
  token: Address;
  amount: string;
  spender: Address;
};

type RouteAnswer = {
  amountOut: string;
  tx: { data: Hex; to: Address; from: Address; value: string };
};

const walletOfAbi = [
  {
    type: "function",
    name: "walletOf",
    stateMutability: "view",
    inputs: [{ type: "address" }],
    outputs: [{ type: "address" }],
  },
] as const;

/** A gas limit no route of these tests comes near (the route's own `gas` is not under test). */
const ROUTE_GAS_LIMIT = 3_000_000n;

describe("GET /v1/wallet/approve on the devnet", () => {
  let service: ServiceInstance;
  let a: Awaited<ReturnType<typeof devnetActors>>;
  let chainId: number;
  let router: Address;
  /** A USDT-style token: no change of an allowance from one non-zero value to another. */
  let usdtStyle: Address;

  const get = async (path: string, query: Record<string, string>) => {
    const res = await fetch(`${service.url}${path}?${new URLSearchParams(query)}`);
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const approval = async (query: Record<string, string>): Promise<ApproveAnswer> => {
    const res = await get("/v1/wallet/approve", query);
    if (res.status !== 200) throw new Error(`approve ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as ApproveAnswer;
  };
  const route = async (query: Record<string, string>): Promise<RouteAnswer> => {
    const res = await get("/v1/shortcuts/route", query);
    if (res.status !== 200) throw new Error(`route ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as RouteAnswer;
  };
  const allowance = async (token: Address, owner: Address, spender: Address) =>
    await a.client.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "allowance",
      args: [owner, spender],
    });
  /** What the node estimates for `approve(spender, amount)` on `token` from `from`. */
  const estimate = async (token: Address, from: Address, spender: Address, amount: bigint) =>
    await a.client.estimateGas({
      account: from,
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, amount] }),
    });
  /** Sends a returned transaction with the given gas limit; a revert fails the test. */
  const sendTx = async (
    w: WalletClient,
    tx: { data: Hex; to: Address; value: string },
    gas: bigint,
  ) => {
    const receipt = await a.send(w, { to: tx.to, data: tx.data, value: BigInt(tx.value), gas });
    expect({ status: receipt.status, gasLimit: gas }).toEqual({ status: "success", gasLimit: gas });
    return receipt;
  };
  /** Routes answer 503 while the index lags the chain: let it catch up after sending. */
  const settle = async () =>
    waitForIndexedBlock(service, await a.client.getBlockNumber({ cacheTime: 0 }));

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    chainId = service.deployment.chainId;
    a = await devnetActors(service);
    router = getAddress(service.deployment.execution.router as Address);
    const artifact = loadArtifact("NonZeroApprovalToken");
    const hash = await a.deployer.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      chain: a.deployer.chain,
      account: a.deployer.account,
    });
    const receipt = await devnetReceipt(a.client, hash);
    if (!receipt.contractAddress) throw new Error("NonZeroApprovalToken was not deployed");
    usdtStyle = getAddress(receipt.contractAddress);
    await settle();
  });

  afterAll(async () => {
    await service?.stop();
  });

  test("router (the default): approves the router with the node's estimate; a route then executes", async () => {
    const u = a.user(1);
    const from = getAddress(u.account.address);
    const usdc = getAddress(a.token("USDC"));
    const amount = a.usd("USDC", 2_500);
    await a.fund(from, usdc, amount);

    const query = { chainId: String(chainId), fromAddress: from, tokenAddress: usdc };
    const byDefault = await approval({ ...query, amount: amount.toString() });
    const expected: ApproveAnswer = {
      tx: {
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: "approve",
          args: [router, amount],
        }),
        to: usdc,
        from,
        value: "0",
      },
      gas: (await estimate(usdc, from, router, amount)).toString(),
      token: usdc,
      amount: amount.toString(),
      spender: router,
    };
    expect(byDefault).toEqual(expected);
    expect(decodeFunctionData({ abi: erc20Abi, data: byDefault.tx.data })).toEqual({
      functionName: "approve",
      args: [router, amount],
    });
    // Addresses given in lowercase come back checksummed; the SDK sends routingStrategy=router.
    const lowercase = await approval({
      fromAddress: from.toLowerCase(),
      tokenAddress: usdc.toLowerCase(),
      amount: amount.toString(),
      routingStrategy: "router",
    });
    expect(lowercase).toEqual(expected);

    const receipt = await sendTx(u, byDefault.tx, BigInt(byDefault.gas));
    expect(receipt.gasUsed).toBeLessThanOrEqual(BigInt(byDefault.gas));
    expect(await allowance(usdc, from, router)).toBe(amount);

    await settle();
    const r = await route({
      fromAddress: from,
      tokenIn: usdc,
      tokenOut: a.token("WETH"),
      amountIn: amount.toString(),
      routingStrategy: "router",
    });
    const wethBefore = await a.balanceOf(a.token("WETH"), from);
    await sendTx(u, r.tx, ROUTE_GAS_LIMIT);
    expect(await a.balanceOf(a.token("WETH"), from)).toBe(wethBefore + BigInt(r.amountOut));
    expect(await a.balanceOf(usdc, from)).toBe(0n);
    expect(await allowance(usdc, from, router)).toBe(0n);
    await settle();
  });

  test("corewallet: approves the caller's own wallet, before and after it is deployed", async () => {
    const u = a.user(2);
    const from = getAddress(u.account.address);
    const link = getAddress(a.token("LINK"));
    const amount = a.usd("LINK", 1_500);
    await a.fund(from, link, amount);
    const factory = service.deployment.execution.walletFactory as Address;
    const wallet = getAddress(
      await a.client.readContract({
        address: factory,
        abi: walletOfAbi,
        functionName: "walletOf",
        args: [from],
      }),
    );
    expect(await a.client.getCode({ address: wallet })).toBeUndefined();

    const query = {
      fromAddress: from,
      tokenAddress: link,
      amount: amount.toString(),
      routingStrategy: "corewallet",
    };
    const answer = await approval(query);
    expect(answer).toEqual({
      tx: {
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: "approve",
          args: [wallet, amount],
        }),
        to: link,
        from,
        value: "0",
      },
      gas: (await estimate(link, from, wallet, amount)).toString(),
      token: link,
      amount: amount.toString(),
      spender: wallet,
    });
    expect(decodeFunctionData({ abi: erc20Abi, data: answer.tx.data })).toEqual({
      functionName: "approve",
      args: [wallet, amount],
    });
    await sendTx(u, answer.tx, BigInt(answer.gas));
    expect(await allowance(link, from, wallet)).toBe(amount);

    await settle();
    const r = await route({
      fromAddress: from,
      tokenIn: link,
      tokenOut: a.token("USDC"),
      amountIn: amount.toString(),
      routingStrategy: "corewallet",
    });
    const usdcBefore = await a.balanceOf(a.token("USDC"), from);
    await sendTx(u, r.tx, ROUTE_GAS_LIMIT);
    expect(await a.balanceOf(a.token("USDC"), from)).toBe(usdcBefore + BigInt(r.amountOut));
    expect(await allowance(link, from, wallet)).toBe(0n);
    expect(await a.client.getCode({ address: wallet })).not.toBeUndefined();

    // The deployed wallet is the same spender.
    const again = await approval(query);
    expect(again.spender).toBe(wallet);
    expect(again.tx.data).toBe(answer.tx.data);
    await settle();
  });

  test("a USDT-style token: a non-zero to non-zero change is a 422 with the reason; 0 revokes", async () => {
    const u = a.user(3);
    const from = getAddress(u.account.address);
    const query = { fromAddress: from, tokenAddress: usdtStyle };

    const first = await approval({ ...query, amount: "1000" });
    expect(first.gas).toBe((await estimate(usdtStyle, from, router, 1000n)).toString());
    await sendTx(u, first.tx, BigInt(first.gas));
    expect(await allowance(usdtStyle, from, router)).toBe(1000n);

    expect(await get("/v1/wallet/approve", { ...query, amount: "2000" })).toEqual({
      status: 422,
      body: {
        statusCode: 422,
        error: "Unprocessable Entity",
        message: `Approving ${router} on token ${usdtStyle} fails on chain ${chainId}: approve from non-zero to non-zero allowance.`,
      },
    });

    const revoke = await approval({ ...query, amount: "0" });
    expect(revoke).toEqual({
      tx: {
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [router, 0n] }),
        to: usdtStyle,
        from,
        value: "0",
      },
      gas: (await estimate(usdtStyle, from, router, 0n)).toString(),
      token: usdtStyle,
      amount: "0",
      spender: router,
    });
    await sendTx(u, revoke.tx, BigInt(revoke.gas));
    expect(await allowance(usdtStyle, from, router)).toBe(0n);

    const second = await approval({ ...query, amount: "2000" });
    await sendTx(u, second.tx, BigInt(second.gas));
    expect(await allowance(usdtStyle, from, router)).toBe(2000n);
    await settle();
  });

  test("a contract that is not a token is a 422; an address without code a 400", async () => {
    const from = "0x00000000000000000000000000000000000a11ce";
    expect(
      await get("/v1/wallet/approve", { fromAddress: from, tokenAddress: router, amount: "1" }),
    ).toEqual({
      status: 422,
      body: {
        statusCode: 422,
        error: "Unprocessable Entity",
        message: `Approving ${router} on token ${router} fails on chain ${chainId}: reverted without a reason.`,
      },
    });
    // eth_estimateGas of a call to an address without code succeeds like a plain transfer.
    for (const tokenAddress of [
      "0x0000000000000000000000000000000000000001",
      "0x00000000000000000000000000000000000b0b01",
    ]) {
      expect(
        await get("/v1/wallet/approve", { fromAddress: from, tokenAddress, amount: "1" }),
      ).toEqual({
        status: 400,
        body: {
          statusCode: 400,
          error: "Bad Request",
          message: `Query parameter \`tokenAddress\`: ${getAddress(tokenAddress)} has no contract code on chain ${chainId}, so it is not a token.`,
        },
      });
    }
  });

  test("bad input gets a 400 naming the parameter", async () => {
    const from = "0x00000000000000000000000000000000000a11ce";
    const base = { fromAddress: from, tokenAddress: a.token("USDC"), amount: "1000" };
    const without = (name: keyof typeof base) =>
      Object.fromEntries(Object.entries(base).filter(([k]) => k !== name));
    const amountRule =
      "expected an amount in wei: a whole number from 0 to 2^256 - 1, in decimal digits";
    const cases: [Record<string, string>, string][] = [
      [without("fromAddress"), "Query parameter `fromAddress` is required."],
      [without("tokenAddress"), "Query parameter `tokenAddress` is required."],
      [without("amount"), "Query parameter `amount` is required."],
      [
        { ...base, fromAddress: "0x1234" },
        "Invalid query parameter `fromAddress`: expected an address (0x followed by 40 hex digits).",
      ],
      [
        { ...base, tokenAddress: "USDC" },
        "Invalid query parameter `tokenAddress`: expected an address (0x followed by 40 hex digits).",
      ],
      [{ ...base, amount: "-1" }, `Invalid query parameter \`amount\`: ${amountRule}.`],
      [{ ...base, amount: "1.5" }, `Invalid query parameter \`amount\`: ${amountRule}.`],
      [
        { ...base, amount: (2n ** 256n).toString() },
        `Invalid query parameter \`amount\`: ${amountRule}.`,
      ],
      [
        { ...base, tokenAddress: NATIVE_TOKEN_ADDRESS },
        `Query parameter \`tokenAddress\`: ${NATIVE_TOKEN_ADDRESS} is the native currency, which needs no approval.`,
      ],
      [
        { ...base, routingStrategy: "delegate" },
        "Query parameter `routingStrategy`: with `delegate`, the caller's delegated (EIP-7702) account spends its own balance, so no approval is needed.",
      ],
      [
        { ...base, routingStrategy: "wallet" },
        "Invalid query parameter `routingStrategy`: expected one of router, delegate, corewallet.",
      ],
      [
        { ...base, spender: from },
        "Unknown query parameter `spender`; accepted: chainId, fromAddress, tokenAddress, amount, routingStrategy.",
      ],
      [
        { ...base, chainId: "5" },
        `Query parameter \`chainId\`: chain 5 is not indexed here; indexed chains: ${chainId}.`,
      ],
      [
        { ...base, chainId: "0" },
        "Invalid query parameter `chainId`: expected a chain id: a whole number from 1 to 9007199254740991.",
      ],
    ];
    for (const [query, message] of cases) {
      const res = await get("/v1/wallet/approve", query);
      expect({ query, ...res }).toEqual({
        query,
        status: 400,
        body: { statusCode: 400, error: "Bad Request", message },
      });
    }
    const repeated = await fetch(
      `${service.url}/v1/wallet/approve?${new URLSearchParams(base)}&amount=2`,
    );
    expect({ status: repeated.status, body: await repeated.json() }).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: "Bad Request",
        message: "Query parameter `amount` must be given once; it was given 2 times.",
      },
    });
  });
});
