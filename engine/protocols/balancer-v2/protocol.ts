import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import { poolHop } from "../../bundle/actions/pool-action.js";
import type { Protocol } from "../types.js";
import { BALANCER_V2_POOL_KIND, balancerV2Pool } from "./pool.js";

/**
 * Balancer V2: swaps through the vault's weighted and composable stable pools, and a composable
 * stable pool's single-token joins and exits: `deposit` of one of its tokens for its BPT and
 * `redeem` of BPT for one of its tokens, each the vault's swap into or out of the BPT (a
 * registered token of the pool). Supported on the chains whose setup names a vault
 * (`ChainSetup.balancerV2`), whose pools the service indexes.
 */
export const balancerV2: Protocol = {
  slug: "balancer-v2",
  url: "https://balancer.fi",
  project: {
    title: "Balancer V2",
    description:
      "Vault of weighted and composable stable pools; a stable pool's BPT trades like its tokens.",
    url: "https://balancer.fi",
    twitter: "@Balancer",
    category: "Dexes",
  },
  forks: [],
  poolSource: "balancerV2Pool",
  supports: (chain) => chain.balancerV2 !== undefined,
  poolKind: balancerV2Pool,
  actions: {
    swap: poolHop(BALANCER_V2_POOL_KIND, "swap"),
    deposit: poolHop(BALANCER_V2_POOL_KIND, "deposit"),
    redeem: poolHop(BALANCER_V2_POOL_KIND, "redeem"),
  },
  methods: [
    {
      method: "swap",
      name: "Swap",
      functionNames: ["swap"],
      inputs: {
        primaryAddress: "Pool address",
        tokenIn: "Token to sell",
        tokenOut: "Token to buy",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "Amount of tokenOut received" },
    },
    {
      method: "deposit",
      name: "Join with one token",
      functionNames: ["swap"],
      inputs: {
        primaryAddress: "Composable stable pool address",
        tokenIn: "One of the pool's tokens",
        tokenOut: "The pool's BPT (its address)",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "BPT received" },
    },
    {
      method: "redeem",
      name: "Exit to one token",
      functionNames: ["swap"],
      inputs: {
        primaryAddress: "Composable stable pool address",
        tokenIn: "The pool's BPT (its address)",
        tokenOut: "One of the pool's tokens",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "Amount of tokenOut received" },
    },
  ],
};
