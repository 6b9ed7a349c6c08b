import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import { poolHop } from "../../bundle/actions/pool-action.js";
import type { Protocol } from "../types.js";
import { BALANCER_V2_POOL_KIND, balancerV2Pool } from "./pool.js";

/**
 * Balancer V2: swaps through the vault's weighted and composable stable pools, and single-token
 * joins and exits of both: `deposit` of one of a pool's tokens for its BPT and `redeem` of BPT
 * for one of its tokens. A composable stable pool's are the vault's swap into or out of the BPT
 * (a registered token of the pool); a weighted pool's are `Vault.joinPool`
 * (`EXACT_TOKENS_IN_FOR_BPT_OUT`) and `Vault.exitPool` (`EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`).
 * Supported on the chains whose setup names a vault (`ChainSetup.balancerV2`), whose pools the
 * service indexes.
 */
export const balancerV2: Protocol = {
  slug: "balancer-v2",
  url: "https://balancer.fi",
  project: {
    title: "Balancer V2",
    description:
      "Vault of weighted and composable stable pools; joins and exits with one token of a pool.",
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
      functionNames: ["swap", "joinPool"],
      inputs: {
        primaryAddress: "Pool address (weighted or composable stable)",
        tokenIn: "One of the pool's tokens",
        tokenOut: "The pool's BPT (its address)",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "BPT received" },
    },
    {
      method: "redeem",
      name: "Exit to one token",
      functionNames: ["swap", "exitPool"],
      inputs: {
        primaryAddress: "Pool address (weighted or composable stable)",
        tokenIn: "The pool's BPT (its address)",
        tokenOut: "One of the pool's tokens",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "Amount of tokenOut received" },
    },
  ],
};
