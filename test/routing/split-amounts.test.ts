import { describe, expect, it } from "vitest";
import { uniswapV2AmountOut } from "../../engine/protocols/uniswap-v2/math.js";
import { splitApprox, splitExact } from "../../engine/routing/split-amounts.js";
import { E18 } from "./fixtures.js";

const pair = (reserve: bigint) => (amountIn: bigint) =>
  uniswapV2AmountOut({ amountIn, reserveIn: reserve, reserveOut: reserve, feePpm: 3000 });

describe("splitExact", () => {
  it("divides evenly between two equal pools, from any feasible start", () => {
    const legs = [pair(1000n * E18), pair(1000n * E18)];
    const amountIn = 100n * E18;
    const result = splitExact({ amountIn, legs, start: [amountIn, 0n], firstStepShift: 1 });
    expect(result?.amounts).toEqual([amountIn / 2n, amountIn / 2n]);
    expect(result?.total).toBe(2n * (legs[0]?.(amountIn / 2n) as bigint));
  });

  it("splits in proportion to depth, the known optimum, and nothing near it does better", () => {
    // Two pools at the same price and fee: outputs are maximal when x / 1000 = y / 3000.
    const legs = [pair(1000n * E18), pair(3000n * E18)];
    const amountIn = 400n * E18;
    const result = splitExact({ amountIn, legs, start: [amountIn / 2n, amountIn / 2n] });
    if (!result) throw new Error("no split");
    const [first, second] = legs as [(v: bigint) => bigint, (v: bigint) => bigint];
    expect(result.amounts).toEqual([100n * E18, 300n * E18]);
    expect(result.outputs).toEqual([first(100n * E18), second(300n * E18)]);
    expect(result.total).toBe(362_644_357_552_059_652_632n);
    // Every shift of up to 10^6 wei either way (in steps of 1,000) gives at most as much.
    for (let d = -(10n ** 6n); d <= 10n ** 6n; d += 1000n) {
      expect(first(100n * E18 + d) + second(300n * E18 - d)).toBeLessThanOrEqual(result.total);
    }
  });

  it("is undefined from a start a leg cannot take", () => {
    const legs = [pair(1000n * E18), () => undefined];
    expect(splitExact({ amountIn: E18, legs, start: [0n, E18] })).toBeUndefined();
  });
});

describe("splitApprox", () => {
  it("moves input away from a leg that cannot take it", () => {
    const capped = (x: number) => (x > 10 ? Number.NaN : x);
    const result = splitApprox({ amountIn: 100, legs: [capped, (x) => x / 2] });
    expect(result.amounts[0]).toBeLessThanOrEqual(10);
    expect(result.total).toBeGreaterThan(50);
  });
});
