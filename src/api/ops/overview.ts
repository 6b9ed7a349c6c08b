/**
 * The service's front page (`GET /`) and the figures it shows (`GET /overview.json`): per chain,
 * the indexed block against the head with the backfill's progress and an ETA, the routing
 * snapshot's lag, and the API's request and error rates. Served by the API itself, one small
 * page and script, no build step.
 *
 * Rates come from samples the endpoint takes each time it is asked (the page asks every two
 * seconds): the indexed blocks and the request counters now, against the oldest sample of the
 * last minute. The first answer has no rate yet (`null`).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { ChainSetup } from "../../../engine/index.js";
import { describeEndpoint } from "../openapi/registry.js";
import { chainState } from "./freshness.js";
import type { ChainLag } from "./metrics.js";
import type { TopPool } from "./top-pools.js";

/** How far back the rates look. */
const RATE_WINDOW_MS = 60_000;

/** The page's own paths: not counted in the request rates it shows. */
const OWN_ROUTES = new Set(["/", "/overview.json", "/overview.js"]);

const chainOverviewSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(["backfilling", "live"]).meta({
    description:
      "`backfilling` until the index has caught up with the chain (the API's readiness), then `live`.",
  }),
  startBlock: z.number().int().meta({
    description:
      "The index's start: the history tables are complete from this block on (the pools' state before it was read, not replayed).",
  }),
  indexedBlock: z.number().int().nullable(),
  headBlock: z.number().int().nullable().meta({ description: "Null when the RPC did not answer." }),
  snapshotBlock: z.number().int().nullable(),
  lagBlocks: z.number().int().nullable().meta({
    description: "Head minus the routing snapshot's block (the indexed block before a snapshot).",
  }),
  progress: z.number().nullable().meta({
    description:
      "From 0 to 1: the share of the blocks from the start block to the head that are indexed.",
  }),
  blocksPerSecond: z.number().nullable().meta({
    description: "Blocks indexed per second over the last minute; null before two samples.",
  }),
  etaSeconds: z.number().nullable().meta({
    description: "While backfilling: seconds to reach the head at that pace; null otherwise.",
  }),
  topPools: z
    .array(
      z.object({
        chainId: z.number().int(),
        address: z.string().meta({
          description:
            "The pool's contract; for a pool without one of its own (`uniswap-v4`), the pool manager holding it.",
        }),
        poolId: z
          .string()
          .regex(/^0x[0-9a-f]{64}$/)
          .optional()
          .meta({
            description:
              "Only for a `uniswap-v4` pool: its PoolId (keccak256 of its pool key), lowercase, in the pool manager `address`.",
          }),
        protocolSlug: z.string(),
        token0: z.string(),
        token1: z.string(),
        pair: z.string().meta({ description: "`token0/token1` by symbol." }),
        volume24hUsd: z.number().meta({
          description: "Swap volume in USD over the 24 hours before the routing graph's block.",
        }),
        tvlUsd: z.number().nullable().meta({
          description: "What the pool holds in USD, at the prices of its last event.",
        }),
        days: z.array(
          z.object({
            day: z.number().int().meta({ description: "The day's start, unix seconds (UTC)." }),
            volumeUsd: z.number(),
            close: z
              .number()
              .nullable()
              .meta({ description: "Price of token0 in token1 after the day's last event." }),
          }),
        ),
      }),
    )
    .meta({
      description:
        "The five pools with the most swap volume over the last 24 hours (the history tables), with their last seven days.",
    }),
});

const overviewSchema = z.object({
  generatedAt: z.number().int().meta({ description: "Unix milliseconds of this answer." }),
  chains: z.array(chainOverviewSchema),
  requests: z.object({
    total: z
      .number()
      .int()
      .meta({ description: "Requests answered since start (this page's own excluded)." }),
    clientErrors: z.number().int().meta({ description: "Of those, 4xx answers." }),
    serverErrors: z.number().int().meta({ description: "Of those, 5xx answers." }),
    perSecond: z.number().nullable().meta({ description: "Over the last minute." }),
    clientErrorsPerSecond: z.number().nullable(),
    serverErrorsPerSecond: z.number().nullable(),
  }),
});

export type Overview = z.output<typeof overviewSchema>;

describeEndpoint({
  method: "get",
  path: "/",
  operationId: "getOverviewPage",
  tag: "operations",
  summary: "The service's front page",
  description:
    "Per chain: the indexed block against the head, with a progress bar and an ETA during the backfill, and the routing snapshot's lag; the API's request and error rates. Reads `/overview.json` every two seconds.",
  responses: { 200: { description: "The page.", contentType: "text/html" } },
});

describeEndpoint({
  method: "get",
  path: "/overview.json",
  operationId: "getOverview",
  tag: "operations",
  summary: "What the front page shows",
  description:
    "Open like `/metrics`. Rates are measured between this answer and the oldest of the last minute's answers, so the first has none.",
  responses: { 200: { description: "The figures.", schema: overviewSchema } },
});

/** Totals of the API's request counter by kind of answer. */
export type RequestTotals = { total: number; clientErrors: number; serverErrors: number };

/** Sums the request counter's series (`{ route, status }` labels) into totals, less `OWN_ROUTES`. */
export function requestTotals(
  series: readonly { labels: Partial<Record<string, string | number>>; value: number }[],
): RequestTotals {
  const totals = { total: 0, clientErrors: 0, serverErrors: 0 };
  for (const { labels, value } of series) {
    if (OWN_ROUTES.has(String(labels.route))) continue;
    const status = Number(labels.status);
    totals.total += value;
    if (status >= 400 && status < 500) totals.clientErrors += value;
    if (status >= 500) totals.serverErrors += value;
  }
  return totals;
}

export type OverviewSources = {
  chains: readonly ChainSetup[];
  /** A chain's index, snapshot and head (rejects when its RPC does not answer). */
  chainLags: (chainId: number) => Promise<ChainLag[]>;
  /** A chain's head, for a chain the indexer has not recorded a block of yet. */
  headBlock: (chainName: string) => Promise<bigint>;
  /** Whether the index has caught up with the chains (the API's readiness). */
  caughtUp: () => Promise<boolean>;
  requestTotals: () => Promise<RequestTotals>;
  /** The chain's top pools by 24-hour volume (top-pools.ts). */
  topPools: (chainId: number) => Promise<TopPool[]>;
  /** Milliseconds now (a parameter so a test can step time). */
  now?: () => number;
};

type Sample = { at: number; indexed: Map<number, number>; requests: RequestTotals };

/** A rate from the oldest sample of the window to now, or null without a second sample. */
function perSecond(from: Sample | undefined, to: Sample, value: (s: Sample) => number | undefined) {
  if (!from || from === to || to.at <= from.at) return null;
  const a = value(from);
  const b = value(to);
  if (a === undefined || b === undefined) return null;
  return Math.max(0, (b - a) / ((to.at - from.at) / 1000));
}

/** Rounds a rate for display: three significant decimals are plenty. */
const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

/** The figures of `/overview.json`, keeping the last minute of samples between calls. */
export function createOverview(sources: OverviewSources) {
  const now = sources.now ?? Date.now;
  const samples: Sample[] = [];
  return async (): Promise<Overview> => {
    const [states, caughtUp, requests, pools] = await Promise.all([
      Promise.all(sources.chains.map((chain) => chainState(sources, chain))),
      sources.caughtUp(),
      sources.requestTotals(),
      Promise.all(sources.chains.map((chain) => sources.topPools(chain.id))),
    ]);
    const at = now();
    const indexedNow = new Map<number, number>();
    for (const [i, chain] of sources.chains.entries()) {
      const indexed = states[i]?.lag?.indexedBlock;
      if (indexed !== undefined) indexedNow.set(chain.id, Number(indexed));
    }
    const sample: Sample = { at, indexed: indexedNow, requests };
    samples.push(sample);
    while (samples.length > 2 && (samples[0] as Sample).at < at - RATE_WINDOW_MS) samples.shift();
    const oldest = samples[0];
    const chains = sources.chains.map((chain, i) => {
      const { lag, head: headBlock } = states[i] ?? {};
      const indexed = lag === undefined ? null : Number(lag.indexedBlock);
      const head = headBlock === undefined ? null : Number(headBlock);
      const span = head === null ? 0 : head - chain.startBlock;
      const progress =
        indexed === null || head === null
          ? null
          : span <= 0
            ? 1
            : Math.min(1, Math.max(0, (indexed - chain.startBlock) / span));
      const rate = perSecond(oldest, sample, (s) => s.indexed.get(chain.id));
      const remaining = indexed === null || head === null ? null : Math.max(0, head - indexed);
      return {
        id: chain.id,
        name: chain.title,
        status: caughtUp ? ("live" as const) : ("backfilling" as const),
        startBlock: chain.startBlock,
        indexedBlock: indexed,
        headBlock: head,
        snapshotBlock: lag?.snapshotBlock === undefined ? null : Number(lag.snapshotBlock),
        lagBlocks: lag === undefined ? null : Number(lag.lagBlocks),
        progress: progress === null ? null : Math.round(progress * 10_000) / 10_000,
        blocksPerSecond: round(rate),
        etaSeconds:
          caughtUp || remaining === null || rate === null || rate <= 0
            ? null
            : Math.ceil(remaining / rate),
        topPools: pools[i] ?? [],
      };
    });
    return {
      generatedAt: at,
      chains,
      requests: {
        ...requests,
        perSecond: round(perSecond(oldest, sample, (s) => s.requests.total)),
        clientErrorsPerSecond: round(perSecond(oldest, sample, (s) => s.requests.clientErrors)),
        serverErrorsPerSecond: round(perSecond(oldest, sample, (s) => s.requests.serverErrors)),
      },
    };
  };
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shortcuts service</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #1d2330; }
h1 { font-size: 1.4rem; margin: 0 0 .2rem; }
nav a { margin-right: 1rem; }
section { border: 1px solid #d8dce6; border-radius: 8px; padding: 1rem 1.2rem; margin: 1rem 0; }
h2 { font-size: 1.1rem; margin: 0 0 .6rem; }
.bar { height: 12px; background: #e8ebf2; border-radius: 6px; overflow: hidden; }
.bar > div { height: 100%; background: #3d6df2; width: 0; transition: width .4s; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .7rem 0 0; }
dt { color: #5b6478; }
dd { margin: 0; font-variant-numeric: tabular-nums; }
.status { font-size: .8rem; padding: .1rem .5rem; border-radius: 1rem; margin-left: .5rem; }
.backfilling { background: #fff1d6; } .live { background: #dcf5e4; }
#error { color: #b42318; }
table.pools { width: 100%; border-collapse: collapse; margin-top: 1rem; font-variant-numeric: tabular-nums; }
table.pools caption { text-align: left; font-weight: 600; margin-bottom: .3rem; }
table.pools th, table.pools td { text-align: left; padding: .25rem .5rem .25rem 0; border-top: 1px solid #eceef3; }
table.pools th { color: #5b6478; font-weight: normal; }
</style>
</head>
<body>
<h1>Shortcuts service</h1>
<nav><a href="/docs">API reference</a><a href="/metrics/api">metrics</a><a href="/graphql">GraphQL</a></nav>
<p id="error" role="alert"></p>
<div id="chains"></div>
<section id="requests" aria-label="requests">
<h2>API requests</h2>
<dl>
<dt>requests/s</dt><dd data-field="perSecond">…</dd>
<dt>4xx/s</dt><dd data-field="clientErrorsPerSecond">…</dd>
<dt>5xx/s</dt><dd data-field="serverErrorsPerSecond">…</dd>
<dt>since start</dt><dd data-field="total">…</dd>
</dl>
</section>
<script src="/overview.js"></script>
</body>
</html>
`;

const SCRIPT = `"use strict";
const text = (v, unit) => (v === null || v === undefined ? "–" : String(v) + (unit || ""));
const duration = (s) => {
  if (s === null) return "–";
  if (s < 90) return s + " s";
  if (s < 5400) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
};
function chainSection(chain) {
  let section = document.querySelector('section[data-chain="' + chain.id + '"]');
  if (!section) {
    section = document.createElement("section");
    section.dataset.chain = String(chain.id);
    section.innerHTML =
      '<h2><span data-field="name"></span> <small data-field="id"></small>' +
      '<span class="status" data-field="status"></span></h2>' +
      '<div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100"><div></div></div>' +
      "<dl><dt>indexed block</dt><dd data-field=\\"indexedBlock\\"></dd>" +
      "<dt>history from block</dt><dd data-field=\\"startBlock\\"></dd>" +
      "<dt>chain head</dt><dd data-field=\\"headBlock\\"></dd>" +
      "<dt>progress</dt><dd data-field=\\"progress\\"></dd>" +
      "<dt>indexing</dt><dd data-field=\\"blocksPerSecond\\"></dd>" +
      "<dt>ETA</dt><dd data-field=\\"eta\\"></dd>" +
      "<dt>routing snapshot</dt><dd data-field=\\"snapshotBlock\\"></dd>" +
      "<dt>snapshot lag</dt><dd data-field=\\"lagBlocks\\"></dd></dl>";
    document.getElementById("chains").appendChild(section);
  }
  const set = (field, value) => (section.querySelector('[data-field="' + field + '"]').textContent = value);
  set("name", chain.name);
  set("id", "chain " + chain.id);
  set("status", chain.status);
  section.querySelector(".status").className = "status " + chain.status;
  set("indexedBlock", text(chain.indexedBlock));
  set("startBlock", text(chain.startBlock));
  set("headBlock", text(chain.headBlock));
  const percent = chain.progress === null ? null : Math.floor(chain.progress * 1000) / 10;
  set("progress", text(percent, " %"));
  set("blocksPerSecond", text(chain.blocksPerSecond, " blocks/s"));
  set("eta", chain.status === "live" ? "caught up" : duration(chain.etaSeconds));
  set("snapshotBlock", text(chain.snapshotBlock));
  set("lagBlocks", text(chain.lagBlocks, " blocks"));
  pools(section, chain.topPools);
  const bar = section.querySelector(".bar");
  bar.setAttribute("aria-valuenow", String(percent === null ? 0 : percent));
  bar.firstChild.style.width = (percent === null ? 0 : percent) + "%";
}
const usd = (v) =>
  v === null ? "–" : "$" + v.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const SVG = "http://www.w3.org/2000/svg";
/** Bars of daily volume and a line of the closing price, one slot per day. */
function chart(days) {
  const w = 160, h = 36, slot = w / 7;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  svg.setAttribute("width", String(w));
  svg.setAttribute("height", String(h));
  const maxVolume = Math.max(...days.map((d) => d.volumeUsd), 0);
  const prices = days.map((d) => d.close).filter((p) => p !== null);
  const lo = Math.min(...prices), hi = Math.max(...prices);
  const points = [];
  days.slice(-7).forEach((d, i) => {
    const x = i * slot;
    const bh = maxVolume > 0 ? (d.volumeUsd / maxVolume) * (h - 4) : 0;
    const rect = document.createElementNS(SVG, "rect");
    rect.setAttribute("x", String(x + 2));
    rect.setAttribute("y", String(h - bh));
    rect.setAttribute("width", String(slot - 4));
    rect.setAttribute("height", String(bh));
    rect.setAttribute("fill", "#c9d6fb");
    rect.dataset.volume = String(d.volumeUsd);
    svg.appendChild(rect);
    if (d.close !== null) {
      const y = hi > lo ? 2 + (1 - (d.close - lo) / (hi - lo)) * (h - 4) : h / 2;
      points.push(x + slot / 2 + "," + y.toFixed(1));
    }
  });
  if (points.length > 1) {
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", points.join(" "));
    line.setAttribute("fill", "none");
    line.setAttribute("stroke", "#1d3fb8");
    line.setAttribute("stroke-width", "1.5");
    svg.appendChild(line);
  }
  const title = document.createElementNS(SVG, "title");
  title.textContent = days
    .map((d) => new Date(d.day * 1000).toISOString().slice(0, 10) + ": " + usd(d.volumeUsd) + (d.close === null ? "" : ", close " + d.close.toPrecision(6)))
    .join("\\n");
  svg.appendChild(title);
  return svg;
}
function pools(section, list) {
  let table = section.querySelector("table.pools");
  if (!table) {
    table = document.createElement("table");
    table.className = "pools";
    table.innerHTML =
      "<caption>Top pools by 24 h volume</caption><thead><tr><th>pool</th><th>protocol</th>" +
      "<th>24 h volume</th><th>TVL</th><th>last 7 days: volume, price</th></tr></thead><tbody></tbody>";
    section.appendChild(table);
  }
  const body = table.querySelector("tbody");
  body.replaceChildren();
  if (list.length === 0) {
    const row = body.insertRow();
    const cell = row.insertCell();
    cell.colSpan = 5;
    cell.textContent = "No swaps in the last 24 hours.";
    return;
  }
  for (const p of list) {
    const row = body.insertRow();
    // A V4 pool has no address of its own: its pool id names it.
    row.dataset.pool = p.poolId || p.address;
    const cells = [p.pair, p.protocolSlug, usd(p.volume24hUsd), usd(p.tvlUsd)];
    for (const [i, value] of cells.entries()) {
      const cell = row.insertCell();
      cell.textContent = value;
      cell.dataset.field = ["pair", "protocol", "volume24h", "tvl"][i];
    }
    row.cells[0].title = (p.poolId ? "pool " + p.poolId + " in " : "") + p.address + "\\n" + p.token0 + " / " + p.token1;
    row.insertCell().appendChild(chart(p.days));
  }
}
async function refresh() {
  try {
    const res = await fetch("/overview.json", { cache: "no-store" });
    if (!res.ok) throw new Error("overview.json answered " + res.status);
    const o = await res.json();
    for (const chain of o.chains) chainSection(chain);
    const r = document.getElementById("requests");
    for (const field of ["perSecond", "clientErrorsPerSecond", "serverErrorsPerSecond", "total"])
      r.querySelector('[data-field="' + field + '"]').textContent = text(o.requests[field]);
    document.getElementById("error").textContent = "";
    document.body.dataset.reads = String(Number(document.body.dataset.reads || 0) + 1);
  } catch (e) {
    document.getElementById("error").textContent = "Could not read the service's figures: " + e.message;
  }
}
refresh();
setInterval(refresh, 2000);
`;

/** Only this origin, no inline script. */
const PAGE_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'";

/** `GET /`, `GET /overview.js` and `GET /overview.json`. */
export function overviewRoutes(sources: OverviewSources) {
  const overview = createOverview(sources);
  return new Hono()
    .get("/", (c) =>
      c.html(PAGE, 200, { "Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-cache" }),
    )
    .get("/overview.js", (c) =>
      c.body(SCRIPT, 200, {
        "Content-Type": "text/javascript; charset=utf-8",
        "Cache-Control": "no-cache",
      }),
    )
    .get("/overview.json", async (c) =>
      c.json(await overview(), 200, { "Cache-Control": "no-store" }),
    );
}
