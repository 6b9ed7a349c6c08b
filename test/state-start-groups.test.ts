/**
 * A state start reads its pools group by group (`readGroups`, src/state-start/groups.ts): each
 * group at most 64 requests' worth of calls (`STATE_READ_BATCH` each), so a chain's pools are
 * never all in memory at once. The groups keep the pools' order, and a pool heavier than a group
 * is a group of its own.
 */
import { afterEach, expect, test, vi } from "vitest";
import { readGroups } from "../src/state-start/groups.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

test("groups hold at most 64 requests' worth of calls, in order; a heavier pool stands alone", () => {
  vi.stubEnv("STATE_READ_BATCH", "2");
  // 128 calls a group.
  expect(readGroups([100, 20, 10, 129, 5, 64, 64, 1], (calls) => calls)).toEqual([
    [100, 20],
    [10],
    [129],
    [5, 64],
    [64, 1],
  ]);
  expect(readGroups([], (calls: number) => calls)).toEqual([]);
});

test("at the default batch, V2 pairs (two calls each) go 32,000 to a group", () => {
  vi.stubEnv("STATE_READ_BATCH", "");
  const pairs = Array.from({ length: 70_000 }, (_, i) => i);
  const groups = readGroups(pairs, () => 2);
  expect(groups.map((g) => g.length)).toEqual([32_000, 32_000, 6_000]);
  expect(groups.flat()).toEqual(pairs);
});
