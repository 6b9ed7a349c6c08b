/**
 * What "rounding" allows between a route's quote and its simulated output: one wei at each Aave
 * hop (carried through the leg's later hops), what a fee-on-transfer output token burns of
 * itself, what an output token's own accounting loses after the last pools paid the whole quote,
 * and nothing else.
 */
import { encodeAbiParameters, encodeEventTopics, erc20Abi, type Hex, pad, zeroAddress } from "viem";
import { describe, expect, test } from "vitest";
import type {
  AaveReservePool,
  Address,
  Edge,
  RouteQuote,
  V2Pool,
} from "../../engine/core/types.js";
import { simulateEdge } from "../../engine/index.js";
import {
  aaveRoundingAllowance,
  burnedBy,
  deliversQuote,
  paidByLastPools,
  quotedByMath,
} from "../../src/api/shortcuts/quote-delivered.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
const [usdc, ausdc, weth] = [address(1), address(2), address(3)];

const pair: V2Pool = {
  kind: "v2",
  protocol: "uniswap-v2",
  address: address(10),
  token0: usdc,
  token1: weth,
  reserve0: 3_000_000n * 10n ** 6n,
  reserve1: 1_000n * 10n ** 18n,
  feePpm: 3000,
  totalSupply: 10n ** 18n,
};
const RAY = 10n ** 27n;
const reserve: AaveReservePool = {
  kind: "aave-v3",
  protocol: "aave-v3",
  address: ausdc,
  pool: address(20),
  asset: usdc,
  debtTokens: [address(21), address(22)],
  liquidityIndex: RAY + RAY / 7n,
  liquidityRate: 0n,
  lastUpdateTimestamp: 0n,
  accrueTo: 0n,
  availableLiquidity: 10n ** 15n,
  supplyCap: 0n,
  scaledSupplied: 0n,
  active: true,
  frozen: false,
  paused: false,
};

/** A one-leg quote along `edges`, each hop quoted by the engine. */
function quoteAlong(edges: Edge[], amountIn: bigint): RouteQuote {
  const hops = [];
  let amount = amountIn;
  for (const edge of edges) {
    const q = simulateEdge(edge, amount);
    if (!q.ok) throw new Error("the fixture's pool refused");
    hops.push({ edge, amountIn: amount, amountOut: q.amountOut });
    amount = q.amountOut;
  }
  const first = edges[0] as Edge;
  const last = edges.at(-1) as Edge;
  return {
    tokenIn: first.tokenIn,
    tokenOut: last.tokenOut,
    amountIn,
    amountOut: amount,
    legs: [{ amountIn, amountOut: amount, hops }],
    gasUnits: 0n,
    gasCostInTokenOut: 0n,
  };
}

const sellUsdc: Edge = { pool: pair, tokenIn: usdc, tokenOut: weth, action: "swap" };
const withdraw: Edge = { pool: reserve, tokenIn: ausdc, tokenOut: usdc, action: "redeem" };

describe("the rounding a simulated output may fall short of its quote by", () => {
  test("pools exact to the wei: none; one wei short is refused", () => {
    const quote = quoteAlong([sellUsdc], 1_000n * 10n ** 6n);
    expect(quotedByMath(quote)).toBe(true);
    expect(aaveRoundingAllowance(quote)).toBe(0n);
    expect(deliversQuote({ quote, tokenOut: weth, simulated: quote.amountOut, logs: [] })).toBe(
      true,
    );
    expect(
      deliversQuote({ quote, tokenOut: weth, simulated: quote.amountOut - 1n, logs: [] }),
    ).toBe(false);
  });

  test("an Aave withdrawal, then a swap: the swap of one wei less", () => {
    const amountIn = 1_000n * 10n ** 6n;
    const quote = quoteAlong([withdraw, sellUsdc], amountIn);
    const oneLess = simulateEdge(sellUsdc, amountIn - 1n);
    if (!oneLess.ok) throw new Error("the pair refused");
    expect(aaveRoundingAllowance(quote)).toBe(quote.amountOut - oneLess.amountOut);
    expect(aaveRoundingAllowance(quote)).toBeGreaterThan(1n);
    expect(deliversQuote({ quote, tokenOut: weth, simulated: oneLess.amountOut, logs: [] })).toBe(
      true,
    );
    expect(
      deliversQuote({ quote, tokenOut: weth, simulated: oneLess.amountOut - 1n, logs: [] }),
    ).toBe(false);
  });

  test("a fee-on-transfer output: what the token itself burned; another contract's event counts for nothing", () => {
    const transfer = (emitter: Address, to: Address, value: bigint) => ({
      address: emitter,
      topics: encodeEventTopics({
        abi: erc20Abi,
        eventName: "Transfer",
        args: { from: pair.address, to },
      }) as Hex[],
      data: encodeAbiParameters([{ type: "uint256" }], [value]),
    });
    // The token's other events are no transfers: an approval of the zero address, and a
    // `Transfer` with its amount indexed (an ERC-721's shape).
    const approval = {
      address: weth,
      topics: encodeEventTopics({
        abi: erc20Abi,
        eventName: "Approval",
        args: { owner: pair.address, spender: zeroAddress },
      }) as Hex[],
      data: encodeAbiParameters([{ type: "uint256" }], [500n]),
    };
    const nft = {
      address: weth,
      topics: [...transfer(weth, zeroAddress, 0n).topics, pad("0x07")] as Hex[],
      data: "0x" as Hex,
    };
    const logs = [
      transfer(weth, address(99), 990n),
      approval,
      transfer(weth, zeroAddress, 10n),
      nft,
      transfer(address(77), zeroAddress, 1_000n),
    ];
    expect(burnedBy(weth, logs)).toBe(10n);
    const quote = quoteAlong([sellUsdc], 1_000n * 10n ** 6n);
    expect(deliversQuote({ quote, tokenOut: weth, simulated: quote.amountOut - 10n, logs })).toBe(
      true,
    );
    expect(deliversQuote({ quote, tokenOut: weth, simulated: quote.amountOut - 11n, logs })).toBe(
      false,
    );
  });

  test("an output whose own accounting loses wei: accepted only when the token's events show the last pool paying the whole quote", () => {
    const quote = quoteAlong([sellUsdc], 1_000n * 10n ** 6n);
    const paid = (emitter: Address, from: Address, value: bigint) => ({
      address: emitter,
      topics: encodeEventTopics({
        abi: erc20Abi,
        eventName: "Transfer",
        args: { from, to: address(99) },
      }) as Hex[],
      data: encodeAbiParameters([{ type: "uint256" }], [value]),
    });
    const byPool = [paid(weth, pair.address, quote.amountOut)];
    expect(paidByLastPools({ quote, tokenOut: weth, logs: byPool })).toBe(quote.amountOut);
    expect(
      deliversQuote({ quote, tokenOut: weth, simulated: quote.amountOut - 2n, logs: byPool }),
    ).toBe(true);
    // The pool paid one wei less than its state gives: refused, whatever the token did after.
    const short = [paid(weth, pair.address, quote.amountOut - 1n)];
    expect(
      deliversQuote({ quote, tokenOut: weth, simulated: quote.amountOut - 2n, logs: short }),
    ).toBe(false);
    // The same payment claimed by another sender, or in another contract's event: no allowance.
    const other = [
      paid(weth, address(55), quote.amountOut),
      paid(address(77), pair.address, quote.amountOut),
    ];
    expect(paidByLastPools({ quote, tokenOut: weth, logs: other })).toBe(0n);
    expect(
      deliversQuote({ quote, tokenOut: weth, simulated: quote.amountOut - 1n, logs: other }),
    ).toBe(false);
    // A route ending in an Aave withdrawal has no payment event standing for its quote.
    const viaAave = quoteAlong([withdraw], 1_000n * 10n ** 6n);
    expect(
      paidByLastPools({
        quote: viaAave,
        tokenOut: usdc,
        logs: [paid(usdc, ausdc, viaAave.amountOut)],
      }),
    ).toBe(0n);
  });
});
