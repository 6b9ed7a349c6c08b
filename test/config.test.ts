import { describe, expect, test } from "vitest";
import { checkLagChains, lagLimitsOf, readConfig } from "../config.js";

describe("configuration", () => {
  test("defaults with nothing set (empty strings count as unset)", () => {
    expect(readConfig({ API_KEYS: "", REDIS_PREFIX: "x:" })).toEqual({
      apiKeys: [],
      apiKeysFile: undefined,
      rateLimit: { rps: 10, burst: 20 },
      keylessRateLimit: { rps: 10, burst: 20 },
      clientAddress: { header: "X-Forwarded-For", trustedProxies: [] },
      redis: undefined,
      maxLagSeconds: { all: 60, byChain: new Map() },
      maxLagBlocks: undefined,
      shortcuts: {
        concurrency: 64,
        concurrencyWhileBehind: 1,
        yieldLagBlocks: 3,
        maxWaiting: 1_000,
        maxWaitMs: 5_000,
      },
      chainHeadCacheMs: 500,
      shutdownTimeoutMs: 10_000,
      logRequests: true,
      snapshotRefreshMs: 200,
      rpcTimeoutMs: 3_000,
      vaultRefreshBlocks: 1,
      stateReadBatch: 1_000,
      startBlockPinFile: ".ponder/start-blocks.json",
      analytics: {
        sql: undefined,
        statementTimeoutMs: 5_000,
        poolSize: 4,
        maxRows: 10_000,
        maxBodyBytes: 65_536,
        maxLiveQueries: 100,
      },
      database: { url: undefined, schema: undefined, pgliteDir: undefined },
      devnet: {
        enabled: true,
        deploymentFile: undefined,
        rpcLanes: 8,
        rpcUrl: undefined,
        anvilPort: 8545,
        port: 42069,
        activityIntervalMs: 1000,
      },
    });
  });

  test("every variable", () => {
    expect(
      readConfig({
        API_KEYS: " k1-0123456789abcdef , ,k2-0123456789abcdef",
        API_KEYS_FILE: "/etc/keys.json",
        RATE_LIMIT_RPS: "2.5",
        RATE_LIMIT_BURST: "7",
        KEYLESS_RATE_LIMIT_RPS: "0.5",
        KEYLESS_RATE_LIMIT_BURST: "3",
        TRUSTED_PROXIES: " 10.0.0.0/8, 192.0.2.7 ,fd00::/8",
        CLIENT_ADDRESS_HEADER: "X-Real-IP",
        REDIS_URL: "redis://127.0.0.1:6379/2",
        REDIS_PREFIX: "prod:",
        REDIS_TIMEOUT_MS: "100",
        MAX_LAG_BLOCKS: "0",
        MAX_LAG_SECONDS: "90",
        MAX_LAG_SECONDS_1: "36",
        MAX_LAG_SECONDS_42161: " 2.5 ",
        MAX_LAG_SECONDS_10: "",
        CHAIN_HEAD_CACHE_MS: "0",
        SHORTCUTS_CONCURRENCY: "16",
        SHORTCUTS_CONCURRENCY_BEHIND: "2",
        SHORTCUTS_YIELD_LAG_BLOCKS: "5",
        SHORTCUTS_MAX_WAITING: "0",
        SHORTCUTS_MAX_WAIT_MS: "250",
        SHUTDOWN_TIMEOUT_MS: "30000",
        LOG_REQUESTS: "false",
        SNAPSHOT_REFRESH_MS: "50",
        API_RPC_TIMEOUT_MS: "1500",
        VAULT_REFRESH_BLOCKS: "10",
        STATE_READ_BATCH: "250",
        START_BLOCK_PIN_FILE: "/var/lib/shortcuts/start-blocks.json",
        ANALYTICS_SQL: "on",
        ANALYTICS_STATEMENT_TIMEOUT_MS: "2000",
        ANALYTICS_POOL_SIZE: "3",
        ANALYTICS_MAX_ROWS: "500",
        ANALYTICS_MAX_BODY_BYTES: "1024",
        ANALYTICS_MAX_LIVE_QUERIES: "0",
        DATABASE_URL: "postgresql://u@db:5432/shortcuts",
        DATABASE_SCHEMA: "mainnet_1",
        PONDER_PGLITE_DIR: "/var/pglite",
        RPC_URL: "http://127.0.0.1:8546",
        ANVIL_PORT: "8547",
        PORT: "3000",
        ACTIVITY_INTERVAL_MS: "250",
        DEVNET: "false",
        DEVNET_DEPLOYMENT: "/srv/devnet.json",
        DEVNET_RPC_LANES: "2",
      }),
    ).toEqual({
      apiKeys: ["k1-0123456789abcdef", "k2-0123456789abcdef"],
      apiKeysFile: "/etc/keys.json",
      rateLimit: { rps: 2.5, burst: 7 },
      keylessRateLimit: { rps: 0.5, burst: 3 },
      clientAddress: {
        header: "X-Real-IP",
        trustedProxies: ["10.0.0.0/8", "192.0.2.7", "fd00::/8"],
      },
      redis: { url: "redis://127.0.0.1:6379/2", prefix: "prod:", timeoutMs: 100 },
      maxLagSeconds: {
        all: 90,
        byChain: new Map([
          [1, 36],
          [42161, 2.5],
        ]),
      },
      maxLagBlocks: 0,
      shortcuts: {
        concurrency: 16,
        concurrencyWhileBehind: 2,
        yieldLagBlocks: 5,
        maxWaiting: 0,
        maxWaitMs: 250,
      },
      chainHeadCacheMs: 0,
      shutdownTimeoutMs: 30_000,
      logRequests: false,
      snapshotRefreshMs: 50,
      rpcTimeoutMs: 1_500,
      vaultRefreshBlocks: 10,
      stateReadBatch: 250,
      startBlockPinFile: "/var/lib/shortcuts/start-blocks.json",
      analytics: {
        sql: true,
        statementTimeoutMs: 2_000,
        poolSize: 3,
        maxRows: 500,
        maxBodyBytes: 1_024,
        maxLiveQueries: 0,
      },
      database: {
        url: "postgresql://u@db:5432/shortcuts",
        schema: "mainnet_1",
        pgliteDir: "/var/pglite",
      },
      devnet: {
        enabled: false,
        deploymentFile: "/srv/devnet.json",
        rpcLanes: 2,
        rpcUrl: "http://127.0.0.1:8546",
        anvilPort: 8547,
        port: 3000,
        activityIntervalMs: 250,
      },
    });
  });

  test("a malformed value stops startup naming the variable", () => {
    const cases: [Record<string, string>, string][] = [
      [{ RATE_LIMIT_RPS: "fast" }, "RATE_LIMIT_RPS must be a non-negative number"],
      [{ RATE_LIMIT_BURST: "0" }, "RATE_LIMIT_BURST must be at least 1"],
      [{ KEYLESS_RATE_LIMIT_RPS: "-1" }, "KEYLESS_RATE_LIMIT_RPS must be a non-negative number"],
      [{ KEYLESS_RATE_LIMIT_BURST: "0" }, "KEYLESS_RATE_LIMIT_BURST must be at least 1"],
      ...["10.0.0.0/33", "nginx", "10.0.0.1/8/1", "::1/129", "10.0.0.0/"].map(
        (entry): [Record<string, string>, string] => [
          { TRUSTED_PROXIES: `127.0.0.1,${entry}` },
          "TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (10.0.0.0/8, fd00::/8)",
        ],
      ),
      [
        { CLIENT_ADDRESS_HEADER: "X Forwarded" },
        "CLIENT_ADDRESS_HEADER must be an HTTP header name",
      ],
      [{ MAX_LAG_BLOCKS: "-1" }, "MAX_LAG_BLOCKS must be a whole number"],
      [{ MAX_LAG_SECONDS: "-5" }, "MAX_LAG_SECONDS must be a non-negative number"],
      [{ MAX_LAG_SECONDS: "1m" }, "MAX_LAG_SECONDS must be a non-negative number"],
      [{ MAX_LAG_SECONDS_1: "-1" }, "MAX_LAG_SECONDS_1 must be a non-negative number"],
      [{ MAX_LAG_SECONDS_42161: "fast" }, "MAX_LAG_SECONDS_42161 must be a non-negative number"],
      [
        { MAX_LAG_SECONDS_arbitrum: "5" },
        "MAX_LAG_SECONDS_arbitrum must end in a chain id (MAX_LAG_SECONDS_<chainId>)",
      ],
      [
        { MAX_LAG_SECONDS_0: "5" },
        "MAX_LAG_SECONDS_0 must end in a chain id (MAX_LAG_SECONDS_<chainId>)",
      ],
      [{ REDIS_URL: "127.0.0.1:6379" }, "REDIS_URL must start with redis:// or rediss://"],
      [{ LOG_REQUESTS: "yes" }, "LOG_REQUESTS must be true or false"],
      [{ SNAPSHOT_REFRESH_MS: "0" }, "SNAPSHOT_REFRESH_MS must be at least 1"],
      [{ SHORTCUTS_CONCURRENCY: "0" }, "SHORTCUTS_CONCURRENCY must be at least 1"],
      [{ SHORTCUTS_CONCURRENCY_BEHIND: "0" }, "SHORTCUTS_CONCURRENCY_BEHIND must be at least 1"],
      [{ SHORTCUTS_YIELD_LAG_BLOCKS: "0" }, "SHORTCUTS_YIELD_LAG_BLOCKS must be at least 1"],
      [{ SHORTCUTS_MAX_WAIT_MS: "5s" }, "SHORTCUTS_MAX_WAIT_MS must be a whole number"],
      [{ API_RPC_TIMEOUT_MS: "3s" }, "API_RPC_TIMEOUT_MS must be a whole number"],
      [{ VAULT_REFRESH_BLOCKS: "0" }, "VAULT_REFRESH_BLOCKS must be at least 1"],
      [{ STATE_READ_BATCH: "0" }, "STATE_READ_BATCH must be at least 1"],
      [{ ANALYTICS_SQL: "yes" }, "ANALYTICS_SQL must be on or off"],
      [
        { ANALYTICS_STATEMENT_TIMEOUT_MS: "0" },
        "ANALYTICS_STATEMENT_TIMEOUT_MS must be at least 1",
      ],
      [{ ANALYTICS_POOL_SIZE: "0" }, "ANALYTICS_POOL_SIZE must be at least 1"],
      [{ ANALYTICS_MAX_ROWS: "many" }, "ANALYTICS_MAX_ROWS must be a whole number"],
      [
        { DATABASE_URL: "mysql://db/x" },
        "DATABASE_URL must start with postgres:// or postgresql://",
      ],
      [{ RPC_URL: "localhost:8545" }, "RPC_URL must start with http://, https://, ws:// or wss://"],
      [{ ANVIL_PORT: "70000" }, "ANVIL_PORT must be a port from 1 to 65535"],
      [{ PORT: "http" }, "PORT must be a whole number"],
      [{ ACTIVITY_INTERVAL_MS: "1s" }, "ACTIVITY_INTERVAL_MS must be a whole number"],
      [{ DEVNET: "no" }, "DEVNET must be true or false"],
      [{ DEVNET_RPC_LANES: "0" }, "DEVNET_RPC_LANES must be at least 1"],
    ];
    for (const [env, message] of cases) {
      expect(() => readConfig(env)).toThrow(`Invalid configuration: ${message}.`);
    }
  });

  test("each chain's lag limits, and MAX_LAG_SECONDS_<id> only for a served chain", () => {
    const settings = readConfig({
      MAX_LAG_SECONDS: "90",
      MAX_LAG_SECONDS_42161: "2.5",
      MAX_LAG_BLOCKS: "300",
    });
    expect([1, 42161].map((id) => lagLimitsOf(settings, id))).toEqual([
      { maxLagSeconds: 90, maxLagBlocks: 300 },
      { maxLagSeconds: 2.5, maxLagBlocks: 300 },
    ]);
    expect(lagLimitsOf(readConfig({}), 1)).toEqual({ maxLagSeconds: 60, maxLagBlocks: undefined });
    expect(() => checkLagChains(settings, [1, 42161])).not.toThrow();
    expect(() => checkLagChains(settings, [1, 10])).toThrow(
      new Error(
        "Invalid configuration: MAX_LAG_SECONDS_42161 is set, but chain 42161 is not indexed (indexed: 1, 10).",
      ),
    );
    expect(() => checkLagChains(settings, [])).toThrow(
      new Error(
        "Invalid configuration: MAX_LAG_SECONDS_42161 is set, but chain 42161 is not indexed (indexed: none).",
      ),
    );
  });
});
