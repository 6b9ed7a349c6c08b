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
export const ROUTE_BASE_GAS = 77_000;
/**
 * Each further leg of a split, besides its steps. Negative: a second leg touches tokens and
 * balances the first leg already made warm (EIP-2929), so its hops cost less than alone.
 */
export const EXTRA_LEG_GAS = -11_500;

/**
 * What a flow's splits and merges (quote-flow.ts) add to its hops' gas, each hop counted as in a
 * route of its own: a token divided at run time between pools (`splitProportionally`, plus one
 * `arrayElement` per pool) and the outputs of several hops summed into one (`sum`). Negative, as
 * a further leg is: the later hops touch tokens and balances the earlier ones made warm
 * (EIP-2929), which saves more than the helper calls cost.
 */
export const FLOW_SPLIT_GAS = -15_750;
export const FLOW_SPLIT_HOP_GAS = 3_600;
export const FLOW_MERGE_GAS = -19_750;

export function routeGas(legs: number, stepsGas: number): number {
  return legs === 0 ? 0 : ROUTE_BASE_GAS + (legs - 1) * EXTRA_LEG_GAS + stepsGas;
}

/**
 * A route's calldata, FastLZ-compressed as an OP-stack chain's L1 fee counts it
 * (l1-data-fee.ts), in bytes: the fixed part (the router's call, its program's header, the
 * sweep), each hop (a V2 hop measures 84, a V3 hop 125: one constant for every kind, their
 * mean), and each further leg of a split besides its hops. Measured on the router strategy's
 * transactions as the route builder encodes them (bench/routing-l1-data.ts, results in
 * bench/results/routing-l1-data.md); the search values a route's L1 data fee by them, and the
 * answer reports the exact fee of the calldata it returns.
 */
export const ROUTE_BASE_DATA_BYTES = 195;
export const HOP_DATA_BYTES = 105;
export const EXTRA_LEG_DATA_BYTES = 25;

/** The estimated compressed calldata bytes of a route of `legs` legs and `hops` hops in all. */
export function routeDataBytes(legs: number, hops: number): number {
  return legs === 0
    ? 0
    : ROUTE_BASE_DATA_BYTES + (legs - 1) * EXTRA_LEG_DATA_BYTES + hops * HOP_DATA_BYTES;
}
