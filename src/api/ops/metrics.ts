/**
 * Prometheus metrics of the HTTP API. Ponder keeps its own registry (indexing, database, Node
 * process) and serves it on `/metrics` before the API app is asked, so these are served beside
 * it on `/metrics/api`, which is public: labels carry route patterns and kinds of caller, never
 * paths with values in them, API keys, key names or client addresses.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { errorFields, log } from "./log.js";

/** How far one chain's routing data is behind the chain's head, in blocks and in time. */
export type ChainLag = {
  chainId: number;
  /** Ponder's checkpoint for the chain. */
  indexedBlock: bigint;
  /** The routing snapshot's block, once the routing code reports it (`setSnapshotBlock`). */
  snapshotBlock: bigint | undefined;
  headBlock: bigint;
  /** `headBlock` minus the snapshot block (or the indexed block before there is a snapshot). */
  lagBlocks: bigint;
  /** The head's timestamp minus that block's timestamp, in seconds (never negative). */
  lagSeconds: bigint;
};

/** A block the routing snapshot reflects, with its timestamp (seconds). */
export type SnapshotAt = { block: bigint; timestamp: bigint };

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** A refresh of the routing snapshot: milliseconds for a block, tens of seconds for a build. */
const REFRESH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40];

function createOpsMetrics() {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: "shortcuts_http_requests_total",
      help: "HTTP requests answered by the API, by route pattern and status code.",
      labelNames: ["method", "route", "status"] as const,
      registers,
    }),
    requestDuration: new Histogram({
      name: "shortcuts_http_request_duration_seconds",
      help: "Time from receiving a request to its response, by route pattern and status code.",
      labelNames: ["method", "route", "status"] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    inFlight: new Gauge({
      name: "shortcuts_http_requests_in_flight",
      help: "Requests being answered right now.",
      registers,
    }),
    routeSearch: new Histogram({
      name: "shortcuts_route_search_duration_seconds",
      help: "Time of the in-memory route search of one route request.",
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    routeCertificateGap: new Histogram({
      name: "shortcuts_route_certified_gap_bps",
      help: "Routes certified (at most one a second): how far each one's output net of gas is below the certified bound on the best flow over the pools its search chose from, in basis points of that bound.",
      buckets: [0.01, 0.1, 1, 10, 100, 1000],
      registers,
    }),
    routeCertificates: new Counter({
      name: "shortcuts_route_certificates_total",
      help: "Routes certified, by whether the answer was within 1 bp of the certified bound (within_1bp, beyond_1bp).",
      labelNames: ["gap"] as const,
      registers,
    }),
    routeCertificateDuration: new Histogram({
      name: "shortcuts_route_certificate_duration_seconds",
      help: "Time of certifying one route (the dual bound over its search's candidate pools).",
      buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    simulation: new Histogram({
      name: "shortcuts_simulation_duration_seconds",
      help: "Time of simulating a built transaction against the chain, by outcome (ok, failed).",
      labelNames: ["outcome"] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    simulationFailures: new Counter({
      name: "shortcuts_simulation_failures_total",
      help: "Simulations of built transactions that reverted or could not run.",
      registers,
    }),
    authFailures: new Counter({
      name: "shortcuts_auth_failures_total",
      help: "Requests refused with 401, by reason (missing, malformed, unknown).",
      labelNames: ["reason"] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: "shortcuts_rate_limited_total",
      help: "Requests refused with 429, by caller: `key` (an API key's budget) or `keyless` (a client address's budget).",
      labelNames: ["caller"] as const,
      registers,
    }),
    admissionRefused: new Counter({
      name: "shortcuts_admission_refused_total",
      help: "Routes and bundles refused with 503 because every slot was busy and the wait was full or too long (SHORTCUTS_CONCURRENCY, SHORTCUTS_CONCURRENCY_BEHIND, SHORTCUTS_MAX_WAITING, SHORTCUTS_MAX_WAIT_MS).",
      registers,
    }),
    admissionYielding: new Gauge({
      name: "shortcuts_admission_yielding",
      help: "1 while the index is behind the chain by SHORTCUTS_YIELD_LAG_BLOCKS or more and routes and bundles run at most SHORTCUTS_CONCURRENCY_BEHIND at once, else 0.",
      registers,
    }),
    admissionWaiting: new Gauge({
      name: "shortcuts_admission_waiting",
      help: "Routes and bundles waiting for a slot right now.",
      registers,
    }),
    rateLimitRedisErrors: new Counter({
      name: "shortcuts_rate_limit_redis_errors_total",
      help: "Rate-limit checks that fell back to this replica's own budget because Redis failed.",
      registers,
    }),
    indexedBlock: new Gauge({
      name: "shortcuts_indexed_block",
      help: "The last block Ponder has indexed, per chain.",
      labelNames: ["chain_id"] as const,
      registers,
    }),
    snapshotBlock: new Gauge({
      name: "shortcuts_snapshot_block",
      help: "The block of the in-memory routing snapshot, per chain.",
      labelNames: ["chain_id"] as const,
      registers,
    }),
    snapshotPools: new Gauge({
      name: "shortcuts_snapshot_pools",
      help: "Pools (and vaults, and the native wrapper) in the in-memory routing graph, per chain.",
      labelNames: ["chain_id"] as const,
      registers,
    }),
    snapshotRefresh: new Histogram({
      name: "shortcuts_snapshot_refresh_duration_seconds",
      help: "Time of one refresh of a chain's routing graph that changed it: `full` loads the whole graph and prices it (start-up), `incremental` applies new blocks and reorgs (a graph of 100 pools or more is repriced after it, in the background: shortcuts_repricing_*).",
      labelNames: ["chain_id", "kind"] as const,
      buckets: REFRESH_BUCKETS,
      registers,
    }),
    snapshotRefreshCpu: new Histogram({
      name: "shortcuts_snapshot_refresh_cpu_seconds",
      help: "CPU time the process used (all its threads) during one refresh counted in shortcuts_snapshot_refresh_duration_seconds: the rest of that refresh's wall time was spent waiting, on the database's answers or behind other work of the process.",
      labelNames: ["chain_id", "kind"] as const,
      buckets: REFRESH_BUCKETS,
      registers,
    }),
    snapshotRefreshGc: new Histogram({
      name: "shortcuts_snapshot_refresh_gc_seconds",
      help: "Garbage-collection pauses of the main thread during one refresh counted in shortcuts_snapshot_refresh_duration_seconds.",
      labelNames: ["chain_id", "kind"] as const,
      buckets: REFRESH_BUCKETS,
      registers,
    }),
    repricing: new Histogram({
      name: "shortcuts_repricing_duration_seconds",
      help: "Wall time of one background repricing of a chain's routing graph (every anchor set in use), from its first step to its last.",
      labelNames: ["chain_id"] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
      registers,
    }),
    repricingStep: new Histogram({
      name: "shortcuts_repricing_step_seconds",
      help: "Time one step of a background repricing holds the thread (what a request may wait behind it).",
      labelNames: ["chain_id"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
      registers,
    }),
    chainHead: new Gauge({
      name: "shortcuts_chain_head_block",
      help: "The chain's head block as last read from its RPC, per chain.",
      labelNames: ["chain_id"] as const,
      registers,
    }),
    lag: new Gauge({
      name: "shortcuts_snapshot_lag_blocks",
      help: "Blocks the routing snapshot (the index until there is one) is behind the chain head.",
      labelNames: ["chain_id"] as const,
      registers,
    }),
    lagSeconds: new Gauge({
      name: "shortcuts_snapshot_lag_seconds",
      help: "The chain head's timestamp minus that of the routing snapshot's block (the index's until there is a snapshot): what MAX_LAG_SECONDS limits.",
      labelNames: ["chain_id"] as const,
      registers,
    }),
  };
}

/** The API's metrics (one set per process). */
export const metrics = createOpsMetrics();

const snapshotBlocks = new Map<number, SnapshotAt>();
let chainLagSource: (() => Promise<ChainLag[]>) | undefined;

let gcPauseMs = 0;
let gcObserver: PerformanceObserver | undefined;

/**
 * Seconds of garbage-collection pauses of this process's main thread since the first call: a
 * running total, read before and after a piece of work to count the pauses inside it.
 */
export function gcPauseSeconds(): number {
  if (!gcObserver) {
    gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcPauseMs += entry.duration;
    });
    gcObserver.observe({ entryTypes: ["gc"] });
  }
  return gcPauseMs / 1000;
}

/** Hook for the route code: how long one route search took. */
export function recordRouteSearch(ms: number): void {
  metrics.routeSearch.observe(ms / 1000);
}

/** The least time between two routes certified (each costs a few milliseconds of search). */
export const CERTIFICATE_INTERVAL_MS = 1_000;

/**
 * Certifies a route when none was in the last `intervalMs` (`certify` runs then, on the state the
 * route was found on) and records how far it is from the certified bound: the cost stays bounded
 * whatever the request rate. `now` is the clock (milliseconds).
 */
export function createCertificateSampler(params: {
  intervalMs: number;
  now: () => number;
}): (certify: () => { gapBps: number }) => boolean {
  let last = Number.NEGATIVE_INFINITY;
  return (certify) => {
    const started = params.now();
    if (started - last < params.intervalMs) return false;
    last = started;
    const { gapBps } = certify();
    metrics.routeCertificateDuration.observe((params.now() - started) / 1000);
    metrics.routeCertificateGap.observe(gapBps);
    metrics.routeCertificates.inc({ gap: gapBps <= 1 ? "within_1bp" : "beyond_1bp" });
    return true;
  };
}

/** The service's sampler: at most one route certified a second. */
export const sampleRouteCertificate = createCertificateSampler({
  intervalMs: CERTIFICATE_INTERVAL_MS,
  now: () => performance.now(),
});

/** Hook for the route and bundle code: how long one simulation took and whether it succeeded. */
export function recordSimulation(ms: number, ok: boolean): void {
  metrics.simulation.observe({ outcome: ok ? "ok" : "failed" }, ms / 1000);
  if (!ok) metrics.simulationFailures.inc();
}

/**
 * Hook for the routing snapshot: a refresh that changed a chain's graph took `seconds` of wall
 * time, `cpuSeconds` of the process's CPU and `gcSeconds` of garbage-collection pauses (`full`:
 * the whole graph was loaded), leaving `pools` pools.
 */
export function recordSnapshotRefresh(params: {
  chainId: number;
  full: boolean;
  seconds: number;
  cpuSeconds: number;
  gcSeconds: number;
  pools: number;
}): void {
  const chainId = String(params.chainId);
  const labels = { chain_id: chainId, kind: params.full ? "full" : "incremental" };
  metrics.snapshotRefresh.observe(labels, params.seconds);
  metrics.snapshotRefreshCpu.observe(labels, params.cpuSeconds);
  metrics.snapshotRefreshGc.observe(labels, params.gcSeconds);
  metrics.snapshotPools.set({ chain_id: chainId }, params.pools);
}

/** A background repricing of a chain's graph: its wall time and the time each step took. */
export function recordRepricing(params: {
  chainId: number;
  seconds: number;
  steps: readonly number[];
}): void {
  const chainId = String(params.chainId);
  metrics.repricing.observe({ chain_id: chainId }, params.seconds);
  for (const step of params.steps) metrics.repricingStep.observe({ chain_id: chainId }, step);
}

/**
 * Hook for the routing snapshot: it now reflects `block` of `chainId`, made at `timestamp`. From
 * the first call on, the freshness guard and the lag metrics measure this block instead of
 * Ponder's checkpoint.
 */
export function setSnapshotBlock(chainId: number, block: bigint, timestamp: bigint): void {
  snapshotBlocks.set(chainId, { block, timestamp });
  metrics.snapshotBlock.set({ chain_id: String(chainId) }, Number(block));
}

/** The block last reported by `setSnapshotBlock` for `chainId`, if any. */
export function snapshotAt(chainId: number): SnapshotAt | undefined {
  return snapshotBlocks.get(chainId);
}

/** Where the per-chain block gauges are read from at each scrape (set once at startup). */
export function watchChainLag(source: () => Promise<ChainLag[]>): void {
  chainLagSource = source;
}

/** Prometheus text exposition of the API's metrics, with the chain gauges read just now. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  if (chainLagSource) {
    try {
      for (const chain of await chainLagSource()) {
        const labels = { chain_id: String(chain.chainId) };
        metrics.indexedBlock.set(labels, Number(chain.indexedBlock));
        metrics.chainHead.set(labels, Number(chain.headBlock));
        metrics.lag.set(labels, Number(chain.lagBlocks));
        metrics.lagSeconds.set(labels, Number(chain.lagSeconds));
      }
    } catch (error) {
      // Stale head and lag values would look healthy: drop them until the RPC answers again.
      metrics.chainHead.reset();
      metrics.lag.reset();
      metrics.lagSeconds.reset();
      log("warn", "could not read the chain heads for /metrics/api", errorFields(error));
    }
  }
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}
