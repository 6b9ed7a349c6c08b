import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import type { Protocol } from "../types.js";
import { uniswapV3Actions } from "./actions.js";
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
  forks: [],
  poolSource: "v3Pool",
  supports: (chain) => chain.uniswapV3 !== undefined,
  poolKind: uniswapV3Pool,
  actions: uniswapV3Actions,
  methods: [
    {
      method: "swap",
      name: "Swap",
      functionNames: ["swap", "uniswapV3SwapCallback"],
      inputs: {
        primaryAddress: "Pool address",
        tokenIn: "Token to sell",
        tokenOut: "Token to buy",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "Amount of tokenOut received" },
    },
  ],
};
