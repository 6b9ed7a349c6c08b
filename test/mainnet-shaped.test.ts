/**
 * The service on a chain shaped like Ethereum mainnet (`test/harness/mainnet-world.ts`): chain id
 * 1, WETH9, Uniswap V2 and V3 and the big stablecoins at their canonical addresses from their npm
 * artifacts, the execution layer put there by `npm run deploy`, and the indexer started with
 * `npm run indexer` and only the variables docs/real-chains.md names. Its tokens are
 * the odd ones real chains hold: USDT-style (no return values, no non-zero to non-zero approve),
 * `bytes32` metadata, NUL bytes and invalid UTF-8 in a name, `decimals()` reverting, 0 decimals, a
 * `symbol()` that exhausts any gas, a 1% fee on transfer, and a rebasing balance.
 *
 * What holds: the indexer reaches the head without stopping or retrying; the catalogue lists each
 * token as it is or leaves it out saying why in the log; every route and bundle answered with a
 * 200 delivers exactly what it says when sent as answered, and the rest are 4xx naming the cause.
 */
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  parseUnits,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PoolManagerAbi } from "../abis/PoolManager.js";
import { StateViewAbi } from "../abis/StateView.js";
import { UniswapV2FactoryAbi } from "../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { UniswapV3FactoryAbi } from "../abis/UniswapV3Factory.js";
import { V4QuoterAbi } from "../abis/V4Quoter.js";
import { WETH9Abi } from "../abis/WETH9.js";
import { DEVNET_ACCOUNT_KEYS } from "../devnet/anvil.js";
import { MULTICALL3_ADDRESS, multicall3Deployment } from "../devnet/multicall3.js";
import { sqrtPriceX96FromPrice } from "../devnet/price.js";
import { devnetReceipt } from "../devnet/receipts.js";
import { chainOf } from "../devnet/world.js";
import {
  CANONICAL_UNISWAP_V3_FACTORY,
  deterministicExecutionAddresses,
  executionVariable,
} from "../engine/core/execution-addresses.js";
import { v3ForkPoolDeployers } from "../engine/index.js";
import { getTickAtSqrtRatio } from "../engine/math/tick-math.js";
import { KNOWN_CHAINS } from "../known-chains.js";
import { type MainnetService, startMainnetService } from "./harness/mainnet-service.js";
import { bareErc20Abi, fundFromDeployer, MAINNET, MAINNET_POOLS } from "./harness/mainnet-world.js";
import { waitUntil } from "./harness/ponder-process.js";

/**
 * Where `npm run deploy` puts the execution layer on chain 1 by default: mainnet's own V3
 * factory, and an executor that trusts mainnet's known V3 forks' pool deployers
 * (known-chains.ts).
 */
const MAINNET_EXECUTION = deterministicExecutionAddresses({
  v3Factory: CANONICAL_UNISWAP_V3_FACTORY,
  v3ForkDeployers: v3ForkPoolDeployers(KNOWN_CHAINS[1]?.uniswapV3Forks),
});

/** Two of Multicall3's helpers that read the chain. */
const multicall3Reads = parseAbi([
  "function getChainId() view returns (uint256)",
  "function getEthBalance(address addr) view returns (uint256)",
]);

type Strategy = "router" | "delegate" | "corewallet";
type BeforeSending =
  | { type: "approve"; token: Address; spender: Address; amount: string }
  | { type: "delegate"; account: Address; delegateTo: Address };
type Answer = {
  tx: { data: Hex; to: Address; from: Address; value: string };
  gas: string;
  beforeSending: BeforeSending[];
  route?: { primaryAddress: Address; protocol: string }[];
  amountOut?: string;
  amountsOut?: Record<string, string>;
};
type TokenRow = { address: Address; name: string; symbol: string; decimals: number; type: string };

describe("a mainnet-shaped chain: canonical addresses, odd tokens, an operator's start", () => {
  let service: MainnetService;
  let client: PublicClient;
  let wallets: (WalletClient & { account: { address: Address } })[];
  const t = (symbol: keyof MainnetService["world"]["tokens"]): Address =>
    service.world.tokens[symbol].address;

  /** The index and the routing snapshot have seen the chain's head. */
  const settle = async () => {
    const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
    await waitUntil(
      `the indexer did not reach block ${head}`,
      async () => {
        const status = (await (await fetch(`${service.url}/status`)).json()) as {
          mainnet?: { block: { number: number } };
        };
        return (status.mainnet?.block.number ?? 0) >= head;
      },
      { timeoutMs: 30_000, output: service.output, pollMs: 100, tolerateErrors: true },
    );
    await waitUntil(
      `the routing snapshot did not reach block ${head}`,
      async () => {
        const res = await fetch(`${service.url}/v1/networks?chainId=1`);
        const [network] = (await res.json()) as { snapshotBlock: number | null }[];
        return (network?.snapshotBlock ?? -1) >= head;
      },
      { timeoutMs: 30_000, output: service.output, pollMs: 50, tolerateErrors: true },
    );
  };
  const get = async (path: string, query: Record<string, string>) => {
    if (path.startsWith("/v1/shortcuts")) await settle();
    const res = await fetch(`${service.url}${path}?${new URLSearchParams(query)}`);
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const post = async (query: Record<string, string>, actions: unknown[]) => {
    await settle();
    const res = await fetch(`${service.url}/v1/shortcuts/bundle?${new URLSearchParams(query)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(actions),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const ok = (res: { status: number; body: unknown }): Answer => {
    if (res.status !== 200) throw new Error(`${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Answer;
  };
  const balanceOf = (token: Address, who: Address) =>
    client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });

  /** Does what `beforeSending` says, then sends `tx` with exactly `gas` as its gas limit. */
  const follow = async (wallet: WalletClient, answer: Answer) => {
    let authorizationList: unknown[] | undefined;
    const send = async (request: Record<string, unknown>) => {
      const hash = await wallet.sendTransaction({
        account: wallet.account ?? null,
        chain: wallet.chain,
        ...request,
      } as never);
      const receipt = await devnetReceipt(client, hash);
      expect(receipt.status).toBe("success");
      return receipt;
    };
    for (const step of answer.beforeSending) {
      if (step.type === "approve") {
        // Without a declared return value: USDT-style tokens return nothing.
        await send({
          to: step.token,
          data: encodeFunctionData({
            abi: bareErc20Abi,
            functionName: "approve",
            args: [step.spender, BigInt(step.amount)],
          }),
        });
      } else {
        authorizationList = [
          await wallet.signAuthorization({
            account: wallet.account as never,
            contractAddress: step.delegateTo,
            executor: "self",
          }),
        ];
      }
    }
    return await send({
      to: answer.tx.to,
      data: answer.tx.data,
      value: BigInt(answer.tx.value),
      gas: BigInt(answer.gas),
      ...(authorizationList ? { authorizationList } : {}),
    });
  };

  beforeAll(async () => {
    service = await startMainnetService();
    client = service.world.client;
    const chain = await chainOf(service.anvil.url);
    wallets = DEVNET_ACCOUNT_KEYS.slice(0, 6).map(
      (key) =>
        createWalletClient({
          chain,
          transport: http(service.anvil.url),
          account: privateKeyToAccount(key),
        }) as never,
    );
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
  });

  test("pools sit where mainnet's are: canonical factories, init codes and token addresses", async () => {
    const getPair = (a: Address, b: Address) =>
      client.readContract({
        address: MAINNET.uniswapV2Factory,
        abi: UniswapV2FactoryAbi,
        functionName: "getPair",
        args: [a, b],
      });
    expect(await getPair(MAINNET.usdc, MAINNET.weth)).toBe(MAINNET_POOLS.v2UsdcWeth);
    expect(await getPair(MAINNET.weth, MAINNET.usdt)).toBe(MAINNET_POOLS.v2WethUsdt);
    expect(
      await client.readContract({
        address: MAINNET.uniswapV3Factory,
        abi: UniswapV3FactoryAbi,
        functionName: "getPool",
        args: [MAINNET.usdc, MAINNET.weth, 500],
      }),
    ).toBe(MAINNET_POOLS.v3UsdcWeth500);
  });

  test("Uniswap V4 sits at its canonical addresses: the PoolManager, its owner, StateView and V4Quoter", async () => {
    expect(
      await client.readContract({
        address: MAINNET.uniswapV4PoolManager,
        abi: PoolManagerAbi,
        functionName: "owner",
      }),
    ).toBe(service.world.deployer);
    for (const [address, abi] of [
      [MAINNET.uniswapV4StateView, StateViewAbi],
      [MAINNET.uniswapV4Quoter, V4QuoterAbi],
    ] as const) {
      expect(await client.readContract({ address, abi, functionName: "poolManager" })).toBe(
        MAINNET.uniswapV4PoolManager,
      );
    }
    // The delegate-call guard holds the canonical address: a pool initializes there (simulated).
    const sqrtPriceX96 = sqrtPriceX96FromPrice(
      { decimals: 18, usdPrice: 3_000 },
      { decimals: 6, usdPrice: 1 },
    );
    const { result: tick } = await client.simulateContract({
      address: MAINNET.uniswapV4PoolManager,
      abi: PoolManagerAbi,
      functionName: "initialize",
      args: [
        {
          currency0: "0x0000000000000000000000000000000000000000",
          currency1: MAINNET.usdc,
          fee: 500,
          tickSpacing: 10,
          hooks: "0x0000000000000000000000000000000000000000",
        },
        sqrtPriceX96,
      ],
    });
    expect(tick).toBe(getTickAtSqrtRatio(sqrtPriceX96));
  });

  test("Multicall3 sits at its canonical address, deployed by its pre-signed transaction", async () => {
    const { signer } = multicall3Deployment();
    // The signer's one transaction was sent (nonce 1 now), and batched reads answer through it.
    expect(await client.getTransactionCount({ address: signer })).toBe(1);
    const [chainId, balance] = await client.multicall({
      multicallAddress: MULTICALL3_ADDRESS,
      contracts: [
        { address: MULTICALL3_ADDRESS, abi: multicall3Reads, functionName: "getChainId" },
        {
          address: MULTICALL3_ADDRESS,
          abi: multicall3Reads,
          functionName: "getEthBalance",
          args: [service.world.deployer],
        },
      ],
      allowFailure: false,
    });
    expect(chainId).toBe(1n);
    const held = await client.getBalance({ address: service.world.deployer });
    expect(balance).toBe(held);
    expect(held).toBeGreaterThan(0n);
  });

  test("npm run deploy put the execution layer at the deterministic addresses it printed", () => {
    expect(service.deployOutput).toContain(`EXECUTION_1=${executionVariable(MAINNET_EXECUTION)}`);
    expect(service.deployOutput).toContain("8 deployed, 0 already deployed");
  });

  test("the indexer reached the head without a failed or retried RPC request", () => {
    expect(service.output()).not.toContain("retry_count");
    expect(service.output()).not.toContain("ERROR");
  });

  test("the catalogue lists each odd token as it is, or leaves it out saying why", async () => {
    const res = await get("/v1/tokens", { chainId: "1", type: "base" });
    expect(res.status).toBe(200);
    const rows = (res.body as { data: TokenRow[] }).data;
    const listed = Object.fromEntries(rows.map((r) => [r.address, [r.name, r.symbol, r.decimals]]));
    expect(listed).toEqual({
      [MAINNET.weth]: ["Wrapped Ether", "WETH", 18],
      [MAINNET.usdc]: ["USD Coin", "USDC", 6],
      [MAINNET.usdt]: ["Tether USD", "USDT", 6],
      [MAINNET.dai]: ["Dai Stablecoin", "DAI", 18],
      // bytes32 metadata, as MKR's.
      [MAINNET.mkr]: ["Maker", "MKR", 18],
      // NUL bytes dropped (Postgres text refuses them), invalid UTF-8 as U+FFFD.
      [t("NUL")]: ["NulToken\ufffd \ufffd", "NUL\ufffd", 18],
      [t("WHOLE")]: ["Whole Unit", "WHOLE", 0],
      // symbol() runs out of any gas: listed without a symbol.
      [t("BOMB")]: ["Gas Bomb", "", 18],
      [t("FEE")]: ["Fee Token", "FEE", 18],
      [t("REBASE")]: ["Rebasing Token", "REBASE", 18],
      "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee": ["Ether", "ETH", 18],
    });
    // decimals() reverts: left out.
    expect(listed[t("NODEC")]).toBeUndefined();
    expect(service.output()).toContain(
      `Token ${t("NODEC")} on chain 1 is left out of the catalogue: decimals() reverted or did not return a number from 0 to 255.`,
    );
    expect(service.output()).toContain(
      `Token ${t("BOMB")} on chain 1: symbol() reverted, ran out of gas or returned no text; it is listed with an empty symbol.`,
    );
    const pairs = await get("/v1/tokens", { chainId: "1", protocolSlug: "uniswap-v2" });
    expect((pairs.body as { meta: { total: number } }).meta.total).toBe(11);
    const vaults = await get("/v1/tokens", { chainId: "1", protocolSlug: "savings-vaults" });
    expect((vaults.body as { data: unknown[] }).data).toEqual([
      {
        chainId: 1,
        address: service.world.vault,
        type: "defi",
        protocolSlug: "savings-vaults",
        underlyingTokens: [MAINNET.usdc],
        name: "Savings USDC",
        symbol: "svUSDC",
        decimals: 6,
        primaryAddress: service.world.vault,
      },
    ]);
  });

  /** Asks for and sends a route of an input user `i` already holds; returns what arrived. */
  const routeAndSendHeld = async (
    i: number,
    tokenIn: Address,
    tokenOut: Address,
    amountIn: bigint,
  ): Promise<{ answer: Answer; received: bigint }> => {
    const wallet = wallets[i];
    if (!wallet) throw new Error(`no wallet ${i}`);
    const user = wallet.account.address;
    const answer = ok(
      await get("/v1/shortcuts/route", {
        chainId: "1",
        fromAddress: user,
        tokenIn,
        tokenOut,
        amountIn: amountIn.toString(),
      }),
    );
    const before = await balanceOf(tokenOut, user);
    await follow(wallet, answer);
    return { answer, received: (await balanceOf(tokenOut, user)) - before };
  };

  /** Gives user `i` the input, asks for the route, sends it as answered; returns what arrived. */
  const routeAndSend = async (
    i: number,
    tokenIn: Address,
    tokenOut: Address,
    amountIn: bigint,
  ): Promise<{ answer: Answer; received: bigint }> => {
    const wallet = wallets[i];
    if (!wallet) throw new Error(`no wallet ${i}`);
    const user = wallet.account.address;
    if (tokenIn === MAINNET.weth) {
      // Uniswap's build of WETH9 has no receive function: deposit() wraps.
      const hash = await wallet.sendTransaction({
        account: wallet.account,
        chain: wallet.chain,
        to: MAINNET.weth,
        data: encodeFunctionData({ abi: WETH9Abi, functionName: "deposit" }),
        value: amountIn,
      });
      await devnetReceipt(client, hash);
    } else {
      await fundFromDeployer(service.anvil.url, tokenIn, user, amountIn);
    }
    return await routeAndSendHeld(i, tokenIn, tokenOut, amountIn);
  };

  test("routes through the canonical pools deliver exactly what they say", async () => {
    const usdcToWeth = await routeAndSend(1, MAINNET.usdc, MAINNET.weth, parseUnits("50000", 6));
    expect(usdcToWeth.received).toBe(BigInt(usdcToWeth.answer.amountOut ?? -1));
    const pools = usdcToWeth.answer.route?.map((s) => s.primaryAddress) ?? [];
    expect(
      pools.includes(MAINNET_POOLS.v3UsdcWeth500) || pools.includes(MAINNET_POOLS.v2UsdcWeth),
    ).toBe(true);
  });

  test("a vault named in VAULTS_1: entered from USDT-style USDT through a swap, as quoted", async () => {
    const r = await routeAndSend(1, MAINNET.usdt, service.world.vault, parseUnits("5000", 6));
    expect(r.received).toBe(BigInt(r.answer.amountOut ?? -1));
    expect(r.answer.route?.map((s) => s.protocol).at(-1)).toBe("savings-vaults");
  });

  test("USDT-style: out and in twice (no return values; approvals reset to zero)", async () => {
    const out = await routeAndSend(2, MAINNET.weth, MAINNET.usdt, parseUnits("3", 18));
    expect(out.received).toBe(BigInt(out.answer.amountOut ?? -1));
    for (const _ of [1, 2]) {
      const back = await routeAndSend(2, MAINNET.usdt, MAINNET.weth, parseUnits("2000", 6));
      expect(back.received).toBe(BigInt(back.answer.amountOut ?? -1));
    }
  });

  test("bytes32, odd text, 0 decimals, gas-bomb symbol, no decimals: bought as quoted", async () => {
    for (const symbol of ["MKR", "NUL", "WHOLE", "BOMB", "NODEC"] as const) {
      const r = await routeAndSend(3, MAINNET.weth, t(symbol), parseUnits("1", 18));
      expect(r.received, symbol).toBe(BigInt(r.answer.amountOut ?? -1));
      expect(r.received, symbol).toBeGreaterThan(0n);
    }
  });

  test("fee on transfer: bought net of the fee, as quoted", async () => {
    const pair = await client.readContract({
      address: MAINNET.uniswapV2Factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [MAINNET.weth, t("FEE")],
    });
    const [r0, r1] = await client.readContract({
      address: pair,
      abi: UniswapV2PairAbi,
      functionName: "getReserves",
    });
    const wethIsToken0 = MAINNET.weth.toLowerCase() < t("FEE").toLowerCase();
    const [reserveIn, reserveOut] = wethIsToken0 ? [r0, r1] : [r1, r0];
    const amountIn = parseUnits("1", 18);
    const gross = (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n);
    const r = await routeAndSend(4, MAINNET.weth, t("FEE"), amountIn);
    expect(BigInt(r.answer.amountOut ?? -1)).toBe(gross - gross / 100n);
    expect(r.received).toBe(gross - gross / 100n);
  });

  test("fee on transfer: selling is refused with a 422 naming the failing step", async () => {
    const seller = wallets[4]?.account.address as Address;
    await fundFromDeployer(service.anvil.url, t("FEE"), seller, parseUnits("100", 18));
    const res = await get("/v1/shortcuts/route", {
      chainId: "1",
      fromAddress: seller,
      tokenIn: t("FEE"),
      tokenOut: MAINNET.weth,
      amountIn: parseUnits("50", 18).toString(),
    });
    // The executor receives 1% less than it passes on: the pair's transfer fails.
    expect(res).toEqual({
      status: 422,
      body: {
        statusCode: 422,
        error: "Unprocessable Entity",
        message: `The route's transaction reverted in simulation: Step 0 (swap on uniswap v2 on ${MAINNET_EXECUTION.executor}) failed: balance.`,
        details: { blockNumber: expect.any(Number) },
      },
    });
  });

  test("rebasing token: bought and sold as quoted", async () => {
    const bought = await routeAndSend(5, MAINNET.weth, t("REBASE"), parseUnits("1", 18));
    expect(bought.received).toBe(BigInt(bought.answer.amountOut ?? -1));
    // No state override can give a rebasing balance (shares times an index): a holder of the
    // amount is simulated with its own balance, anyone else is told what to do.
    const stranger = wallets[0]?.account.address as Address;
    const amountIn = bought.received / 2n;
    expect(
      await get("/v1/shortcuts/route", {
        chainId: "1",
        fromAddress: stranger,
        tokenIn: t("REBASE"),
        tokenOut: MAINNET.weth,
        amountIn: amountIn.toString(),
      }),
    ).toEqual({
      status: 422,
      body: {
        statusCode: 422,
        error: "Unprocessable Entity",
        message: `Cannot simulate with ${t("REBASE").toLowerCase()} as tokenIn: its balance storage could not be located for the state override. ${stranger} has 0 of it, less than the amount needed: hold the amount first, then ask again.`,
      },
    });
    const sold = await routeAndSendHeld(5, t("REBASE"), MAINNET.weth, amountIn);
    expect(sold.received).toBe(BigInt(sold.answer.amountOut ?? -1));
    expect(sold.received).toBeGreaterThan(0n);
  });

  test("SPEC 4.2's shape with USDT: route, then transfer the output to a third address, each strategy", async () => {
    const third = getAddress("0x000000000000000000000000000000000000dEaD");
    for (const [i, strategy] of (["router", "delegate", "corewallet"] as Strategy[]).entries()) {
      const wallet = wallets[i + 1];
      if (!wallet) throw new Error("no wallet");
      const amountIn = parseUnits("1000", 6);
      const answer = ok(
        await post(
          { chainId: "1", fromAddress: wallet.account.address, routingStrategy: strategy },
          [
            {
              protocol: "core",
              action: "route",
              args: {
                tokenIn: MAINNET.usdc,
                tokenOut: MAINNET.usdt,
                amountIn: amountIn.toString(),
              },
            },
            {
              protocol: "core",
              action: "transfer",
              args: { token: MAINNET.usdt, receiver: third, amount: { useOutputOfCallAt: 0 } },
            },
          ],
        ),
      );
      await fundFromDeployer(service.anvil.url, MAINNET.usdc, wallet.account.address, amountIn);
      const before = await balanceOf(MAINNET.usdt, third);
      await follow(wallet, answer);
      const received = (await balanceOf(MAINNET.usdt, third)) - before;
      expect(received, strategy).toBe(BigInt(answer.amountsOut?.[MAINNET.usdt] ?? -1));
      expect(received, strategy).toBeGreaterThan(0n);
    }
  });
});
