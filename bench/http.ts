/**
 * End-to-end HTTP latency and throughput on the devnet: starts the service as the tests do
 * (fresh anvil, devnet world, `ponder start` on PGlite), then loads endpoints with autocannon
 * from this process over loopback.
 *
 *   npx tsx bench/http.ts [--seconds 20] [--connections 16] [--only route|tokens]
 *
 * Prints one Markdown row per endpoint: date, endpoint, connections, seconds, p50 and p99 (ms),
 * req/s, 2xx answers, errors (non-2xx, connection errors and timeouts) and the 1-minute load
 * average at the end. A run with any error, or no 2xx answer, is printed as not recordable and the
 * script exits 1. bench/results/http.md keeps the recorded runs.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { parseEther } from "viem";
import { NATIVE_TOKEN_ADDRESS } from "../engine/index.js";
import { startService } from "../test/harness/service.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    connections: { type: "string", default: "16" },
    only: { type: "string" },
  },
});

const service = await startService({ database: "pglite" });
try {
  const d = service.deployment;
  const sym = (s: string) => d.tokens.find((t) => t.symbol === s)?.address ?? "";
  const from = "0x00000000000000000000000000000000000a11ce";
  const routes = [
    { tokenIn: sym("USDC"), tokenOut: sym("WETH"), amountIn: "25000000000" },
    { tokenIn: NATIVE_TOKEN_ADDRESS, tokenOut: sym("DAI"), amountIn: parseEther("2").toString() },
    {
      tokenIn: sym("DAI"),
      tokenOut: d.vaults[0]?.address ?? "",
      amountIn: "1000000000000000000000",
    },
    { tokenIn: sym("LINK"), tokenOut: sym("USDT"), amountIn: "100000000000000000000" },
  ];
  const targets = {
    route: routes.map(
      (r) => `/v1/shortcuts/route?${new URLSearchParams({ fromAddress: from, ...r })}`,
    ),
    tokens: ["/v1/tokens"],
  };
  for (const [name, paths] of Object.entries(targets)) {
    if (values.only && values.only !== name) continue;
    // Warm the caches (storage slots, snapshot) before measuring.
    for (const p of paths) {
      const res = await fetch(`${service.url}${p}`);
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    }
    const result = await autocannon({
      url: service.url,
      connections: Number(values.connections),
      duration: Number(values.seconds),
      requests: paths.map((path) => ({ method: "GET", path })),
    });
    // Only 2xx answers count as successes; a run with anything else measured failures, not
    // the service, and is printed as such instead of as a row to record.
    const ok = result["2xx"];
    const errors = result.errors + result.timeouts + result.non2xx;
    const row = `| ${new Date().toISOString().slice(0, 10)} | ${name} | ${values.connections} | ${values.seconds} | ${result.latency.p50} | ${result.latency.p99} | ${result.requests.average.toFixed(0)} | ${ok} | ${errors} | ${loadavg()[0]?.toFixed(2)} |`;
    if (errors > 0 || ok === 0) {
      console.log(
        `NOT RECORDABLE (${ok} 2xx answers, ${result.non2xx} non-2xx, ${result.errors} connection errors, ${result.timeouts} timeouts): ${row}`,
      );
      process.exitCode = 1;
    } else console.log(row);
  }
} finally {
  await service.stop();
}
