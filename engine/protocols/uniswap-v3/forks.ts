/**
 * Forks of Uniswap V3: protocols of the same family (the same pool math, tick map and swap
 * interface, the same concentrated-liquidity pool kind) under their own slug, project and fee
 * tiers. Adding one is one entry of {@link UNISWAP_V3_FORKS}; where it is deployed is the
 * chain's configuration (`ChainSetup.uniswapV3Forks`, chains.ts).
 *
 * Under the router a fork's pools are called directly, as Uniswap's are: the router executor
 * built for the chain trusts each configured fork's pool deployer with the fork's pool init code
 * hash, and pays from its swap callback (Uniswap's `uniswapV3SwapCallback`, PancakeSwap's
 * `pancakeV3SwapCallback`) only the pool at the CREATE2 address they give. Accounts without a
 * swap callback (`delegate`, `corewallet`) swap them through the fork's own SwapRouter.
 */
import type { Hex } from "viem";
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
  /** keccak256 of its pool's creation code: a pool's address is CREATE2 of it. */
  poolInitCodeHash: Hex;
  /**
   * Whether its factory creates pools through a separate pool deployer contract (PancakeSwap's
   * `PancakeV3PoolDeployer`), whose address a deployment then names beside the factory.
   */
  separatePoolDeployer: boolean;
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
    // The hash of `@pancakeswap/v3-core`'s PancakeV3Pool creation code, PancakeSwap's published
    // one (test/protocols/chains.test.ts checks it against the npm artifact).
    poolInitCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
    separatePoolDeployer: true,
  },
  {
    slug: "sushiswap-v3",
    url: "https://www.sushi.com",
    title: "SushiSwap V3",
    description:
      "SushiSwap's concentrated-liquidity AMM, Uniswap V3's contracts under SushiSwap's factory.",
    twitter: "@SushiSwap",
    poolContract: "uniswap",
    // Uniswap V3's own pool, unchanged.
    poolInitCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
    separatePoolDeployer: false,
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
    // The pool's `swap` and the callback its contract makes (under the router), the fork's
    // SwapRouter's `exactInputSingle` (other accounts).
    methods: [
      {
        ...uniswapV3SwapMethod,
        functionNames: [
          "swap",
          fork.poolContract === "pancakeswap" ? "pancakeV3SwapCallback" : "uniswapV3SwapCallback",
          "exactInputSingle",
        ],
      },
    ],
  };
}

/** Every known fork, as a protocol. */
export const uniswapV3Forks: readonly Protocol[] = UNISWAP_V3_FORKS.map(uniswapV3ForkProtocol);
