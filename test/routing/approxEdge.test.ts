/**
 * The float shadows the search ranks with follow the exact pool math closely (they decide
 * which paths are quoted exactly, never an amount).
 */
import { describe, expect, it } from "vitest";
import { rawAmount, syntheticGraph } from "../../bench/syntheticGraph.js";
import { mulberry32 } from "../../devnet/random.js";
import { type ApproxQuote, approxEdge } from "../../src/api/routing/approxEdge.js";
import { simulateEdge } from "../../src/api/routing/quoteEdge.js";
import type { Edge } from "../../src/api/routing/types.js";

describe("approxEdge", () => {
  it("is within 1e-7 of the exact quote, and fails where the exact quote fails", () => {
    const world = syntheticGraph({ pools: 400, seed: 5 });
    const edges: Edge[] = [];
    for (const token of world.graph.tokens()) edges.push(...world.graph.edgesFrom(token));
    const random = mulberry32(17);
    const quote: ApproxQuote = { out: 0, ticksCrossed: 0 };
    let compared = 0;
    let failures = 0;
    for (let i = 0; i < 3_000; i++) {
      const edge = edges[Math.floor(random() * edges.length)] as Edge;
      const token = world.tokens.find((t) => t.address === edge.tokenIn);
      // From $1 to $100M worth: from spot to well past what most pools hold.
      const amountIn = token
        ? rawAmount(token, 10 ** (8 * random()))
        : 10n ** BigInt(Math.floor(6 + 18 * random()));
      const exact = simulateEdge(edge, amountIn);
      approxEdge(edge, Number(amountIn), quote);
      if (exact.ok) {
        // The exact math rounds to whole units: tiny amounts differ by that rounding.
        if (exact.amountOut < 10n ** 9n || amountIn < 10n ** 9n) continue;
        const relative = Math.abs(quote.out / Number(exact.amountOut) - 1);
        expect(relative).toBeLessThan(1e-7);
        expect(quote.ticksCrossed).toBe(exact.ticksCrossed);
        compared++;
      } else if (exact.reason === "exceeds-liquidity") {
        expect(quote.out).toBeNaN();
        failures++;
      }
    }
    expect(compared).toBeGreaterThan(1_000);
    expect(failures).toBeGreaterThan(20);
  });
});
