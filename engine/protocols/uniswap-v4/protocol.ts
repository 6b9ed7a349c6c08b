import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import type { Protocol } from "../types.js";
import { uniswapV4Actions } from "./actions.js";
import { uniswapV4Pool } from "./pool.js";

export const uniswapV4: Protocol = {
  slug: "uniswap-v4",
  url: "https://app.uniswap.org",
  project: {
    title: "Uniswap V4",
    description:
      "Concentrated-liquidity pools in one singleton pool manager, with native-currency pools and hooks. Pools whose hook runs during swaps (beforeSwap, afterSwap, a swap-return-delta permission or a dynamic fee) are routed only when the operator allow-lists the hook (UNISWAP_V4_HOOKS_<chainId>): such a hook could trade against the swap or change its amounts.",
    url: "https://app.uniswap.org",
    twitter: "@Uniswap",
    category: "Dexes",
  },
  forks: [],
  poolSource: "v4Pool",
  supports: (chain) => chain.uniswapV4 !== undefined,
  poolKind: uniswapV4Pool,
  actions: uniswapV4Actions,
  methods: [
    {
      method: "swap",
      name: "Swap",
      functionNames: ["unlock", "unlockCallback", "swap", "settle", "take"],
      inputs: {
        primaryAddress: "Pool manager address",
        poolId: "Pool id (the 32-byte PoolId of the pool's key)",
        tokenIn: "Token to sell (0xeeee… for the native currency)",
        tokenOut: "Token to buy (0xeeee… for the native currency)",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "Amount of tokenOut received" },
    },
  ],
};
