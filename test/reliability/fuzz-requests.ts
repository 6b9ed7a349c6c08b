/**
 * Hostile requests for every endpoint, as fast-check arbitraries: near-valid requests built from
 * the devnet deployment's real tokens, vaults and pools with fields mutated, and wholly
 * adversarial ones (wrong types, huge and negative numbers, hex/decimal confusion, unicode and
 * invalid UTF-8, duplicate parameters, deep JSON, bodies near and over the size limit, output
 * references pointing forward, at themselves, in cycles or out of range). Also the checks every
 * answer must pass. Used by `fuzz.test.ts` (CI size) and `bench/fuzz.ts` (nightly size).
 */
import fc from "fast-check";
import type { Deployment } from "../../devnet/deployment.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";

/** Every endpoint the service answers (Ponder's own /health, /ready, /status and /metrics aside). */
export const ENDPOINTS = [
  "tokens",
  "standards",
  "standard",
  "projects",
  "route",
  "bundle",
  "actions",
  "action",
  "prices",
  "price",
  "networks",
  "protocols",
  "balances",
  "approve",
  "logo",
  "openapi",
  "docs",
  "frontPage",
  "overview",
  "overviewScript",
  "metricsApi",
  "graphql",
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** The method and path each endpoint answers on (`standard` is `/v1/standards/{slug}`). */
export const ENDPOINT_ROUTES: Record<Endpoint, { method: "GET" | "POST"; path: string }> = {
  tokens: { method: "GET", path: "/v1/tokens" },
  standards: { method: "GET", path: "/v1/standards" },
  standard: { method: "GET", path: "/v1/standards/{slug}" },
  projects: { method: "GET", path: "/v1/projects" },
  route: { method: "GET", path: "/v1/shortcuts/route" },
  bundle: { method: "POST", path: "/v1/shortcuts/bundle" },
  actions: { method: "GET", path: "/v1/actions" },
  action: { method: "GET", path: "/v1/actions/{slug}" },
  prices: { method: "GET", path: "/v1/prices/{chainId}" },
  price: { method: "GET", path: "/v1/prices/{chainId}/{address}" },
  networks: { method: "GET", path: "/v1/networks" },
  protocols: { method: "GET", path: "/v1/protocols" },
  balances: { method: "GET", path: "/v1/wallet/balances" },
  approve: { method: "GET", path: "/v1/wallet/approve" },
  logo: { method: "GET", path: "/v1/projects/{id}/logo.svg" },
  openapi: { method: "GET", path: "/v1/openapi.json" },
  docs: { method: "GET", path: "/docs" },
  frontPage: { method: "GET", path: "/" },
  overview: { method: "GET", path: "/overview.json" },
  overviewScript: { method: "GET", path: "/overview.js" },
  metricsApi: { method: "GET", path: "/metrics/api" },
  graphql: { method: "POST", path: "/graphql" },
};

/** Statuses each endpoint may answer a well-formed or malformed request with (no 5xx). */
export const ALLOWED_STATUSES: Record<Endpoint, readonly number[]> = {
  tokens: [200, 400],
  standards: [200, 400],
  standard: [200, 400, 404],
  projects: [200, 400],
  route: [200, 400, 404, 422],
  bundle: [200, 400, 404, 413, 422],
  actions: [200, 400],
  action: [200, 400, 404],
  prices: [200, 400, 404],
  price: [200, 400, 404],
  networks: [200, 400],
  protocols: [200, 400, 404],
  balances: [200, 400, 404, 422],
  approve: [200, 400, 404, 422],
  logo: [200, 404],
  openapi: [200],
  docs: [200],
  frontPage: [200],
  overview: [200],
  overviewScript: [200],
  metricsApi: [200],
  graphql: [200, 400, 413],
};

/** What a success is served as, where it is not JSON. */
export const SUCCESS_CONTENT_TYPES: Partial<Record<Endpoint, string>> = {
  logo: "image/svg+xml",
  docs: "text/html",
  frontPage: "text/html",
  overviewScript: "text/javascript",
  metricsApi: "text/plain",
};

/** The reason phrase of every error status the API answers (the `error` field). */
export const ERROR_REASONS: Record<number, string> = {
  400: "Bad Request",
  404: "Not Found",
  413: "Payload Too Large",
  422: "Unprocessable Entity",
};

/** The bundle body limit (docs/routes-and-bundles.md, 413): larger bodies are refused unread. */
export const BUNDLE_BODY_LIMIT_BYTES = 262_144;
/** Most actions one bundle may hold. */
export const BUNDLE_ACTION_LIMIT = 32;
/** Deepest nesting of arrays and objects a bundle body may have. */
export const BUNDLE_DEPTH_LIMIT = 64;

export type FuzzRequest = {
  endpoint: Endpoint;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path and query string, sent as is (fetch only normalises what URL parsing must). */
  target: string;
  body?: string | Uint8Array;
  contentType?: string;
  /** What kind of case this is, for reports ("near-valid", "deep 10000", "1 MiB", …). */
  kind: string;
};

export type FuzzAnswer = { status: number; contentType: string | null; text: string };

/** What the devnet deployment offers the generators. */
export type FuzzWorld = {
  chainId: number;
  tokens: { address: string; decimals: number }[];
  vaults: { address: string; asset: string; protocolSlug: string }[];
  pools: { v2: string[]; v3: string[] };
  weth: string;
  executionContracts: string[];
};

export function fuzzWorld(deployment: Deployment): FuzzWorld {
  return {
    chainId: deployment.chainId,
    tokens: [
      ...deployment.tokens.map((t) => ({ address: t.address, decimals: t.decimals })),
      { address: NATIVE_TOKEN_ADDRESS, decimals: 18 },
    ],
    vaults: deployment.vaults.map((v) => ({
      address: v.address,
      asset: v.asset,
      protocolSlug: v.protocolSlug,
    })),
    pools: { v2: deployment.uniswapV2.pairs, v3: deployment.uniswapV3.pools },
    weth: deployment.weth,
    executionContracts: Object.values(deployment.execution),
  };
}

export const PROTOCOL_SLUGS = [
  "core",
  "uniswap-v2",
  "uniswap-v3",
  "savings-vaults",
  "yield-vaults",
  "wrapped-native",
] as const;

/** Property names every plain object inherits: lookups keyed by client strings must skip them. */
const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "__defineGetter__",
  "then",
];

const FROM = "0x00000000000000000000000000000000000a11ce";

// ── Primitive values ─────────────────────────────────────────────────────────────────────────

const TWO_256 = 2n ** 256n;

/** Numbers written every way a client might get them wrong. */
const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "0",
    "1",
    "-1",
    "-0",
    "+1",
    "00001",
    "1.0",
    "1.5",
    "1e18",
    "1E18",
    "1e-18",
    "0x10",
    "0X10",
    "0x",
    "0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "0b101",
    "0o17",
    "1_000",
    " 1",
    "1 ",
    "1\t",
    "NaN",
    "Infinity",
    "-Infinity",
    "null",
    "undefined",
    "true",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "18446744073709551616",
    (TWO_256 - 1n).toString(),
    TWO_256.toString(),
    (TWO_256 + 1n).toString(),
    (2n ** 512n).toString(),
    `1${"0".repeat(80)}`,
    "١٢٣",
    "１２３",
    "²",
  ),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
  fc.bigInt({ min: 0n, max: TWO_256 }).map((n) => `0x${n.toString(16)}`),
  fc.integer({ min: 0, max: 2000 }).map(String),
  fc.double({ noNaN: false }).map(String),
);

/** A string that percent-encodes lone surrogates as their (invalid) WTF-8 bytes. */
function percentEncode(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const isLow = unit >= 0xdc00 && unit <= 0xdfff;
    const next = text.charCodeAt(i + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i++;
    } else if (isHigh || isLow) {
      out += `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`;
    } else {
      out += encodeURIComponent(text[i] as string);
    }
  }
  return out;
}

/** Unicode and byte-level junk: lone surrogates, controls, RTL marks, emoji, long runs. */
const unicodeText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\uFEFF",
    "\u202E0x1234",
    "\uD800",
    "\uDFFF",
    "💥".repeat(50),
    "ǅ",
    "İ",
    "../../etc/passwd",
    "%",
    "%%",
    "%zz",
    "&",
    "=",
    "#",
    "?",
    "[]",
    "\\",
    "'; DROP TABLE token; --",
    "{}",
    "[1,2]",
  ),
  fc.constantFrom(1000, 5000).map((n) => "9".repeat(n)),
  fc.constantFrom(1000, 5000).map((n) => "z".repeat(n)),
  fc.constantFrom(...PROTOTYPE_NAMES),
);

/** Builds an arbitrary once per world: generators call these inside `chain`, per case. */
function oncePerWorld<T>(build: (world: FuzzWorld) => fc.Arbitrary<T>) {
  const built = new WeakMap<FuzzWorld, fc.Arbitrary<T>>();
  return (world: FuzzWorld): fc.Arbitrary<T> => {
    let arbitrary = built.get(world);
    if (!arbitrary) {
      arbitrary = build(world);
      built.set(world, arbitrary);
    }
    return arbitrary;
  };
}

const addressVariants = oncePerWorld((world): fc.Arbitrary<string> => {
  const real = fc.constantFrom(
    ...world.tokens.map((t) => t.address),
    ...world.vaults.map((v) => v.address),
    ...world.pools.v2,
    ...world.pools.v3,
    ...world.executionContracts,
    FROM,
  );
  return fc.oneof(
    { weight: 4, arbitrary: real },
    { weight: 1, arbitrary: real.map((a) => a.toUpperCase()) },
    { weight: 1, arbitrary: real.map((a) => a.slice(2)) },
    { weight: 1, arbitrary: real.map((a) => `0X${a.slice(2)}`) },
    { weight: 1, arbitrary: real.map((a) => a.slice(0, -1)) },
    { weight: 1, arbitrary: real.map((a) => `${a}0`) },
    { weight: 1, arbitrary: real.map((a) => `${a.slice(0, -1)}g`) },
    { weight: 1, arbitrary: real.map((a) => ` ${a}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "0x0000000000000000000000000000000000000000",
        "0xffffffffffffffffffffffffffffffffffffffff",
        NATIVE_TOKEN_ADDRESS,
        NATIVE_TOKEN_ADDRESS.toUpperCase(),
        "0x",
        "0x0",
        "vitalik.eth",
      ),
    },
    { weight: 1, arbitrary: fc.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
  );
});

/** Any value a query parameter might carry. */
const queryValue = oncePerWorld(
  (world): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 3, arbitrary: addressVariants(world) },
      { weight: 3, arbitrary: numberText },
      { weight: 2, arbitrary: unicodeText },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "true",
          "false",
          "TRUE",
          "yes",
          "router",
          "delegate",
          "corewallet",
          "Router",
          "baseToken",
          "defiToken",
          "base",
          "defi",
          ...PROTOCOL_SLUGS,
        ),
      },
    ),
);

// ── Query strings ────────────────────────────────────────────────────────────────────────────

type QueryPair = { key: string; value: string; style: "encoded" | "raw" | "bracket" | "plus" };

function encodePair(pair: QueryPair): string {
  switch (pair.style) {
    case "encoded":
      return `${percentEncode(pair.key)}=${percentEncode(pair.value)}`;
    case "raw":
      return `${pair.key}=${pair.value}`;
    case "bracket":
      return `${percentEncode(pair.key)}%5B%5D=${percentEncode(pair.value)}`;
    case "plus":
      return `${percentEncode(pair.key).replace(/%20/g, "+")}=${percentEncode(pair.value).replace(/%20/g, "+")}`;
  }
}

const pairStyle = fc.constantFrom<QueryPair["style"]>(
  "encoded",
  "encoded",
  "encoded",
  "raw",
  "plus",
);

/** One mutation of a query: replace, drop, repeat, bracket or misspell a parameter, or add one. */
function mutateQuery(
  pairs: QueryPair[],
  world: FuzzWorld,
  knownKeys: readonly string[],
): fc.Arbitrary<QueryPair[]> {
  const index = fc.nat({ max: Math.max(0, pairs.length - 1) });
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...knownKeys) },
    { weight: 1, arbitrary: unicodeText.filter((k) => k.length < 200) },
    { weight: 1, arbitrary: fc.constantFrom(...knownKeys).map((k) => k.toUpperCase()) },
  );
  const replaceAt = (i: number, p: Partial<QueryPair>) =>
    pairs.map((q, j) => (j === i ? { ...q, ...p } : q));
  return fc.oneof(
    fc
      .tuple(index, queryValue(world), pairStyle)
      .map(([i, value, style]) => replaceAt(i, { value, style })),
    index.map((i) => pairs.filter((_, j) => j !== i)),
    fc.tuple(index, fc.option(queryValue(world), { nil: undefined })).map(([i, value]) => {
      const p = pairs[i];
      return p ? [...pairs, { ...p, value: value ?? p.value }] : pairs;
    }),
    index.map((i) => replaceAt(i, { style: "bracket" })),
    fc
      .tuple(key, queryValue(world), pairStyle)
      .map(([k, value, style]) => [...pairs, { key: k, value, style }]),
    fc.shuffledSubarray(pairs, { minLength: pairs.length, maxLength: pairs.length }),
  );
}

function queryString(pairs: QueryPair[]): string {
  return pairs.length === 0 ? "" : `?${pairs.map(encodePair).join("&")}`;
}

/** A near-valid query (0–3 mutations of `valid`) or a wholly random one. */
function fuzzQuery(
  world: FuzzWorld,
  valid: fc.Arbitrary<QueryPair[]>,
  knownKeys: readonly string[],
  validWeight = 1,
): fc.Arbitrary<string> {
  const mutated = (rounds: number): fc.Arbitrary<QueryPair[]> =>
    rounds === 0
      ? valid
      : mutated(rounds - 1).chain((pairs) => mutateQuery(pairs, world, knownKeys));
  const random = fc.array(
    fc.record({
      key: fc.oneof(
        fc.constantFrom(...knownKeys),
        unicodeText.filter((k) => k.length < 200),
      ),
      value: queryValue(world),
      style: pairStyle,
    }),
    { maxLength: 8 },
  );
  const rawJunk = fc.constantFrom(
    "?",
    "??",
    "?&&&",
    "?=",
    "?=1",
    "?a",
    "?%",
    "?%FF%FE",
    "?%ED%A0%80=1",
    "?chainId=%C0%AE",
    "?page=%00",
    `?${"a=1&".repeat(1000)}`,
    `?${"chainId=1&".repeat(200)}`,
  );
  return fc
    .oneof(
      { weight: validWeight, arbitrary: valid.map(queryString) },
      { weight: 2, arbitrary: mutated(1).map(queryString) },
      { weight: 2, arbitrary: mutated(2).map(queryString) },
      { weight: 1, arbitrary: mutated(3).map(queryString) },
      { weight: 2, arbitrary: random.map(queryString) },
      { weight: 1, arbitrary: rawJunk },
      // Node's HTTP parser answers request lines over 16 KiB itself (a bodiless 431), before the
      // API sees them: test/ops/service.test.ts checks both sides of that limit.
    )
    .filter((query) => query.length <= 12_000);
}

const pair = (key: string, value: string): QueryPair => ({ key, value, style: "encoded" });

// ── GET endpoints ────────────────────────────────────────────────────────────────────────────

const TOKEN_KEYS = [
  "chainId",
  "address",
  "protocolSlug",
  "type",
  "primayAddress",
  "primaryAddress",
  "underlyingTokens",
  "page",
];

function tokensRequests(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const address = fc.constantFrom(...world.tokens.map((t) => t.address), ...world.pools.v2);
  const valid = fc
    .record(
      {
        chainId: fc.constant(String(world.chainId)),
        address,
        protocolSlug: fc.constantFrom(...PROTOCOL_SLUGS),
        type: fc.constantFrom("baseToken", "defiToken", "base", "defi"),
        primaryAddress: fc.constantFrom(...world.vaults.map((v) => v.address), ...world.pools.v2),
        underlyingTokens: fc.constantFrom(...world.tokens.map((t) => t.address)),
        page: fc.integer({ min: 1, max: 3 }).map(String),
      },
      { requiredKeys: [] },
    )
    .map((r) => Object.entries(r).map(([k, v]) => pair(k, v)));
  return withMethodFlips(
    "tokens",
    fuzzQuery(world, valid, TOKEN_KEYS, 2).map((q) => ({ target: `/v1/tokens${q}` })),
  );
}

function noQueryRequests(world: FuzzWorld, endpoint: "standards" | "projects") {
  const valid = fc.constant<QueryPair[]>([]);
  return withMethodFlips(
    endpoint,
    fuzzQuery(world, valid, ["chainId", "page", "slug"], 2).map((q) => ({
      target: `/v1/${endpoint}${q}`,
    })),
  );
}

function standardRequests(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const slug = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...PROTOCOL_SLUGS) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOCOL_SLUGS).map((s) => s.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOCOL_SLUGS).map((s) => `${s}%20`) },
    { weight: 2, arbitrary: unicodeText.map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "%FF",
        "%",
        "%2F",
        "a%2Fb",
        "%00",
        "core%00",
        "core;x",
        "core.json",
      ),
    },
  );
  const valid = fc.constant<QueryPair[]>([]);
  return withMethodFlips(
    "standard",
    fc
      .tuple(
        // URL parsing resolves `.` and `..` segments, which would leave the endpoint.
        slug.filter((s) => s.length > 0 && !/^(\.|%2e)*$/i.test(s)),
        fuzzQuery(world, valid, ["chainId", "slug"], 3),
      )
      .map(([s, q]) => ({ target: `/v1/standards/${s}${q}` })),
  );
}

/** A path segment: mostly one of `real`, else near misses, unicode and encoding junk. */
function pathSegment(real: readonly string[]): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.constantFrom(...real) },
      { weight: 1, arbitrary: fc.constantFrom(...real).map((s) => s.toUpperCase()) },
      { weight: 1, arbitrary: fc.constantFrom(...real).map((s) => `${s}%20`) },
      { weight: 2, arbitrary: unicodeText.map(percentEncode) },
      { weight: 1, arbitrary: numberText.map(percentEncode) },
      { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
      {
        weight: 1,
        arbitrary: fc.constantFrom("%FF", "%", "%2F", "a%2Fb", "%00", "x;y", "x.json"),
      },
    )
    .filter((s) => s.length > 0 && !/^(\.|%2e)*$/i.test(s));
}

/** Requests to `path` with a fuzzed query around `valid` (its known keys `keys`). */
function queryRequests(
  world: FuzzWorld,
  endpoint: Endpoint,
  path: fc.Arbitrary<string>,
  valid: fc.Arbitrary<QueryPair[]>,
  keys: readonly string[],
): fc.Arbitrary<FuzzRequest> {
  return withMethodFlips(
    endpoint,
    fc.tuple(path, fuzzQuery(world, valid, keys, 2)).map(([p, q]) => ({ target: `${p}${q}` })),
  );
}

/** The endpoints beyond tokens, standards, projects, routes and bundles. */
function otherRequests(world: FuzzWorld) {
  const none = fc.constant<QueryPair[]>([]);
  const fixed = (path: string) => fc.constant(path);
  const token = fc.constantFrom(...world.tokens.map((t) => t.address));
  const address = fc.oneof(
    { weight: 3, arbitrary: token },
    { weight: 2, arbitrary: addressVariants(world) },
  );
  const chainSegment = pathSegment([String(world.chainId)]);
  const slugs = [...PROTOCOL_SLUGS, "uniswap-v4", "aave-v3"];
  const chain = fc.constant(String(world.chainId));
  return {
    actions: queryRequests(world, "actions", fixed("/v1/actions"), none, ["chainId", "slug"]),
    action: queryRequests(
      world,
      "action",
      pathSegment(slugs).map((s) => `/v1/actions/${s}`),
      none,
      ["chainId"],
    ),
    prices: queryRequests(
      world,
      "prices",
      chainSegment.map((c) => `/v1/prices/${c}`),
      fc
        .array(token, { minLength: 1, maxLength: 4 })
        .map((a) => a.map((t) => pair("addresses", t))),
      ["addresses"],
    ),
    price: queryRequests(
      world,
      "price",
      fc
        .tuple(chainSegment, fc.oneof(address.map(percentEncode), pathSegment(["x"])))
        .map(([c, a]) => `/v1/prices/${c}/${a}`),
      none,
      ["chainId"],
    ),
    networks: queryRequests(
      world,
      "networks",
      fixed("/v1/networks"),
      fc
        .record({ chainId: chain, name: fc.constantFrom("devnet", "Devnet") }, { requiredKeys: [] })
        .map((r) => Object.entries(r).map(([k, v]) => pair(k, v))),
      ["chainId", "name"],
    ),
    protocols: queryRequests(
      world,
      "protocols",
      fixed("/v1/protocols"),
      fc
        .record({ chainId: chain, slug: fc.constantFrom(...slugs) }, { requiredKeys: [] })
        .map((r) => Object.entries(r).map(([k, v]) => pair(k, v))),
      ["chainId", "slug"],
    ),
    balances: queryRequests(
      world,
      "balances",
      fixed("/v1/wallet/balances"),
      fc
        .record(
          {
            chainId: chain,
            eoaAddress: fc.constantFrom(FROM, ...world.executionContracts),
            useEoa: fc.constantFrom("true", "false"),
          },
          { requiredKeys: ["eoaAddress"] },
        )
        .map((r) => Object.entries(r).map(([k, v]) => pair(k, v))),
      ["chainId", "eoaAddress", "useEoa"],
    ),
    approve: queryRequests(
      world,
      "approve",
      fixed("/v1/wallet/approve"),
      fc
        .record(
          {
            chainId: chain,
            fromAddress: fc.constant(FROM),
            tokenAddress: token,
            amount: amountOf(18),
            routingStrategy: fc.constantFrom("router", "delegate", "corewallet"),
          },
          { requiredKeys: ["fromAddress", "tokenAddress", "amount"] },
        )
        .map((r) => Object.entries(r).map(([k, v]) => pair(k, v))),
      ["chainId", "fromAddress", "tokenAddress", "amount", "routingStrategy"],
    ),
    logo: queryRequests(
      world,
      "logo",
      pathSegment(slugs).map((s) => `/v1/projects/${s}/logo.svg`),
      none,
      ["size"],
    ),
    openapi: queryRequests(world, "openapi", fixed("/v1/openapi.json"), none, ["format"]),
    docs: queryRequests(world, "docs", fixed("/docs"), none, ["url"]),
    frontPage: queryRequests(world, "frontPage", fixed("/"), none, ["chainId"]),
    overview: queryRequests(world, "overview", fixed("/overview.json"), none, ["chainId"]),
    overviewScript: queryRequests(world, "overviewScript", fixed("/overview.js"), none, ["v"]),
    metricsApi: queryRequests(world, "metricsApi", fixed("/metrics/api"), none, ["name[]"]),
    graphql: graphqlRequests(),
  };
}

/** GraphQL documents: valid, malformed, deep, wide, and bodies that are not GraphQL at all. */
function graphqlRequests(): fc.Arbitrary<FuzzRequest> {
  const valid = fc.constantFrom(
    "{ tokens(limit: 2) { totalCount items { address symbol } } }",
    '{ poolMarkets(limit: 5, orderBy: "volumeUsd", orderDirection: "desc") { items { address protocolSlug } } }',
    "{ __schema { queryType { name } } }",
    "query Q($n: Int) { tokens(limit: $n) { totalCount } }",
  );
  const document = fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 2, arbitrary: unicodeText },
    { weight: 1, arbitrary: valid.map((q) => q.slice(0, -2)) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 200 }).map((n) => `{${"tokens { items {".repeat(n)}}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: 100 })
        .map(
          (n) =>
            `{ ${Array.from({ length: n }, (_, i) => `a${i}: tokens(limit: 1) { totalCount }`).join(" ")} }`,
        ),
    },
  );
  const body = fc.oneof(
    { weight: 4, arbitrary: fc.record({ query: document }).map((b) => JSON.stringify(b)) },
    {
      weight: 1,
      arbitrary: fc
        .record({ query: valid, variables: fc.jsonValue() })
        .map((b) => JSON.stringify(b)),
    },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: unicodeText },
  );
  return fc
    .tuple(body, fc.constantFrom("application/json", "application/json", "text/plain"))
    .map(([b, contentType]) => ({
      endpoint: "graphql" as const,
      method: "POST" as const,
      target: "/graphql",
      body: b,
      contentType,
      kind: "graphql",
    }));
}

/** Mostly the endpoint's own method; sometimes another one (answered by the JSON 404). */
function withMethodFlips(
  endpoint: Endpoint,
  requests: fc.Arbitrary<{ target: string }>,
): fc.Arbitrary<FuzzRequest> {
  const own = ENDPOINT_ROUTES[endpoint].method;
  return fc
    .tuple(
      requests,
      fc.oneof(
        { weight: 30, arbitrary: fc.constant(own) },
        { weight: 1, arbitrary: fc.constantFrom<FuzzRequest["method"]>("POST", "PUT", "DELETE") },
      ),
    )
    .map(([r, method]) => ({
      endpoint,
      method,
      target: r.target,
      kind: method === own ? "query" : "other method",
    }));
}

// ── Route ────────────────────────────────────────────────────────────────────────────────────

const ROUTE_KEYS = [
  "chainId",
  "fromAddress",
  "tokenIn",
  "tokenOut",
  "amountIn",
  "receiver",
  "spender",
  "routingStrategy",
  "toEOA",
  "priceImpact",
  "slippage",
  "fee",
  "feeReceiver",
  "tokenInAmountToApprove",
  "tokenInAmountToTransfer",
  "maxHops",
];

/** An amount of a token: dust, a few units, more than any pool holds, the largest uint256. */
function amountOf(decimals: number): fc.Arbitrary<string> {
  const unit = 10n ** BigInt(decimals);
  return fc.oneof(
    { weight: 3, arbitrary: fc.bigInt({ min: 1n, max: 50n * unit }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom("1", "1000", (unit / 100n || 1n).toString()) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        (unit * 10n ** 9n).toString(),
        (TWO_256 - 1n).toString(),
        (2n ** 255n).toString(),
        (2n ** 128n).toString(),
      ),
    },
  );
}

function routeRequests(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const assets = [
    ...world.tokens,
    ...world.vaults.map((v) => ({ address: v.address, decimals: 18 })),
  ];
  const valid = fc
    .tuple(
      fc.constantFrom(...assets),
      fc.constantFrom(...assets),
      fc.record(
        {
          receiver: fc.constantFrom("0x00000000000000000000000000000000000bee01", FROM),
          routingStrategy: fc.constantFrom("router", "delegate", "corewallet"),
          priceImpact: fc.constantFrom("true", "false"),
          slippage: fc.integer({ min: 0, max: 10_000 }).map(String),
          fee: fc.integer({ min: 0, max: 100 }).map(String),
          maxHops: fc.integer({ min: 1, max: 3 }).map(String),
          chainId: fc.constant(String(world.chainId)),
        },
        { requiredKeys: [] },
      ),
    )
    .filter(([a, b]) => a.address !== b.address)
    .chain(([tokenIn, tokenOut, extra]) =>
      amountOf(tokenIn.decimals).map((amountIn) => {
        const pairs = [
          pair("fromAddress", FROM),
          pair("tokenIn", tokenIn.address),
          pair("tokenOut", tokenOut.address),
          pair("amountIn", amountIn),
          ...Object.entries(extra).map(([k, v]) => pair(k, v)),
        ];
        if (extra.fee !== undefined)
          pairs.push(pair("feeReceiver", "0x00000000000000000000000000000000000fee01"));
        return pairs;
      }),
    );
  return withMethodFlips(
    "route",
    fuzzQuery(world, valid, ROUTE_KEYS, 2).map((q) => ({ target: `/v1/shortcuts/route${q}` })),
  );
}

// ── Bundle ───────────────────────────────────────────────────────────────────────────────────

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Action = { protocol: Json; action: Json; args: Json; [key: string]: Json };

/** A `{ useOutputOfCallAt }` reference from action `at` of `count`: earlier, self, forward, out of range, malformed. */
function reference(at: number, count: number): fc.Arbitrary<Json> {
  const earlier = at > 0 ? fc.nat({ max: at - 1 }) : fc.constant(0);
  const target = fc.oneof(
    { weight: 4, arbitrary: earlier },
    { weight: 1, arbitrary: fc.constant(at) },
    { weight: 1, arbitrary: fc.integer({ min: at, max: count + 2 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Json>(
        -1,
        0.5,
        "0",
        null,
        1e308,
        2 ** 53,
        Number.MAX_SAFE_INTEGER,
        [],
        {},
        true,
      ),
    },
  );
  const index = fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.nat({ max: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom<Json>(-1, 1.5, "1", 99, null) },
  );
  // Now and then an unknown key beside the reference.
  return fc.tuple(target, index, fc.nat({ max: 9 })).map(([t, i, roll]) => {
    const ref: { [key: string]: Json } = { useOutputOfCallAt: t };
    if (i !== undefined) ref.index = i;
    if (roll === 0) ref.extra = 1;
    return ref;
  });
}

/** An amount argument: a literal in any notation, or a reference. */
function amountArgument(at: number, count: number, decimals = 18): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 4, arbitrary: amountOf(decimals) },
    { weight: 4, arbitrary: reference(at, count) },
    { weight: 1, arbitrary: numberText },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Json>(5, -5, 1e18, 0, null, true, [], ["1"]),
    },
  );
}

const CALL_SIGNATURES: [string, string][] = [
  ["approve", "function approve(address spender, uint256 amount) returns (bool)"],
  ["transfer", "function transfer(address to, uint256 amount) returns (bool)"],
  ["balanceOf", "function balanceOf(address owner) view returns (uint256)"],
  ["deposit", "function deposit() payable"],
  ["deposit", "function deposit(uint256 assets, address receiver) returns (uint256)"],
  ["symbol", "function symbol() view returns (string)"],
  ["f", "function f(uint8 a, int256 b) returns (uint256, uint256)"],
  ["f", "function f(uint256[] a) returns (uint256)"],
  ["f", "function f(uint256[3] a) returns (uint256)"],
  ["f", "function f((uint256 a, address b) s) returns (uint256)"],
  ["f", "function f(bytes b, string s) returns (bytes32)"],
  ["f", "function f(address[] a, bytes32 h) returns (int8)"],
  ["f", "function f(uint256[][] a) returns (uint256)"],
  ["f", "function f(bool b)"],
  ["f", "event F(uint256 a)"],
  ["f", "function f("],
  ["f", "function f(uint257 a)"],
  ["f", "constructor(uint256 a)"],
  ["f", "function f() returns (uint256 a, uint256 b, uint256 c)"],
];

function callArgument(world: FuzzWorld, at: number, count: number): fc.Arbitrary<Json> {
  const leaf = fc.oneof(
    addressVariants(world),
    numberText,
    reference(at, count),
    fc.constantFrom<Json>(true, false, null, 1, -1, 1.5, 2 ** 60, "0x", "0x00", "0xzz"),
  );
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(leaf, { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(fc.array(leaf, { maxLength: 3 }), { maxLength: 3 }) },
  );
}

/** One action of a bundle of `count`, at position `at`, from the world's real contracts. */
function action(world: FuzzWorld, at: number, count: number): fc.Arbitrary<Action> {
  const token = fc.constantFrom(...world.tokens);
  const address = addressVariants(world);
  const amount = (decimals?: number) => amountArgument(at, count, decimals);
  const vault = fc.constantFrom(...world.vaults);
  return fc.oneof(
    amount().map((amountIn) => ({
      protocol: "wrapped-native",
      action: "deposit",
      args: { amountIn },
    })),
    amount().map((amountIn) => ({
      protocol: "wrapped-native",
      action: "withdraw",
      args: { amountIn },
    })),
    fc
      .tuple(token, token, fc.option(fc.integer({ min: -5, max: 10_005 }), { nil: undefined }))
      .chain(([tIn, tOut, slippage]) =>
        amount(tIn.decimals).map((amountIn) => ({
          protocol: "core",
          action: "route",
          args: {
            tokenIn: tIn.address,
            tokenOut: tOut.address,
            amountIn,
            ...(slippage === undefined ? {} : { slippage }),
          },
        })),
      ),
    fc.tuple(vault, amount()).map(([v, amountIn]) => ({
      protocol: v.protocolSlug,
      action: "deposit",
      args: { primaryAddress: v.address, tokenIn: v.asset, tokenOut: v.address, amountIn },
    })),
    fc.tuple(vault, amount()).map(([v, amountIn]) => ({
      protocol: v.protocolSlug,
      action: "redeem",
      args: { primaryAddress: v.address, tokenIn: v.address, tokenOut: v.asset, amountIn },
    })),
    fc
      .tuple(fc.constantFrom(...world.pools.v2, ...world.pools.v3), token, token, amount())
      .map(([pool, tIn, tOut, amountIn]) => ({
        protocol: world.pools.v2.includes(pool) ? "uniswap-v2" : "uniswap-v3",
        action: "swap",
        args: { primaryAddress: pool, tokenIn: tIn.address, tokenOut: tOut.address, amountIn },
      })),
    fc.tuple(token, address, amount()).map(([t, receiver, a]) => ({
      protocol: "core",
      action: "transfer",
      args: { token: t.address, receiver, amount: a },
    })),
    fc.tuple(token, address, amount()).map(([t, spender, a]) => ({
      protocol: "core",
      action: "approve",
      args: { token: t.address, spender, amount: a },
    })),
    token.map((t) => ({ protocol: "core", action: "balance", args: { token: t.address } })),
    fc
      .tuple(
        amount(),
        fc.oneof(
          fc.constantFrom<Json>([5000, 5000], [2500, 2500, 5000], [10_000, 0], [9999, 1], [1e4]),
          fc.array(fc.integer({ min: -1, max: 10_001 }), { maxLength: 20 }),
        ),
      )
      .map(([a, bps]) => ({ protocol: "core", action: "split", args: { amount: a, bps } })),
    fc.tuple(token, numberText).map(([t, a]) => ({
      protocol: "core",
      action: "minamountout",
      args: { token: t.address, amount: a },
    })),
    fc
      .tuple(
        address,
        fc.constantFrom(...CALL_SIGNATURES),
        fc.array(callArgument(world, at, count), { maxLength: 4 }),
        fc.option(amount(), { nil: undefined }),
      )
      .map(([target, [method, abi], args, value]) => ({
        protocol: "core",
        action: "call",
        args: { address: target, method, abi, args, ...(value === undefined ? {} : { value }) },
      })),
  );
}

/** Any JSON value, shallow or moderately deep. */
const anyJson: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>,
  fc.constantFrom<Json>(null, true, 0, -1, 1e308, "", "core", [], {}),
);

/** One structural mutation of a bundle: a field replaced or dropped, a name made hostile, a cycle. */
function mutateBundle(actions: Action[]): fc.Arbitrary<Json[]> {
  const n = actions.length;
  const at = fc.nat({ max: Math.max(0, n - 1) });
  const replace = (i: number, next: Json) => actions.map((a, j) => (j === i ? next : a));
  const hostileName = fc.oneof(
    fc.constantFrom<Json>(...PROTOTYPE_NAMES, "CORE", "core ", "", 0, null, ["core"], {}),
    unicodeText,
  );
  return fc.oneof(
    // Replace one argument (or add an unknown one) with any value.
    fc
      .tuple(
        at,
        fc.oneof(
          fc.constantFrom(
            "amountIn",
            "tokenIn",
            "tokenOut",
            "amount",
            "token",
            "primaryAddress",
            "args",
            "abi",
          ),
          unicodeText,
        ),
        anyJson,
      )
      .map(([i, key, value]) => {
        const a = actions[i];
        if (!a) return actions;
        const args =
          a.args !== null && typeof a.args === "object" && !Array.isArray(a.args) ? a.args : {};
        return replace(i, { ...a, args: { ...args, [key]: value } });
      }),
    // Drop a field of the action.
    fc.tuple(at, fc.constantFrom("protocol", "action", "args")).map(([i, key]) => {
      const a = actions[i];
      if (!a) return actions;
      const { [key]: _dropped, ...rest } = a;
      return replace(i, rest);
    }),
    // Hostile protocol or action names (prototype properties among them).
    fc.tuple(at, fc.constantFrom("protocol", "action"), hostileName).map(([i, key, name]) => {
      const a = actions[i];
      return a ? replace(i, { ...a, [key]: name }) : actions;
    }),
    // The whole args, or the whole action, of the wrong type.
    fc.tuple(at, anyJson).map(([i, value]) => {
      const a = actions[i];
      return a ? replace(i, { ...a, args: value }) : actions;
    }),
    fc.tuple(at, anyJson).map(([i, value]) => replace(i, value)),
    // Two actions using each other's output (a cycle), or one using its own.
    fc.tuple(at, at).map(([i, j]) => {
      const a = actions[i];
      const b = actions[j];
      if (!a || !b) return actions;
      const withRef = (x: Action, to: number): Action => {
        const args =
          x.args !== null && typeof x.args === "object" && !Array.isArray(x.args) ? x.args : {};
        return { ...x, args: { ...args, amount: { useOutputOfCallAt: to } } };
      };
      return actions.map((x, k) => (k === i ? withRef(a, j) : k === j ? withRef(b, i) : x));
    }),
  );
}

/** Bundle body text: JSON, sometimes with a key repeated (the last one wins in JSON.parse). */
function serializeBundle(actions: Json[], duplicateKey: boolean): string {
  const text = JSON.stringify(actions);
  if (!duplicateKey) return text;
  return text.replace(/^\[\{"protocol":/, '[{"protocol":"core","protocol":');
}

function nested(depth: number, open: string, close: string, inner = "0"): string {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

/** A body of exactly `bytes` bytes: a JSON array padded with spaces. */
export function paddedBody(json: string, bytes: number): string {
  const length = Buffer.byteLength(json);
  if (length > bytes) throw new Error(`${json.length} bytes do not fit in ${bytes}`);
  return json + " ".repeat(bytes - length);
}

/** Bodies no near-valid generator makes: depth, size, encoding, and non-array JSON. */
function adversarialBody(): fc.Arbitrary<{ body: string | Uint8Array; kind: string }> {
  const callWith = (args: string) =>
    `[{"protocol":"core","action":"call","args":{"address":"0x0000000000000000000000000000000000000001","method":"f","abi":"function f(bytes b)","args":[${args}]}}]`;
  const routeWith = (amountIn: string) =>
    `[{"protocol":"core","action":"route","args":{"tokenIn":"${NATIVE_TOKEN_ADDRESS}","tokenOut":"0x0000000000000000000000000000000000000001","amountIn":${amountIn}}}]`;
  const wrap = '{"protocol":"wrapped-native","action":"deposit","args":{"amountIn":"1000"}}';
  const deep = fc.constantFrom(63, 64, 65, 1_000, 10_000, 100_000);
  return fc.oneof(
    deep.map((d) => ({ body: nested(d, "[", "]"), kind: `deep array ${d}` })),
    deep.map((d) => ({ body: nested(d, '{"a":', "}"), kind: `deep object ${d}` })),
    deep.map((d) => ({ body: callWith(nested(d, "[", "]")), kind: `deep call args ${d}` })),
    deep.map((d) => ({ body: routeWith(nested(d, '{"x":', "}")), kind: `deep amount ${d}` })),
    deep.map((d) => ({
      body: callWith(nested(d, '[{"useOutputOfCallAt":', "}]")),
      kind: `deep references ${d}`,
    })),
    fc.constantFrom(1 << 20, BUNDLE_BODY_LIMIT_BYTES + 1, BUNDLE_BODY_LIMIT_BYTES).map((n) => ({
      body: paddedBody(`[${wrap}]`, n),
      kind: `padded ${n} bytes`,
    })),
    fc.constant({
      body: `[${Array.from({ length: 3000 }, () => wrap).join(",")}]`.slice(
        0,
        BUNDLE_BODY_LIMIT_BYTES,
      ),
      kind: "truncated large array",
    }),
    fc.constant({
      body: `[${Array.from({ length: 100_000 }, () => "0").join(",")}]`,
      kind: "100000 elements",
    }),
    fc.constant({
      body: callWith(Array.from({ length: 50_000 }, () => '"1"').join(",")),
      kind: "50000 call arguments",
    }),
    fc.constant({ body: routeWith(`"${"9".repeat(200_000)}"`), kind: "200000-digit amount" }),
    fc.constant({ body: routeWith(`"${"z".repeat(250_000)}"`), kind: "250000-char amount" }),
    fc
      .constantFrom(
        "",
        " ",
        "null",
        "0",
        "1e400",
        '"[]"',
        "{}",
        "[]",
        "[null]",
        "[[]]",
        "[1,2,3]",
        "[{}]",
        '[{"protocol":null}]',
        "[] []",
        "[,]",
        "[1,]",
        "[NaN]",
        "[/* c */]",
        "\uFEFF[]",
        `\uFEFF[${wrap}]`,
        '[{"__proto__":{"protocol":"core"}}]',
        '[{"protocol":"core","action":"balance","args":{"__proto__":{"token":"0x0000000000000000000000000000000000000001"}}}]',
        '[{"protocol":"core","action":"route","args":{"constructor":1,"tokenIn":"x"}}]',
      )
      .map((body) => ({ body, kind: "odd JSON" })),
    fc.uint8Array({ minLength: 0, maxLength: 256 }).map((body) => ({ body, kind: "random bytes" })),
    fc
      .constantFrom(
        [0xff],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0xf4, 0x90, 0x80, 0x80],
        [0xe2, 0x82],
        [0x00],
      )
      .map((bytes) => {
        const head = Buffer.from('[{"protocol":"core","action":"');
        const tail = Buffer.from('","args":{}}]');
        return {
          body: new Uint8Array(Buffer.concat([head, Buffer.from(bytes), tail])),
          kind: "invalid UTF-8",
        };
      }),
  );
}

const BUNDLE_KEYS = ["fromAddress", "chainId", "routingStrategy", "receiver", "spender"];

function bundleRequests(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const validQuery = fc
    .record(
      {
        routingStrategy: fc.constantFrom("router", "delegate", "corewallet"),
        receiver: fc.constantFrom("0x00000000000000000000000000000000000bee01", FROM),
        chainId: fc.constant(String(world.chainId)),
      },
      { requiredKeys: [] },
    )
    .map((extra) => [
      pair("fromAddress", FROM),
      ...Object.entries(extra).map(([k, v]) => pair(k, v)),
    ]);
  const query = fuzzQuery(world, validQuery, BUNDLE_KEYS, 12);
  const actions = fc
    .integer({ min: 1, max: 6 })
    .chain((count) =>
      fc.tuple(...Array.from({ length: count }, (_, i) => action(world, i, count))),
    );
  const structured = fc.oneof(
    { weight: 3, arbitrary: actions.map((a): Json[] => a) },
    { weight: 3, arbitrary: actions.chain((a) => mutateBundle(a)) },
    {
      weight: 1,
      arbitrary: actions.chain((a) => mutateBundle(a).chain((b) => mutateBundle(b as Action[]))),
    },
  );
  const body = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(structured, fc.boolean())
        .map(([a, dup]) => ({ body: serializeBundle(a, dup), kind: "actions" })),
    },
    { weight: 2, arbitrary: adversarialBody() },
    {
      weight: 1,
      arbitrary: anyJson.map((v) => ({ body: JSON.stringify(v), kind: "random JSON" })),
    },
  );
  const contentType = fc.oneof(
    { weight: 10, arbitrary: fc.constant("application/json") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin1",
        "",
      ),
    },
  );
  const method = fc.oneof(
    { weight: 40, arbitrary: fc.constant<FuzzRequest["method"]>("POST") },
    { weight: 1, arbitrary: fc.constantFrom<FuzzRequest["method"]>("GET", "PUT", "DELETE") },
  );
  return fc.tuple(query, body, contentType, method).map(([q, b, type, m]) => ({
    endpoint: "bundle",
    method: m,
    target: `/v1/shortcuts/bundle${q}`,
    // GET requests cannot carry a body.
    ...(m === "GET" ? {} : { body: b.body, contentType: type }),
    kind: m === "POST" ? b.kind : "other method",
  }));
}

/** The request generator of each endpoint. */
export function fuzzRequests(world: FuzzWorld): Record<Endpoint, fc.Arbitrary<FuzzRequest>> {
  return {
    tokens: tokensRequests(world),
    standards: noQueryRequests(world, "standards"),
    standard: standardRequests(world),
    projects: noQueryRequests(world, "projects"),
    route: routeRequests(world),
    bundle: bundleRequests(world),
    ...otherRequests(world),
  };
}

// ── Sending and checking ─────────────────────────────────────────────────────────────────────

/** Sends `request`; a missing answer within `timeoutMs` is reported as an error (a hang). */
export async function sendFuzzRequest(
  baseUrl: string,
  request: FuzzRequest,
  timeoutMs = 30_000,
): Promise<FuzzAnswer> {
  const headers: Record<string, string> = {};
  if (request.contentType) headers["content-type"] = request.contentType;
  const res = await fetch(`${baseUrl}${request.target}`, {
    method: request.method,
    headers,
    // A copy backed by a plain ArrayBuffer, the only kind fetch's body types accept.
    body:
      typeof request.body === "string"
        ? request.body
        : request.body && new Uint8Array(request.body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    text: await res.text(),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * What is wrong with `answer` to `request` (empty when nothing): a 5xx or a status the endpoint
 * does not answer with, a body that is not JSON, an error body not exactly
 * `{ statusCode, error, message, details? }`, or a success body of the wrong shape.
 */
export function answerProblems(request: FuzzRequest, answer: FuzzAnswer): string[] {
  const problems: string[] = [];
  const own = ENDPOINT_ROUTES[request.endpoint].method === request.method;
  const allowed = own ? ALLOWED_STATUSES[request.endpoint] : [404];
  if (answer.status >= 500) problems.push(`status ${answer.status} is a server error`);
  else if (!allowed.includes(answer.status))
    problems.push(`status ${answer.status} is not one of ${allowed.join(", ")}`);
  const served = SUCCESS_CONTENT_TYPES[request.endpoint];
  if (served !== undefined && answer.status < 300) {
    if (!answer.contentType?.startsWith(served))
      problems.push(`content-type ${answer.contentType} is not ${served}`);
    if (answer.text.length === 0) problems.push("the body is empty");
    return problems;
  }
  if (!answer.contentType?.startsWith("application/json"))
    problems.push(`content-type ${answer.contentType} is not JSON`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    problems.push(`body is not JSON: ${answer.text.slice(0, 200)}`);
    return problems;
  }
  if (answer.status >= 400) {
    if (!isPlainObject(body)) return [...problems, "error body is not an object"];
    const keys = Object.keys(body).sort().join(",");
    if (keys !== "error,message,statusCode" && keys !== "details,error,message,statusCode")
      problems.push(`error body keys are ${keys}`);
    if (body.statusCode !== answer.status)
      problems.push(`statusCode ${String(body.statusCode)} differs from status ${answer.status}`);
    if (body.error !== ERROR_REASONS[answer.status])
      problems.push(`error ${String(body.error)} is not ${ERROR_REASONS[answer.status]}`);
    if (typeof body.message !== "string" || body.message.length === 0)
      problems.push("message is not a non-empty string");
    if ("details" in body && !isPlainObject(body.details))
      problems.push("details is not an object");
    return problems;
  }
  const shapeOk = (() => {
    switch (request.endpoint) {
      case "tokens":
        return isPlainObject(body) && isPlainObject(body.meta) && Array.isArray(body.data);
      case "standards":
      case "projects":
        return Array.isArray(body) && body.length > 0;
      case "standard":
        return isPlainObject(body) && isPlainObject(body.protocol) && Array.isArray(body.methods);
      case "route":
        return isPlainObject(body) && isPlainObject(body.tx) && Array.isArray(body.route);
      case "bundle":
        return isPlainObject(body) && isPlainObject(body.tx) && Array.isArray(body.bundle);
      case "graphql":
        return isPlainObject(body) && ("data" in body || Array.isArray(body.errors));
      case "overview":
        return isPlainObject(body) && Array.isArray(body.chains) && isPlainObject(body.requests);
      case "openapi":
        return isPlainObject(body) && isPlainObject(body.paths);
      default:
        // Every answer is also checked against the OpenAPI document when the service stops.
        return isPlainObject(body) || Array.isArray(body);
    }
  })();
  if (!shapeOk) problems.push(`success body has the wrong shape: ${answer.text.slice(0, 200)}`);
  return problems;
}

/** A request as a short line for reports: method, target (cut) and body (cut). */
export function describeRequest(request: FuzzRequest): string {
  const cut = (s: string, n: number) =>
    s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
  const body =
    request.body === undefined
      ? ""
      : typeof request.body === "string"
        ? ` body ${cut(JSON.stringify(request.body), 600)}`
        : ` body bytes ${cut(Buffer.from(request.body).toString("hex"), 600)}`;
  return `${request.method} ${cut(request.target, 600)} [${request.kind}]${body}`;
}

/** Requests that must answer 200 after a fuzz run: the service still works. */
export function knownGoodRequests(deployment: Deployment): { route: string; bundle: FuzzRequest } {
  const usdc = deployment.tokens.find((t) => t.symbol === "USDC")?.address;
  if (!usdc) throw new Error("the devnet has no USDC");
  const route = `/v1/shortcuts/route?${new URLSearchParams({
    fromAddress: FROM,
    tokenIn: usdc,
    tokenOut: deployment.weth,
    amountIn: "25000000000",
  })}`;
  return {
    route,
    bundle: {
      endpoint: "bundle",
      method: "POST",
      target: `/v1/shortcuts/bundle?fromAddress=${FROM}`,
      body: JSON.stringify([
        { protocol: "wrapped-native", action: "deposit", args: { amountIn: "1000" } },
      ]),
      contentType: "application/json",
      kind: "known good",
    },
  };
}
