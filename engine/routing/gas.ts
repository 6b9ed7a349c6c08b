/**
 * Gas units of executing a route through the project's router, per step. Measured on the
 * devnet by bench/routing-gas.ts (results and method in bench/results/routing-gas.md):
 * `gasUsed` of router transactions running the router strategy's programs, with warm pools
 * (traded in an earlier block, crossed ticks crossed before), each constant the difference of
 * two routes that differ by one step.
 */

/**
 * A route's fixed part: 21,000 intrinsic gas, the router's pull of an ERC20 input, its fee
 * logic, receiver balance check and executor-empty checks, and the final sweep.
 */
export const ROUTE_BASE_GAS = 75_000;
/**
 * Each further leg of a split, besides its steps. Negative: a second leg touches tokens and
 * balances the first leg already made warm (EIP-2929), so its hops cost less than alone.
 */
export const EXTRA_LEG_GAS = -14_000;
/** A Uniswap V2 hop: the executor's one-command transfer, reserves read and `pair.swap`. */
export const V2_SWAP_GAS = 71_000;
/**
 * A single-sided add to a Uniswap V2 pair: sizing the sale (ProgramValues.uniswapV2ZapIn and
 * its four words), the sale, both transfers to the pair and `mint`.
 */
export const V2_ZAP_IN_GAS = 156_000;
/** A single-sided removal: the LP transfer, `burn`, the sale of the other side and the sum. */
export const V2_ZAP_OUT_GAS = 156_000;
/** A Uniswap V3 hop crossing no initialized tick: `pool.swap`, callback payment, output read. */
export const V3_SWAP_GAS = 73_000;
/** Each initialized tick a V3 swap crosses (a 24-tick swap measured 24,154 per tick). */
export const V3_TICK_CROSS_GAS = 24_000;
/**
 * A Uniswap V4 hop crossing no initialized tick: the executor's `unlock`, the manager's
 * callback, `swap`, `sync`/`settle` of the input and `take` of the output.
 */
export const V4_SWAP_GAS = 80_000;
/** Each initialized tick a V4 swap crosses (a 4-tick swap measured 17,101 per tick). */
export const V4_TICK_CROSS_GAS = 17_000;
/**
 * What a V4 hop selling native ether costs less: the route's input is the transaction's value
 * (no ERC20 pull, counted in ROUTE_BASE_GAS) and the manager is paid with `settle{value}`.
 */
export const V4_NATIVE_IN_GAS_SAVED = 16_000;
/**
 * An Aave V3 supply: the aToken balance read before, the exact `approve`, `Pool.supply` (the
 * reserve's state and rates updated, the aTokens minted) and the balance growth read after.
 */
export const AAVE_SUPPLY_GAS = 190_000;
/**
 * An Aave V3 `Pool.withdraw` of all the executor holds: the reserve updated, the aTokens burnt,
 * the asset paid out (with the router's pull of aTokens, which costs more than a plain ERC20's;
 * measured from a depositor without debt: a borrower's aTokens run Aave's health-factor check on
 * every transfer).
 */
export const AAVE_WITHDRAW_GAS = 162_000;
/** ERC4626 exact `approve` + `deposit`. */
export const DEPOSIT_GAS = 62_000;
/** ERC4626 `redeem`. */
export const REDEEM_GAS = 41_000;
/**
 * WETH `deposit` of a native input; small because a native input spares the router's ERC20
 * pull counted in ROUTE_BASE_GAS.
 */
export const WRAP_GAS = 4_000;
/** WETH `withdraw` to a native output (the sweep pays native instead of an ERC20). */
export const UNWRAP_GAS = 5_500;

export function routeGas(legs: number, stepsGas: number): number {
  return legs === 0 ? 0 : ROUTE_BASE_GAS + (legs - 1) * EXTRA_LEG_GAS + stepsGas;
}
