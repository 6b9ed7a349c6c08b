/**
 * Import boundaries, checked by `npm run lint:deps` (part of `npm test`).
 *
 * Paths are relative to the repository root. An npm package resolves to
 * `node_modules/<name>/…`, possibly behind a symlinked `node_modules`, hence the unanchored
 * `(^|/)node_modules/viem/` pattern.
 */

/**
 * The npm packages the pure core may use (with their subpaths, e.g. `viem/utils`): viem for
 * ABI encoding and addresses, zod for the bundle actions' argument schemas.
 */
const ENGINE_PACKAGES = ["(^|/)node_modules/viem/", "(^|/)node_modules/zod/"];

/** The contracts' ABIs and bytecode: generated data, importable from anywhere. */
const ABIS = "^abis/";

/**
 * The engine's layers, bottom to top (docs/architecture.md): `core/` (vocabulary) and `math/`
 * (Solidity ports); `routing/` and `program/` side by side; `route/`; `bundle/`; the protocol
 * folders; and `engine/index.ts`, the composition root and the one door into the engine. Each
 * layer reaches, through any chain of imports, type-only ones included, only those below it.
 */
const LAYERS_ABOVE = {
  core: "^engine/(math|routing|program|route|bundle|protocols)/|^engine/index\\.ts$",
  math: "^engine/(routing|program|route|bundle|protocols)/|^engine/index\\.ts$",
  routing: "^engine/(program|route|bundle|protocols)/|^engine/index\\.ts$",
  program: "^engine/(routing|route|bundle|protocols)/|^engine/index\\.ts$",
  route: "^engine/(bundle|protocols)/|^engine/index\\.ts$",
  bundle: "^engine/protocols/|^engine/index\\.ts$",
};

/** What each layer is, for its rule's comment. */
const LAYER_ROLES = {
  core: "the vocabulary every layer speaks",
  math: "Solidity ports, over the vocabulary only",
  routing: "graph, search and prices: pools and quotes, no programs",
  program: "command-VM programs: no route search",
  route: "a quote becomes a program and SPEC steps",
  bundle: "bundles of actions, over routes",
};

/** One rule per layer: it reaches no layer above it, through any chain of imports. */
function layerRules() {
  return Object.entries(LAYER_ROLES).map(([layer, role]) => ({
    name: `layer-${layer}`,
    severity: "error",
    comment:
      `engine/${layer}/ (${role}) reaches no layer above it, through any chain of imports, ` +
      "type-only ones included.",
    from: { path: `^engine/${layer}/` },
    to: { path: LAYERS_ABOVE[layer], reachable: true },
  }));
}

/** Code outside engine/ that runs in the service or its tools: it enters only by the door. */
const ENGINE_CLIENTS = [
  "^src/",
  "^devnet/",
  "^scripts/",
  "^(chains|known-chains|config|deployment-file|ponder\\.config|ponder\\.schema)\\.ts$",
];

/**
 * Files in engine/protocols/ that are not a protocol: the registry, the shared types, the
 * addresses and helpers every protocol may read, the pool-kind interface, and the ERC4626 family
 * that several vault protocols are made from and the concentrated-liquidity model of the V3 and
 * V4 pools (neither registers a protocol itself). Every other file
 * `engine/protocols/<slug>.ts` and every folder `engine/protocols/<slug>/` is a protocol module.
 */
const PROTOCOLS_SHARED = [
  "^engine/protocols/registry\\.ts$",
  "^engine/protocols/types\\.ts$",
  "^engine/protocols/pool-kind\\.ts$",
  "^engine/protocols/erc4626(\\.ts$|/)",
  "^engine/protocols/concentrated-liquidity/",
];

/** A protocol module; group 1 is its slug, so `$1` names the importer's own protocol. */
const PROTOCOL_MODULE = "^engine/protocols/([^/.]+)(\\.ts$|/)";

/**
 * The service's half of a protocol: what the indexer does (`src/protocols/<slug>/`: tables,
 * contracts, handlers) and how the API reads it back (`src/api/protocols/<slug>.ts`). Group 1 is
 * the slug. The files that are no protocol are the shared ones below.
 */
const SERVICE_PROTOCOL_MODULE = "^src/(?:api/)?protocols/([^/.]+)(\\.ts$|/)";
const SERVICE_PROTOCOLS_SHARED = [
  "^src/protocols/per-chain\\.ts$",
  "^src/protocols/factory-children\\.ts$",
  "^src/api/protocols/registry\\.ts$",
  "^src/api/protocols/types\\.ts$",
  // The tick loader the V3 and V4 readers share (registers no source itself).
  "^src/api/protocols/concentrated-liquidity\\.ts$",
  // The tick update the V3 and V4 handlers share (registers no handler itself).
  "^src/protocols/concentrated-liquidity\\.ts$",
];

/** Ponder's virtual modules: provided by Ponder's bundler at run time, not files on disk. */
const PONDER_VIRTUAL_MODULES = ["ponder:api", "ponder:schema", "ponder:registry"];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "engine-is-pure",
      severity: "error",
      comment:
        "engine/ is the framework-free core: it may import files inside engine/, the generated " +
        "ABIs, viem and zod, nothing else (no ponder, ponder:* virtual modules, hono, node:* " +
        "builtins, src/, config.ts, chains.ts).",
      from: { path: "^engine/" },
      to: { pathNot: ["^engine/", ABIS, ...ENGINE_PACKAGES] },
    },
    {
      name: "protocol-not-to-other-protocol",
      severity: "error",
      comment:
        "A protocol is one self-contained module (engine/protocols/<slug>.ts or <slug>/): it may " +
        "import the shared files of engine/protocols/ but not another protocol.",
      from: { path: PROTOCOL_MODULE, pathNot: PROTOCOLS_SHARED },
      to: {
        path: PROTOCOL_MODULE,
        pathNot: ["^engine/protocols/$1(\\.ts$|/)", ...PROTOCOLS_SHARED],
      },
    },
    {
      name: "service-protocol-not-to-other-protocol",
      severity: "error",
      comment:
        "A protocol's indexing (src/protocols/<slug>/) and its reader in the API " +
        "(src/api/protocols/<slug>.ts) import their own protocol's files, engine or service, " +
        "and shared code, but no other protocol's.",
      from: { path: SERVICE_PROTOCOL_MODULE, pathNot: SERVICE_PROTOCOLS_SHARED },
      to: {
        path: ["^(?:src/(?:api/)?|engine/)protocols/([^/.]+)(\\.ts$|/)"],
        pathNot: [
          "^(?:src/(?:api/)?|engine/)protocols/$1(\\.ts$|/)",
          ...SERVICE_PROTOCOLS_SHARED,
          ...PROTOCOLS_SHARED,
        ],
      },
    },
    {
      name: "service-not-to-devnet",
      severity: "error",
      comment:
        "The service (src/, and what it loads at the root: the chain list, the configuration, " +
        "the deployment file's reader, Ponder's config and schema) runs in production, where " +
        "there is no devnet: it imports no devnet/ code. What it reads of the devnet's " +
        "deployment file is in deployment-file.ts.",
      from: {
        path: [
          "^src/",
          "^chains\\.ts$",
          "^known-chains\\.ts$",
          "^start-blocks\\.ts$",
          "^config\\.ts$",
          "^deployment-file\\.ts$",
          "^ponder\\.(config|schema)\\.ts$",
        ],
      },
      to: { path: "^devnet/" },
    },
    ...layerRules(),
    {
      name: "engine-by-its-door",
      severity: "error",
      comment:
        "The service, devnet/, scripts/ and the root configuration import the engine only " +
        "through engine/index.ts, its composition root (which installs the protocols).",
      from: { path: ENGINE_CLIENTS },
      to: { path: "^engine/", pathNot: "^engine/index\\.ts$" },
    },
    {
      name: "no-cycles",
      severity: "error",
      comment:
        "No module imports itself through others, type-only imports included: in a cycle of " +
        "values whichever module loads first sees the others half-initialised, and a cycle of " +
        "types ties the layers it crosses into one.",
      from: { path: "^(engine|src)/" },
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import that resolves to no file or package is a typo or a missing dependency.",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "^(build|\\.ponder|\\.devnet|generated|bench/results)/" },
    // Type-only imports count: a boundary holds for types as much as for values.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    builtInModules: { add: PONDER_VIRTUAL_MODULES },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
  },
};
