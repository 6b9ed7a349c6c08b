/**
 * Rate limits per API key, and per client address for callers without one, as a GCRA (generic
 * cell rate algorithm): a token bucket of `burst` requests refilled at `rps` per second, kept as
 * one number per bucket — the "theoretical arrival time" (TAT) of the next request. In memory by
 * default; in Redis (one Lua script, Redis's clock) when replicas must share one budget.
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";
import type { Context } from "hono";
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

/** An address as written in a forwarding header: maybe quoted, bracketed, with a port. */
function parseForwardedAddress(entry: string): string | undefined {
  let value = entry
    .trim()
    .replace(/^for=/i, "")
    .replace(/^"(.*)"$/, "$1");
  const bracketed = /^\[([^\]]+)\](?::[0-9]+)?$/.exec(value);
  if (bracketed?.[1]) value = bracketed[1];
  else if (/^[0-9.]+:[0-9]+$/.test(value)) value = value.slice(0, value.indexOf(":"));
  return normalizeAddress(value);
}

/** The address in canonical form: IPv4-mapped IPv6 as IPv4; undefined when it is no address. */
function normalizeAddress(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const mapped = /^::ffff:([0-9.]+)$/i.exec(value);
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1];
  return isIPv4(value) || isIPv6(value) ? value.toLowerCase() : undefined;
}

/** The eight 16-bit groups of an IPv6 address. */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, "");
  // An embedded IPv4 tail (::ffff:1.2.3.4 and the like) is two groups.
  const v4 = /^(.*:)([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(2).map(Number) as [number, number, number, number];
    text = `${v4[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const before = head === "" ? [] : head.split(":");
  const after = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups =
    tail === undefined
      ? before
      : [...before, ...Array<string>(8 - before.length - after.length).fill("0"), ...after];
  return groups.map((g) => Number.parseInt(g, 16));
}

/**
 * The budget a client address spends: the address itself for IPv4; its /64 for IPv6, since one
 * subscriber is given a whole /64 and could otherwise spend a fresh budget per address.
 */
export function clientBucket(address: string): string {
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address).slice(0, 4);
  return `${groups.map((g) => g.toString(16)).join(":")}::/64`;
}

export type ClientAddressParameters = {
  /** The header a trusted proxy puts the client's address in (`X-Forwarded-For`). */
  header: string;
  /** Addresses and CIDR ranges of the proxies whose header is believed. */
  trustedProxies: readonly string[];
};

/**
 * Who a request comes from: the connection's peer, unless the peer is a trusted proxy. Then
 * the header's list is read from its right end (the entry the nearest proxy wrote) leftwards,
 * past every trusted proxy, to the first address that is not one: everything left of it was
 * written by the client and is not believed. A peer that is not trusted is the client, whatever
 * header it sends. `unknown` when there is no peer (an in-process request).
 */
export function createClientAddress(params: ClientAddressParameters) {
  const trusted = new BlockList();
  for (const entry of params.trustedProxies) {
    const [address = "", prefix] = entry.split("/");
    const type = isIPv4(address) ? "ipv4" : "ipv6";
    if (prefix === undefined) trusted.addAddress(address, type);
    else trusted.addSubnet(address, Number(prefix), type);
  }
  const isTrusted = (address: string) => trusted.check(address, isIPv4(address) ? "ipv4" : "ipv6");
  const header = params.header.toLowerCase();
  return (peer: string | undefined, headers: (name: string) => string | undefined): string => {
    let client = normalizeAddress(peer);
    if (client === undefined) return "unknown";
    if (params.trustedProxies.length === 0 || !isTrusted(client)) return client;
    const hops = (headers(header) ?? "").split(",").reverse();
    for (const hop of hops) {
      if (hop.trim() === "") break;
      const address = parseForwardedAddress(hop);
      // A hop that is no address was not written by a trusted proxy: the last one is the client.
      if (address === undefined) break;
      client = address;
      if (!isTrusted(address)) break;
    }
    return client;
  };
}

export type RateLimitParameters = {
  limiter: RateLimiter;
  /** Budget of each client without an API key (open API, or a path open without one). */
  keyless?: {
    limit: RateLimit;
    /** The client's address (`createClientAddress`), from the connection and its headers. */
    clientAddress: (
      peer: string | undefined,
      headers: (name: string) => string | undefined,
    ) => string;
  };
  /** Paths open to everyone (the OpenAPI document, logos): not limited without a key. */
  isPublic?: (path: string) => boolean;
};

/** The connection's peer address, under `@hono/node-server` (absent under `app.request()`). */
function peerAddress(c: Context<OpsEnv>): string | undefined {
  return c.env?.incoming?.socket?.remoteAddress;
}

/**
 * Spends one request of the caller's budget — its API key's, or without a key its address's —
 * or answers 429 with `Retry-After` (whole seconds, rounded up) and the error body of every
 * error. Buckets of keys and of addresses never meet: key names cannot contain `:`.
 */
export function rateLimit(params: RateLimitParameters) {
  return createMiddleware<OpsEnv>(async (c, next) => {
    const key = c.get("apiKey");
    const spend = key
      ? { bucket: key.name, limit: key as RateLimit, who: "this API key", caller: "key" }
      : params.keyless && params.keyless.limit.rps > 0 && !params.isPublic?.(c.req.path)
        ? {
            bucket: `client:${clientBucket(params.keyless.clientAddress(peerAddress(c), (name) => c.req.header(name)))}`,
            limit: params.keyless.limit,
            who: "a client without an API key",
            caller: "keyless",
          }
        : undefined;
    if (!spend || spend.limit.rps === 0) return next();
    const decision = await params.limiter.take(spend.bucket, spend.limit);
    if (decision.allowed) return next();
    // Public metrics name no key and no client: the access log has the key's name.
    metrics.rateLimited.inc({ caller: spend.caller });
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    const { rps, burst } = spend.limit;
    return c.json(
      errorBody(
        429,
        `Rate limit exceeded: ${spend.who} may make ${plural(rps, "request")} per second with bursts of ${burst}. Retry in ${seconds} s.`,
        { rps, burst, retryAfterSeconds: seconds },
      ),
      429,
      { "Retry-After": String(seconds) },
    );
  });
}
