/**
 * Which Uniswap V4 pools the routing graph takes: the hook policy on the permission bits of the
 * hook's address and the dynamic-fee flag, the operator's allow-list, and how the snapshot's
 * reader turns a row into a pool (or leaves it out).
 */
import { describe, expect, test } from "vitest";
import type { Address } from "../../engine/core/types.js";
import {
  uniswapV4Admission,
  uniswapV4SwapAltered,
} from "../../engine/protocols/uniswap-v4/hooks.js";
import { type V4PoolRow, v4PoolOf } from "../../src/api/protocols/uniswap-v4.js";
import { AddressInterner } from "../../src/api/snapshot/address-interner.js";

/** A hook address whose low 14 bits are `flags`. */
const hook = (flags: number): Address =>
  `0x${"7".repeat(36)}${flags.toString(16).padStart(4, "0")}` as Address;
const NO_HOOK = "0x0000000000000000000000000000000000000000" as Address;
const BEFORE_SWAP = 1 << 7;
const AFTER_SWAP = 1 << 6;
const BEFORE_SWAP_RETURNS_DELTA = 1 << 3;
const AFTER_SWAP_RETURNS_DELTA = 1 << 2;
const DYNAMIC_FEE = 0x800000;

describe("the V4 hook policy", () => {
  test("no hook, or a hook that never runs during a swap, on a static fee: routed with exact math", () => {
    // beforeInitialize, afterInitialize, the four liquidity callbacks and the two donate ones.
    const outsideSwaps = [1 << 13, 1 << 12, 1 << 11, 1 << 10, 1 << 9, 1 << 8, 1 << 5, 1 << 4];
    for (const hooks of [
      NO_HOOK,
      ...outsideSwaps.map(hook),
      hook(outsideSwaps.reduce((a, b) => a | b)),
    ]) {
      expect(uniswapV4SwapAltered(hooks, 3000)).toBeUndefined();
      expect(uniswapV4Admission({ hooks, keyFee: 3000 }, [])).toBe("exact");
    }
  });

  test("a hook that runs during a swap, or a dynamic fee: left out, unless the hook is allow-listed", () => {
    const cases: [Address, number, string][] = [
      // Called during the swap with the manager unlocked, it can trade the pool around it.
      [hook(BEFORE_SWAP), 3000, "its hook has beforeSwap"],
      [hook(AFTER_SWAP), 3000, "its hook has afterSwap"],
      [hook(BEFORE_SWAP | AFTER_SWAP | (1 << 11)), 500, "its hook has beforeSwap and afterSwap"],
      [hook(BEFORE_SWAP_RETURNS_DELTA), 500, "its hook has beforeSwapReturnDelta"],
      [
        hook(BEFORE_SWAP | BEFORE_SWAP_RETURNS_DELTA),
        500,
        "its hook has beforeSwap and beforeSwapReturnDelta",
      ],
      [
        hook(AFTER_SWAP | AFTER_SWAP_RETURNS_DELTA),
        500,
        "its hook has afterSwap and afterSwapReturnDelta",
      ],
      [hook(1 << 13), DYNAMIC_FEE, "its hook has a dynamic fee"],
      [
        hook(BEFORE_SWAP | BEFORE_SWAP_RETURNS_DELTA | AFTER_SWAP | AFTER_SWAP_RETURNS_DELTA),
        DYNAMIC_FEE,
        "its hook has beforeSwap and afterSwap and beforeSwapReturnDelta and afterSwapReturnDelta and a dynamic fee",
      ],
    ];
    for (const [hooks, keyFee, reason] of cases) {
      expect(uniswapV4SwapAltered(hooks, keyFee)).toBe(reason);
      expect(uniswapV4Admission({ hooks, keyFee }, [])).toBe("excluded");
      expect(uniswapV4Admission({ hooks, keyFee }, [hook(1 << 11)])).toBe("excluded");
      expect(uniswapV4Admission({ hooks, keyFee }, [hooks])).toBe("simulated");
    }
  });
});

describe("v4PoolOf: an indexed row as the routing graph's pool", () => {
  const row: V4PoolRow = {
    poolId: `0x${"AB".repeat(32)}`,
    poolManager: "0x000000000004444C5DC75CB358380D2E3DE08A90",
    token0: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE",
    token1: "0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48",
    fee: 500,
    tickSpacing: 10,
    hooks: NO_HOOK,
    protocolFee: 300 | (200 << 12),
    lastSwapFee: 800,
    sqrtPriceX96: 2n ** 96n,
    tick: 0,
    liquidity: 10n ** 18n,
  };
  const ticks = [
    { tick: 10, liquidityNet: -(10n ** 18n), liquidityGross: 10n ** 18n },
    { tick: -10, liquidityNet: 10n ** 18n, liquidityGross: 10n ** 18n },
    { tick: 20, liquidityNet: 0n, liquidityGross: 0n },
  ];

  test("a hookless pool: keyed by its PoolId, lowercase, its LP and protocol fees as indexed", () => {
    expect(v4PoolOf(row, ticks, new AddressInterner(), [])).toEqual({
      kind: "v4",
      protocol: "uniswap-v4",
      address: `0x${"ab".repeat(32)}`,
      poolManager: "0x000000000004444c5dc75cb358380d2e3de08a90",
      token0: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
      token1: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
      feePpm: 500,
      keyFee: 500,
      protocolFee: 300 | (200 << 12),
      tickSpacing: 10,
      hooks: NO_HOOK,
      admission: "exact",
      sqrtPriceX96: 2n ** 96n,
      tick: 0,
      liquidity: 10n ** 18n,
      // Ascending, without the tick every position has left.
      ticks: [
        { tick: -10, liquidityNet: 10n ** 18n },
        { tick: 10, liquidityNet: -(10n ** 18n) },
      ],
    });
  });

  test("a dynamic-fee pool: left out; allow-listed, its last swap's whole fee stands in for the math's", () => {
    const dynamic = { ...row, fee: DYNAMIC_FEE, hooks: hook(BEFORE_SWAP) };
    expect(v4PoolOf(dynamic, ticks, new AddressInterner(), [])).toBeUndefined();
    const allowed = v4PoolOf(dynamic, ticks, new AddressInterner(), [hook(BEFORE_SWAP)]);
    expect(allowed).toMatchObject({
      admission: "simulated",
      feePpm: 800,
      keyFee: DYNAMIC_FEE,
      protocolFee: 0,
    });
  });
});
