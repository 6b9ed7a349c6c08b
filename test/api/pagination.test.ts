import { describe, expect, test } from "vitest";
import { pageMeta } from "../../src/api/pagination.js";

describe("pageMeta (SPEC 2.2)", () => {
  test("first of several pages", () => {
    expect(pageMeta(2500, 1, 1000)).toEqual({
      total: 2500,
      lastPage: 3,
      currentPage: 1,
      perPage: 1000,
      prev: null,
      next: 2,
    });
  });
  test("a middle page", () => {
    expect(pageMeta(2500, 2, 1000)).toEqual({
      total: 2500,
      lastPage: 3,
      currentPage: 2,
      perPage: 1000,
      prev: 1,
      next: 3,
    });
  });
  test("the last page", () => {
    expect(pageMeta(2500, 3, 1000)).toEqual({
      total: 2500,
      lastPage: 3,
      currentPage: 3,
      perPage: 1000,
      prev: 2,
      next: null,
    });
  });
  test("exactly one full page", () => {
    expect(pageMeta(1000, 1, 1000)).toEqual({
      total: 1000,
      lastPage: 1,
      currentPage: 1,
      perPage: 1000,
      prev: null,
      next: null,
    });
  });
  test("nothing matches", () => {
    expect(pageMeta(0, 1, 1000)).toEqual({
      total: 0,
      lastPage: 1,
      currentPage: 1,
      perPage: 1000,
      prev: null,
      next: null,
    });
  });
  test("past the end: previous points at the last page", () => {
    expect(pageMeta(2500, 9, 1000)).toEqual({
      total: 2500,
      lastPage: 3,
      currentPage: 9,
      perPage: 1000,
      prev: 3,
      next: null,
    });
  });
});
