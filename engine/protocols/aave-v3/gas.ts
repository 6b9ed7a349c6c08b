/**
 * Gas units of aave-v3's steps in a route through the project's router, measured on the devnet by
 * bench/routing-gas.ts (results and method in bench/results/routing-gas.md).
 */
/**
 * An Aave V3 supply: the aToken balance read before, the exact `approve`, `Pool.supply` (the
 * reserve's state and rates updated, the aTokens minted) and the balance growth read after.
 */
export const AAVE_SUPPLY_GAS = 193_000;
/**
 * An Aave V3 `Pool.withdraw` of all the executor holds: the reserve updated, the aTokens burnt,
 * the asset paid out (with the router's pull of aTokens, which costs more than a plain ERC20's;
 * measured from a depositor without debt: a borrower's aTokens run Aave's health-factor check on
 * every transfer).
 */
export const AAVE_WITHDRAW_GAS = 162_000;
