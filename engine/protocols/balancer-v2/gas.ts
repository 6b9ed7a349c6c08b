/**
 * Gas units of balancer-v2's steps in a route through the project's router, measured as
 * bench/routing-gas.ts measures the others' (a one-hop router transaction's `gasUsed` less
 * `ROUTE_BASE_GAS`, engine/routing/gas.ts) on the devnet's pools by
 * `npx vitest run test/protocols/balancer-v2-routes.test.ts`, which prints each measurement and
 * holds these constants to within 3% of it. Measured (two runs differ by about 2,000; with
 * ROUTE_BASE_GAS at 77,000): 95,250 to 96,938 (weighted, BAL → WETH), 137,898 to 140,008 (stable,
 * USDC → DAI), 180,048 to 182,158 (USDC → BPT), 163,264 to 165,374 (BPT → DAI); a weighted pool's
 * join 159,568 to 161,678 (USDC → the 50/50 pool's BPT), its exit 137,560 (the BPT → WETH).
 */
/** Exact `approve` of the vault and `Vault.swap` through a weighted pool. */
export const BALANCER_V2_WEIGHTED_SWAP_GAS = 96_000;
/** The same through a composable stable pool, between two of its tokens. */
export const BALANCER_V2_STABLE_SWAP_GAS = 139_000;
/** The same into a composable stable pool's BPT: a single-token join inside the swap. */
export const BALANCER_V2_STABLE_JOIN_SWAP_GAS = 181_000;
/** Out of a composable stable pool's BPT, a single-token exit (no approval: the BPT needs none). */
export const BALANCER_V2_STABLE_EXIT_SWAP_GAS = 164_000;
/** A weighted pool's single-token join: the request built, the exact `approve`, `Vault.joinPool`, the BPT read before and after. */
export const BALANCER_V2_WEIGHTED_JOIN_GAS = 160_500;
/** A weighted pool's single-token exit: the request built, `Vault.exitPool`, the token read before and after. */
export const BALANCER_V2_WEIGHTED_EXIT_GAS = 138_000;
