import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import type { Protocol } from "../types.js";
import { uniswapV2Actions, uniswapV2SwapMethod } from "./actions.js";
import { UNISWAP_V2_FORKS } from "./forks.js";
import { uniswapV2Pool } from "./pool.js";

const amount = AMOUNT_DESCRIPTION;

export const uniswapV2: Protocol = {
  slug: "uniswap-v2",
  url: "https://app.uniswap.org",
  project: {
    title: "Uniswap V2",
    description: "Constant-product automated market maker with 0.3% fee pairs.",
    url: "https://app.uniswap.org",
    twitter: "@Uniswap",
    category: "Dexes",
  },
  forks: UNISWAP_V2_FORKS.map((f) => ({ slug: f.slug, url: f.url })),
  poolSource: "v2Pair",
  supports: (chain) => chain.uniswapV2 !== undefined,
  poolKind: uniswapV2Pool,
  actions: uniswapV2Actions,
  methods: [
    uniswapV2SwapMethod,
    {
      method: "deposit",
      name: "Add liquidity",
      functionNames: ["mint"],
      inputs: {
        primaryAddress: "Pair address",
        tokenIn: "The pair's two tokens, as an array",
        tokenOut: "Pair (LP token) address",
        amountIn: "Amounts of the two tokens, as an array",
      },
      outputs: { liquidity: "LP tokens minted" },
    },
    {
      method: "redeem",
      name: "Remove liquidity",
      functionNames: ["burn"],
      inputs: {
        primaryAddress: "Pair address",
        tokenIn: "Pair (LP token) address",
        tokenOut: "The pair's two tokens, as an array",
        amountIn: amount,
      },
      outputs: { amount0: "Amount of token0 received", amount1: "Amount of token1 received" },
    },
  ],
};
