/**
 * Gas units of uniswap-v4's steps in a route through the project's router, measured on the devnet by
 * bench/routing-gas.ts (results and method in bench/results/routing-gas.md).
 */
/**
 * A Uniswap V4 hop crossing no initialized tick: the executor's `unlock`, the manager's
 * callback, `swap`, `sync`/`settle` of the input and `take` of the output.
 */
export const V4_SWAP_GAS = 80_000;
/** Each initialized tick a V4 swap crosses (a 4-tick swap measured 17,198 per tick). */
export const V4_TICK_CROSS_GAS = 17_000;
/**
 * What a V4 hop selling native ether costs less: the route's input is the transaction's value
 * (no ERC20 pull, counted in ROUTE_BASE_GAS) and the manager is paid with `settle{value}`.
 */
export const V4_NATIVE_IN_GAS_SAVED = 15_500;
