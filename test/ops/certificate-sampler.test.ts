/**
 * The route certificate sampler: at most one route certified per interval whatever the request
 * rate, each one counted with its gap in the API's metrics.
 */
import { describe, expect, test } from "vitest";
import { createCertificateSampler, renderMetrics } from "../../src/api/ops/metrics.js";
import { sample } from "./prometheus.js";

async function counts() {
  const { body } = await renderMetrics();
  return {
    within: sample(body, "shortcuts_route_certificates_total", { gap: "within_1bp" }) ?? 0,
    beyond: sample(body, "shortcuts_route_certificates_total", { gap: "beyond_1bp" }) ?? 0,
    observed: sample(body, "shortcuts_route_certified_gap_bps_count") ?? 0,
    sum: sample(body, "shortcuts_route_certified_gap_bps_sum") ?? 0,
    timed: sample(body, "shortcuts_route_certificate_duration_seconds_count") ?? 0,
  };
}

describe("createCertificateSampler", () => {
  test("certifies the first route, none within the interval after it, and the next one after it", async () => {
    let clock = 10_000;
    const sampler = createCertificateSampler({ intervalMs: 1_000, now: () => clock });
    const before = await counts();
    const certified: number[] = [];
    const route = (gapBps: number) =>
      sampler(() => {
        certified.push(gapBps);
        return { gapBps };
      });
    expect(route(0.25)).toBe(true);
    clock += 999;
    // Within the second: not certified, its certificate never computed.
    expect(route(7)).toBe(false);
    expect(route(8)).toBe(false);
    clock += 1;
    expect(route(12.5)).toBe(true);
    clock += 1_000;
    expect(route(1)).toBe(true);
    expect(certified).toEqual([0.25, 12.5, 1]);
    const after = await counts();
    expect({
      within: after.within - before.within,
      beyond: after.beyond - before.beyond,
      observed: after.observed - before.observed,
      sum: after.sum - before.sum,
      timed: after.timed - before.timed,
    }).toEqual({ within: 2, beyond: 1, observed: 3, sum: 13.75, timed: 3 });
  });
});
