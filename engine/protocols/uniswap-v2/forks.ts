/**
 * Forks of Uniswap V2: protocols of the same family (the same pair contract, the same
 * constant-product pool kind and program steps) under their own slug, project, fee and LP token.
 * Adding one is one entry of {@link UNISWAP_V2_FORKS}; where it is deployed is the chain's
 * configuration (`ChainSetup.uniswapV2Forks`, chains.ts and known-chains.ts).
 */
import { type ForkIdentity, forkProtocolIdentity, type Protocol } from "../types.js";
import { uniswapV2SwapAction, uniswapV2SwapMethod } from "./actions.js";
import { uniswapV2Pool } from "./pool.js";

/** What makes one fork of Uniswap V2 differ from it. */
export type UniswapV2Fork = ForkIdentity & {
  /** Its pairs' swap fee in millionths of the input (3000 = Uniswap V2's 0.3%). */
  feePpm: number;
  /** Its pairs' LP token metadata: constants of its pair contract. */
  lp: { name: string; symbol: string; decimals: number };
};

/**
 * The forks the service knows. `pancakeswap-v1` is PancakeSwap's first AMM, whose pair
 * (0.2% fee) the devnet world deploys from `@pancakeswap-libs/pancake-swap-core`'s bytecode.
 */
export const UNISWAP_V2_FORKS: readonly UniswapV2Fork[] = [
  {
    slug: "pancakeswap-v1",
    url: "https://pancakeswap.finance",
    title: "PancakeSwap V1",
    description: "PancakeSwap's first constant-product AMM, a Uniswap V2 fork with 0.2% fee pairs.",
    twitter: "@PancakeSwap",
    feePpm: 2000,
    lp: { name: "Pancake LPs", symbol: "Cake-LP", decimals: 18 },
  },
  {
    slug: "pancakeswap-v2",
    url: "https://pancakeswap.finance",
    title: "PancakeSwap V2",
    description: "PancakeSwap's constant-product AMM, a Uniswap V2 fork with 0.25% fee pairs.",
    twitter: "@PancakeSwap",
    feePpm: 2500,
    lp: { name: "Pancake LPs", symbol: "Cake-LP", decimals: 18 },
  },
  {
    slug: "sushiswap-v2",
    url: "https://www.sushi.com",
    title: "SushiSwap V2",
    description: "SushiSwap's constant-product AMM, a Uniswap V2 fork with 0.3% fee pairs.",
    twitter: "@SushiSwap",
    feePpm: 3000,
    lp: { name: "SushiSwap LP Token", symbol: "SLP", decimals: 18 },
  },
];

/** The fork of `slug`, if it is one. */
export function uniswapV2Fork(slug: string): UniswapV2Fork | undefined {
  return UNISWAP_V2_FORKS.find((f) => f.slug === slug);
}

/**
 * A fork as a protocol: Uniswap V2's pool kind (routes go through its pairs at its fee) and its
 * `swap` on a named pair; liquidity is added and removed through the fork's own router, which
 * the service does not carry, so `deposit` and `redeem` are Uniswap V2's alone.
 */
export function uniswapV2ForkProtocol(fork: UniswapV2Fork): Protocol {
  return {
    ...forkProtocolIdentity(fork),
    poolSource: "v2Pair",
    supports: (chain) => chain.uniswapV2Forks?.some((f) => f.slug === fork.slug) ?? false,
    poolKind: uniswapV2Pool,
    actions: { swap: uniswapV2SwapAction },
    methods: [uniswapV2SwapMethod],
  };
}

/** Every known fork, as a protocol. */
export const uniswapV2Forks: readonly Protocol[] = UNISWAP_V2_FORKS.map(uniswapV2ForkProtocol);
