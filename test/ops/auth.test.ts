import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, describe, expect, test } from "vitest";
import { hashKey, type KeyRing, loadKeyRing, requireApiKey } from "../../src/api/ops/auth.js";
import type { OpsEnv } from "../../src/api/ops/context.js";

const dir = mkdtempSync(join(tmpdir(), "auth-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const defaults = { rps: 10, burst: 20 };
const KEY_A = "alpha-key-0123456789";
const KEY_B = "bravo+key/0123456789==";

function keysFile(content: unknown): string {
  const path = join(dir, `keys-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("loading keys", () => {
  test("from API_KEYS and the keys file, with per-key budgets and names", () => {
    const ring = loadKeyRing({
      apiKeys: [KEY_A],
      keysFile: keysFile({
        keys: [{ name: "acme", key: KEY_B, rps: 0.5, burst: 3 }, { key: "charlie-key-0123456789" }],
      }),
      defaults,
    });
    expect([...ring.entries()]).toEqual([
      [hashKey(KEY_A), { name: `key-${hashKey(KEY_A).slice(0, 8)}`, rps: 10, burst: 20 }],
      [hashKey(KEY_B), { name: "acme", rps: 0.5, burst: 3 }],
      [
        hashKey("charlie-key-0123456789"),
        { name: `key-${hashKey("charlie-key-0123456789").slice(0, 8)}`, rps: 10, burst: 20 },
      ],
    ]);
  });

  test("no keys: an empty ring (the API is open)", () => {
    expect(loadKeyRing({ apiKeys: [], defaults }).size).toBe(0);
  });

  test("bad keys and files stop startup with a message that never quotes a key", () => {
    const cases: [Parameters<typeof loadKeyRing>[0], string | RegExp][] = [
      [
        { apiKeys: ["short-key"], defaults },
        "Invalid configuration: API_KEYS entry 1: an API key must be at least 16 characters of letters, digits and ._~+/- (it can then be sent as a Bearer token).",
      ],
      [
        { apiKeys: [KEY_A, KEY_A], defaults },
        "Invalid configuration: API_KEYS entry 2 repeats an earlier key.",
      ],
      [
        { apiKeys: [], keysFile: keysFile({ keys: [{ key: KEY_A, rps: -1 }] }), defaults },
        /^Invalid configuration: keys file .+, at keys\.0\.rps: Too small: expected number to be >=0\.$/,
      ],
      [
        {
          apiKeys: [],
          keysFile: keysFile({
            keys: [
              { name: "a", key: KEY_A },
              { name: "a", key: KEY_B },
            ],
          }),
          defaults,
        },
        "Invalid configuration: keys file entry 2: key name `a` is taken.",
      ],
      [
        { apiKeys: [], keysFile: keysFile({ keys: [{ key: KEY_A, secret: 1 }] }), defaults },
        /^Invalid configuration: keys file .+, at keys\.0: Unrecognized key: "secret"\.$/,
      ],
    ];
    for (const [params, message] of cases) {
      expect(() => loadKeyRing(params)).toThrow(message);
    }
    const missing = join(dir, "missing.json");
    expect(() => loadKeyRing({ apiKeys: [], keysFile: missing, defaults })).toThrow(
      `Invalid configuration: cannot read the keys file ${missing} as JSON (ENOENT: no such file or directory, open '${missing}').`,
    );
  });
});

describe("requireApiKey", () => {
  const ring: KeyRing = loadKeyRing({ apiKeys: [KEY_A], defaults });
  const app = (keys: KeyRing) =>
    new Hono<OpsEnv>()
      .use("/v1/*", requireApiKey({ keys, isPublic: (path) => path === "/v1/openapi.json" }))
      .get("/v1/tokens", (c) => c.json({ key: c.get("apiKey")?.name ?? null }))
      .get("/v1/openapi.json", (c) => c.json({ open: true }));

  const unauthorized = (message: string, challenge: string) => ({
    status: 401,
    challenge,
    body: { statusCode: 401, error: "Unauthorized", message },
  });
  const call = async (keys: KeyRing, path: string, authorization?: string) => {
    const res = await app(keys).request(
      path,
      authorization === undefined ? {} : { headers: { authorization } },
    );
    return {
      status: res.status,
      challenge: res.headers.get("www-authenticate"),
      body: await res.json(),
    };
  };

  test("a configured key passes, and the handler sees its name", async () => {
    for (const header of [`Bearer ${KEY_A}`, `bearer ${KEY_A}`, `Bearer  ${KEY_A} `]) {
      expect(await call(ring, "/v1/tokens", header)).toEqual({
        status: 200,
        challenge: null,
        body: { key: `key-${hashKey(KEY_A).slice(0, 8)}` },
      });
    }
  });

  test("missing, malformed and unknown keys get a 401 JSON error", async () => {
    expect(await call(ring, "/v1/tokens")).toEqual(
      unauthorized(
        "Missing API key: send it as `Authorization: Bearer <key>`.",
        'Bearer realm="api"',
      ),
    );
    for (const header of ["", "Basic dXNlcjpwYXNz", `Token ${KEY_A}`, "Bearer"]) {
      expect({ header, ...(await call(ring, "/v1/tokens", header)) }).toEqual({
        header,
        ...(header === ""
          ? unauthorized(
              "Missing API key: send it as `Authorization: Bearer <key>`.",
              'Bearer realm="api"',
            )
          : unauthorized(
              "The Authorization header must have the form `Bearer <key>`.",
              'Bearer realm="api", error="invalid_request"',
            )),
      });
    }
    expect(await call(ring, "/v1/tokens", `Bearer ${KEY_B}`)).toEqual(
      unauthorized("Unknown API key.", 'Bearer realm="api", error="invalid_token"'),
    );
  });

  test("public paths and an open API (no keys) need no key and ignore the header", async () => {
    expect(await call(ring, "/v1/openapi.json")).toEqual({
      status: 200,
      challenge: null,
      body: { open: true },
    });
    const open: KeyRing = new Map();
    for (const header of [undefined, "Basic nonsense", `Bearer ${KEY_B}`]) {
      expect(await call(open, "/v1/tokens", header)).toEqual({
        status: 200,
        challenge: null,
        body: { key: null },
      });
    }
  });
});
