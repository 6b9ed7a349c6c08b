/**
 * Gas units of erc4626's steps in a route through the project's router, measured on the devnet by
 * bench/routing-gas.ts (results and method in bench/results/routing-gas.md).
 */
/** ERC4626 exact `approve` + `deposit`. */
export const DEPOSIT_GAS = 65_000;
/** ERC4626 `redeem`. */
export const REDEEM_GAS = 41_000;
