/**
 * Which Uniswap V4 pools the routing graph takes, by what their hook may do. A V4 hook's
 * permissions are the low 14 bits of its address (v4-core `Hooks`); a pool's key fee with
 * `0x800000` set lets its hook pick the LP fee of every swap.
 *
 * A hook called during a swap runs while the pool manager is unlocked by the swapper: even
 * without a return-delta permission it can trade its own pool around the swap (a sandwich inside
 * the swapper's own transaction, needing neither capital nor the mempool), and it can behave
 * differently when it thinks it is being simulated. Its pool's amounts are the pool math's only
 * if the hook is honest, so only the operator can vouch for it.
 */

import type { Address } from "../../core/types.js";
import { V4_DYNAMIC_FEE_FLAG } from "./math.js";

/** `Hooks.BEFORE_SWAP_FLAG`: the hook is called before every swap. */
export const BEFORE_SWAP_FLAG = 1n << 7n;
/** `Hooks.AFTER_SWAP_FLAG`: the hook is called after every swap. */
export const AFTER_SWAP_FLAG = 1n << 6n;
/** `Hooks.BEFORE_SWAP_RETURNS_DELTA_FLAG`: the hook may take or give part of the swap. */
export const BEFORE_SWAP_RETURNS_DELTA_FLAG = 1n << 3n;
/** `Hooks.AFTER_SWAP_RETURNS_DELTA_FLAG`: the hook may take or give part of the output. */
export const AFTER_SWAP_RETURNS_DELTA_FLAG = 1n << 2n;

/** The permissions under which a hook runs during a swap, with their names in v4-core. */
const SWAP_TIME_PERMISSIONS: readonly [bigint, string][] = [
  [BEFORE_SWAP_FLAG, "beforeSwap"],
  [AFTER_SWAP_FLAG, "afterSwap"],
  [BEFORE_SWAP_RETURNS_DELTA_FLAG, "beforeSwapReturnDelta"],
  [AFTER_SWAP_RETURNS_DELTA_FLAG, "afterSwapReturnDelta"],
];

/**
 * Why a pool's swaps may differ from the pool math, or `undefined` when they cannot: no hook,
 * or a hook with none of the swap-time permissions on a static-fee pool (it may run when
 * liquidity moves or the pool is initialized, never during a swap).
 */
export function uniswapV4SwapAltered(hooks: Address, keyFee: number): string | undefined {
  const bits = BigInt(hooks);
  const reasons = SWAP_TIME_PERMISSIONS.filter(([flag]) => bits & flag).map(([, name]) => name);
  if (keyFee === V4_DYNAMIC_FEE_FLAG) reasons.push("a dynamic fee");
  return reasons.length === 0 ? undefined : `its hook has ${reasons.join(" and ")}`;
}

/** How the graph takes a pool: by its math, by simulation (allow-listed hook), or not at all. */
export type UniswapV4Admission = "exact" | "simulated" | "excluded";

/** The graph's policy: pools whose hook runs during swaps only when the operator allow-lists it. */
export function uniswapV4Admission(
  pool: { hooks: Address; keyFee: number },
  allowedHooks: readonly Address[],
): UniswapV4Admission {
  if (uniswapV4SwapAltered(pool.hooks, pool.keyFee) === undefined) return "exact";
  return allowedHooks.includes(pool.hooks.toLowerCase() as Address) ? "simulated" : "excluded";
}
