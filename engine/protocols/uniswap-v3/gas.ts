/**
 * Gas units of uniswap-v3's steps in a route through the project's router, measured on the devnet by
 * bench/routing-gas.ts (results and method in bench/results/routing-gas.md).
 */
/** A Uniswap V3 hop crossing no initialized tick: `pool.swap`, callback payment, output read. */
export const V3_SWAP_GAS = 73_500;
/**
 * A hop through a fork's pool crossing no initialized tick, called directly as Uniswap's are:
 * `pool.swap`, the callback reading the fork deployer's init code hash (a cold storage read) and
 * paying, output read. Measured on PancakeSwap V3's pool, whose swap also calls its farming
 * hook and keeps its protocol fees (92,465; through its SwapRouter it was 128,392).
 */
export const V3_FORK_SWAP_GAS = 92_500;
/** Each initialized tick a V3 swap crosses (a 24-tick swap measured 24,213 per tick). */
export const V3_TICK_CROSS_GAS = 24_000;
