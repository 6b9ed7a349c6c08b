/**
 * The service's API, as Ponder serves it: the configuration read once, the rate limiter (Redis
 * when configured), freshness, shutdown and the routing snapshots started, and the app
 * (src/api/app.ts) built over Ponder's read-only database.
 */
import { db } from "ponder:api";
import schema from "ponder:schema";
import { Redis } from "ioredis";
import { servedChains } from "../../chains.js";
import { checkLagChains, lagLimitsOf, config as readSettings } from "../../config.js";
import packageJson from "../../package.json";
import { analystGraphql, analystSqlSetup } from "./analytics/ponder-database.js";
import { sqlOverHttp } from "./analytics/sql-over-http.js";
import { createApp } from "./app.js";
import { rpcClient } from "./chain/clients.js";
import { admission, yieldWhileBehind } from "./ops/admission.js";
import { loadKeyRing } from "./ops/auth.js";
import { createFreshness } from "./ops/freshness.js";
import { errorFields, log } from "./ops/log.js";
import { snapshotAt, watchChainLag } from "./ops/metrics.js";
import {
  createClientAddress,
  createMemoryRateLimiter,
  createRedisRateLimiter,
} from "./ops/rate-limit.js";
import { installGracefulShutdown } from "./ops/shutdown.js";
import { indexCaughtUp, indexedBlocks, requireIndexReady } from "./readiness.js";
import { buildSnapshots, connectSnapshots, snapshotSource } from "./snapshot/snapshot.js";

// ── Configuration (docs/configuration.md lists every variable) ─────────────────────────────
const config = readSettings();
const keys = loadKeyRing({
  apiKeys: config.apiKeys,
  keysFile: config.apiKeysFile,
  defaults: config.rateLimit,
});
const limiter = (() => {
  const local = createMemoryRateLimiter();
  if (!config.redis) return local;
  const redis = new Redis(config.redis.url, {
    commandTimeout: config.redis.timeoutMs,
    // Fail fast while disconnected: the check falls back to this replica's own budget.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  let lastError = 0;
  redis.on("error", (error) => {
    if (Date.now() - lastError < 10_000) return;
    lastError = Date.now();
    log("warn", "Redis connection error", errorFields(error));
  });
  return createRedisRateLimiter({ redis, prefix: config.redis.prefix, fallback: local });
})();
checkLagChains(
  config,
  servedChains().map((chain) => chain.id),
);
const freshness = createFreshness({
  limits: (chainId) => lagLimitsOf(config, chainId),
  headCacheMs: config.chainHeadCacheMs,
  indexedBlocks,
  head: async (chainName) => {
    const chain = servedChains().find((c) => c.name === chainName);
    if (!chain) throw new Error(`no RPC client for chain ${chainName}`);
    // One call for the head's number and timestamp (the lag is measured in both).
    const block = await rpcClient(chain).getBlock({ blockTag: "latest" });
    return { number: block.number, timestamp: block.timestamp };
  },
  snapshot: snapshotAt,
});
watchChainLag(() => freshness.chainLags());
const shortcuts = admission({ ...config.shortcuts, what: "routes and bundles" });
// Routes and bundles yield to an indexer that shares this process's event loop; an API-only
// replica (`ponder serve`) has none to yield to.
if (!process.argv.slice(2).includes("serve")) {
  yieldWhileBehind({
    admission: shortcuts,
    chainLags: () => freshness.chainLags(),
    lagBlocks: config.shortcuts.yieldLagBlocks,
    everyMs: 100,
  });
}
installGracefulShutdown({ timeoutMs: config.shutdownTimeoutMs });

// Every chain's routing graph is loaded before this module finishes, and Ponder starts the
// server (and `/ready`) only after: no request ever meets a graph that is still loading.
connectSnapshots({ db, chains: servedChains() });
await buildSnapshots();

export default createApp({
  sources: { db, chains: servedChains(), snapshots: snapshotSource },
  keys,
  limiter,
  keyless: {
    limit: config.keylessRateLimit,
    clientAddress: createClientAddress(config.clientAddress),
  },
  requireIndexReady,
  caughtUp: async () => (await indexCaughtUp()).ok,
  freshness,
  shortcuts: { gate: shortcuts.gate, settings: config.shortcuts },
  logRequests: config.logRequests,
  version: packageJson.version,
  analytics: {
    graphql: (await analystGraphql(config.analytics, schema)).handler,
    sql: sqlOverHttp({
      ...analystSqlSetup(config.analytics),
      maxLiveQueries: config.analytics.maxLiveQueries,
      isReady: async () => (await indexCaughtUp()).ok,
    }),
    maxBodyBytes: config.analytics.maxBodyBytes,
    graphqlConcurrency: config.analytics.poolSize,
  },
});
