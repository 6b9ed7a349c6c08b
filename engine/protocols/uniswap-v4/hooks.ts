/**
 * Which Uniswap V4 pools the routing graph takes, by what their hook may do. A V4 hook's
 * permissions are the low 14 bits of its address (v4-core `Hooks`); a pool's key fee with
 * `0x800000` set lets its hook pick the LP fee of every swap.
 */

import { V4_DYNAMIC_FEE_FLAG } from "../../routing/math/uniswap-v4.js";
import type { Address } from "../../routing/types.js";

/** `Hooks.BEFORE_SWAP_RETURNS_DELTA_FLAG`: the hook may take or give part of the swap. */
export const BEFORE_SWAP_RETURNS_DELTA_FLAG = 1n << 3n;
/** `Hooks.AFTER_SWAP_RETURNS_DELTA_FLAG`: the hook may take or give part of the output. */
export const AFTER_SWAP_RETURNS_DELTA_FLAG = 1n << 2n;

/**
 * Why a pool's swaps may differ from the pool math, or `undefined` when they cannot: no hook,
 * or a hook without a swap-return-delta permission on a static-fee pool.
 */
export function uniswapV4SwapAltered(hooks: Address, keyFee: number): string | undefined {
  const bits = BigInt(hooks);
  const reasons: string[] = [];
  if (bits & BEFORE_SWAP_RETURNS_DELTA_FLAG) reasons.push("beforeSwapReturnDelta");
  if (bits & AFTER_SWAP_RETURNS_DELTA_FLAG) reasons.push("afterSwapReturnDelta");
  if (keyFee === V4_DYNAMIC_FEE_FLAG) reasons.push("a dynamic fee");
  return reasons.length === 0 ? undefined : `its hook has ${reasons.join(" and ")}`;
}

/** How the graph takes a pool: by its math, by simulation (allow-listed hook), or not at all. */
export type UniswapV4Admission = "exact" | "simulated" | "excluded";

/** The graph's policy: altered pools only when the operator allow-lists their hook. */
export function uniswapV4Admission(
  pool: { hooks: Address; keyFee: number },
  allowedHooks: readonly Address[],
): UniswapV4Admission {
  if (uniswapV4SwapAltered(pool.hooks, pool.keyFee) === undefined) return "exact";
  return allowedHooks.includes(pool.hooks.toLowerCase() as Address) ? "simulated" : "excluded";
}
