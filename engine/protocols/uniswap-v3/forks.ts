/**
 * Forks of Uniswap V3: protocols of the same family (the same pool math, tick map and swap
 * interface, the same concentrated-liquidity pool kind) under their own slug, project and fee
 * tiers. Adding one is one entry of {@link UNISWAP_V3_FORKS}; where it is deployed is the
 * chain's configuration (`ChainSetup.uniswapV3Forks`, chains.ts).
 *
 * A fork's pools are swapped through the fork's own SwapRouter under every strategy: the router
 * executor answers Uniswap's swap callback for Uniswap's factory only, and the fork's SwapRouter
 * pays only a pool at the CREATE2 address of its deployer and init code hash.
 */
import { type ForkIdentity, forkProtocolIdentity, type Protocol } from "../types.js";
import { uniswapV3Actions, uniswapV3SwapMethod } from "./actions.js";
import { uniswapV3Pool } from "./pool.js";

/** What makes one fork of Uniswap V3 differ from it. */
export type UniswapV3Fork = ForkIdentity & {
  /**
   * Which pool contract its pools run, for the events the indexer reads: Uniswap's own
   * (`uniswap`), or PancakeSwap's (`pancakeswap`, whose `Swap` event adds the protocol fees).
   */
  poolContract: "uniswap" | "pancakeswap";
};

/**
 * The forks the service knows. `pancakeswap-v3` is the one the devnet world deploys, from
 * `@pancakeswap/v3-core`'s and `@pancakeswap/v3-periphery`'s bytecode.
 */
export const UNISWAP_V3_FORKS: readonly UniswapV3Fork[] = [
  {
    slug: "pancakeswap-v3",
    url: "https://pancakeswap.finance",
    title: "PancakeSwap V3",
    description:
      "PancakeSwap's concentrated-liquidity AMM, a Uniswap V3 fork with 0.01%, 0.05%, 0.25% and 1% fee tiers.",
    twitter: "@PancakeSwap",
    poolContract: "pancakeswap",
  },
  {
    slug: "sushiswap-v3",
    url: "https://www.sushi.com",
    title: "SushiSwap V3",
    description:
      "SushiSwap's concentrated-liquidity AMM, Uniswap V3's contracts under SushiSwap's factory.",
    twitter: "@SushiSwap",
    poolContract: "uniswap",
  },
];

/** The fork of `slug`, if it is one. */
export function uniswapV3Fork(slug: string): UniswapV3Fork | undefined {
  return UNISWAP_V3_FORKS.find((f) => f.slug === slug);
}

/** A fork as a protocol: Uniswap V3's pool kind and its `swap` on a named pool. */
function uniswapV3ForkProtocol(fork: UniswapV3Fork): Protocol {
  return {
    ...forkProtocolIdentity(fork),
    poolSource: "v3Pool",
    supports: (chain) => chain.uniswapV3Forks?.some((f) => f.slug === fork.slug) ?? false,
    poolKind: uniswapV3Pool,
    actions: uniswapV3Actions,
    methods: [{ ...uniswapV3SwapMethod, functionNames: ["exactInputSingle"] }],
  };
}

/** Every known fork, as a protocol. */
export const uniswapV3Forks: readonly Protocol[] = UNISWAP_V3_FORKS.map(uniswapV3ForkProtocol);
