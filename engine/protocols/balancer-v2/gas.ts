/**
 * Gas units of balancer-v2's steps in a route through the project's router, measured as
 * bench/routing-gas.ts measures the others' (a one-hop router transaction's `gasUsed` less
 * `ROUTE_BASE_GAS`, engine/routing/gas.ts) on the devnet's pools by
 * `npx vitest run test/protocols/balancer-v2-routes.test.ts`, which prints each measurement and
 * holds these constants to within 3% of it. Measured (two runs differ by about 2,000): 97,250 to
 * 98,938 (weighted, BAL → WETH), 139,898 to 142,008 (stable, USDC → DAI), 182,048 to 184,158
 * (USDC → BPT), 165,264 to 167,374 (BPT → DAI).
 */
/** Exact `approve` of the vault and `Vault.swap` through a weighted pool. */
export const BALANCER_V2_WEIGHTED_SWAP_GAS = 98_000;
/** The same through a composable stable pool, between two of its tokens. */
export const BALANCER_V2_STABLE_SWAP_GAS = 141_000;
/** The same into a composable stable pool's BPT: a single-token join inside the swap. */
export const BALANCER_V2_STABLE_JOIN_SWAP_GAS = 183_000;
/** Out of a composable stable pool's BPT, a single-token exit (no approval: the BPT needs none). */
export const BALANCER_V2_STABLE_EXIT_SWAP_GAS = 166_000;
