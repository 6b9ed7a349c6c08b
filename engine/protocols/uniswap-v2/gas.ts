/**
 * Gas units of uniswap-v2's steps in a route through the project's router, measured on the devnet by
 * bench/routing-gas.ts (results and method in bench/results/routing-gas.md).
 */
/** A Uniswap V2 hop: the executor's one-command transfer, reserves read and `pair.swap`. */
export const V2_SWAP_GAS = 72_500;
/**
 * A single-sided add to a Uniswap V2 pair: sizing the sale (ProgramValues.uniswapV2ZapIn and
 * its four words), the sale, both transfers to the pair and `mint`.
 */
export const V2_ZAP_IN_GAS = 159_000;
/** A single-sided removal: the LP transfer, `burn`, the sale of the other side and the sum. */
export const V2_ZAP_OUT_GAS = 158_000;
