/**
 * Gas units of wrapped-native's steps in a route through the project's router, measured on the devnet by
 * bench/routing-gas.ts (results and method in bench/results/routing-gas.md).
 */
/**
 * WETH `deposit` of a native input; small because a native input spares the router's ERC20
 * pull counted in ROUTE_BASE_GAS.
 */
export const WRAP_GAS = 3_500;
/** WETH `withdraw` to a native output (the sweep pays native instead of an ERC20). */
export const UNWRAP_GAS = 5_500;
