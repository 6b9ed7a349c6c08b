/**
 * The gas limit answered with a route or bundle, pinned to the wei: 5/4 of the simulated gas for
 * refunds (rounded up), 109/100 of that for nested calls (rounded up), 25,000 for storage a later
 * block may write first, and an EIP-7702 authorization's 25,000 for `delegate`.
 */
import { describe, expect, test } from "vitest";
import { gasLimit, LATER_BLOCK_GAS } from "../../engine/program/sending.js";

describe("gasLimit", () => {
  test("keeps 25,000 gas for a later block", () => {
    expect(LATER_BLOCK_GAS).toBe(25_000n);
  });

  test.each([
    // gasUsed, router/corewallet, delegate
    [0n, 25_000n, 50_000n],
    // 5/4 of 1 is 1.25, rounded up to 2; 109/100 of 2 is 2.18, rounded up to 3.
    [1n, 25_003n, 50_003n],
    // 5/4 of 4 is exactly 5; 109/100 of 5 is 5.45, rounded up to 6.
    [4n, 25_006n, 50_006n],
    // 5/4 of 100,000 is 125,000; 109/100 of it exactly 136,250.
    [100_000n, 161_250n, 186_250n],
    // 185,413.75 → 185,414; 202,101.26 → 202,102.
    [148_331n, 227_102n, 252_102n],
    [1_000_003n, 1_387_505n, 1_412_505n],
  ])("gasUsed %s: %s, and %s under delegate", (gasUsed, limit, delegated) => {
    expect(gasLimit({ gasUsed, strategy: "router" })).toBe(limit);
    expect(gasLimit({ gasUsed, strategy: "corewallet" })).toBe(limit);
    expect(gasLimit({ gasUsed, strategy: "delegate" })).toBe(delegated);
  });
});
