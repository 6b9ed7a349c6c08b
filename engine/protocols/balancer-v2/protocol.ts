import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import { poolHop } from "../../bundle/actions/pool-action.js";
import type { ActionSpec } from "../../bundle/actions/types.js";
import type { Protocol } from "../types.js";
import { BALANCER_V2_POOL_KIND, balancerV2Pool } from "./pool.js";

/**
 * Balancer V2: swaps through the vault's weighted and composable stable pools, into and out of
 * a composable stable pool's BPT included. Not among the built-in protocols yet (the service
 * does not index its pools): an engine routes through it when made with
 * `createEngine({ protocols: [balancerV2] })` and given its pools.
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
  // Usable wherever an engine is given its pools: no chain configures a vault yet.
  supports: () => true,
  // Its pools are of a kind outside the built-in `Pool` union (`ext:`): the registry dispatches
  // by kind, so this kind only ever receives Balancer V2 pools.
  poolKind: balancerV2Pool as unknown as Protocol["poolKind"],
  actions: { swap: poolHop(BALANCER_V2_POOL_KIND, "swap") as unknown as ActionSpec },
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
