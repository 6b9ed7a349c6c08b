import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  maxUint256,
  type PublicClient,
  padHex,
  parseEventLogs,
  parseUnits,
  type WalletClient,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { DevVaultAbi } from "../abis/generated/DevVault.js";
import { V4LiquidityHelperAbi } from "../abis/generated/V4LiquidityHelper.js";
import { NonfungiblePositionManagerAbi } from "../abis/NonfungiblePositionManager.js";
import { StateViewAbi } from "../abis/StateView.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { UniswapV2Router02Abi } from "../abis/UniswapV2Router02.js";
import { UniswapV3PoolAbi } from "../abis/UniswapV3Pool.js";
import { runActivity } from "../devnet/activity.js";
import { DEVNET_DEPLOYER_KEY } from "../devnet/anvil.js";
import { liquidityForAmounts } from "../devnet/uniswap-v4.js";
import { amountForUsd, chainOf, YIELD_VAULT_SYMBOL } from "../devnet/world.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/core/native.js";
import { getSqrtRatioAtTick } from "../engine/math/tick-math.js";
import { expectIndexMatchesChain } from "./harness/indexed-state.js";
import {
  graphqlQuery,
  type ServiceInstance,
  startService,
  waitForIndexedBlock,
} from "./harness/service.js";

type ApiToken = {
  chainId: number;
  address: string;
  type: "base" | "defi";
  protocolSlug: string | null;
  underlyingTokens: string[];
  name: string;
  symbol: string;
  decimals: number;
  primaryAddress: string | null;
};
type TokenList = { meta: Record<string, number | null>; data: ApiToken[] };

/** The end-to-end catalogue suite, run against PGlite and against Postgres. */
export function catalogueSuite(database: "pglite" | "postgres"): void {
  describe(`catalogue endpoints on the devnet (${database})`, () => {
    let service: ServiceInstance;
    let client: PublicClient;
    let wallet: WalletClient;
    let expected: ApiToken[];
    let CHAIN_ID: number;

    const get = async (path: string) => {
      const res = await fetch(`${service.url}${path}`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const tokens = async (query: string) => {
      const res = await get(`/v1/tokens${query}`);
      expect(res.status).toBe(200);
      return res.body as TokenList;
    };
    const send = async (
      address: Address,
      abi: readonly unknown[],
      functionName: string,
      args: unknown[],
    ) => {
      const hash = await wallet.writeContract({
        address,
        abi,
        functionName,
        args,
        account: wallet.account ?? null,
        chain: wallet.chain,
      } as never);
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      return receipt;
    };
    const worth = (address: Address, usd: number): bigint => {
      const t = service.deployment.tokens.find((x) => x.address === address);
      if (!t) throw new Error(address);
      return amountForUsd(t, usd);
    };
    const symbolAddress = (symbol: string): Address => {
      const t = service.deployment.tokens.find((x) => x.symbol === symbol);
      if (!t) throw new Error(symbol);
      return t.address;
    };

    beforeAll(async () => {
      service = await startService({ database });
      CHAIN_ID = service.deployment.chainId;
      const chain = await chainOf(service.anvil.url);
      client = createPublicClient({ chain, transport: http(service.anvil.url) }) as PublicClient;
      wallet = createWalletClient({
        chain,
        transport: http(service.anvil.url),
        account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
      });

      // What the catalogue must hold, built from the deployment and the chain's own views.
      const d = service.deployment;
      const base: ApiToken[] = d.tokens.map((t) => ({
        chainId: CHAIN_ID,
        address: t.address,
        type: "base",
        protocolSlug: null,
        underlyingTokens: [],
        name: t.name,
        symbol: t.symbol,
        decimals: t.decimals,
        primaryAddress: null,
      }));
      const native: ApiToken = {
        chainId: CHAIN_ID,
        address: NATIVE_TOKEN_ADDRESS,
        type: "base",
        protocolSlug: null,
        underlyingTokens: [],
        name: "Ether",
        symbol: "ETH",
        decimals: 18,
        primaryAddress: null,
      };
      const lp: ApiToken[] = [];
      for (const pair of d.uniswapV2.pairs) {
        const [token0, token1] = await Promise.all([
          client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token0" }),
          client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token1" }),
        ]);
        lp.push({
          chainId: CHAIN_ID,
          address: pair,
          type: "defi",
          protocolSlug: "uniswap-v2",
          underlyingTokens: [token0, token1],
          name: "Uniswap V2",
          symbol: "UNI-V2",
          decimals: 18,
          primaryAddress: pair,
        });
      }
      const shares: ApiToken[] = [];
      for (const v of d.vaults) {
        const asset = d.tokens.find((t) => t.address === v.asset);
        shares.push({
          chainId: CHAIN_ID,
          address: v.address,
          type: "defi",
          protocolSlug: v.protocolSlug,
          underlyingTokens: [v.asset],
          name: v.name,
          symbol: v.symbol,
          decimals: asset?.decimals ?? 0,
          primaryAddress: v.address,
        });
      }
      /** A position token whose name, symbol and decimals are read from the chain. */
      const position = async (
        address: Address,
        fields: Pick<ApiToken, "protocolSlug" | "underlyingTokens" | "primaryAddress">,
      ): Promise<ApiToken> => {
        const [name, symbol, decimals] = await Promise.all([
          client.readContract({ address, abi: erc20Abi, functionName: "name" }),
          client.readContract({ address, abi: erc20Abi, functionName: "symbol" }),
          client.readContract({ address, abi: erc20Abi, functionName: "decimals" }),
        ]);
        return { chainId: CHAIN_ID, address, type: "defi", ...fields, name, symbol, decimals };
      };
      // Aave V3's aTokens: positions in their asset, with the Aave Pool as primary address.
      const aTokens: ApiToken[] = [];
      for (const r of d.aaveV3?.reserves ?? []) {
        aTokens.push(
          await position(r.aToken, {
            protocolSlug: "aave-v3",
            underlyingTokens: [r.asset],
            primaryAddress: d.aaveV3?.pool ?? null,
          }),
        );
      }
      // Balancer V2's BPTs: positions in the pool's tokens (a composable stable pool's own BPT
      // left out), with the vault as primary address.
      const bpts: ApiToken[] = [];
      for (const pool of Object.values(d.balancerV2?.pools ?? {})) {
        bpts.push(
          await position(pool.address, {
            protocolSlug: "balancer-v2",
            underlyingTokens: pool.tokens.filter((t) => t !== pool.address),
            primaryAddress: d.balancerV2?.vault ?? null,
          }),
        );
      }
      // The forks' LP tokens: positions of the fork's protocol, their metadata read from the pair.
      for (const fork of d.uniswapV2Forks ?? []) {
        for (const pair of fork.pairs) {
          const [token0, token1] = await Promise.all([
            client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token0" }),
            client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token1" }),
          ]);
          lp.push(
            await position(pair, {
              protocolSlug: fork.slug,
              underlyingTokens: [token0, token1],
              primaryAddress: pair,
            }),
          );
        }
      }
      expected = [...base, native, ...lp, ...shares, ...aTokens, ...bpts].sort((a, b) =>
        a.address.toLowerCase() < b.address.toLowerCase() ? -1 : 1,
      );
    });

    afterAll(async () => {
      await service?.stop();
    });

    // First, before any test mines a block: the backfill adds deposit and withdrawal amounts and
    // reads no vault; only the refresh at the head when indexing started can add the yield the
    // deployment sent to the yield vault (assets without shares, so no event).
    test("right after the backfill, every vault's totals equal the chain's, yield included", async () => {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      await waitForIndexedBlock(service, head);
      const yieldVault = service.deployment.vaults.find((v) => v.symbol === YIELD_VAULT_SYMBOL);
      if (!yieldVault) throw new Error("no yield vault deployed");
      const at = { address: yieldVault.address, abi: DevVaultAbi, blockNumber: head } as const;
      const assets = await client.readContract({ ...at, functionName: "totalAssets" });
      const supply = await client.readContract({ ...at, functionName: "totalSupply" });
      // The yield is there to be missed: OpenZeppelin's vault mints one share per asset unit
      // on a first deposit, so only assets arriving without shares set the two apart.
      expect(assets).toBeGreaterThan(supply);
      await expectIndexMatchesChain(service, client, head);
    });

    test("GET /v1/tokens lists every deployed token, LP token, vault share, aToken, BPT and the native token", async () => {
      const list = await tokens("");
      expect(expected).toHaveLength(14 + 1 + 15 + 2 + 4 + 4 + 5);
      expect(list).toEqual({
        meta: { total: 45, lastPage: 1, currentPage: 1, perPage: 1000, prev: null, next: null },
        data: expected,
      });
      const usdc = list.data.find((t) => t.symbol === "USDC");
      expect(usdc?.decimals).toBe(6);
      expect(list.data.find((t) => t.symbol === "WBTC")?.decimals).toBe(8);
    });

    test("every filter of SPEC 4.1 selects exactly the matching tokens", async () => {
      const d = service.deployment;
      const usdc = symbolAddress("USDC");
      const weth = d.weth;
      const pick = (f: (t: ApiToken) => boolean) => expected.filter(f);
      const meta = (total: number) => ({
        total,
        lastPage: 1,
        currentPage: 1,
        perPage: 1000,
        prev: null,
        next: null,
      });

      expect(await tokens(`?chainId=${CHAIN_ID}`)).toEqual({ meta: meta(45), data: expected });
      expect(await tokens("?chainId=1")).toEqual({ meta: meta(0), data: [] });
      expect(await tokens(`?address=${usdc.toLowerCase()}`)).toEqual({
        meta: meta(1),
        data: pick((t) => t.address === usdc),
      });
      expect(
        await tokens(`?address=${NATIVE_TOKEN_ADDRESS.toUpperCase().replace("0X", "0x")}`),
      ).toEqual({
        meta: meta(1),
        data: pick((t) => t.address === NATIVE_TOKEN_ADDRESS),
      });
      expect(await tokens("?protocolSlug=savings-vaults")).toEqual({
        meta: meta(2),
        data: pick((t) => t.protocolSlug === "savings-vaults"),
      });
      // A fork's LP tokens are its own protocol's positions, named as its pair names them.
      const cakeLp = pick((t) => t.protocolSlug === "pancakeswap-v1");
      expect(cakeLp.map((t) => [t.name, t.symbol, t.decimals])).toEqual([
        ["Pancake LPs", "Cake-LP", 18],
        ["Pancake LPs", "Cake-LP", 18],
      ]);
      expect(await tokens("?protocolSlug=pancakeswap-v1")).toEqual({ meta: meta(2), data: cakeLp });
      for (const type of ["baseToken", "base"]) {
        expect(await tokens(`?type=${type}`)).toEqual({
          meta: meta(15),
          data: pick((t) => t.type === "base"),
        });
      }
      for (const type of ["defiToken", "defi"]) {
        expect(await tokens(`?type=${type}`)).toEqual({
          meta: meta(30),
          data: pick((t) => t.type === "defi"),
        });
      }
      const vault = d.vaults[0];
      if (!vault) throw new Error("no vault");
      for (const param of ["primayAddress", "primaryAddress"]) {
        expect(await tokens(`?${param}=${vault.address}`)).toEqual({
          meta: meta(1),
          data: pick((t) => t.address === vault.address),
        });
      }
      const withUsdc = pick((t) => t.underlyingTokens.includes(usdc));
      expect(withUsdc.map((t) => t.symbol).sort()).toEqual([
        "B-50WETH-25WBTC-25USDC",
        "B-50WETH-50USDC",
        "UNI-V2",
        "UNI-V2",
        "UNI-V2",
        "UNI-V2",
        "UNI-V2",
        "aDevUSDC",
        "bb-USD",
        "svUSDC",
      ]);
      expect(await tokens(`?underlyingTokens=${usdc}`)).toEqual({ meta: meta(10), data: withUsdc });
      // Array forms: repeated, bracketed and percent-encoded brackets all mean the same.
      const both = pick(
        (t) => t.underlyingTokens.includes(usdc) && t.underlyingTokens.includes(weth),
      );
      // The V2 pair, and Balancer's 50/50 and three-token pools.
      expect(both).toHaveLength(3);
      for (const q of [
        `?underlyingTokens=${usdc}&underlyingTokens=${weth}`,
        `?underlyingTokens[]=${usdc}&underlyingTokens[]=${weth}`,
        `?underlyingTokens%5B%5D=${usdc}&underlyingTokens%5B%5D=${weth}`,
      ]) {
        expect(await tokens(q)).toEqual({ meta: meta(3), data: both });
      }
      expect(
        await tokens(
          `?type=defi&protocolSlug=uniswap-v2&underlyingTokens=${usdc}&chainId=${CHAIN_ID}`,
        ),
      ).toEqual({
        meta: meta(5),
        data: pick((t) => t.protocolSlug === "uniswap-v2" && t.underlyingTokens.includes(usdc)),
      });
      expect(await tokens("?page=1")).toEqual({ meta: meta(45), data: expected });
      // The Aave Pool is every aToken's primary address.
      expect(await tokens(`?primaryAddress=${d.aaveV3?.pool}`)).toEqual({
        meta: meta(4),
        data: pick((t) => t.protocolSlug === "aave-v3"),
      });
      expect(await tokens("?page=3")).toEqual({
        meta: { total: 45, lastPage: 1, currentPage: 3, perPage: 1000, prev: 1, next: null },
        data: [],
      });
    });

    test("GET /v1/standards lists every protocol of the registry with its methods", async () => {
      const { status, body } = await get("/v1/standards");
      expect(status).toBe(200);
      const entries = body as {
        protocol: { slug: string; url: string };
        forks: unknown[];
        methods: {
          method: string;
          supportedChains: unknown;
          inputs: Record<string, string>;
          functionNames: string[];
        }[];
      }[];
      expect(entries.map((e) => e.protocol.slug)).toEqual([
        "core",
        "uniswap-v2",
        "pancakeswap-v1",
        "pancakeswap-v2",
        "sushiswap-v2",
        "uniswap-v3",
        "pancakeswap-v3",
        "sushiswap-v3",
        "uniswap-v4",
        "savings-vaults",
        "yield-vaults",
        "aave-v3",
        "balancer-v2",
        "wrapped-native",
      ]);
      // Uniswap V2's forks, each also its own entry with the swap on a named pair: only the one
      // the devnet deploys is supported on it.
      const uniswapV2 = entries.find((e) => e.protocol.slug === "uniswap-v2");
      expect(uniswapV2?.forks).toEqual([
        { slug: "pancakeswap-v1", url: "https://pancakeswap.finance" },
        { slug: "pancakeswap-v2", url: "https://pancakeswap.finance" },
        { slug: "sushiswap-v2", url: "https://www.sushi.com" },
      ]);
      // Uniswap V3's likewise; a fork's pools are swapped on the pool, paid from the executor's
      // callback (PancakeSwap's own callback name), or through the fork's SwapRouter.
      const uniswapV3 = entries.find((e) => e.protocol.slug === "uniswap-v3");
      expect(uniswapV3?.forks).toEqual([
        { slug: "pancakeswap-v3", url: "https://pancakeswap.finance" },
        { slug: "sushiswap-v3", url: "https://www.sushi.com" },
      ]);
      const notOnDevnet = ["pancakeswap-v2", "sushiswap-v2", "sushiswap-v3"];
      for (const slug of ["pancakeswap-v1", "pancakeswap-v3", ...notOnDevnet]) {
        const fork = entries.find((e) => e.protocol.slug === slug);
        expect(fork?.methods.map((m) => [m.method, m.supportedChains])).toEqual([
          ["swap", notOnDevnet.includes(slug) ? [] : [{ id: CHAIN_ID, name: "Devnet" }]],
        ]);
      }
      expect(
        entries.find((e) => e.protocol.slug === "pancakeswap-v3")?.methods[0]?.functionNames,
      ).toEqual(["swap", "pancakeV3SwapCallback", "exactInputSingle"]);
      expect(
        entries.find((e) => e.protocol.slug === "aave-v3")?.methods.map((m) => m.method),
      ).toEqual(["deposit", "withdraw", "borrow", "repay"]);
      // A composable stable pool's single-token join and exit, beside the swap.
      expect(
        entries.find((e) => e.protocol.slug === "balancer-v2")?.methods.map((m) => m.method),
      ).toEqual(["swap", "deposit", "redeem"]);
      for (const entry of entries) {
        if (entry !== uniswapV2 && entry !== uniswapV3) expect(entry.forks).toEqual([]);
        for (const m of entry.methods) {
          if (notOnDevnet.includes(entry.protocol.slug)) continue;
          expect(m.supportedChains).toEqual([{ id: CHAIN_ID, name: "Devnet" }]);
          expect(Object.keys(m.inputs).length).toBeGreaterThan(0);
        }
      }
      const core = entries[0];
      expect(core?.methods.map((m) => m.method)).toEqual([
        "route",
        "call",
        "transfer",
        "approve",
        "balance",
        "split",
        "minamountout",
      ]);
      expect(Object.keys(core?.methods[0]?.inputs ?? {})).toEqual([
        "tokenIn",
        "tokenOut",
        "amountIn",
        "slippage",
      ]);
      const v4 = entries.find((e) => e.protocol.slug === "uniswap-v4");
      expect(v4?.protocol.url).toBe("https://app.uniswap.org");
      expect(v4?.methods.map((m) => m.method)).toEqual(["swap"]);
      expect(Object.keys(v4?.methods[0]?.inputs ?? {})).toEqual([
        "primaryAddress",
        "poolId",
        "tokenIn",
        "tokenOut",
        "amountIn",
      ]);
      const vaults = entries.find((e) => e.protocol.slug === "savings-vaults");
      expect(vaults?.methods.map((m) => m.method)).toEqual(["deposit", "redeem"]);
      expect(Object.keys(vaults?.methods[0]?.inputs ?? {})).toEqual([
        "primaryAddress",
        "tokenIn",
        "tokenOut",
        "amountIn",
        "receiver",
      ]);

      const bySlug = (slug: string) => entries.find((e) => e.protocol.slug === slug);
      const one = await get("/v1/standards/uniswap-v3");
      expect(one).toEqual({ status: 200, body: bySlug("uniswap-v3") });
      expect(await get("/v1/standards/uniswap-v4")).toEqual({
        status: 200,
        body: bySlug("uniswap-v4"),
      });
      expect(await get("/v1/standards/pancakeswap-v1")).toEqual({
        status: 200,
        body: bySlug("pancakeswap-v1"),
      });
      expect(await get("/v1/standards/sushiswap")).toEqual({
        status: 404,
        body: {
          statusCode: 404,
          error: "Not Found",
          message:
            "Unknown protocol `sushiswap`; known protocols: core, uniswap-v2, pancakeswap-v1, pancakeswap-v2, sushiswap-v2, uniswap-v3, pancakeswap-v3, sushiswap-v3, uniswap-v4, savings-vaults, yield-vaults, aave-v3, balancer-v2, wrapped-native.",
        },
      });
    });

    test("GET /v1/projects lists the projects with pool counts from the indexed tables", async () => {
      const { status, body } = await get("/v1/projects");
      expect(status).toBe(200);
      const logo = (id: string) => `${service.url}/v1/projects/${id}/logo.svg`;
      expect(body).toEqual([
        {
          title: "Uniswap V2",
          id: "uniswap-v2",
          chainIds: String(CHAIN_ID),
          logo: logo("uniswap-v2"),
          url: "https://app.uniswap.org",
          description: "Constant-product automated market maker with 0.3% fee pairs.",
          twitter: "@Uniswap",
          category: "Dexes",
          poolCount: 15,
          protocol: "uniswap-v2",
        },
        {
          title: "PancakeSwap V1",
          id: "pancakeswap-v1",
          chainIds: String(CHAIN_ID),
          logo: logo("pancakeswap-v1"),
          url: "https://pancakeswap.finance",
          description:
            "PancakeSwap's first constant-product AMM, a Uniswap V2 fork with 0.2% fee pairs.",
          twitter: "@PancakeSwap",
          category: "Dexes",
          // Its WETH/DAI and WETH/LINK pairs (devnet/world.ts), counted apart from Uniswap's.
          poolCount: 2,
          protocol: "pancakeswap-v1",
        },
        {
          title: "PancakeSwap V2",
          id: "pancakeswap-v2",
          chainIds: "",
          logo: logo("pancakeswap-v2"),
          url: "https://pancakeswap.finance",
          description:
            "PancakeSwap's constant-product AMM, a Uniswap V2 fork with 0.25% fee pairs.",
          twitter: "@PancakeSwap",
          category: "Dexes",
          poolCount: 0,
          protocol: "pancakeswap-v2",
        },
        {
          title: "SushiSwap V2",
          id: "sushiswap-v2",
          chainIds: "",
          logo: logo("sushiswap-v2"),
          url: "https://www.sushi.com",
          description: "SushiSwap's constant-product AMM, a Uniswap V2 fork with 0.3% fee pairs.",
          twitter: "@SushiSwap",
          category: "Dexes",
          poolCount: 0,
          protocol: "sushiswap-v2",
        },
        {
          title: "Uniswap V3",
          id: "uniswap-v3",
          chainIds: String(CHAIN_ID),
          logo: logo("uniswap-v3"),
          url: "https://app.uniswap.org",
          description:
            "Concentrated-liquidity automated market maker with 0.05%, 0.3% and 1% fee tiers.",
          twitter: "@Uniswap",
          category: "Dexes",
          poolCount: 8,
          protocol: "uniswap-v3",
        },
        {
          title: "PancakeSwap V3",
          id: "pancakeswap-v3",
          chainIds: String(CHAIN_ID),
          logo: logo("pancakeswap-v3"),
          url: "https://pancakeswap.finance",
          description:
            "PancakeSwap's concentrated-liquidity AMM, a Uniswap V3 fork with 0.01%, 0.05%, 0.25% and 1% fee tiers.",
          twitter: "@PancakeSwap",
          category: "Dexes",
          // Its WETH/AAVE pool (devnet/world.ts), counted apart from Uniswap's.
          poolCount: 1,
          protocol: "pancakeswap-v3",
        },
        {
          title: "SushiSwap V3",
          id: "sushiswap-v3",
          chainIds: "",
          logo: logo("sushiswap-v3"),
          url: "https://www.sushi.com",
          description:
            "SushiSwap's concentrated-liquidity AMM, Uniswap V3's contracts under SushiSwap's factory.",
          twitter: "@SushiSwap",
          category: "Dexes",
          poolCount: 0,
          protocol: "sushiswap-v3",
        },
        {
          title: "Uniswap V4",
          id: "uniswap-v4",
          chainIds: String(CHAIN_ID),
          logo: logo("uniswap-v4"),
          url: "https://app.uniswap.org",
          description:
            "Concentrated-liquidity pools in one singleton pool manager, with native-currency pools and hooks. Pools whose hook runs during swaps (beforeSwap, afterSwap, a swap-return-delta permission or a dynamic fee) are routed only when the operator allow-lists the hook (UNISWAP_V4_HOOKS_<chainId>): such a hook could trade against the swap or change its amounts.",
          twitter: "@Uniswap",
          category: "Dexes",
          // The seven pools devnet/uniswap-v4.ts initializes in the pool manager.
          poolCount: 7,
          protocol: "uniswap-v4",
        },
        {
          title: "Savings Vaults",
          id: "savings-vaults",
          chainIds: String(CHAIN_ID),
          logo: logo("savings-vaults"),
          url: "https://eips.ethereum.org/EIPS/eip-4626",
          description: "ERC4626 savings vaults for stablecoins.",
          twitter: "",
          category: "Yield",
          poolCount: 2,
          protocol: "savings-vaults",
        },
        {
          title: "Yield Vaults",
          id: "yield-vaults",
          chainIds: String(CHAIN_ID),
          logo: logo("yield-vaults"),
          url: "https://eips.ethereum.org/EIPS/eip-4626",
          description: "ERC4626 vaults whose assets accrue yield without minting shares.",
          twitter: "",
          category: "Yield",
          poolCount: 2,
          protocol: "yield-vaults",
        },
        {
          title: "Aave V3",
          id: "aave-v3",
          chainIds: String(CHAIN_ID),
          logo: logo("aave-v3"),
          url: "https://app.aave.com",
          description:
            "Lending pool: supplied assets earn interest as aTokens (position tokens that grow with the liquidity index) and back variable-rate borrows.",
          twitter: "@aave",
          category: "Lending",
          // Its reserves: WETH, USDC, DAI and WBTC.
          poolCount: 4,
          protocol: "aave-v3",
        },
        {
          title: "Balancer V2",
          id: "balancer-v2",
          chainIds: String(CHAIN_ID),
          logo: logo("balancer-v2"),
          url: "https://balancer.fi",
          description:
            "Vault of weighted and composable stable pools; joins and exits with one token of a pool.",
          twitter: "@Balancer",
          category: "Dexes",
          // Its pools: three weighted, two composable stable.
          poolCount: 5,
          protocol: "balancer-v2",
        },
        {
          title: "Wrapped Ether",
          id: "wrapped-native",
          chainIds: String(CHAIN_ID),
          logo: logo("wrapped-native"),
          url: "https://weth.io",
          description: "WETH9: the native currency as an ERC20, one for one.",
          twitter: "",
          category: "Wrapped Tokens",
          poolCount: 1,
          protocol: "wrapped-native",
        },
      ]);
      const res = await fetch(logo("uniswap-v2"));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml");
      expect(await res.text()).toContain(">UV</text>");
    });

    test("V2 reserves follow a swap made on the chain", async () => {
      const d = service.deployment;
      const usdc = symbolAddress("USDC");
      const amountIn = parseUnits("12345.678901", 6);
      await send(usdc, DevTokenAbi, "approve", [d.uniswapV2.router02, amountIn]);
      const receipt = await send(
        d.uniswapV2.router02,
        UniswapV2Router02Abi,
        "swapExactTokensForTokens",
        [amountIn, 0n, [usdc, d.weth], wallet.account?.address, maxUint256],
      );
      await waitForIndexedBlock(service, receipt.blockNumber);
      const pairAddress = await client.readContract({
        address: d.uniswapV2.factory,
        abi: [
          {
            type: "function",
            name: "getPair",
            stateMutability: "view",
            inputs: [{ type: "address" }, { type: "address" }],
            outputs: [{ type: "address" }],
          },
        ],
        functionName: "getPair",
        args: [usdc, d.weth],
      });
      const [reserve0, reserve1] = await client.readContract({
        address: pairAddress,
        abi: UniswapV2PairAbi,
        functionName: "getReserves",
      });
      const totalSupply = await client.readContract({
        address: pairAddress,
        abi: UniswapV2PairAbi,
        functionName: "totalSupply",
      });
      const row = await graphqlQuery<{
        v2Pair: { reserve0: string; reserve1: string; totalSupply: string; updatedBlock: string };
      }>(
        service,
        `{ v2Pair(chainId: ${CHAIN_ID}, address: "${pairAddress.toLowerCase()}") { reserve0 reserve1 totalSupply updatedBlock } }`,
      );
      expect(row.v2Pair).toEqual({
        reserve0: reserve0.toString(),
        reserve1: reserve1.toString(),
        totalSupply: totalSupply.toString(),
        updatedBlock: receipt.blockNumber.toString(),
      });
    });

    test("vault totals follow a deposit, and yield is picked up without an event", async () => {
      const d = service.deployment;
      const vault = d.vaults.find((v) => v.symbol === "yvWETH");
      if (!vault) throw new Error("no yvWETH");
      const assets = parseUnits("7.123456789012345678", 18);
      await send(d.weth, DevTokenAbi, "approve", [vault.address, assets]);
      const receipt = await send(vault.address, DevVaultAbi, "deposit", [
        assets,
        wallet.account?.address,
      ]);
      await waitForIndexedBlock(service, receipt.blockNumber);
      const query = `{ vault(chainId: ${CHAIN_ID}, address: "${vault.address.toLowerCase()}") { totalAssets totalSupply asset protocolSlug } }`;
      const onChain = async (blockNumber: bigint) => ({
        totalAssets: (
          await client.readContract({
            address: vault.address,
            abi: DevVaultAbi,
            functionName: "totalAssets",
            blockNumber,
          })
        ).toString(),
        totalSupply: (
          await client.readContract({
            address: vault.address,
            abi: DevVaultAbi,
            functionName: "totalSupply",
            blockNumber,
          })
        ).toString(),
        asset: d.weth.toLowerCase(),
        protocolSlug: "yield-vaults",
      });
      expect((await graphqlQuery<{ vault: unknown }>(service, query)).vault).toEqual(
        await onChain(receipt.blockNumber),
      );

      // Yield: assets sent straight to the vault emit no vault event; the periodic refresh
      // (every `VAULT_REFRESH_BLOCKS` blocks near the head) must still bring the totals up to date.
      const yieldReceipt = await send(d.weth, DevTokenAbi, "transfer", [
        vault.address,
        parseUnits("1.5", 18),
      ]);
      await client.request({ method: "anvil_mine" as never, params: ["0x1e"] as never });
      const head = await client.getBlockNumber({ cacheTime: 0 });
      await waitForIndexedBlock(service, head);
      const after = (await graphqlQuery<{ vault: unknown }>(service, query)).vault;
      expect(after).toEqual(await onChain(yieldReceipt.blockNumber));
      expect(after).not.toEqual(await onChain(receipt.blockNumber));
    });

    test("V3 ticks and liquidity follow a position minted on the chain", async () => {
      const d = service.deployment;
      const pool = d.uniswapV3.pools[0];
      if (!pool) throw new Error("no pool");
      const [slot0, token0, token1, fee, spacing] = await Promise.all([
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "slot0" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token0" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token1" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "fee" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "tickSpacing" }),
      ]);
      const tick = slot0[1];
      // A range around the current price, on ticks no seeded position uses.
      const tickLower = Math.floor(tick / spacing) * spacing - 7 * spacing;
      const tickUpper = Math.floor(tick / spacing) * spacing + 9 * spacing;
      const receipt = await send(
        d.uniswapV3.positionManager,
        NonfungiblePositionManagerAbi,
        "mint",
        [
          {
            token0,
            token1,
            fee,
            tickLower,
            tickUpper,
            amount0Desired: worth(token0, 50_000),
            amount1Desired: worth(token1, 50_000),
            amount0Min: 0n,
            amount1Min: 0n,
            recipient: wallet.account?.address,
            deadline: maxUint256,
          },
        ],
      );
      await waitForIndexedBlock(service, receipt.blockNumber);
      for (const t of [tickLower, tickUpper]) {
        const onChain = await client.readContract({
          address: pool,
          abi: UniswapV3PoolAbi,
          functionName: "ticks",
          args: [t],
        });
        const row = await graphqlQuery<{
          v3Tick: { liquidityGross: string; liquidityNet: string } | null;
        }>(
          service,
          `{ v3Tick(chainId: ${CHAIN_ID}, pool: "${pool.toLowerCase()}", tick: ${t}) { liquidityGross liquidityNet } }`,
        );
        expect(onChain[0]).toBeGreaterThan(0n);
        expect(row.v3Tick).toEqual({
          liquidityGross: onChain[0].toString(),
          liquidityNet: onChain[1].toString(),
        });
      }
      const liquidity = await client.readContract({
        address: pool,
        abi: UniswapV3PoolAbi,
        functionName: "liquidity",
      });
      const poolRow = await graphqlQuery<{
        v3Pool: { liquidity: string; tick: number; sqrtPriceX96: string };
      }>(
        service,
        `{ v3Pool(chainId: ${CHAIN_ID}, address: "${pool.toLowerCase()}") { liquidity tick sqrtPriceX96 } }`,
      );
      expect(poolRow.v3Pool).toEqual({
        liquidity: liquidity.toString(),
        tick,
        sqrtPriceX96: slot0[0].toString(),
      });
      // Every tick the indexer knows matches the pool's own view.
      const all = await graphqlQuery<{
        v3Ticks: { items: { tick: number; liquidityGross: string; liquidityNet: string }[] };
      }>(
        service,
        `{ v3Ticks(where: { chainId: ${CHAIN_ID}, pool: "${pool.toLowerCase()}" }, limit: 1000) { items { tick liquidityGross liquidityNet } } }`,
      );
      expect(all.v3Ticks.items).toHaveLength(8);
      for (const row of all.v3Ticks.items) {
        const [gross, net] = await client.readContract({
          address: pool,
          abi: UniswapV3PoolAbi,
          functionName: "ticks",
          args: [row.tick],
        });
        expect(row).toEqual({
          tick: row.tick,
          liquidityGross: gross.toString(),
          liquidityNet: net.toString(),
        });
      }

      // The whole position taken out: the pool clears both ticks, and their rows stay, at zero.
      const [minted] = parseEventLogs({
        abi: NonfungiblePositionManagerAbi,
        eventName: "IncreaseLiquidity",
        logs: receipt.logs,
      });
      if (!minted) throw new Error("the mint logged no IncreaseLiquidity");
      const burned = await send(
        d.uniswapV3.positionManager,
        NonfungiblePositionManagerAbi,
        "decreaseLiquidity",
        [
          {
            tokenId: minted.args.tokenId,
            liquidity: minted.args.liquidity,
            amount0Min: 0n,
            amount1Min: 0n,
            deadline: maxUint256,
          },
        ],
      );
      await waitForIndexedBlock(service, burned.blockNumber);
      const cleared = await graphqlQuery<{
        v3Ticks: { items: { tick: number; liquidityGross: string; liquidityNet: string }[] };
      }>(
        service,
        `{ v3Ticks(where: { chainId: ${CHAIN_ID}, pool: "${pool.toLowerCase()}", tick_in: [${tickLower}, ${tickUpper}] }, limit: 10) { items { tick liquidityGross liquidityNet } } }`,
      );
      for (const t of [tickLower, tickUpper]) {
        const [gross, net] = await client.readContract({
          address: pool,
          abi: UniswapV3PoolAbi,
          functionName: "ticks",
          args: [t],
        });
        expect([gross, net]).toEqual([0n, 0n]);
      }
      expect(cleared.v3Ticks.items.sort((x, y) => x.tick - y.tick)).toEqual([
        { tick: tickLower, liquidityGross: "0", liquidityNet: "0" },
        { tick: tickUpper, liquidityGross: "0", liquidityNet: "0" },
      ]);
    });

    test("V4 ticks and liquidity follow a position added on the chain", async () => {
      const v4 = service.deployment.uniswapV4;
      if (!v4) throw new Error("no Uniswap V4 deployed");
      // The native-ether pool: the position is paid partly in ether.
      const pool = v4.pools[0];
      if (!pool) throw new Error("no V4 pool");
      expect(pool.currency0).toBe(zeroAddress);
      const view = { address: v4.stateView, abi: StateViewAbi } as const;
      const head = await client.getBlockNumber({ cacheTime: 0 });
      const [sqrtPriceX96, tick] = await client.readContract({
        ...view,
        functionName: "getSlot0",
        args: [pool.id],
        blockNumber: head,
      });
      const liquidityBefore = await client.readContract({
        ...view,
        functionName: "getLiquidity",
        args: [pool.id],
        blockNumber: head,
      });
      const spacing = pool.tickSpacing;
      // A range around the current price, on ticks no seeded position uses.
      const tickLower = Math.floor(tick / spacing) * spacing - 7 * spacing;
      const tickUpper = Math.floor(tick / spacing) * spacing + 9 * spacing;
      for (const t of [tickLower, tickUpper]) {
        const before = await client.readContract({
          ...view,
          functionName: "getTickLiquidity",
          args: [pool.id, t],
          blockNumber: head,
        });
        expect({ tick: t, before }).toEqual({ tick: t, before: [0n, 0n] });
      }
      const amount0 = worth(service.deployment.weth, 50_000);
      const liquidity = liquidityForAmounts(
        sqrtPriceX96,
        getSqrtRatioAtTick(tickLower),
        getSqrtRatioAtTick(tickUpper),
        amount0,
        worth(pool.currency1, 50_000),
      );
      const key = {
        currency0: pool.currency0,
        currency1: pool.currency1,
        fee: pool.fee,
        tickSpacing: pool.tickSpacing,
        hooks: pool.hooks,
      };
      // Twice the ether the price asks for: the helper refunds what the pool does not take.
      const hash = await wallet.writeContract({
        address: v4.liquidityHelper,
        abi: V4LiquidityHelperAbi,
        functionName: "modifyLiquidity",
        args: [key, tickLower, tickUpper, liquidity, padHex("0xca7a", { size: 32 })],
        value: 2n * amount0,
        account: wallet.account ?? null,
        chain: wallet.chain,
      });
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      await waitForIndexedBlock(service, receipt.blockNumber);
      // The new ticks hold exactly the position's liquidity, not nothing.
      expect(liquidity).toBeGreaterThan(0n);
      const at = { ...view, blockNumber: receipt.blockNumber } as const;
      for (const [t, net] of [
        [tickLower, liquidity],
        [tickUpper, -liquidity],
      ] as const) {
        const onChain = await client.readContract({
          ...at,
          functionName: "getTickLiquidity",
          args: [pool.id, t],
        });
        expect(onChain).toEqual([liquidity, net]);
        const row = await graphqlQuery<{
          v4Tick: { liquidityGross: string; liquidityNet: string } | null;
        }>(
          service,
          `{ v4Tick(chainId: ${CHAIN_ID}, poolId: "${pool.id}", tick: ${t}) { liquidityGross liquidityNet } }`,
        );
        expect(row.v4Tick).toEqual({
          liquidityGross: onChain[0].toString(),
          liquidityNet: onChain[1].toString(),
        });
      }
      const slot0 = await client.readContract({
        ...at,
        functionName: "getSlot0",
        args: [pool.id],
      });
      const liquidityAfter = await client.readContract({
        ...at,
        functionName: "getLiquidity",
        args: [pool.id],
      });
      // The range holds the price: the position is in range.
      expect(liquidityAfter).toBe(liquidityBefore + liquidity);
      const poolRow = await graphqlQuery<{
        v4Pool: {
          liquidity: string;
          tick: number;
          sqrtPriceX96: string;
          protocolFee: number;
          updatedBlock: string;
        };
      }>(
        service,
        `{ v4Pool(chainId: ${CHAIN_ID}, poolId: "${pool.id}") { liquidity tick sqrtPriceX96 protocolFee updatedBlock } }`,
      );
      expect(poolRow.v4Pool).toEqual({
        liquidity: liquidityAfter.toString(),
        tick: slot0[1],
        sqrtPriceX96: slot0[0].toString(),
        protocolFee: slot0[2],
        updatedBlock: receipt.blockNumber.toString(),
      });
      // The liquidity row's amounts are what the pool manager received in that block.
      const held = async (blockNumber: bigint): Promise<[bigint, bigint]> => [
        await client.getBalance({ address: v4.poolManager, blockNumber }),
        await client.readContract({
          address: pool.currency1,
          abi: DevTokenAbi,
          functionName: "balanceOf",
          args: [v4.poolManager],
          blockNumber,
        }),
      ];
      const [eth0, usdc0] = await held(receipt.blockNumber - 1n);
      const [eth1, usdc1] = await held(receipt.blockNumber);
      const events = await graphqlQuery<{ liquidityEvents: { items: unknown[] } }>(
        service,
        `{ liquidityEvents(where: { txHash: "${receipt.transactionHash}" }) { items { protocolSlug pool kind sender owner amount0 amount1 liquidity tickLower tickUpper } } }`,
      );
      expect(events.liquidityEvents.items).toEqual([
        {
          protocolSlug: "uniswap-v4",
          pool: pool.id,
          kind: "mint",
          sender: v4.liquidityHelper.toLowerCase(),
          owner: v4.liquidityHelper.toLowerCase(),
          amount0: String(eth1 - eth0),
          amount1: String(usdc1 - usdc0),
          liquidity: String(liquidity),
          tickLower,
          tickUpper,
        },
      ]);
      // Every tick the indexer knows of the pool matches StateView: the seeded positions' ten
      // and this one's two.
      const all = await graphqlQuery<{
        v4Ticks: { items: { tick: number; liquidityGross: string; liquidityNet: string }[] };
      }>(
        service,
        `{ v4Ticks(where: { chainId: ${CHAIN_ID}, poolId: "${pool.id}" }, limit: 1000) { items { tick liquidityGross liquidityNet } } }`,
      );
      expect(all.v4Ticks.items).toHaveLength(12);
      for (const row of all.v4Ticks.items) {
        const [gross, net] = await client.readContract({
          ...at,
          functionName: "getTickLiquidity",
          args: [pool.id, row.tick],
        });
        expect(row).toEqual({
          tick: row.tick,
          liquidityGross: gross.toString(),
          liquidityNet: net.toString(),
        });
      }
    });

    test("malformed query parameters get a 400 naming the parameter", async () => {
      const bad = (message: string) => ({
        status: 400,
        body: { statusCode: 400, error: "Bad Request", message },
      });
      const addr = "expected an address (0x followed by 40 hex digits)";
      const cases: [string, string][] = [
        [
          "chainId=abc",
          "Invalid query parameter `chainId`: expected a chain id: a whole number from 1 to 9007199254740991.",
        ],
        [
          "chainId=-1",
          "Invalid query parameter `chainId`: expected a chain id: a whole number from 1 to 9007199254740991.",
        ],
        [
          "chainId=0x1",
          "Invalid query parameter `chainId`: expected a chain id: a whole number from 1 to 9007199254740991.",
        ],
        [
          "chainId=1&chainId=2",
          "Query parameter `chainId` must be given once; it was given 2 times.",
        ],
        ["address=0x123", `Invalid query parameter \`address\`: ${addr}.`],
        ["address=", `Invalid query parameter \`address\`: ${addr}.`],
        [
          "protocolSlug=Uniswap%20V2",
          "Invalid query parameter `protocolSlug`: expected a protocol slug (lowercase letters, digits and dashes).",
        ],
        [
          "type=lp",
          "Invalid query parameter `type`: expected one of baseToken, defiToken, base, defi.",
        ],
        ["primayAddress=zz", `Invalid query parameter \`primayAddress\`: ${addr}.`],
        [
          "primaryAddress=0xZZ00000000000000000000000000000000000000",
          `Invalid query parameter \`primaryAddress\`: ${addr}.`,
        ],
        [
          `primayAddress=${`0x${"1".repeat(40)}`}&primaryAddress=${`0x${"2".repeat(40)}`}`,
          "Query parameters `primayAddress` and `primaryAddress` name the same filter but were given different addresses.",
        ],
        [
          `underlyingTokens=${`0x${"1".repeat(40)}`}&underlyingTokens=nope`,
          `Invalid query parameter \`underlyingTokens\`: ${addr}.`,
        ],
        [
          "page=0",
          "Invalid query parameter `page`: expected a page number: a whole number from 1 to 9007199254740991.",
        ],
        [
          "page=1.5",
          "Invalid query parameter `page`: expected a page number: a whole number from 1 to 9007199254740991.",
        ],
        [
          "page=99999999999999999999",
          "Invalid query parameter `page`: expected a page number: a whole number from 1 to 9007199254740991.",
        ],
        [
          "perPage=10",
          "Unknown query parameter `perPage`; accepted: chainId, address, protocolSlug, type, primayAddress, primaryAddress, page, underlyingTokens.",
        ],
      ];
      for (const [query, message] of cases) {
        expect({ query, ...(await get(`/v1/tokens?${query}`)) }).toEqual({
          query,
          ...bad(message),
        });
      }
      expect(await get("/v1/standards?chainId=1")).toEqual(
        bad("Unknown query parameter `chainId`; this endpoint takes no query parameters."),
      );
      expect(await get("/v1/projects?x=1")).toEqual(
        bad("Unknown query parameter `x`; this endpoint takes no query parameters."),
      );
    });

    test("unknown paths get a JSON 404", async () => {
      expect(await get("/v1/nope")).toEqual({
        status: 404,
        body: { statusCode: 404, error: "Not Found", message: "No route for GET /v1/nope." },
      });
      expect(await get("/v1/projects/nope/logo.svg")).toEqual({
        status: 404,
        body: { statusCode: 404, error: "Not Found", message: "Unknown project `nope`." },
      });
    });

    test("after generated activity, every indexed pair, pool, tick and vault equals the chain", async () => {
      const d = service.deployment;
      const counts = await runActivity({
        rpcUrl: service.anvil.url,
        deployment: d,
        steps: 21,
        seed: 5,
      });
      for (const kind of Object.keys(counts) as (keyof typeof counts)[]) {
        expect({ kind, done: counts[kind] > 0 }).toEqual({ kind, done: true });
      }
      // Cross a vault refresh block so yield is visible too.
      await client.request({ method: "anvil_mine" as never, params: ["0x1a"] as never });
      const head = await client.getBlockNumber({ cacheTime: 0 });
      await waitForIndexedBlock(service, head);
      await expectIndexMatchesChain(service, client, head);
    }, 180_000);

    test("addresses come back checksummed", async () => {
      const list = await tokens("");
      for (const t of list.data) {
        if (t.address !== NATIVE_TOKEN_ADDRESS) expect(t.address).toBe(getAddress(t.address));
      }
    });
  });
}
