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

export function routeGas(legs: number, stepsGas: number): number {
  return legs === 0 ? 0 : ROUTE_BASE_GAS + (legs - 1) * EXTRA_LEG_GAS + stepsGas;
}
