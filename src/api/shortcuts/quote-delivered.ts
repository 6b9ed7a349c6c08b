/**
 * Whether a simulation delivered what the engine quoted. A route whose pools are all taken by
 * their math (no allow-listed V4 hook, whose pools are quoted by the simulation alone) delivers
 * that math's amount on the state it was quoted on, give or take rounding. When it delivers
 * less, some code on the route acts otherwise than its state says, or acts differently in a
 * real transaction than in a quote: a minimum derived from the simulated amount would let it
 * keep the difference, and one derived from the quote would not be met. Either way the route is
 * refused.
 *
 * "Rounding", exactly:
 * - Aave V3 aTokens: a balance is a scaled amount times the liquidity index, rounded once over
 *   the account's whole scaled balance, so an aToken credit or a withdrawal of "all" held can be
 *   one wei less than the math's. Each Aave hop of a leg may come out one wei short, and the legs'
 *   later hops then swap one wei less: the allowance is the leg's quote less the same leg quoted
 *   with one wei taken at each Aave hop.
 * - A fee-on-transfer output token: what it burns of itself in the transaction (its `Transfer`
 *   events to the zero address) never reaches the receiver. Only the token's own contract can
 *   emit those events, so no pool can claim this allowance.
 * - An output token whose own accounting loses wei on a transfer (a rebasing balance held as
 *   shares rounds each credit down): when the token's own `Transfer` events show the route's
 *   last pools paying at least the quote, the pools did what their state says, and what is lost
 *   after that is the token's. Again, only the token can emit those events.
 * Nothing else: V2, V3 and V4 pools without swap-time hooks, ERC-4626 vaults and the wrapper
 * are exact to the wei.
 */
import {
  type Address,
  decodeEventLog,
  erc20Abi,
  type Hex,
  toEventSelector,
  zeroAddress,
} from "viem";
import type { Edge, EdgeQuote, QuotedFlow, QuotedLeg, RouteQuote } from "../../../engine/index.js";
import {
  displayAddress,
  QuoteNotDeliveredError,
  quoteFlowBy,
  routeHops,
  simulateEdge,
} from "../../../engine/index.js";
import type { SimulationLog } from "../chain/simulate.js";

/** True when every pool of `quote` is taken by its math (the check applies). */
export function quotedByMath(quote: RouteQuote): boolean {
  return routeHops(quote).every(
    (hop) => hop.edge.pool.kind !== "v4" || hop.edge.pool.admission === "exact",
  );
}

/** An edge's exact quote with one wei taken from an Aave hop's output. */
function simulateWithAaveRounding(edge: Edge, amountIn: bigint): EdgeQuote {
  const quote = simulateEdge(edge, amountIn);
  if (!quote.ok || edge.pool.kind !== "aave-v3" || quote.amountOut === 0n) return quote;
  return { ...quote, amountOut: quote.amountOut - 1n };
}

/** What `quote`'s flow gives with one wei taken after each of its Aave hops (undefined: a pool refuses). */
function flowWithAaveRounding(quote: RouteQuote, flow: QuotedFlow): bigint | undefined {
  const low = quoteFlowBy(
    { simulate: simulateWithAaveRounding, gas: () => 0 },
    {
      tokenIn: quote.tokenIn,
      tokenOut: quote.tokenOut,
      amountIn: quote.amountIn,
      hops: flow.hops,
    },
  );
  if (!low.ok) return low.reason === "zero-output" ? 0n : undefined;
  return low.amountOut;
}

/** What `leg` gives with one wei taken after each of its Aave hops (undefined: a pool refuses). */
function legWithAaveRounding(leg: QuotedLeg): bigint | undefined {
  let amount = leg.amountIn;
  for (const hop of leg.hops) {
    const quote = simulateEdge(hop.edge, amount);
    if (!quote.ok) return quote.reason === "zero-output" ? 0n : undefined;
    amount = quote.amountOut;
    if (hop.edge.pool.kind === "aave-v3" && amount > 0n) amount -= 1n;
  }
  return amount;
}

/** How far below `quote.amountOut` the Aave hops' rounding alone can bring the output. */
export function aaveRoundingAllowance(quote: RouteQuote): bigint {
  if (quote.flow) {
    if (!quote.flow.hops.some((hop) => hop.edge.pool.kind === "aave-v3")) return 0n;
    const low = flowWithAaveRounding(quote, quote.flow);
    return low === undefined ? quote.amountOut : quote.amountOut - low;
  }
  let allowance = 0n;
  for (const leg of quote.legs) {
    if (!leg.hops.some((hop) => hop.edge.pool.kind === "aave-v3")) continue;
    const low = legWithAaveRounding(leg);
    allowance += low === undefined ? leg.amountOut : leg.amountOut - low;
  }
  return allowance;
}

/** An ERC-20 `Transfer` event's first topic. */
const TRANSFER_TOPIC = toEventSelector("Transfer(address,address,uint256)");

/**
 * The ERC-20 `Transfer`s `token` emitted in `logs` (other events are skipped before decoding: a
 * failed decode builds an error, which every route's check would pay for each WETH `Deposit`).
 */
function* transfersOf(token: Address, logs: readonly SimulationLog[]) {
  for (const log of logs) {
    if (log.address.toLowerCase() !== token.toLowerCase()) continue;
    if ((log.topics[0] as Hex | undefined)?.toLowerCase() !== TRANSFER_TOPIC) continue;
    try {
      const event = decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics as never });
      if (event.eventName === "Transfer") yield event.args;
    } catch {
      // A `Transfer` of another shape (ERC-721's indexes its amount): not the token's ERC-20 event.
    }
  }
}

/** What `token` burned of itself in `logs` (its `Transfer`s to the zero address). */
export function burnedBy(token: Address, logs: readonly SimulationLog[]): bigint {
  let burned = 0n;
  for (const transfer of transfersOf(token, logs)) {
    if (transfer.to === zeroAddress) burned += transfer.value;
  }
  return burned;
}

/**
 * Who pays the output of each leg's last hop (each hop of a flow making the output), when it is a swap pool that transfers it out
 * (V2 and V3 pools, V4's pool manager); undefined when a leg ends otherwise (a vault's or
 * aToken's mint, an unwrap), where no payment event stands for the quote.
 */
function lastPayers(quote: RouteQuote): Set<string> | undefined {
  const payers = new Set<string>();
  const lastHops = quote.flow
    ? quote.flow.hops.filter((hop) => hop.edge.tokenOut === quote.tokenOut)
    : quote.legs.map((leg) => leg.hops.at(-1));
  for (const hop of lastHops) {
    const pool = hop?.edge.pool;
    if (pool?.kind === "v2" || pool?.kind === "v3") payers.add(pool.address.toLowerCase());
    else if (pool?.kind === "v4") payers.add(pool.poolManager.toLowerCase());
    else return undefined;
  }
  return payers;
}

/** What the route's last pools paid of `token`, by the token's own `Transfer` events. */
export function paidByLastPools(params: {
  quote: RouteQuote;
  tokenOut: Address;
  logs: readonly SimulationLog[];
}): bigint {
  const payers = lastPayers(params.quote);
  if (payers === undefined) return 0n;
  let paid = 0n;
  for (const transfer of transfersOf(params.tokenOut, params.logs)) {
    if (payers.has(transfer.from.toLowerCase())) paid += transfer.value;
  }
  return paid;
}

/** How far below the quote a simulated output may fall by rounding (see the module's header). */
export function roundingAllowance(params: {
  quote: RouteQuote;
  tokenOut: Address;
  logs: readonly SimulationLog[];
}): bigint {
  return aaveRoundingAllowance(params.quote) + burnedBy(params.tokenOut, params.logs);
}

/** Whether `simulated` is what `quote` gives, up to rounding. */
export function deliversQuote(params: {
  quote: RouteQuote;
  tokenOut: Address;
  simulated: bigint;
  logs: readonly SimulationLog[];
}): boolean {
  const { quote, simulated } = params;
  if (simulated + roundingAllowance(params) >= quote.amountOut) return true;
  // The last pools paid the quote; the token's own accounting delivered less of it.
  return quote.amountOut > 0n && paidByLastPools(params) >= quote.amountOut;
}

/**
 * The refusal of a route whose simulation, on the state it was quoted on (`blockNumber`),
 * delivered `simulated` instead of the quote's amount.
 */
export function quoteNotDelivered(params: {
  chainId: number;
  tokenOut: Address;
  quoted: bigint;
  simulated: bigint;
  blockNumber: bigint;
}): QuoteNotDeliveredError {
  const { quoted, simulated, blockNumber } = params;
  return new QuoteNotDeliveredError(
    `The route's transaction delivered ${simulated} wei of ${displayAddress(params.tokenOut)} in simulation on block ${blockNumber}, but its pools' state there gives ${quoted} wei: code on the route acts otherwise than its state says, so no safe minimum can be set. The route is refused.`,
    {
      quoted,
      simulated,
      details: {
        blockNumber: Number(blockNumber),
        quoted: quoted.toString(),
        simulated: simulated.toString(),
      },
    },
  );
}
