/** The ERC4626 bundle actions: `deposit` assets for shares, `redeem` shares for assets. */
import { poolHop, poolHopTo } from "../../bundle/actions/pool-action.js";
import type { ActionSpec } from "../../bundle/actions/types.js";

/** The actions of every ERC4626 vault protocol, by method (`deposit` may name a receiver). */
export const erc4626Actions: Record<string, ActionSpec> = {
  deposit: poolHopTo("erc4626", "deposit"),
  redeem: poolHop("erc4626", "redeem"),
};
