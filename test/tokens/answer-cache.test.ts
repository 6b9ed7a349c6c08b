/**
 * The token list's answer cache is bounded by what it holds, not only by how many answers: a
 * page of 1,000 tokens is ~0.3 M characters of JSON, and a thousand of them held ~300 MB.
 */
import { describe, expect, test } from "vitest";
import { TOKEN_ANSWER_CACHE_CHARS, tokenAnswerCache } from "../../src/api/v1/tokens.js";

const page = (n: number, chars: number) => `${n}`.padEnd(chars, "x");

describe("tokenAnswerCache", () => {
  test("holds at most TOKEN_ANSWER_CACHE_CHARS characters, dropping the least recently used", () => {
    const cache = tokenAnswerCache();
    const chars = 300_000;
    const fit = Math.floor(TOKEN_ANSWER_CACHE_CHARS / chars);
    for (let n = 0; n < 1_000; n++) cache.set(`#${n}`, page(n, chars));
    expect(TOKEN_ANSWER_CACHE_CHARS).toBe(33_554_432);
    expect(fit).toBe(111);
    expect(cache.size).toBe(fit);
    expect(cache.calculatedSize).toBe(fit * chars);
    const byPage = () => [...cache.keys()].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    // The newest are kept.
    expect(byPage()).toEqual(Array.from({ length: fit }, (_, i) => `#${1_000 - fit + i}`));
    // The oldest, read again, stays when the next answer comes in; the one after it goes.
    expect(cache.get("#889")).toBe(page(889, chars));
    cache.set("#1000", page(1_000, chars));
    expect(byPage()).toEqual(["#889", ...Array.from({ length: fit - 1 }, (_, i) => `#${891 + i}`)]);
  });

  test("an answer larger than the whole budget is served but not kept", () => {
    const cache = tokenAnswerCache();
    cache.set("#small", "[]");
    cache.set("#huge", page(1, TOKEN_ANSWER_CACHE_CHARS + 1));
    expect([...cache.keys()]).toEqual(["#small"]);
    expect(cache.calculatedSize).toBe(2);
  });
});
