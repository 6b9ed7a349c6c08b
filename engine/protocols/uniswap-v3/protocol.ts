import type { Protocol } from "../types.js";
import { uniswapV3Actions, uniswapV3SwapMethod } from "./actions.js";
import { UNISWAP_V3_FORKS } from "./forks.js";
import { uniswapV3Pool } from "./pool.js";

export const uniswapV3: Protocol = {
  slug: "uniswap-v3",
  url: "https://app.uniswap.org",
  project: {
    title: "Uniswap V3",
    description: "Concentrated-liquidity automated market maker with 0.05%, 0.3% and 1% fee tiers.",
    url: "https://app.uniswap.org",
    twitter: "@Uniswap",
    category: "Dexes",
  },
  forks: UNISWAP_V3_FORKS.map((f) => ({ slug: f.slug, url: f.url })),
  poolSource: "v3Pool",
  supports: (chain) => chain.uniswapV3 !== undefined,
  poolKind: uniswapV3Pool,
  actions: uniswapV3Actions,
  methods: [uniswapV3SwapMethod],
};
