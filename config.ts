import { isIP } from "node:net";
import { z } from "zod";

/**
 * The service's settings from the environment: one schema for every variable the indexer, the
 * API and the devnet launcher read by a fixed name, and the per-chain `MAX_LAG_SECONDS_<id>`
 * (the other per-chain `PONDER_RPC_URL_<id>`, `VAULTS_<id>`, `START_BLOCK_<id>`,
 * `EXECUTION_<id>` are read by `chains.ts`). A malformed value stops the process at startup
 * with a message naming the variable.
 */

/** How many routes and bundles run at once, and how the others wait (`SHORTCUTS_*`). */
export type ShortcutsAdmission = {
  concurrency: number;
  concurrencyWhileBehind: number;
  yieldLagBlocks: number;
  maxWaiting: number;
  maxWaitMs: number;
};

/** The service's settings, read once from the environment at startup. */
export type Config = {
  /** Comma-separated API keys (`API_KEYS`). */
  apiKeys: string[];
  /** JSON keys file (`API_KEYS_FILE`), see `loadKeyRing`. */
  apiKeysFile: string | undefined;
  /** Default per-key budget: sustained requests per second (0: unlimited) and burst. */
  rateLimit: { rps: number; burst: number };
  /** Budget of each client without an API key, by its address (0 rps: unlimited). */
  keylessRateLimit: { rps: number; burst: number };
  /**
   * Where a keyless client's address is read: the connection's peer, or, when the peer is one
   * of `trustedProxies` (addresses or CIDR ranges), the header `header` it sets.
   */
  clientAddress: { header: string; trustedProxies: string[] };
  /** Shares rate-limit budgets between replicas when set. */
  redis: { url: string; prefix: string; timeoutMs: number } | undefined;
  /**
   * `/v1/shortcuts/*` answer 503 when their data lags the chain head by more seconds of chain
   * time: `all` (`MAX_LAG_SECONDS`) unless the chain has its own (`MAX_LAG_SECONDS_<id>`).
   */
  maxLagSeconds: { all: number; byChain: ReadonlyMap<number, number> };
  /** `MAX_LAG_BLOCKS`: a further limit in blocks, none when unset. */
  maxLagBlocks: number | undefined;
  /**
   * Routes and bundles that run at once (`SHORTCUTS_CONCURRENCY`), and while the routing data
   * is `yieldLagBlocks` or more blocks behind a chain's head (`concurrencyWhileBehind`); the
   * next ones wait in arrival order, at most `maxWaiting` of them and each at most
   * `maxWaitMs`, else 503.
   */
  shortcuts: ShortcutsAdmission;
  /** How long a fetched chain head is reused before asking the RPC again. */
  chainHeadCacheMs: number;
  /** How long SIGTERM waits for in-flight requests before handing over to Ponder's exit. */
  shutdownTimeoutMs: number;
  /** One JSON access-log line per request. */
  logRequests: boolean;
  /** How often the in-memory routing snapshot reads the rows updated in the database. */
  snapshotRefreshMs: number;
  /** How long one JSON-RPC call of the API may take (it is tried twice). */
  rpcTimeoutMs: number;
  /** From the head at startup on, vault totals are re-read this often (blocks). */
  vaultRefreshBlocks: number;
  /** Calls per Multicall3 request of a state start's reads (`STATE_READ_BATCH`). */
  stateReadBatch: number;
  /** Where a `latest` start block is pinned per index (`START_BLOCK_PIN_FILE`). */
  startBlockPinFile: string;
  /** The analysts' endpoints (`/sql/*`, `/graphql`): what one query may cost. */
  analytics: {
    /**
     * `ANALYTICS_SQL`: serve `/sql/*`. Unset: on with Postgres, off with PGlite (where a query
     * runs on the indexer's own thread and cannot be cancelled).
     */
    sql: boolean | undefined;
    /** Postgres cancels an analyst's statement after this long. */
    statementTimeoutMs: number;
    /** Connections of the analysts' own pool (Postgres), apart from the one `/v1` reads through. */
    poolSize: number;
    /** A query returning more rows is refused (422) instead of buffered. */
    maxRows: number;
    /** Longest request body `/graphql` reads (413 beyond). */
    maxBodyBytes: number;
    /** Open `/sql/live` streams at once. */
    maxLiveQueries: number;
  };
  /** Where the index lives: Postgres (`DATABASE_URL`, `DATABASE_SCHEMA`) or PGlite. */
  database: { url: string | undefined; schema: string | undefined; pgliteDir: string | undefined };
  /** `npm start` and the activity generator: the devnet node, anvil's port, the API's port. */
  devnet: {
    /** `DEVNET=false`: do not index the devnet even when its deployment file exists. */
    enabled: boolean;
    /** Where the devnet deployment file is (`DEVNET_DEPLOYMENT`); the default when unset. */
    deploymentFile: string | undefined;
    /** How many endpoints (lanes) the indexer is given for the devnet node, each paced alone. */
    rpcLanes: number;
    rpcUrl: string | undefined;
    anvilPort: number;
    port: number;
    activityIntervalMs: number;
  };
};

const count = (name: string) =>
  z
    .string()
    .regex(/^[0-9]+$/, { error: `${name} must be a whole number` })
    .transform(Number);

const port = (name: string) =>
  count(name).refine((n) => n >= 1 && n <= 65_535, {
    error: `${name} must be a port from 1 to 65535`,
  });

const decimal = (name: string) =>
  z
    .string()
    .regex(/^[0-9]+(\.[0-9]+)?$/, { error: `${name} must be a non-negative number` })
    .transform(Number);

/** An IPv4 or IPv6 address, or a CIDR range of one (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrRange(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const envSchema = z.object({
  API_KEYS: z.string().optional(),
  API_KEYS_FILE: z.string().optional(),
  RATE_LIMIT_RPS: decimal("RATE_LIMIT_RPS").optional(),
  RATE_LIMIT_BURST: count("RATE_LIMIT_BURST")
    .refine((n) => n >= 1, { error: "RATE_LIMIT_BURST must be at least 1" })
    .optional(),
  KEYLESS_RATE_LIMIT_RPS: decimal("KEYLESS_RATE_LIMIT_RPS").optional(),
  KEYLESS_RATE_LIMIT_BURST: count("KEYLESS_RATE_LIMIT_BURST")
    .refine((n) => n >= 1, { error: "KEYLESS_RATE_LIMIT_BURST must be at least 1" })
    .optional(),
  TRUSTED_PROXIES: z
    .string()
    .refine((v) => v.split(",").every((entry) => isAddressOrRange(entry.trim())), {
      error:
        "TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (10.0.0.0/8, fd00::/8)",
    })
    .optional(),
  CLIENT_ADDRESS_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, { error: "CLIENT_ADDRESS_HEADER must be an HTTP header name" })
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, { error: "REDIS_URL must start with redis:// or rediss://" })
    .optional(),
  REDIS_PREFIX: z.string().optional(),
  REDIS_TIMEOUT_MS: count("REDIS_TIMEOUT_MS").optional(),
  MAX_LAG_BLOCKS: count("MAX_LAG_BLOCKS").optional(),
  MAX_LAG_SECONDS: decimal("MAX_LAG_SECONDS").optional(),
  CHAIN_HEAD_CACHE_MS: count("CHAIN_HEAD_CACHE_MS").optional(),
  SHORTCUTS_CONCURRENCY: count("SHORTCUTS_CONCURRENCY")
    .refine((n) => n >= 1, { error: "SHORTCUTS_CONCURRENCY must be at least 1" })
    .optional(),
  SHORTCUTS_CONCURRENCY_BEHIND: count("SHORTCUTS_CONCURRENCY_BEHIND")
    .refine((n) => n >= 1, { error: "SHORTCUTS_CONCURRENCY_BEHIND must be at least 1" })
    .optional(),
  SHORTCUTS_YIELD_LAG_BLOCKS: count("SHORTCUTS_YIELD_LAG_BLOCKS")
    .refine((n) => n >= 1, { error: "SHORTCUTS_YIELD_LAG_BLOCKS must be at least 1" })
    .optional(),
  SHORTCUTS_MAX_WAITING: count("SHORTCUTS_MAX_WAITING").optional(),
  SHORTCUTS_MAX_WAIT_MS: count("SHORTCUTS_MAX_WAIT_MS").optional(),
  SHUTDOWN_TIMEOUT_MS: count("SHUTDOWN_TIMEOUT_MS").optional(),
  LOG_REQUESTS: z
    .enum(["true", "false"], { error: "LOG_REQUESTS must be true or false" })
    .optional(),
  SNAPSHOT_REFRESH_MS: count("SNAPSHOT_REFRESH_MS")
    .refine((n) => n >= 1, { error: "SNAPSHOT_REFRESH_MS must be at least 1" })
    .optional(),
  API_RPC_TIMEOUT_MS: count("API_RPC_TIMEOUT_MS")
    .refine((n) => n >= 1, { error: "API_RPC_TIMEOUT_MS must be at least 1" })
    .optional(),
  STATE_READ_BATCH: count("STATE_READ_BATCH")
    .refine((n) => n >= 1, { error: "STATE_READ_BATCH must be at least 1" })
    .optional(),
  START_BLOCK_PIN_FILE: z.string().optional(),
  VAULT_REFRESH_BLOCKS: count("VAULT_REFRESH_BLOCKS")
    .refine((n) => n >= 1, { error: "VAULT_REFRESH_BLOCKS must be at least 1" })
    .optional(),
  ANALYTICS_SQL: z.enum(["on", "off"], { error: "ANALYTICS_SQL must be on or off" }).optional(),
  ANALYTICS_STATEMENT_TIMEOUT_MS: count("ANALYTICS_STATEMENT_TIMEOUT_MS")
    .refine((n) => n >= 1, { error: "ANALYTICS_STATEMENT_TIMEOUT_MS must be at least 1" })
    .optional(),
  ANALYTICS_POOL_SIZE: count("ANALYTICS_POOL_SIZE")
    .refine((n) => n >= 1, { error: "ANALYTICS_POOL_SIZE must be at least 1" })
    .optional(),
  ANALYTICS_MAX_ROWS: count("ANALYTICS_MAX_ROWS")
    .refine((n) => n >= 1, { error: "ANALYTICS_MAX_ROWS must be at least 1" })
    .optional(),
  ANALYTICS_MAX_BODY_BYTES: count("ANALYTICS_MAX_BODY_BYTES")
    .refine((n) => n >= 1, { error: "ANALYTICS_MAX_BODY_BYTES must be at least 1" })
    .optional(),
  ANALYTICS_MAX_LIVE_QUERIES: count("ANALYTICS_MAX_LIVE_QUERIES").optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, {
      error: "DATABASE_URL must start with postgres:// or postgresql://",
    })
    .optional(),
  DATABASE_SCHEMA: z.string().optional(),
  PONDER_PGLITE_DIR: z.string().optional(),
  RPC_URL: z
    .string()
    .regex(/^(https?|wss?):\/\//, {
      error: "RPC_URL must start with http://, https://, ws:// or wss://",
    })
    .optional(),
  ANVIL_PORT: port("ANVIL_PORT").optional(),
  PORT: port("PORT").optional(),
  ACTIVITY_INTERVAL_MS: count("ACTIVITY_INTERVAL_MS").optional(),
  DEVNET: z.enum(["true", "false"], { error: "DEVNET must be true or false" }).optional(),
  DEVNET_DEPLOYMENT: z.string().optional(),
  DEVNET_RPC_LANES: count("DEVNET_RPC_LANES")
    .refine((n) => n >= 1, { error: "DEVNET_RPC_LANES must be at least 1" })
    .optional(),
});

/** Defaults of every setting, as docs/configuration.md lists them. */
export const DEFAULTS = {
  rateLimitRps: 10,
  rateLimitBurst: 20,
  /**
   * A keyless client (by address) gets a key's default budget: enough for a person or a small
   * script, while one client alone cannot keep the service busy.
   */
  keylessRateLimitRps: 10,
  keylessRateLimitBurst: 20,
  /** What nginx, HAProxy and cloud load balancers set (the client's address, then each hop's). */
  clientAddressHeader: "X-Forwarded-For",
  redisPrefix: "shortcuts:",
  redisTimeoutMs: 250,
  /**
   * A minute of chain time: five blocks on Ethereum (what the limit was in blocks before), 240
   * on Arbitrum, 30 on Base and Optimism. Long enough that a burst of blocks or a busy moment
   * of the indexer never refuses routes, short enough that a stalled index does.
   */
  maxLagSeconds: 60,
  chainHeadCacheMs: 500,
  shortcutsConcurrency: 64,
  shortcutsConcurrencyWhileBehind: 1,
  shortcutsYieldLagBlocks: 3,
  shortcutsMaxWaiting: 1_000,
  shortcutsMaxWaitMs: 5_000,
  shutdownTimeoutMs: 10_000,
  snapshotRefreshMs: 200,
  rpcTimeoutMs: 3_000,
  vaultRefreshBlocks: 1,
  stateReadBatch: 1_000,
  startBlockPinFile: ".ponder/start-blocks.json",
  analyticsStatementTimeoutMs: 5_000,
  analyticsPoolSize: 4,
  analyticsMaxRows: 10_000,
  analyticsMaxBodyBytes: 65_536,
  analyticsMaxLiveQueries: 100,
  anvilPort: 8545,
  port: 42069,
  activityIntervalMs: 1000,
  /**
   * Ponder paces each RPC endpoint adaptively, starting at 20 requests/s: right for a hosted
   * provider, a needless brake on a local node. The devnet node is therefore given as several
   * endpoints (lanes), each paced on its own.
   */
  devnetRpcLanes: 8,
} as const;

const PER_CHAIN_LAG = /^MAX_LAG_SECONDS_(.*)$/;

/** `MAX_LAG_SECONDS_<id>` of `env`, by chain id; a malformed one throws naming it. */
function lagSecondsByChain(env: NodeJS.ProcessEnv): Map<number, number> {
  const byChain = new Map<number, number>();
  for (const [name, raw] of Object.entries(env)) {
    const suffix = PER_CHAIN_LAG.exec(name)?.[1];
    const value = raw?.trim();
    if (suffix === undefined || !value) continue;
    if (!/^[1-9][0-9]*$/.test(suffix)) {
      throw new Error(
        `Invalid configuration: ${name} must end in a chain id (MAX_LAG_SECONDS_<chainId>).`,
      );
    }
    const parsed = decimal(name).safeParse(value);
    if (!parsed.success) {
      throw new Error(`Invalid configuration: ${parsed.error.issues[0]?.message}.`);
    }
    byChain.set(Number(suffix), parsed.data);
  }
  return byChain;
}

/**
 * Throws when a `MAX_LAG_SECONDS_<id>` names a chain that is not served (`chainIds`): a limit
 * that would never apply is a typo the operator should hear about at startup.
 */
export function checkLagChains(settings: Config, chainIds: readonly number[]): void {
  for (const id of settings.maxLagSeconds.byChain.keys()) {
    if (chainIds.includes(id)) continue;
    throw new Error(
      `Invalid configuration: MAX_LAG_SECONDS_${id} is set, but chain ${id} is not indexed (indexed: ${chainIds.join(", ") || "none"}).`,
    );
  }
}

/** The lag limits of chain `chainId` (`createFreshness`'s `limits`). */
export function lagLimitsOf(
  settings: Config,
  chainId: number,
): { maxLagSeconds: number; maxLagBlocks: number | undefined } {
  return {
    maxLagSeconds: settings.maxLagSeconds.byChain.get(chainId) ?? settings.maxLagSeconds.all,
    maxLagBlocks: settings.maxLagBlocks,
  };
}

/**
 * Reads the settings from `env` (empty strings count as unset). A malformed value stops the
 * API at startup with a message naming the variable, rather than running misconfigured.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(envSchema.shape).flatMap((name) => {
      const value = env[name]?.trim();
      return value ? [[name, value]] : [];
    }),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid configuration: ${issue?.message ?? "invalid environment"}.`);
  }
  const e = parsed.data;
  return {
    apiKeys: (e.API_KEYS ?? "")
      .split(",")
      .map((k) => k.trim())
      .filter((k) => k.length > 0),
    apiKeysFile: e.API_KEYS_FILE,
    rateLimit: {
      rps: e.RATE_LIMIT_RPS ?? DEFAULTS.rateLimitRps,
      burst: e.RATE_LIMIT_BURST ?? DEFAULTS.rateLimitBurst,
    },
    keylessRateLimit: {
      rps: e.KEYLESS_RATE_LIMIT_RPS ?? DEFAULTS.keylessRateLimitRps,
      burst: e.KEYLESS_RATE_LIMIT_BURST ?? DEFAULTS.keylessRateLimitBurst,
    },
    clientAddress: {
      header: e.CLIENT_ADDRESS_HEADER ?? DEFAULTS.clientAddressHeader,
      trustedProxies: (e.TRUSTED_PROXIES ?? "")
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry.length > 0),
    },
    redis: e.REDIS_URL
      ? {
          url: e.REDIS_URL,
          prefix: e.REDIS_PREFIX ?? DEFAULTS.redisPrefix,
          timeoutMs: e.REDIS_TIMEOUT_MS ?? DEFAULTS.redisTimeoutMs,
        }
      : undefined,
    maxLagSeconds: {
      all: e.MAX_LAG_SECONDS ?? DEFAULTS.maxLagSeconds,
      byChain: lagSecondsByChain(env),
    },
    maxLagBlocks: e.MAX_LAG_BLOCKS,
    shortcuts: {
      concurrency: e.SHORTCUTS_CONCURRENCY ?? DEFAULTS.shortcutsConcurrency,
      concurrencyWhileBehind:
        e.SHORTCUTS_CONCURRENCY_BEHIND ?? DEFAULTS.shortcutsConcurrencyWhileBehind,
      yieldLagBlocks: e.SHORTCUTS_YIELD_LAG_BLOCKS ?? DEFAULTS.shortcutsYieldLagBlocks,
      maxWaiting: e.SHORTCUTS_MAX_WAITING ?? DEFAULTS.shortcutsMaxWaiting,
      maxWaitMs: e.SHORTCUTS_MAX_WAIT_MS ?? DEFAULTS.shortcutsMaxWaitMs,
    },
    chainHeadCacheMs: e.CHAIN_HEAD_CACHE_MS ?? DEFAULTS.chainHeadCacheMs,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS ?? DEFAULTS.shutdownTimeoutMs,
    logRequests: e.LOG_REQUESTS !== "false",
    snapshotRefreshMs: e.SNAPSHOT_REFRESH_MS ?? DEFAULTS.snapshotRefreshMs,
    rpcTimeoutMs: e.API_RPC_TIMEOUT_MS ?? DEFAULTS.rpcTimeoutMs,
    vaultRefreshBlocks: e.VAULT_REFRESH_BLOCKS ?? DEFAULTS.vaultRefreshBlocks,
    stateReadBatch: e.STATE_READ_BATCH ?? DEFAULTS.stateReadBatch,
    startBlockPinFile: e.START_BLOCK_PIN_FILE?.trim() || DEFAULTS.startBlockPinFile,
    analytics: {
      sql: e.ANALYTICS_SQL === undefined ? undefined : e.ANALYTICS_SQL === "on",
      statementTimeoutMs: e.ANALYTICS_STATEMENT_TIMEOUT_MS ?? DEFAULTS.analyticsStatementTimeoutMs,
      poolSize: e.ANALYTICS_POOL_SIZE ?? DEFAULTS.analyticsPoolSize,
      maxRows: e.ANALYTICS_MAX_ROWS ?? DEFAULTS.analyticsMaxRows,
      maxBodyBytes: e.ANALYTICS_MAX_BODY_BYTES ?? DEFAULTS.analyticsMaxBodyBytes,
      maxLiveQueries: e.ANALYTICS_MAX_LIVE_QUERIES ?? DEFAULTS.analyticsMaxLiveQueries,
    },
    database: { url: e.DATABASE_URL, schema: e.DATABASE_SCHEMA, pgliteDir: e.PONDER_PGLITE_DIR },
    devnet: {
      enabled: e.DEVNET !== "false",
      deploymentFile: e.DEVNET_DEPLOYMENT,
      rpcLanes: e.DEVNET_RPC_LANES ?? DEFAULTS.devnetRpcLanes,
      rpcUrl: e.RPC_URL,
      anvilPort: e.ANVIL_PORT ?? DEFAULTS.anvilPort,
      port: e.PORT ?? DEFAULTS.port,
      activityIntervalMs: e.ACTIVITY_INTERVAL_MS ?? DEFAULTS.activityIntervalMs,
    },
  };
}

let current: Config | undefined;

/** The process's settings, read from `process.env` on first use. */
export function config(): Config {
  current ??= readConfig();
  return current;
}
