import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { errorBody } from "../errors.js";
import type { ApiKey, OpsEnv } from "./context.js";

export type { ApiKey } from "./context.js";

import { metrics } from "./metrics.js";

/** The keys the API accepts, by SHA-256 of the key (hex). Empty: the API is open. */
export type KeyRing = ReadonlyMap<string, ApiKey>;

/** token68 (RFC 7235), at least 16 characters: what fits `Authorization: Bearer`. */
const KEY_PATTERN = /^[A-Za-z0-9._~+/-]{16,}=*$/;

const keysFileSchema = z.object({
  keys: z.array(
    z.strictObject({
      name: z
        .string()
        .regex(/^[A-Za-z0-9._-]{1,64}$/, {
          error: "name must be 1 to 64 letters, digits, dots, dashes or underscores",
        })
        .optional(),
      key: z.string(),
      rps: z.number().min(0).optional(),
      burst: z.number().int().min(1).optional(),
    }),
  ),
});

export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export type LoadKeyRingParameters = {
  /** Keys from `API_KEYS`. */
  apiKeys: readonly string[];
  /** Path of the JSON keys file (`API_KEYS_FILE`). */
  keysFile?: string;
  /** Budget of keys that do not set their own. */
  defaults: { rps: number; burst: number };
};

/**
 * Builds the key ring from `API_KEYS` and the keys file. The file is JSON:
 * `{ "keys": [{ "name": "acme", "key": "…", "rps": 20, "burst": 40 }] }` (`name`, `rps` and
 * `burst` optional). Errors never quote a key.
 */
export function loadKeyRing(params: LoadKeyRingParameters): KeyRing {
  const entries: { key: string; name?: string; rps?: number; burst?: number; from: string }[] =
    params.apiKeys.map((key, i) => ({ key, from: `API_KEYS entry ${i + 1}` }));
  if (params.keysFile) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(params.keysFile, "utf8"));
    } catch (error) {
      throw new Error(
        `Invalid configuration: cannot read the keys file ${params.keysFile} as JSON (${(error as Error).message}).`,
      );
    }
    const parsed = keysFileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `Invalid configuration: keys file ${params.keysFile}, at ${issue?.path.join(".") || "top level"}: ${issue?.message}.`,
      );
    }
    parsed.data.keys.forEach((k, i) => {
      entries.push({ ...k, from: `keys file entry ${i + 1}` });
    });
  }
  const ring = new Map<string, ApiKey>();
  const names = new Set<string>();
  for (const entry of entries) {
    if (!KEY_PATTERN.test(entry.key)) {
      throw new Error(
        `Invalid configuration: ${entry.from}: an API key must be at least 16 characters of letters, digits and ._~+/- (it can then be sent as a Bearer token).`,
      );
    }
    const hash = hashKey(entry.key);
    if (ring.has(hash)) {
      throw new Error(`Invalid configuration: ${entry.from} repeats an earlier key.`);
    }
    const name = entry.name ?? `key-${hash.slice(0, 8)}`;
    if (names.has(name)) {
      throw new Error(`Invalid configuration: ${entry.from}: key name \`${name}\` is taken.`);
    }
    names.add(name);
    ring.set(hash, {
      name,
      rps: entry.rps ?? params.defaults.rps,
      burst: entry.burst ?? params.defaults.burst,
    });
  }
  return ring;
}

function unauthorized(c: Context, message: string, challenge: string): Response {
  return c.json(errorBody(401, message), 401, { "WWW-Authenticate": challenge });
}

export type RequireApiKeyParameters = {
  keys: KeyRing;
  /** Paths under the guarded prefix that stay open (the OpenAPI document, logos). */
  isPublic?: (path: string) => boolean;
};

/**
 * DESIGN §5: with no keys configured the API is open and ignores any Authorization header;
 * otherwise every guarded request needs `Authorization: Bearer <key>` with a configured key,
 * or gets a 401 JSON error. The matched key is `c.get("apiKey")`.
 */
export function requireApiKey(params: RequireApiKeyParameters) {
  return createMiddleware<OpsEnv>(async (c, next) => {
    if (params.keys.size === 0 || params.isPublic?.(c.req.path)) return next();
    const header = c.req.header("authorization");
    if (header === undefined || header.trim() === "") {
      metrics.authFailures.inc({ reason: "missing" });
      return unauthorized(
        c,
        "Missing API key: send it as `Authorization: Bearer <key>`.",
        'Bearer realm="api"',
      );
    }
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) {
      metrics.authFailures.inc({ reason: "malformed" });
      return unauthorized(
        c,
        "The Authorization header must have the form `Bearer <key>`.",
        'Bearer realm="api", error="invalid_request"',
      );
    }
    // Looked up by hash: no key-by-key string comparison whose timing depends on the secret.
    const key = params.keys.get(hashKey(match[1]));
    if (!key) {
      metrics.authFailures.inc({ reason: "unknown" });
      return unauthorized(c, "Unknown API key.", 'Bearer realm="api", error="invalid_token"');
    }
    c.set("apiKey", key);
    return next();
  });
}
