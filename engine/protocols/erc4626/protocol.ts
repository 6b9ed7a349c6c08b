import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import type { ProjectInfo, Protocol } from "../types.js";
import { erc4626Actions } from "./actions.js";
import { erc4626Pool } from "./pool.js";

const amount = AMOUNT_DESCRIPTION;

/**
 * A protocol made of ERC4626 vaults: deposit assets for shares, redeem shares for assets.
 * Its vaults are the ones configured with its slug (devnet deployment or `VAULTS_<chainId>`).
 */
export function erc4626Protocol(slug: string, project: ProjectInfo): Protocol {
  return {
    slug,
    url: project.url,
    project,
    forks: [],
    poolSource: "vault",
    supports: (chain) => chain.vaults.some((v) => v.protocolSlug === slug),
    poolKind: erc4626Pool,
    actions: erc4626Actions,
    methods: [
      {
        method: "deposit",
        name: "Deposit",
        functionNames: ["deposit"],
        inputs: {
          primaryAddress: "Vault address",
          tokenIn: "The vault's asset",
          tokenOut: "The vault (share token) address",
          amountIn: amount,
          receiver: "Who receives the shares (optional; default the receiver of the bundle)",
        },
        outputs: { shares: "Vault shares minted" },
      },
      {
        method: "redeem",
        name: "Redeem",
        functionNames: ["redeem"],
        inputs: {
          primaryAddress: "Vault address",
          tokenIn: "The vault (share token) address",
          tokenOut: "The vault's asset",
          amountIn: amount,
        },
        outputs: { assets: "Assets paid out" },
      },
    ],
  };
}
