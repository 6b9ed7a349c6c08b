/**
 * Per-key rate limits as a GCRA (generic cell rate algorithm): a token bucket of `burst`
 * requests refilled at `rps` per second, kept as one number per key — the "theoretical arrival
 * time" (TAT) of the next request. In memory by default; in Redis (one Lua script, Redis's
 * clock) when replicas must share one budget.
 */
import { createMiddleware } from "hono/factory";
import type { Redis } from "ioredis";
import { errorBody } from "../errors.js";
import type { OpsEnv } from "./context.js";
import { errorFields, log } from "./log.js";
import { metrics } from "./metrics.js";

export type RateLimit = { rps: number; burst: number };

export type RateLimitDecision =
  | { allowed: true; remaining: number }
  | { allowed: false; retryAfterMs: number };

export type RateLimiter = {
  /** Spends one request of `bucket`'s budget if there is one. */
  take: (bucket: string, limit: RateLimit) => Promise<RateLimitDecision>;
};

/** One GCRA step on plain numbers (any time unit): the decision and the TAT to store. */
export function gcraStep(params: {
  now: number;
  /** Stored TAT, if the bucket has one. */
  tat: number | undefined;
  /** Time per request: one over the rate. */
  interval: number;
  burst: number;
}): { decision: RateLimitDecision; tat: number | undefined } {
  const { now, interval, burst } = params;
  const newTat = Math.max(params.tat ?? now, now) + interval;
  const allowAt = newTat - burst * interval;
  if (now < allowAt)
    return { decision: { allowed: false, retryAfterMs: allowAt - now }, tat: undefined };
  return {
    decision: { allowed: true, remaining: Math.floor((now - allowAt) / interval) },
    tat: newTat,
  };
}

export type MemoryRateLimiterParameters = { now?: () => number };

/** Budgets held by this process alone. */
export function createMemoryRateLimiter(params: MemoryRateLimiterParameters = {}): RateLimiter {
  const now = params.now ?? Date.now;
  const tats = new Map<string, number>();
  let takes = 0;
  return {
    take: async (bucket, limit) => {
      const t = now();
      // Buckets whose TAT has passed are full again: forget them now and then.
      if (++takes % 1024 === 0) {
        for (const [key, tat] of tats) if (tat <= t) tats.delete(key);
      }
      const step = gcraStep({
        now: t,
        tat: tats.get(bucket),
        interval: 1000 / limit.rps,
        burst: limit.burst,
      });
      if (step.tat !== undefined) tats.set(bucket, step.tat);
      return step.decision;
    },
  };
}

/**
 * The GCRA step in Redis, atomically, on Redis's clock (replicas' clocks may disagree), in
 * integer microseconds. KEYS[1]: the bucket; ARGV: interval (µs), burst.
 * Returns {allowed (0/1), retry after (µs), remaining}.
 */
const GCRA_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local newTat = tat + interval
local allowAt = newTat - burst * interval
if now < allowAt then
  return {0, allowAt - now, 0}
end
redis.call('SET', KEYS[1], string.format('%d', newTat), 'PX', math.max(1, math.ceil((newTat - now) / 1000)))
return {1, 0, math.floor((now - allowAt) / interval)}
`;

type GcraRedis = Redis & {
  shortcutsGcra: (key: string, intervalUs: string, burst: string) => Promise<number[]>;
};

export type RedisRateLimiterParameters = {
  /** A connected ioredis client; its `commandTimeout` bounds each check. */
  redis: Redis;
  /** Key prefix, so deployments can share one Redis. */
  prefix: string;
  /** Used for a request whose Redis check failed (Redis down or slow). */
  fallback: RateLimiter;
};

/** Budgets shared by every replica that points at the same Redis and prefix. */
export function createRedisRateLimiter(params: RedisRateLimiterParameters): RateLimiter {
  params.redis.defineCommand("shortcutsGcra", { numberOfKeys: 1, lua: GCRA_LUA });
  const redis = params.redis as GcraRedis;
  let lastWarning = 0;
  return {
    take: async (bucket, limit) => {
      try {
        const [allowed, retryUs, remaining] = await redis.shortcutsGcra(
          `${params.prefix}ratelimit:${bucket}`,
          String(Math.max(1, Math.round(1_000_000 / limit.rps))),
          String(limit.burst),
        );
        return allowed === 1
          ? { allowed: true, remaining: remaining ?? 0 }
          : { allowed: false, retryAfterMs: (retryUs ?? 0) / 1000 };
      } catch (error) {
        // Availability over strictness: this replica's own budget still limits the key.
        metrics.rateLimitRedisErrors.inc();
        if (Date.now() - lastWarning > 10_000) {
          lastWarning = Date.now();
          log("warn", "rate limit check in Redis failed; using this replica's budget", {
            ...errorFields(error),
          });
        }
        return params.fallback.take(bucket, limit);
      }
    },
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * Spends one request of the caller's key budget, or answers 429 with `Retry-After` (whole
 * seconds, rounded up). Requests without a key (open API) are not limited.
 */
export function rateLimit(params: { limiter: RateLimiter }) {
  return createMiddleware<OpsEnv>(async (c, next) => {
    const key = c.get("apiKey");
    if (!key || key.rps === 0) return next();
    const decision = await params.limiter.take(key.name, key);
    if (decision.allowed) return next();
    metrics.rateLimited.inc({ key: key.name });
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    return c.json(
      errorBody(
        429,
        `Rate limit exceeded: this API key may make ${plural(key.rps, "request")} per second with bursts of ${key.burst}. Retry in ${seconds} s.`,
        { rps: key.rps, burst: key.burst, retryAfterSeconds: seconds },
      ),
      429,
      { "Retry-After": String(seconds) },
    );
  });
}
