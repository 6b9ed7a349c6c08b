/**
 * Routes whose amounts split and merge at intermediate tokens (flows), executed on the devnet
 * world under every strategy: DAI → USDC through one pool, USDC split between two USDC/WETH
 * pools (Uniswap V3 0.05% and V4 0.05%, by parts per billion), the WETH merged and swapped to WBTC through the V2 pair.
 * The receiver gets exactly the flow's exact quote; the executor keeps nothing; under `delegate`
 * the caller's own USDC and WETH stay untouched (only what the route made is spent). When the
 * first pool pays other than quoted, the split hop still spends all of what arrived.
 */
import {
  type Address,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  parseUnits,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { SwapRouterAbi } from "../../abis/SwapRouter.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { DEVNET_ACCOUNT_KEYS } from "../../devnet/anvil.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import type { ExecutionAddresses } from "../../engine/core/execution-addresses.js";
import type { Edge, RouteQuote } from "../../engine/core/types.js";
import {
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterSwapTx,
  executingAccount,
  planRouteProgram,
  quoteFlow,
  type RoutingGraph,
  type RoutingStrategy,
} from "../../engine/index.js";
import { ALL_PPB, type FlowPlanHop } from "../../engine/routing/quote-flow.js";
import { readDevnetGraph } from "./chain-graph.js";
import { type RoutingDevnet, startRoutingDevnet } from "./devnet.js";
import { flowRouteQuote } from "./fixtures.js";
import { erc20Balance } from "./onchain.js";

let net: RoutingDevnet;
let execution: ExecutionAddresses;

const lower = (a: Address) => a.toLowerCase() as Address;

const balanceOf = (token: Address, account: Address) => erc20Balance(net.client, token, account);

/** `sender` approves `spender` for `amount` of `token`. */
async function approve(
  sender: ReturnType<typeof user>,
  token: Address,
  spender: Address,
  amount: bigint,
): Promise<void> {
  const hash = await sender.writeContract({
    account: sender.account as never,
    chain: net.wallet.chain,
    address: token,
    abi: erc20Abi,
    functionName: "approve",
    args: [spender, amount],
  });
  expect((await devnetReceipt(net.client, hash)).status).toBe("success");
}

/** The edge from `a` to `b` through the pool of `protocol` and fee `feePpm`. */
function edgeOf(graph: RoutingGraph, a: string, b: string, protocol: string, feePpm: number): Edge {
  const tokenIn = lower(net.token(a).address);
  const tokenOut = lower(net.token(b).address);
  const edge = graph
    .edgesFrom(tokenIn)
    .find(
      (e) =>
        e.tokenOut === tokenOut &&
        e.pool.protocol === protocol &&
        (!("feePpm" in e.pool) || e.pool.feePpm === feePpm),
    );
  if (!edge) throw new Error(`the devnet has no ${protocol} ${a}/${b} pool of fee ${feePpm}`);
  return edge;
}

/** The V3 pool's share of the USDC, in parts per billion (finer than a basis point). */
const V3_SHARE = 612_345_678n;

/** DAI → USDC → {V3 0.05%: 61.2345678%, V4 0.05%: the rest} → WETH → WBTC, quoted on `graph`. */
function splitFlow(graph: RoutingGraph, amountIn: bigint): RouteQuote {
  const hops: FlowPlanHop[] = [
    { edge: edgeOf(graph, "DAI", "USDC", "uniswap-v3", 500), sharePpb: ALL_PPB },
    { edge: edgeOf(graph, "USDC", "WETH", "uniswap-v3", 500), sharePpb: Number(V3_SHARE) },
    {
      edge: edgeOf(graph, "USDC", "WETH", "uniswap-v4", 500),
      sharePpb: ALL_PPB - Number(V3_SHARE),
    },
    { edge: edgeOf(graph, "WETH", "WBTC", "uniswap-v2", 3000), sharePpb: ALL_PPB },
  ];
  const tokenIn = lower(net.token("DAI").address);
  const tokenOut = lower(net.token("WBTC").address);
  return flowRouteQuote(
    { tokenIn, tokenOut, amountIn, hops },
    quoteFlow({ tokenIn, tokenOut, amountIn, hops }),
  );
}

/** A devnet account's wallet client. */
function user(index: number): WalletClient & { account: { address: Address } } {
  return createWalletClient({
    chain: net.wallet.chain,
    transport: http(net.anvil.url, { batch: false }),
    account: privateKeyToAccount(DEVNET_ACCOUNT_KEYS[index] as Hex),
  }) as WalletClient & { account: { address: Address } };
}

async function mint(token: Address, to: Address, amount: bigint): Promise<void> {
  await net.send({ address: token, abi: DevTokenAbi, functionName: "mint", args: [to, amount] });
}

async function sendAs(
  sender: ReturnType<typeof user>,
  tx: { to: Address; data: Hex; value: bigint },
  authorize: boolean,
) {
  const authorizationList = authorize
    ? [
        await sender.signAuthorization({
          account: sender.account as never,
          contractAddress: execution.delegateExecutor,
          executor: "self",
        }),
      ]
    : undefined;
  const hash = await sender.sendTransaction({
    account: sender.account as never,
    chain: net.wallet.chain,
    to: tx.to,
    data: tx.data,
    value: tx.value,
    authorizationList,
    gas: 3_000_000n,
  });
  return await devnetReceipt(net.client, hash);
}

/** Encodes `quote` for `strategy` from `from` to `receiver`, as the route builder does. */
async function encodeFlow(
  strategy: RoutingStrategy,
  from: Address,
  receiver: Address,
  quote: RouteQuote,
  minAmountOut: bigint,
) {
  const { account } = executingAccount({ strategy, contracts: execution, from });
  const { timestamp } = await net.client.getBlock();
  const deadline = timestamp + 3_600n;
  const program = planRouteProgram({
    strategy,
    execution,
    swapRouter: net.deployment.uniswapV3.swapRouter,
    weth: net.deployment.weth,
    account,
    receiver,
    refundTo: from,
    quote,
    bounds: { deadline, slippageBps: 0 },
    minAmountOut,
  });
  const tokenIn = quote.tokenIn;
  if (strategy === "router") {
    return {
      account,
      tx: encodeRouterSwapTx({
        router: execution.router,
        from,
        tokenIn,
        amountIn: quote.amountIn,
        tokenOut: quote.tokenOut,
        minAmountOut,
        receiver,
        deadline,
        program,
      }),
      program,
    };
  }
  if (strategy === "delegate") return { account, tx: encodeDelegateTx({ from, program }), program };
  return {
    account,
    tx: encodeCoreWalletTx({
      walletFactory: execution.walletFactory,
      from,
      tokenIn,
      amountIn: quote.amountIn,
      program,
    }),
    program,
  };
}

describe("flows (split and merged at intermediate tokens) on chain", () => {
  beforeAll(async () => {
    net = await startRoutingDevnet({ positions: 0 });
    execution = net.deployment.execution as ExecutionAddresses;
  });

  afterAll(async () => {
    await net?.stop();
  });

  const strategies: [RoutingStrategy, number][] = [
    ["router", 1],
    ["delegate", 2],
    ["corewallet", 3],
  ];

  test.each(strategies)(
    "%s: DAI → USDC → {V3, V4} → WETH → WBTC delivers exactly the flow's quote; nothing stays behind",
    async (strategy, index) => {
      const sender = user(index);
      const from = sender.account.address;
      const receiver = `0x00000000000000000000000000000000000f10${index}0` as Address;
      const dai = net.token("DAI").address;
      const usdc = net.token("USDC").address;
      const wbtc = net.token("WBTC").address;
      const weth = net.deployment.weth;
      const amountIn = parseUnits("250000", 18);
      await mint(dai, from, amountIn);
      // The caller's own USDC and WETH: a flow spends what the route made, never these.
      const ownUsdc = parseUnits("1234", 6);
      await mint(usdc, from, ownUsdc);
      const graph = await readDevnetGraph(net.client, net.deployment);
      const quote = splitFlow(graph, amountIn);
      const hops = quote.flow?.hops ?? [];
      // The USDC the first hop makes is divided by parts per billion, the rest to the V4 pool.
      const usdcMade = hops[0]?.amountOut as bigint;
      const v3Part = (usdcMade * V3_SHARE) / BigInt(ALL_PPB);
      expect(hops.map((h) => h.amountIn)).toEqual([
        amountIn,
        v3Part,
        usdcMade - v3Part,
        (hops[1]?.amountOut as bigint) + (hops[2]?.amountOut as bigint),
      ]);
      const { tx, account } = await encodeFlow(strategy, from, receiver, quote, quote.amountOut);
      if (strategy !== "delegate") {
        await approve(sender, dai, strategy === "router" ? execution.router : account, amountIn);
      }
      const ownWeth = await balanceOf(weth, from);
      const receipt = await sendAs(sender, tx, strategy === "delegate");
      expect(receipt.status).toBe("success");
      expect(await balanceOf(wbtc, receiver)).toBe(quote.amountOut);
      expect(await balanceOf(dai, from)).toBe(0n);
      expect([await balanceOf(usdc, from), await balanceOf(weth, from)]).toEqual([
        ownUsdc,
        ownWeth,
      ]);
      for (const holder of [execution.executor, execution.router, account]) {
        if (holder === from) continue;
        expect([
          await balanceOf(dai, holder),
          await balanceOf(usdc, holder),
          await balanceOf(weth, holder),
          await balanceOf(wbtc, holder),
        ]).toEqual([0n, 0n, 0n, 0n]);
      }
    },
  );

  test("router: when the first pool pays more than quoted, the split spends all that arrived", async () => {
    const sender = user(4);
    const from = sender.account.address;
    const receiver = "0x00000000000000000000000000000000000f1050" as Address;
    const dai = net.token("DAI").address;
    const usdc = net.token("USDC").address;
    const wbtc = net.token("WBTC").address;
    const amountIn = parseUnits("100000", 18);
    await mint(dai, from, amountIn);
    const graph = await readDevnetGraph(net.client, net.deployment);
    const quote = splitFlow(graph, amountIn);
    // Someone sells USDC for DAI in the first pool before the route runs: DAI buys more USDC.
    const first = quote.flow?.hops[0]?.edge.pool.address as Address;
    const push = parseUnits("200000", 6);
    await mint(usdc, net.deployment.deployer, push);
    await net.send({
      address: usdc,
      abi: erc20Abi,
      functionName: "approve",
      args: [net.deployment.uniswapV3.swapRouter, maxUint256],
    });
    await net.send({
      address: net.deployment.uniswapV3.swapRouter,
      abi: SwapRouterAbi,
      functionName: "exactInputSingle",
      args: [
        {
          tokenIn: usdc,
          tokenOut: dai,
          fee: await net.client.readContract({
            address: first,
            abi: UniswapV3PoolAbi,
            functionName: "fee",
          }),
          recipient: net.deployment.deployer,
          deadline: maxUint256,
          amountIn: push,
          amountOutMinimum: 0n,
          sqrtPriceLimitX96: 0n,
        },
      ],
    });
    const moved = splitFlow(await readDevnetGraph(net.client, net.deployment), amountIn);
    expect(moved.amountOut).toBeGreaterThan(quote.amountOut);
    const { tx } = await encodeFlow("router", from, receiver, quote, quote.amountOut);
    await approve(sender, dai, execution.router, amountIn);
    const receipt = await sendAs(sender, tx, false);
    expect(receipt.status).toBe("success");
    // What the program did is the flow quoted on the state it ran on, to the wei.
    expect(await balanceOf(wbtc, receiver)).toBe(moved.amountOut);
    expect([
      await balanceOf(usdc, execution.executor),
      await balanceOf(wbtc, execution.executor),
    ]).toEqual([0n, 0n]);
  });
});
