import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { Redis } from "ioredis";
import { afterAll, describe, expect, test } from "vitest";
import type { ApiKey } from "../../src/api/ops/auth.js";
import type { OpsEnv } from "../../src/api/ops/context.js";
import { setLogSink } from "../../src/api/ops/log.js";
import { metrics } from "../../src/api/ops/metrics.js";
import {
  clientBucket,
  createClientAddress,
  createMemoryRateLimiter,
  createRedisRateLimiter,
  gcraStep,
  type RateLimiter,
  type RateLimitParameters,
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
    const before = (await metrics.rateLimited.get()).values.find((v) => v.labels.caller === "key");
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
    const after = (await metrics.rateLimited.get()).values.find((v) => v.labels.caller === "key");
    expect(after?.value).toBe((before?.value ?? 0) + 1);
    // The public metrics name neither the key nor its name.
    const text = await metrics.registry.metrics();
    expect(text.includes("tight")).toBe(false);
  });

  test("keys with rps 0 are not limited; without a keyless budget, neither are keyless callers", async () => {
    const limiter = createMemoryRateLimiter({ now: () => 0 });
    for (const apiKey of [undefined, { name: "free", rps: 0, burst: 1 }]) {
      const open = app(limiter, apiKey);
      for (let i = 0; i < 5; i++) expect((await open.request("/")).status).toBe(200);
    }
  });
});

describe("client addresses", () => {
  const headers =
    (values: Record<string, string>) =>
    (name: string): string | undefined =>
      values[name];
  const forwarded = (value: string) => headers({ "x-forwarded-for": value });

  test("the peer is the client unless it is a trusted proxy; then the header is read from the right", () => {
    const address = createClientAddress({
      header: "X-Forwarded-For",
      trustedProxies: ["10.0.0.0/8", "192.0.2.7", "fd00::/8"],
    });
    const cases: [string | undefined, Record<string, string>, string][] = [
      // An untrusted peer's header is ignored: anyone can write one.
      ["203.0.113.9", { "x-forwarded-for": "198.51.100.1" }, "203.0.113.9"],
      ["::ffff:203.0.113.9", {}, "203.0.113.9"],
      // A trusted proxy without the header is its own client.
      ["10.1.2.3", {}, "10.1.2.3"],
      ["10.1.2.3", { "x-forwarded-for": "198.51.100.1" }, "198.51.100.1"],
      ["::ffff:10.1.2.3", { "x-forwarded-for": "198.51.100.1" }, "198.51.100.1"],
      // What the client wrote itself (left of the first untrusted hop) is not believed.
      ["10.1.2.3", { "x-forwarded-for": "1.1.1.1, 198.51.100.1" }, "198.51.100.1"],
      // Past every trusted hop: a CDN (192.0.2.7) in front of the proxy.
      ["10.1.2.3", { "x-forwarded-for": "1.1.1.1, 198.51.100.1, 192.0.2.7" }, "198.51.100.1"],
      ["10.1.2.3", { "x-forwarded-for": "10.9.9.9, 192.0.2.7" }, "10.9.9.9"],
      // A hop that is no address stops the walk at the last trusted one.
      ["10.1.2.3", { "x-forwarded-for": "198.51.100.1, junk" }, "10.1.2.3"],
      ["10.1.2.3", { "x-forwarded-for": "198.51.100.1,192.0.2.7,nope" }, "10.1.2.3"],
      ["10.1.2.3", { "x-forwarded-for": "" }, "10.1.2.3"],
      ["10.1.2.3", { "x-forwarded-for": "198.51.100.1:4711" }, "198.51.100.1"],
      ["10.1.2.3", { "x-forwarded-for": '"[2001:DB8::1]:443"' }, "2001:db8::1"],
      ["fd00::1", { "x-forwarded-for": "2001:db8::5" }, "2001:db8::5"],
      [undefined, { "x-forwarded-for": "198.51.100.1" }, "unknown"],
    ];
    expect(cases.map(([peer, values]) => address(peer, headers(values)))).toEqual(
      cases.map(([, , expected]) => expected),
    );
  });

  test("another header, and no trusted proxy at all", () => {
    const real = createClientAddress({ header: "X-Real-IP", trustedProxies: ["127.0.0.1"] });
    expect(real("127.0.0.1", headers({ "x-real-ip": "198.51.100.4" }))).toBe("198.51.100.4");
    expect(real("127.0.0.1", forwarded("198.51.100.4"))).toBe("127.0.0.1");
    const none = createClientAddress({ header: "X-Forwarded-For", trustedProxies: [] });
    expect(none("127.0.0.1", forwarded("198.51.100.4"))).toBe("127.0.0.1");
  });

  test("an IPv6 client spends its /64's budget; an IPv4 client its address's", () => {
    expect(
      [
        "198.51.100.1",
        "2001:db8:1:2:3:4:5:6",
        "2001:db8:1:2::9",
        "2001:db8::1",
        "::1",
        "fe80::1%eth0",
      ].map(clientBucket),
    ).toEqual([
      "198.51.100.1",
      "2001:db8:1:2::/64",
      "2001:db8:1:2::/64",
      "2001:db8:0:0::/64",
      "0:0:0:0::/64",
      "fe80:0:0:0::/64",
    ]);
  });
});

describe("keyless budgets", () => {
  const keyless: NonNullable<RateLimitParameters["keyless"]> = {
    limit: { rps: 0.5, burst: 3 },
    clientAddress: createClientAddress({
      header: "X-Forwarded-For",
      trustedProxies: ["10.0.0.1"],
    }),
  };
  const open = (limiter: RateLimiter) =>
    new Hono<OpsEnv>()
      .use(rateLimit({ limiter, keyless, isPublic: (path) => path === "/public" }))
      .get("/", (c) => c.text("ok"))
      .get("/public", (c) => c.text("ok"));
  /** A request as `@hono/node-server` hands it over: with the connection's peer address. */
  const from = (
    app: Hono<OpsEnv>,
    peer: string,
    headers: Record<string, string> = {},
    path = "/",
  ) => app.request(path, { headers }, { incoming: { socket: { remoteAddress: peer } } } as never);
  const limited = {
    statusCode: 429,
    error: "Too Many Requests",
    message:
      "Rate limit exceeded: a client without an API key may make 0.5 requests per second with bursts of 3. Retry in 2 s.",
    details: { rps: 0.5, burst: 3, retryAfterSeconds: 2 },
  };

  test("each address gets its burst, then 429 with Retry-After; other addresses are unaffected", async () => {
    let now = 50_000;
    const app = open(createMemoryRateLimiter({ now: () => now }));
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await from(app, "203.0.113.9")).status);
    expect(statuses).toEqual([200, 200, 200]);
    const before = (await metrics.rateLimited.get()).values.find(
      (v) => v.labels.caller === "keyless",
    );
    const res = await from(app, "203.0.113.9");
    expect([res.status, res.headers.get("retry-after"), await res.json()]).toEqual([
      429,
      "2",
      limited,
    ]);
    const after = (await metrics.rateLimited.get()).values.find(
      (v) => v.labels.caller === "keyless",
    );
    expect(after?.value).toBe((before?.value ?? 0) + 1);
    // The public metrics name no client address.
    expect((await metrics.registry.metrics()).includes("203.0.113.9")).toBe(false);
    // Another address, and the paths open to all, are not affected.
    expect((await from(app, "203.0.113.10")).status).toBe(200);
    expect((await from(app, "203.0.113.9", {}, "/public")).status).toBe(200);
    // Two seconds later one request has been refilled.
    now += 2_000;
    expect((await from(app, "203.0.113.9")).status).toBe(200);
    expect((await from(app, "203.0.113.9")).status).toBe(429);
  });

  test("a forged header from an untrusted peer gets no fresh budget; behind the trusted proxy each client has its own", async () => {
    const app = open(createMemoryRateLimiter({ now: () => 0 }));
    const forged = [];
    for (let i = 0; i < 4; i++) {
      forged.push(
        (await from(app, "203.0.113.9", { "x-forwarded-for": `198.51.100.${i}` })).status,
      );
    }
    expect(forged).toEqual([200, 200, 200, 429]);
    const proxied = [];
    for (const client of ["198.51.100.1", "198.51.100.2"]) {
      for (let i = 0; i < 4; i++) {
        proxied.push((await from(app, "10.0.0.1", { "x-forwarded-for": client })).status);
      }
    }
    expect(proxied).toEqual([200, 200, 200, 429, 200, 200, 200, 429]);
  });
});
