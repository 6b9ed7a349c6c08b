import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import { poolHop } from "../../bundle/actions/pool-action.js";
import type { Protocol } from "../types.js";
import { BALANCER_V2_POOL_KIND, balancerV2Pool } from "./pool.js";

/**
 * Balancer V2: swaps through the vault's weighted and composable stable pools, into and out of
 * a composable stable pool's BPT included (a single-token join or exit is such a swap, so the
 * protocol has no `deposit`/`redeem` method of its own). Supported on the chains whose setup
 * names a vault (`ChainSetup.balancerV2`), whose pools the service indexes.
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
  actions: { swap: poolHop(BALANCER_V2_POOL_KIND, "swap") },
  methods: [
    {
      method: "swap",
      name: "Swap",
      functionNames: ["swap"],
      inputs: {
        primaryAddress: "Pool address",
        tokenIn: "Token to sell (the pool's BPT included, for a composable stable pool)",
        tokenOut: "Token to buy (likewise)",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "Amount of tokenOut received" },
    },
  ],
};
