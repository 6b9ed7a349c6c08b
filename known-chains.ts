/**
 * The real chains this service knows without being told their contracts: for each, the wrapped
 * native token, the dollar stablecoins that anchor USD prices, Uniswap V2, V3 and V4, the forks of
 * Uniswap deployed there and the Aave V3 market. `PONDER_RPC_URL_<id>` is all an operator sets for
 * one of them (chains.ts).
 *
 * The addresses come from the address books their makers publish, pinned exactly in
 * package.json: `@uniswap/sdk-core` (Uniswap's factories, routers, quoters and V4 singletons, and
 * the wrapped native tokens) and `@bgd-labs/aave-address-book` (each Aave V3 market and its
 * assets). What neither book carries is in {@link NOT_IN_THE_BOOKS}, each fact with its source.
 * Multicall3, which the state start reads through, is at its canonical address on every one of
 * these chains (`MULTICALL3_ADDRESS`), so it has no entry here.
 */
import { createRequire } from "node:module";
import {
  AaveV3Arbitrum,
  AaveV3Base,
  AaveV3BNB,
  AaveV3Ethereum,
  AaveV3Optimism,
  AaveV3Polygon,
} from "@bgd-labs/aave-address-book";
import type * as UniswapSdkCore from "@uniswap/sdk-core";
import { type Address, getAddress } from "viem";
import { type ChainSetup, OP_STACK_GAS_PRICE_ORACLE, uniswapV3Fork } from "./engine/index.js";

/**
 * `@uniswap/sdk-core`, through its CommonJS build: its ES-module build imports its own files
 * without extensions, which Node's loader refuses (`ERR_MODULE_NOT_FOUND`).
 */
export const uniswapAddressBook = createRequire(import.meta.url)(
  "@uniswap/sdk-core",
) as typeof UniswapSdkCore;

/** What a known chain fixes; the environment adds the rest (chains.ts). */
export type KnownChain = Omit<
  ChainSetup,
  "rpc" | "startBlock" | "vaults" | "execution" | "deterministicExecution" | "devnet"
>;

type AaveMarket = {
  CHAIN_ID: number;
  POOL: string;
  POOL_ADDRESSES_PROVIDER: string;
  POOL_CONFIGURATOR: string;
  AAVE_PROTOCOL_DATA_PROVIDER: string;
  ASSETS: Record<string, { UNDERLYING: string }>;
};

/** Where each protocol was deployed (the first block its creation events can be in). */
type DeploymentBlocks = {
  uniswapV2?: number;
  uniswapV3?: number;
  uniswapV4?: number;
  aaveV3?: number;
};

/**
 * What the address books do not carry:
 * - Uniswap V3's original SwapRouter (the routing steps call its `exactInputSingle` with a
 *   deadline; the books name only SwapRouter02, whose interface differs) and QuoterV2 (the books'
 *   `quoterAddress` is the first Quoter on the chains that share mainnet's addresses). Source:
 *   `deploys.md` of Uniswap/v3-periphery and Uniswap's v3 deployment pages. Base and BNB Chain
 *   never had the original SwapRouter: there routes that would need it leave Uniswap V3's pools
 *   out (the router's, which swap the pools themselves, do not).
 * - Deployment blocks. Sources: mainnet's were recorded in this table before its addresses came
 *   from the books; the Uniswap V3 factories' are the `startBlock`s of Uniswap/v3-subgraph's
 *   `networks.json`, and the V4 pool managers' those of Uniswap/v4-subgraph's `networks.json`
 *   (the blocks Uniswap's own subgraphs index from). Where no source names a block, the
 *   protocol's pools are discovered from block 0: slower, never incomplete. (v3-subgraph's block
 *   for BNB Chain is mainnet's number copied, not BNB Chain's deployment: not used. Optimism's
 *   V3 factory predates the chain's November 2021 regenesis, so its block is 0 there too.)
 */
/** The original V3 periphery at the addresses shared by Ethereum, Optimism, Polygon and Arbitrum. */
const SHARED_V3_PERIPHERY = {
  swapRouter: "0xE592427A0AEce92De3Edee1F18E0157C05861564",
  quoterV2: "0x61fFE014bA17989E743c5F6cB21bF9697530B21e",
} as const;

const NOT_IN_THE_BOOKS: Record<
  number,
  { swapRouter?: Address; quoterV2: Address; deployed: DeploymentBlocks }
> = {
  1: {
    ...SHARED_V3_PERIPHERY,
    deployed: {
      uniswapV2: 10_000_835,
      uniswapV3: 12_369_621,
      uniswapV4: 21_688_329,
      aaveV3: 16_291_127,
    },
  },
  10: { ...SHARED_V3_PERIPHERY, deployed: {} },
  56: {
    quoterV2: "0x78D78E420Da98ad378D7799bE8f4AF69033EB077",
    deployed: { uniswapV4: 45_970_610 },
  },
  137: { ...SHARED_V3_PERIPHERY, deployed: { uniswapV3: 22_757_547 } },
  8453: {
    quoterV2: "0x3d4e44Eb1374240CE5F1B871ab261CD16335B76a",
    deployed: { uniswapV3: 2_009_445 },
  },
  42161: { ...SHARED_V3_PERIPHERY, deployed: { uniswapV3: 165 } },
};

/** PancakeSwap V3 has one factory and pool deployer address on the four chains it shares here. */
const PANCAKESWAP_V3 = {
  slug: "pancakeswap-v3",
  factory: "0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865",
  poolDeployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
} as const;

/**
 * The forks of Uniswap V2 and V3 deployed on each known chain (engine/protocols/uniswap-v2/forks.ts
 * and uniswap-v3/forks.ts say what each is), as their makers' address books record them:
 * `sushi`'s `SUSHISWAP_V2_FACTORY_ADDRESS` and `SUSHISWAP_V3_FACTORY_ADDRESS` (SushiSwap V3 runs
 * Uniswap's pool, which its factory creates), `@pancakeswap/sdk`'s `FACTORY_ADDRESS_MAP`
 * (PancakeSwap V2) and `@pancakeswap/v3-sdk`'s `FACTORY_ADDRESSES` and `DEPLOYER_ADDRESSES`
 * (PancakeSwap V3's pools are created by its pool deployer), each pinned exactly in
 * package.json. They are copied here, and test/protocols/known-chains.test.ts checks every entry
 * (and every fork's init code hash) against the books: importing the books would load two more
 * copies of viem and cost about a second at every start for a few constants.
 *
 * Neither book has PancakeSwap's or SushiSwap's V3 SwapRouter, so under `delegate` and
 * `corewallet` a hop through their V3 pools is refused (the router swaps them directly, trusting
 * their pool deployers); `UNISWAP_V3_FORKS_<id>` can name a SwapRouter.
 */
const FORKS: Record<
  number,
  {
    v2: { slug: string; factory: Address }[];
    v3: { slug: string; factory: Address; poolDeployer?: Address }[];
  }
> = {
  1: {
    v2: [
      { slug: "pancakeswap-v2", factory: "0x1097053Fd2ea711dad45caCcc45EfF7548fCB362" },
      { slug: "sushiswap-v2", factory: "0xC0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac" },
    ],
    v3: [
      PANCAKESWAP_V3,
      { slug: "sushiswap-v3", factory: "0xbACEB8eC6b9355Dfc0269C18bac9d6E2Bdc29C4F" },
    ],
  },
  10: {
    v2: [{ slug: "sushiswap-v2", factory: "0xFbc12984689e5f15626Bad03Ad60160Fe98B303C" }],
    v3: [{ slug: "sushiswap-v3", factory: "0x9c6522117e2ed1fE5bdb72bb0eD5E3f2bdE7DBe0" }],
  },
  56: {
    v2: [
      { slug: "pancakeswap-v2", factory: "0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73" },
      { slug: "sushiswap-v2", factory: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4" },
    ],
    v3: [
      PANCAKESWAP_V3,
      { slug: "sushiswap-v3", factory: "0x126555dd55a39328F69400d6aE4F782Bd4C34ABb" },
    ],
  },
  137: {
    v2: [{ slug: "sushiswap-v2", factory: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4" }],
    v3: [{ slug: "sushiswap-v3", factory: "0x917933899c6a5F8E37F31E19f92CdBFF7e8FF0e2" }],
  },
  8453: {
    v2: [
      { slug: "pancakeswap-v2", factory: "0x02a84c1b3BBD7401a5f7fa98a384EBC70bB5749E" },
      { slug: "sushiswap-v2", factory: "0x71524B4f93c58fcbF659783284E38825f0622859" },
    ],
    v3: [
      PANCAKESWAP_V3,
      { slug: "sushiswap-v3", factory: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4" },
    ],
  },
  42161: {
    v2: [
      { slug: "pancakeswap-v2", factory: "0x02a84c1b3BBD7401a5f7fa98a384EBC70bB5749E" },
      { slug: "sushiswap-v2", factory: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4" },
    ],
    v3: [
      PANCAKESWAP_V3,
      { slug: "sushiswap-v3", factory: "0x1af415a1EbA07a4986a52B6f2e7dE7003D82231e" },
    ],
  },
};

/**
 * Where a known chain's forks are discovered from. No source names their deployment blocks, but
 * a lower bound is certain where the original's recorded deployment came first: Uniswap V3's
 * core was licensed (BUSL-1.1) against forks in production until 1 April 2023, after its
 * recorded deployments on Ethereum (May 2021), Polygon (December 2021) and Arbitrum One (2021),
 * and on Ethereum every V2 fork launched after Uniswap V2 (May 2020). Elsewhere (Uniswap V3 on
 * Base came in July 2023) from block 0: slower, never incomplete.
 */
const FORKS_AFTER_ORIGINAL: Record<number, { v2?: true; v3?: true }> = {
  1: { v2: true, v3: true },
  137: { v3: true },
  42161: { v3: true },
};

/** The forks of `id` as chain setup, with their lower-bound discovery blocks. */
function knownForks(
  id: number,
  deployed: DeploymentBlocks,
): Pick<KnownChain, "uniswapV2Forks" | "uniswapV3Forks"> {
  const forks = FORKS[id];
  if (!forks) return {};
  const after = FORKS_AFTER_ORIGINAL[id] ?? {};
  return {
    uniswapV2Forks: forks.v2.map((f) => ({
      slug: f.slug,
      factory: getAddress(f.factory),
      startBlock: after.v2 ? (deployed.uniswapV2 ?? 0) : 0,
    })),
    uniswapV3Forks: forks.v3.map((f) => {
      const fork = uniswapV3Fork(f.slug);
      if (!fork) throw new Error(`known-chains.ts: ${f.slug} is not a known Uniswap V3 fork`);
      return {
        slug: f.slug,
        factory: getAddress(f.factory),
        poolDeployer: getAddress(f.poolDeployer ?? f.factory),
        poolInitCodeHash: fork.poolInitCodeHash,
        startBlock: after.v3 ? (deployed.uniswapV3 ?? 0) : 0,
      };
    }),
  };
}

/** The underlying tokens of `symbols` in an Aave market's asset list. */
function underlyings<A extends Record<string, { UNDERLYING: string }>>(
  assets: A,
  symbols: readonly (keyof A & string)[],
): Address[] {
  return symbols.map((symbol) => getAddress(assets[symbol]?.UNDERLYING ?? ""));
}

/** An address a book may spell in any case, checksummed; absent stays absent. */
function optional(address: string | undefined): Address | undefined {
  return address === undefined ? undefined : getAddress(address);
}

/**
 * Balancer V2's vault and the 2023 weighted and composable stable pool factories (the versions
 * engine/protocols/balancer-v2/ ports) on `network`, as `@balancer-labs/v2-deployments` records
 * them; `startBlock` is the vault's deployment block (0 where no source names it). Undefined on a
 * network the release does not list.
 */
function balancerV2Release(network: string, startBlock: number): KnownChain["balancerV2"] {
  const output = (task: string): Record<string, string> | undefined => {
    try {
      return createRequire(import.meta.url)(
        `@balancer-labs/v2-deployments/dist/tasks/${task}/output/${network}.json`,
      );
    } catch {
      return undefined;
    }
  };
  const vault = output("20210418-vault")?.Vault;
  const weighted = output("20230206-weighted-pool-v3")?.WeightedPoolFactory;
  const stable = output("20230206-composable-stable-pool-v3")?.ComposableStablePoolFactory;
  if (!vault || !weighted || !stable) return undefined;
  return {
    vault: getAddress(vault),
    weightedPoolFactories: [getAddress(weighted)],
    composableStablePoolFactories: [getAddress(stable)],
    startBlock,
  };
}

/** One known chain from the books (and {@link NOT_IN_THE_BOOKS}). */
function knownChain(params: {
  id: UniswapSdkCore.SupportedChainsType;
  name: string;
  title: string;
  aaveV3: AaveMarket;
  stablecoins: Address[];
  /** An OP-stack chain: its `GasPriceOracle` predeploy prices the L1 data fee of a transaction. */
  opStack?: boolean;
  /** Balancer V2's network name in `@balancer-labs/v2-deployments`, and its vault's block. */
  balancerV2?: { network: string; startBlock: number };
}): KnownChain {
  const { id, aaveV3: market } = params;
  const extra = NOT_IN_THE_BOOKS[id];
  if (!extra) throw new Error(`known-chains.ts: chain ${id} has no entry in NOT_IN_THE_BOOKS`);
  if (market.CHAIN_ID !== id) {
    throw new Error(
      `known-chains.ts: the Aave market for chain ${id} is chain ${market.CHAIN_ID}'s`,
    );
  }
  const v3 = uniswapAddressBook.CHAIN_TO_ADDRESSES_MAP[id];
  const v2Factory = uniswapAddressBook.V2_FACTORY_ADDRESSES[id];
  const wrapped = uniswapAddressBook.WETH9[id];
  return {
    id,
    name: params.name,
    title: params.title,
    ...(params.opStack
      ? { l1Fee: { kind: "op-stack" as const, gasPriceOracle: OP_STACK_GAS_PRICE_ORACLE } }
      : {}),
    ...(params.balancerV2
      ? { balancerV2: balancerV2Release(params.balancerV2.network, params.balancerV2.startBlock) }
      : {}),
    weth: optional(wrapped?.address),
    stablecoins: params.stablecoins,
    uniswapV2: v2Factory
      ? {
          factory: getAddress(v2Factory),
          router02: optional(uniswapAddressBook.V2_ROUTER_ADDRESSES[id]),
          startBlock: extra.deployed.uniswapV2 ?? 0,
        }
      : undefined,
    ...knownForks(id, extra.deployed),
    uniswapV3: {
      factory: getAddress(v3.v3CoreFactoryAddress),
      swapRouter: extra.swapRouter,
      quoterV2: extra.quoterV2,
      startBlock: extra.deployed.uniswapV3 ?? 0,
    },
    uniswapV4: v3.v4PoolManagerAddress
      ? {
          poolManager: getAddress(v3.v4PoolManagerAddress),
          stateView: optional(v3.v4StateView),
          quoter: optional(v3.v4QuoterAddress),
          startBlock: extra.deployed.uniswapV4 ?? 0,
          // Hooks are the operator's to trust (UNISWAP_V4_HOOKS_<id>); none by default.
          allowedHooks: [],
        }
      : undefined,
    aaveV3: {
      pool: getAddress(market.POOL),
      poolAddressesProvider: getAddress(market.POOL_ADDRESSES_PROVIDER),
      poolConfigurator: getAddress(market.POOL_CONFIGURATOR),
      dataProvider: getAddress(market.AAVE_PROTOCOL_DATA_PROVIDER),
      startBlock: extra.deployed.aaveV3 ?? 0,
    },
  };
}

const { ChainId } = uniswapAddressBook;

/**
 * Every known chain by id. Stablecoins are the market's dollar stablecoins: USDC, USDT and DAI
 * where they are listed, and on the rollups and Polygon both Circle's native USDC (`USDCn`) and
 * the bridged one the market lists as `USDC` (Base: `USDbC`).
 */
export const KNOWN_CHAINS: Readonly<Record<number, KnownChain>> = Object.fromEntries(
  [
    knownChain({
      id: ChainId.MAINNET,
      name: "mainnet",
      title: "Ethereum",
      aaveV3: AaveV3Ethereum,
      stablecoins: underlyings(AaveV3Ethereum.ASSETS, ["USDC", "USDT", "DAI"]),
      balancerV2: { network: "mainnet", startBlock: 12_272_146 },
    }),
    knownChain({
      id: ChainId.OPTIMISM,
      name: "optimism",
      title: "Optimism",
      aaveV3: AaveV3Optimism,
      stablecoins: underlyings(AaveV3Optimism.ASSETS, ["USDCn", "USDC", "USDT", "DAI"]),
      opStack: true,
      balancerV2: { network: "optimism", startBlock: 0 },
    }),
    knownChain({
      id: ChainId.BNB,
      name: "bsc",
      title: "BNB Chain",
      aaveV3: AaveV3BNB,
      stablecoins: underlyings(AaveV3BNB.ASSETS, ["USDC", "USDT"]),
      balancerV2: { network: "bsc", startBlock: 0 },
    }),
    knownChain({
      id: ChainId.POLYGON,
      name: "polygon",
      title: "Polygon PoS",
      aaveV3: AaveV3Polygon,
      stablecoins: underlyings(AaveV3Polygon.ASSETS, ["USDCn", "USDC", "USDT0", "DAI"]),
      balancerV2: { network: "polygon", startBlock: 0 },
    }),
    knownChain({
      id: ChainId.BASE,
      name: "base",
      title: "Base",
      aaveV3: AaveV3Base,
      stablecoins: underlyings(AaveV3Base.ASSETS, ["USDC", "USDbC"]),
      opStack: true,
    }),
    knownChain({
      id: ChainId.ARBITRUM_ONE,
      name: "arbitrum",
      title: "Arbitrum One",
      aaveV3: AaveV3Arbitrum,
      stablecoins: underlyings(AaveV3Arbitrum.ASSETS, ["USDCn", "USDC", "USDT", "DAI"]),
      balancerV2: { network: "arbitrum", startBlock: 0 },
    }),
  ].map((chain) => [chain.id, chain]),
);
