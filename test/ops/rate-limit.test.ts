import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { Redis } from "ioredis";
import { afterAll, describe, expect, test } from "vitest";
import type { ApiKey } from "../../src/api/ops/auth.js";
import type { OpsEnv } from "../../src/api/ops/context.js";
import { setLogSink } from "../../src/api/ops/log.js";
import { metrics } from "../../src/api/ops/metrics.js";
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  gcraStep,
  type RateLimiter,
  rateLimit,
} from "../../src/api/ops/rate-limit.js";
import { freePort } from "../harness/net.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

describe("GCRA", () => {
  test("a full bucket allows `burst` requests at once, then one per interval", () => {
    let tat: number | undefined;
    const decisions = [];
    for (const now of [0, 0, 0, 0, 99, 100, 100, 350]) {
      const step = gcraStep({ now, tat, interval: 100, burst: 3 });
      if (step.tat !== undefined) tat = step.tat;
      decisions.push(step.decision);
    }
    expect(decisions).toEqual([
      { allowed: true, remaining: 2 },
      { allowed: true, remaining: 1 },
      { allowed: true, remaining: 0 },
      { allowed: false, retryAfterMs: 100 },
      { allowed: false, retryAfterMs: 1 },
      { allowed: true, remaining: 0 },
      { allowed: false, retryAfterMs: 100 },
      // 250 ms after the last request: two and a half requests refilled, one spent now.
      { allowed: true, remaining: 1 },
    ]);
  });

  test("the memory limiter keeps one budget per bucket", async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter({ now: () => now });
    const limit = { rps: 2, burst: 2 };
    expect(await limiter.take("a", limit)).toEqual({ allowed: true, remaining: 1 });
    expect(await limiter.take("a", limit)).toEqual({ allowed: true, remaining: 0 });
    expect(await limiter.take("a", limit)).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(await limiter.take("b", limit)).toEqual({ allowed: true, remaining: 1 });
    now += 500;
    expect(await limiter.take("a", limit)).toEqual({ allowed: true, remaining: 0 });
  });
});

describe("rate limits shared through Redis", () => {
  const clients: Redis[] = [];
  const connect = (url = REDIS_URL) => {
    const redis = new Redis(url, {
      commandTimeout: 1_000,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    redis.on("error", () => {});
    clients.push(redis);
    return redis;
  };
  afterAll(async () => {
    for (const c of clients) c.disconnect();
  });

  test("two replicas spend one budget", async () => {
    const prefix = `test:${randomBytes(6).toString("hex")}:`;
    const replicas: RateLimiter[] = [];
    for (let i = 0; i < 2; i++) {
      const redis = connect();
      await redis.connect();
      replicas.push(createRedisRateLimiter({ redis, prefix, fallback: createMemoryRateLimiter() }));
    }
    const [a, b] = replicas as [RateLimiter, RateLimiter];
    // 0.5 requests per second: the budget cannot refill during the test.
    const limit = { rps: 0.5, burst: 3 };
    expect(await a.take("k", limit)).toEqual({ allowed: true, remaining: 2 });
    expect(await b.take("k", limit)).toEqual({ allowed: true, remaining: 1 });
    expect(await a.take("k", limit)).toEqual({ allowed: true, remaining: 0 });
    const refused = await b.take("k", limit);
    expect(refused.allowed).toBe(false);
    if (refused.allowed) return;
    // The next request is due 2 s after the first, measured on Redis's clock.
    expect(refused.retryAfterMs).toBeGreaterThan(1_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(2_000);
    // Another bucket is untouched; the stored TAT expires with the budget.
    expect(await a.take("other", limit)).toEqual({ allowed: true, remaining: 2 });
    const ttl = await (clients[0] as Redis).pttl(`${prefix}ratelimit:k`);
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(6_000);
  });

  test("when Redis does not answer, the replica's own budget applies", async () => {
    const lines: string[] = [];
    const previous = setLogSink((line) => lines.push(line));
    try {
      const redis = connect(`redis://127.0.0.1:${await freePort()}`);
      const before = (await metrics.rateLimitRedisErrors.get()).values[0]?.value ?? 0;
      const limiter = createRedisRateLimiter({
        redis,
        prefix: "test:",
        fallback: createMemoryRateLimiter({ now: () => 0 }),
      });
      const limit = { rps: 1, burst: 1 };
      expect(await limiter.take("k", limit)).toEqual({ allowed: true, remaining: 0 });
      expect(await limiter.take("k", limit)).toEqual({ allowed: false, retryAfterMs: 1000 });
      expect((await metrics.rateLimitRedisErrors.get()).values[0]?.value).toBe(before + 2);
      expect(lines.map((l) => JSON.parse(l).msg)).toEqual([
        "rate limit check in Redis failed; using this replica's budget",
      ]);
    } finally {
      setLogSink(previous);
    }
  });
});

describe("rate limit middleware", () => {
  const key: ApiKey = { name: "tight", rps: 0.5, burst: 2 };
  const app = (limiter: RateLimiter, apiKey: ApiKey | undefined) =>
    new Hono<OpsEnv>()
      .use(async (c, next) => {
        if (apiKey) c.set("apiKey", apiKey);
        await next();
      })
      .use(rateLimit({ limiter }))
      .get("/", (c) => c.text("ok"));

  test("answers 429 with Retry-After once the key's budget is spent", async () => {
    const limiter = createMemoryRateLimiter({ now: () => 10_000 });
    const guarded = app(limiter, key);
    expect((await guarded.request("/")).status).toBe(200);
    expect((await guarded.request("/")).status).toBe(200);
    const before = (await metrics.rateLimited.get()).values.find((v) => v.labels.key === "tight");
    const res = await guarded.request("/");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(await res.json()).toEqual({
      statusCode: 429,
      error: "Too Many Requests",
      message:
        "Rate limit exceeded: this API key may make 0.5 requests per second with bursts of 2. Retry in 2 s.",
      details: { rps: 0.5, burst: 2, retryAfterSeconds: 2 },
    });
    const after = (await metrics.rateLimited.get()).values.find((v) => v.labels.key === "tight");
    expect(after?.value).toBe((before?.value ?? 0) + 1);
  });

  test("requests without a key (open API) and keys with rps 0 are not limited", async () => {
    const limiter = createMemoryRateLimiter({ now: () => 0 });
    for (const apiKey of [undefined, { name: "free", rps: 0, burst: 1 }]) {
      const open = app(limiter, apiKey);
      for (let i = 0; i < 5; i++) expect((await open.request("/")).status).toBe(200);
    }
  });
});
