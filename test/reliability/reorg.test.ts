/**
 * Chain reorganisations: the newest blocks are replaced (anvil_reorg) or removed
 * (anvil_rollback) after the indexer has indexed them. Afterwards every indexed pair, pool, tick
 * and vault must equal the chain's own views, `/v1/tokens` must not list what the removed blocks
 * created, and the routing engine's quotes must equal QuoterV2 / V4Quoter / Router02 / the vaults'
 * previews on the new chain, to the wei.
 */
import {
  type Abi,
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  maxUint256,
  parseEther,
  parseUnits,
  zeroAddress,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { NonfungiblePositionManagerAbi } from "../../abis/NonfungiblePositionManager.js";
import { QuoterV2Abi } from "../../abis/QuoterV2.js";
import { SwapRouterAbi } from "../../abis/SwapRouter.js";
import { UniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { UniswapV3FactoryAbi } from "../../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { V4QuoterAbi } from "../../abis/V4Quoter.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { WETH_USD_PRICE } from "../../devnet/world.js";
import { isNativeToken } from "../../engine/core/native.js";
import { devnetActors } from "../harness/actors.js";
import { expectIndexMatchesChain } from "../harness/indexed-state.js";
import {
  graphqlQuery,
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
} from "../harness/service.js";
import { sample } from "../ops/prometheus.js";
import { quoterV2Single, router02AmountOut, vaultPreview } from "../routing/onchain.js";

/** A transaction as anvil takes it in eth_sendTransaction and in anvil_reorg (dev accounts sign). */
type TxRequest = { from: Address; to: Address; data: Hex; value: Hex; gas: Hex };

type RouteStep = {
  tokenIn: Address[];
  tokenOut: Address[];
  protocol: string;
  action: string;
  primaryAddress: Address;
  /** A `uniswap-v4` step's pool in the pool manager (`primaryAddress`). */
  poolId?: Hex;
  amountIn: string;
  amountOut: string;
};
type RouteAnswer = { route: RouteStep[]; amountOut: string };
type TokenList = { meta: Record<string, number | null>; data: { address: Address }[] };

/** What the engine quoted for each step of a route, next to what the chain says for it now. */
type RouteView = {
  amountOut: bigint;
  finalSteps: bigint;
  engine: { pool: Address; amountOut: bigint }[];
  chain: { pool: Address; amountOut: bigint }[];
};

const FROM = "0x00000000000000000000000000000000000a11ce" as Address;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(["pglite", "postgres"] as const)(
  "chain reorganisations on the devnet (%s)",
  (database) => {
    let service: ServiceInstance;
    let a: Awaited<ReturnType<typeof devnetActors>>;
    let me: Address;
    /** The catalogue before any window: what it must be again once a window is undone. */
    let baseTokens: TokenList;

    const client = () => a.client;
    const d = () => service.deployment;
    const rpc = async <T>(method: string, params: unknown[]): Promise<T> =>
      (await a.client.request({ method: method as never, params: params as never })) as T;
    const head = () => a.client.getBlockNumber({ cacheTime: 0 });

    const tx = (
      to: Address,
      abi: Abi | readonly unknown[],
      functionName: string,
      args: unknown[],
      value = 0n,
    ): TxRequest => ({
      from: me,
      to,
      data: encodeFunctionData({ abi: abi as Abi, functionName, args }),
      value: `0x${value.toString(16)}`,
      gas: "0x4c4b40",
    });
    /** Sends each transaction in its own (automined) block; returns the block numbers. */
    const mine = async (txs: TxRequest[]): Promise<bigint[]> => {
      const blocks: bigint[] = [];
      for (const t of txs) {
        const hash = await rpc<Hex>("eth_sendTransaction", [t]);
        const receipt = await a.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
        expect({ to: t.to, status: receipt.status }).toEqual({ to: t.to, status: "success" });
        blocks.push(receipt.blockNumber);
      }
      return blocks;
    };

    const get = async (path: string) => {
      const res = await fetch(`${service.url}${path}`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    /** Times the API loaded the whole routing graph: once at start-up; reorgs add none. */
    const fullGraphLoads = async () =>
      sample(
        await (await fetch(`${service.url}/metrics/api`)).text(),
        "shortcuts_snapshot_refresh_duration_seconds_count",
        { chain_id: String(d().chainId), kind: "full" },
      );
    const tokens = async (): Promise<TokenList> => {
      const res = await get("/v1/tokens");
      expect(res.status).toBe(200);
      return res.body as TokenList;
    };

    const v3Fee = new Map<string, number>();
    /** What the chain yields now for one route step and its own input. */
    const chainStepOut = async (step: RouteStep): Promise<bigint> => {
      const amountIn = BigInt(step.amountIn);
      const tokenIn = step.tokenIn[0] as Address;
      const tokenOut = step.tokenOut[0] as Address;
      switch (step.protocol) {
        case "uniswap-v2":
          return await router02AmountOut(client(), d(), amountIn, [tokenIn, tokenOut]);
        case "uniswap-v3": {
          let fee = v3Fee.get(step.primaryAddress);
          if (fee === undefined) {
            fee = await client().readContract({
              address: step.primaryAddress,
              abi: UniswapV3PoolAbi,
              functionName: "fee",
            });
            v3Fee.set(step.primaryAddress, fee);
          }
          return (await quoterV2Single(client(), d(), { tokenIn, tokenOut, fee, amountIn }))
            .amountOut;
        }
        case "uniswap-v4": {
          const v4 = d().uniswapV4;
          const pool = v4?.pools.find((p) => p.id === step.poolId);
          if (!v4 || !pool) throw new Error(`no V4 pool ${step.poolId} in the deployment`);
          const currencyIn = isNativeToken(tokenIn) ? zeroAddress : tokenIn;
          const { currency0, currency1, fee, tickSpacing, hooks } = pool;
          // The quoter answers by reverting: read through eth_call.
          const { result } = await client().simulateContract({
            address: v4.quoter,
            abi: V4QuoterAbi,
            functionName: "quoteExactInputSingle",
            args: [
              {
                poolKey: { currency0, currency1, fee, tickSpacing, hooks },
                zeroForOne: currencyIn.toLowerCase() === currency0.toLowerCase(),
                exactAmount: amountIn,
                hookData: "0x",
              },
            ],
          });
          return result[0];
        }
        case "wrapped-native":
          // WETH9 wraps and unwraps one for one.
          return amountIn;
        case "savings-vaults":
        case "yield-vaults":
          return await vaultPreview(
            client(),
            step.primaryAddress,
            step.action === "deposit" ? "deposit" : "redeem",
            amountIn,
          );
        default:
          throw new Error(`unexpected step ${step.protocol}/${step.action}`);
      }
    };
    const routeView = async (tokenIn: Address, tokenOut: Address, amountIn: bigint) => {
      const query = new URLSearchParams({
        chainId: String(d().chainId),
        fromAddress: FROM,
        tokenIn,
        tokenOut,
        amountIn: amountIn.toString(),
      });
      const res = await get(`/v1/shortcuts/route?${query}`);
      // A stale graph can plan a route the chain no longer fills (422): not settled yet.
      if (res.status !== 200) return { status: res.status, body: res.body };
      const answer = res.body as RouteAnswer;
      const view: RouteView = {
        amountOut: BigInt(answer.amountOut),
        finalSteps: answer.route
          .filter((s) => s.tokenOut[0] === getAddress(tokenOut))
          .reduce((sum, s) => sum + BigInt(s.amountOut), 0n),
        engine: answer.route.map((s) => ({
          pool: s.primaryAddress,
          amountOut: BigInt(s.amountOut),
        })),
        chain: [],
      };
      for (const s of answer.route) {
        view.chain.push({ pool: s.primaryAddress, amountOut: await chainStepOut(s) });
      }
      return view;
    };
    const agrees = (v: RouteView | { status: number }): v is RouteView =>
      "engine" in v &&
      v.amountOut === v.finalSteps &&
      v.engine.every(
        (e, i) => e.pool === v.chain[i]?.pool && e.amountOut === v.chain[i]?.amountOut,
      );

    /**
     * The route once the API's routing snapshot has caught up with the index (it refreshes in the
     * background), asserting that every step the engine quoted is what the chain quotes now for
     * the same pool and input, and that the simulated amountOut is what the final steps quoted.
     */
    const settledRoute = async (tokenIn: Address, tokenOut: Address, amountIn: bigint) => {
      const deadline = Date.now() + 20_000;
      let view = await routeView(tokenIn, tokenOut, amountIn);
      while (!agrees(view) && Date.now() < deadline) {
        await sleep(200);
        view = await routeView(tokenIn, tokenOut, amountIn);
      }
      if (!("engine" in view)) expect(view).toEqual({ status: 200 });
      const settled = view as RouteView;
      expect(settled.engine).toEqual(settled.chain);
      expect(settled.amountOut).toBe(settled.finalSteps);
      return settled;
    };
    /** `/v1/tokens` once it has caught up, asserted equal to `expected`. */
    const settledTokens = async (expected: TokenList) => {
      const deadline = Date.now() + 20_000;
      let list = await tokens();
      while (JSON.stringify(list) !== JSON.stringify(expected) && Date.now() < deadline) {
        await sleep(200);
        list = await tokens();
      }
      expect(list).toEqual(expected);
    };

    const waitFor = async (what: string, check: () => Promise<boolean>) => {
      const deadline = Date.now() + 30_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`${what}; ponder output:\n${service.output()}`);
        await sleep(100);
      }
    };
    const indexedBlock = async (): Promise<bigint> => {
      const status = (await (await fetch(`${service.url}/status`)).json()) as Record<
        string,
        { block: { number: number } }
      >;
      return BigInt(Object.values(status)[0]?.block.number ?? -1);
    };
    const vaultRow = async (vault: Address) =>
      (
        await graphqlQuery<{ vault: { totalAssets: string; updatedBlock: string } | null }>(
          service,
          `{ vault(chainId: ${d().chainId}, address: "${vault.toLowerCase()}") { totalAssets updatedBlock } }`,
        )
      ).vault;
    const tickRow = async (pool: Address, tick: number) =>
      (
        await graphqlQuery<{ v3Tick: { liquidityGross: string } | null }>(
          service,
          `{ v3Tick(chainId: ${d().chainId}, pool: "${pool.toLowerCase()}", tick: ${tick}) { liquidityGross } }`,
        )
      ).v3Tick;
    const pairRow = async (pair: Address) =>
      (
        await graphqlQuery<{ v2Pair: { address: Address } | null }>(
          service,
          `{ v2Pair(chainId: ${d().chainId}, address: "${pair.toLowerCase()}") { address } }`,
        )
      ).v2Pair;
    const getPair = (x: Address, y: Address) =>
      client().readContract({
        address: d().uniswapV2.factory,
        abi: UniswapV2FactoryAbi,
        functionName: "getPair",
        args: [x, y],
      });
    const v3Pool = (x: Address, y: Address, fee: number) =>
      client().readContract({
        address: d().uniswapV3.factory,
        abi: UniswapV3FactoryAbi,
        functionName: "getPool",
        args: [x, y, fee],
      });

    // Transactions of the windows that get reorged away or replaced.
    const v2Swap = (from: Address, to: Address, amountIn: bigint) =>
      tx(d().uniswapV2.router02, UniswapV2Router02Abi, "swapExactTokensForTokens", [
        amountIn,
        0n,
        [from, to],
        me,
        maxUint256,
      ]);
    const v3Swap = (from: Address, to: Address, fee: number, amountIn: bigint) =>
      tx(d().uniswapV3.swapRouter, SwapRouterAbi, "exactInputSingle", [
        {
          tokenIn: from,
          tokenOut: to,
          fee,
          recipient: me,
          deadline: maxUint256,
          amountIn,
          amountOutMinimum: 0n,
          sqrtPriceLimitX96: 0n,
        },
      ]);
    /** An input of `from` that moves the pool across at least `ticks` initialized ticks. */
    const crossingAmount = async (
      from: Address,
      to: Address,
      fee: number,
      ticks: number,
      blockNumber: bigint,
    ): Promise<bigint> => {
      for (const usd of [250_000, 500_000, 1_000_000, 2_000_000, 4_000_000, 8_000_000]) {
        const amountIn = usdOf(from, usd);
        const { result } = await client().simulateContract({
          address: d().uniswapV3.quoterV2,
          abi: QuoterV2Abi,
          functionName: "quoteExactInputSingle",
          args: [{ tokenIn: from, tokenOut: to, fee, amountIn, sqrtPriceLimitX96: 0n }],
          blockNumber,
        });
        if (result[2] >= ticks) return amountIn;
      }
      throw new Error("no swap size crosses the ticks");
    };
    const usdOf = (t: Address, usd: number) => {
      if (t === d().weth) return parseEther((usd / WETH_USD_PRICE).toFixed(18));
      const token = d().tokens.find((x) => x.address === t);
      if (!token) throw new Error(t);
      return a.usd(token.symbol, usd);
    };
    const mint = async (pool: Address, lower: number, upper: number, usd: number) => {
      const [token0, token1, fee] = await Promise.all([
        client().readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token0" }),
        client().readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token1" }),
        client().readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "fee" }),
      ]);
      const amount = (t: Address) => usdOf(t, usd);
      return tx(d().uniswapV3.positionManager, NonfungiblePositionManagerAbi, "mint", [
        {
          token0,
          token1,
          fee,
          tickLower: lower,
          tickUpper: upper,
          amount0Desired: amount(token0),
          amount1Desired: amount(token1),
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: me,
          deadline: maxUint256,
        },
      ]);
    };
    const deposit = (vault: Address, assets: bigint) =>
      tx(vault, DevVaultAbi, "deposit", [assets, me]);
    const transfer = (token: Address, to: Address, amount: bigint) =>
      tx(token, DevTokenAbi, "transfer", [to, amount]);

    beforeAll(async () => {
      service = await startService({ database });
      a = await devnetActors(service);
      me = a.deployer.account.address;
      const usdc = a.token("USDC");
      const dai = a.token("DAI");
      const weth = a.token("WETH");
      // Inventory and approvals first, in blocks no test removes.
      const setup: TxRequest[] = [
        tx(usdc, DevTokenAbi, "mint", [me, parseUnits("100000000", 6)]),
        tx(dai, DevTokenAbi, "mint", [me, parseEther("100000000")]),
        tx(weth, WETH9Abi, "deposit", [], parseEther("20000")),
      ];
      for (const spender of [
        d().uniswapV2.router02,
        d().uniswapV3.swapRouter,
        d().uniswapV3.positionManager,
      ]) {
        for (const t of [usdc, dai, weth])
          setup.push(tx(t, DevTokenAbi, "approve", [spender, maxUint256]));
      }
      setup.push(tx(usdc, DevTokenAbi, "approve", [a.vault("svUSDC"), maxUint256]));
      setup.push(tx(dai, DevTokenAbi, "approve", [a.vault("svDAI"), maxUint256]));
      setup.push(tx(weth, DevTokenAbi, "approve", [a.vault("yvWETH"), maxUint256]));
      await mine(setup);
      // Cross a vault refresh block, so indexed vault totals start equal to the chain's.
      await rpc("anvil_mine", ["0x1a"]);
      await waitForIndexedBlock(service, await head());
      await expectIndexMatchesChain(service, client(), await head());
      baseTokens = await tokens();
      expect(baseTokens.meta.total).toBe(45);
    });

    afterAll(async () => {
      await service?.stop();
    });

    test("the last 7 blocks replaced by different swaps, a different mint and different deposits (same height)", async () => {
      const usdc = a.token("USDC");
      const weth = a.token("WETH");
      const pool = await v3Pool(usdc, weth, 3000);
      const yvWETH = a.vault("yvWETH");
      const svDAI = a.vault("svDAI");
      const ancestor = await head();
      const [, tick] = await client().readContract({
        address: pool,
        abi: UniswapV3PoolAbi,
        functionName: "slot0",
      });
      const s = await client().readContract({
        address: pool,
        abi: UniswapV3PoolAbi,
        functionName: "tickSpacing",
      });
      const at = Math.floor(tick / s) * s;
      const rangeA = [at - 7 * s, at + 9 * s] as const;
      const rangeB = [at - 11 * s, at + 5 * s] as const;

      // The original window: a new pair, both kinds of swap (the V3 one crosses ticks), a
      // position, yield and two deposits, one block each.
      const created = [a.token("UNI"), a.token("AAVE")] as const;
      expect(await getPair(...created)).toBe(zeroAddress);
      const original = [
        tx(d().uniswapV2.factory, UniswapV2FactoryAbi, "createPair", [...created]),
        v2Swap(usdc, weth, usdOf(usdc, 400_000)),
        v3Swap(usdc, weth, 3000, await crossingAmount(usdc, weth, 3000, 2, ancestor)),
        await mint(pool, ...rangeA, 50_000),
        transfer(weth, yvWETH, parseEther("1.5")),
        deposit(yvWETH, parseEther("7.123456789012345678")),
        deposit(a.vault("svUSDC"), usdOf(usdc, 30_000)),
      ];
      const blocks = await mine(original);
      const top = await head();
      expect(blocks).toEqual(original.map((_, i) => ancestor + 1n + BigInt(i)));
      await waitForIndexedBlock(service, top);
      await expectIndexMatchesChain(service, client(), top);
      const newPair = await getPair(...created);
      expect(await pairRow(newPair)).toEqual({ address: newPair.toLowerCase() });
      for (const t of rangeA)
        expect(BigInt((await tickRow(pool, t))?.liquidityGross ?? 0)).toBeGreaterThan(0n);
      const withPair = await tokens();
      expect(withPair.meta.total).toBe(46);
      expect(withPair.data.map((t) => t.address)).toContain(getAddress(newPair));

      const routes = [
        [usdc, weth, usdOf(usdc, 50_000)],
        [weth, usdc, parseEther("20")],
        [weth, yvWETH, parseEther("3")],
      ] as const;
      const before: RouteView[] = [];
      for (const r of routes) before.push(await settledRoute(...r));

      // Replace the 7 blocks: opposite swaps of other sizes, a position on other ticks, other
      // yield and deposits; the last block deposits into svDAI, which nothing else touches.
      const replacement: [TxRequest, number][] = [
        [v2Swap(weth, usdc, parseEther("60")), 0],
        [v3Swap(weth, usdc, 3000, await crossingAmount(weth, usdc, 3000, 2, ancestor)), 1],
        [await mint(pool, ...rangeB, 30_000), 2],
        [transfer(weth, yvWETH, parseEther("0.4")), 3],
        [deposit(yvWETH, parseEther("2.5")), 3],
        [deposit(svDAI, parseEther("20000")), 6],
      ];
      await rpc("anvil_reorg", [original.length, replacement]);
      expect(await head()).toBe(top);
      const replaced = await client().getBlock({ blockNumber: top });
      expect(replaced.transactions).toHaveLength(1);
      // Ponder has indexed the new chain once the last replacement block's deposit is in.
      await waitFor(`svDAI not re-indexed at block ${top}`, async () => {
        return (await vaultRow(svDAI))?.updatedBlock === top.toString();
      });

      await expectIndexMatchesChain(service, client(), top);
      expect(await getPair(...created)).toBe(zeroAddress);
      expect(await pairRow(newPair)).toBeNull();
      for (const t of rangeA) expect(await tickRow(pool, t)).toBeNull();
      for (const t of rangeB) {
        const [gross] = await client().readContract({
          address: pool,
          abi: UniswapV3PoolAbi,
          functionName: "ticks",
          args: [t],
        });
        expect(gross).toBeGreaterThan(0n);
        expect(await tickRow(pool, t)).toEqual({ liquidityGross: gross.toString() });
      }
      for (const [i, r] of routes.entries()) {
        const after = await settledRoute(...r);
        expect({ route: i, amountOut: after.amountOut }).not.toEqual({
          route: i,
          amountOut: before[i]?.amountOut,
        });
      }
      await settledTokens(baseTokens);

      // The chain goes on: nothing the reorg reverted comes back.
      await rpc("anvil_mine", ["0x2"]);
      await waitForIndexedBlock(service, await head());
      await expectIndexMatchesChain(service, client(), await head());
      await settledTokens(baseTokens);
      for (const r of routes) await settledRoute(...r);
      expect(await fullGraphLoads()).toBe(1);
    }, 240_000);

    test("the head block replaced by another at the same height (depth 1)", async () => {
      const usdc = a.token("USDC");
      const weth = a.token("WETH");
      const svDAI = a.vault("svDAI");
      const [block] = await mine([v2Swap(usdc, weth, usdOf(usdc, 300_000))]);
      await waitForIndexedBlock(service, block as bigint);
      await expectIndexMatchesChain(service, client(), block as bigint);
      const route = [weth, usdc, parseEther("20")] as const;
      const before = await settledRoute(...route);

      // The checkpoint never goes below the old head here: Ponder reverts the block and indexes
      // its replacement at the same number.
      await rpc("anvil_reorg", [
        1,
        [
          [v2Swap(weth, usdc, parseEther("30")), 0],
          [deposit(svDAI, parseEther("5000")), 0],
        ],
      ]);
      expect(await head()).toBe(block);
      await waitFor(`svDAI not re-indexed at block ${block}`, async () => {
        return (await vaultRow(svDAI))?.updatedBlock === String(block);
      });
      await expectIndexMatchesChain(service, client(), block as bigint);
      const after = await settledRoute(...route);
      expect(after.amountOut).not.toBe(before.amountOut);
      await settledTokens(baseTokens);
      expect(await fullGraphLoads()).toBe(1);
    }, 240_000);

    test("the last 6 blocks rolled back with nothing in their place", async () => {
      const usdc = a.token("USDC");
      const weth = a.token("WETH");
      const svUSDC = a.vault("svUSDC");
      const ancestor = await head();
      const created = [a.token("CRV"), a.token("MKR")] as const;
      expect(await getPair(...created)).toBe(zeroAddress);
      const window = [
        tx(d().uniswapV2.factory, UniswapV2FactoryAbi, "createPair", [...created]),
        v2Swap(usdc, weth, usdOf(usdc, 250_000)),
        v3Swap(usdc, weth, 500, await crossingAmount(usdc, weth, 500, 1, ancestor)),
        transfer(weth, a.vault("yvWETH"), parseEther("0.8")),
        deposit(a.vault("yvWETH"), parseEther("1.25")),
        deposit(svUSDC, usdOf(usdc, 40_000)),
      ];
      await mine(window);
      const top = await head();
      await waitForIndexedBlock(service, top);
      await expectIndexMatchesChain(service, client(), top);
      const newPair = await getPair(...created);
      expect(await pairRow(newPair)).toEqual({ address: newPair.toLowerCase() });
      expect((await tokens()).meta.total).toBe(46);
      const svUSDCBefore = await vaultRow(svUSDC);
      expect(svUSDCBefore?.updatedBlock).toBe(top.toString());

      // The window made WETH dear in the USDC/WETH pools: selling WETH goes through them.
      const routes = [
        [weth, usdc, parseEther("200")],
        [weth, usdc, parseEther("20")],
        [weth, a.vault("yvWETH"), parseEther("3")],
      ] as const;
      const before: RouteView[] = [];
      for (const r of routes) before.push(await settledRoute(...r));

      await rpc("anvil_rollback", [window.length]);
      expect(await head()).toBe(ancestor);
      await waitFor(`the index did not go back to block ${ancestor}`, async () => {
        return (await indexedBlock()) === ancestor;
      });

      await expectIndexMatchesChain(service, client(), ancestor);
      expect(await getPair(...created)).toBe(zeroAddress);
      expect(await pairRow(newPair)).toBeNull();
      expect(BigInt((await vaultRow(svUSDC))?.updatedBlock ?? 0)).toBeLessThanOrEqual(ancestor);
      for (const [i, r] of routes.entries()) {
        const after = await settledRoute(...r);
        expect({ route: i, amountOut: after.amountOut }).not.toEqual({
          route: i,
          amountOut: before[i]?.amountOut,
        });
      }
      await settledTokens(baseTokens);

      // Empty blocks take the chain past the old head: still the rolled-back state.
      await rpc("anvil_mine", [`0x${(window.length + 2).toString(16)}`]);
      const later = await head();
      expect(later).toBeGreaterThan(top);
      await waitForIndexedBlock(service, later);
      await expectIndexMatchesChain(service, client(), later);
      await settledTokens(baseTokens);
      for (const r of routes) await settledRoute(...r);
      expect(await fullGraphLoads()).toBe(1);
    }, 240_000);
  },
);
