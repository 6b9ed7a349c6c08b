/**
 * Gas units of uniswap-v3's steps in a route through the project's router, measured on the devnet by
 * bench/routing-gas.ts (results and method in bench/results/routing-gas.md).
 */
/** A Uniswap V3 hop crossing no initialized tick: `pool.swap`, callback payment, output read. */
export const V3_SWAP_GAS = 73_500;
/**
 * A hop through a fork's pool, by the fork's SwapRouter: exact approval, `exactInputSingle`
 * (the router's callback pulls the input), allowance reset. Measured on PancakeSwap V3's pool.
 */
export const V3_FORK_ROUTER_SWAP_GAS = 128_500;
/** Each initialized tick a V3 swap crosses (a 24-tick swap measured 24,213 per tick). */
export const V3_TICK_CROSS_GAS = 24_000;
