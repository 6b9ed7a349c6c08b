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

/** The pool shapes (types only) that the pool math takes as arguments. */
const ROUTING_TYPES = "^engine/routing/types\\.ts$";

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
  "^engine/protocols/native\\.ts$",
  "^engine/protocols/execution-addresses\\.ts$",
  "^engine/protocols/token-metadata\\.ts$",
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
      name: "routing-below-programs",
      severity: "error",
      comment:
        "The route search (engine/routing/) knows pools and quotes, not programs: it imports " +
        "neither the program planner (engine/program/) nor the bundle compiler (engine/bundle/).",
      from: { path: "^engine/routing/" },
      to: { path: "^engine/(program|bundle)/" },
    },
    {
      name: "programs-below-bundles",
      severity: "error",
      comment:
        "The program planner (engine/program/) serves both builders and imports no bundle code.",
      from: { path: "^engine/program/" },
      to: { path: "^engine/bundle/" },
    },
    {
      name: "routing-math-self-contained",
      severity: "error",
      comment:
        "The pool math imports nothing but itself, viem and the pool types of " +
        "engine/routing/types.ts (type-only declarations, no imports of their own).",
      from: { path: "^engine/routing/math/" },
      to: { pathNot: ["^engine/routing/math/", ROUTING_TYPES, ENGINE_PACKAGES[0]] },
    },
    {
      name: "routing-types-import-free",
      severity: "error",
      comment:
        "engine/routing/types.ts is the pure vocabulary the pool math reads: it imports nothing " +
        "but viem, so the math's one way out of its folder stays pure.",
      from: { path: ROUTING_TYPES },
      to: { pathNot: ENGINE_PACKAGES[0] },
    },
    {
      name: "no-cycles",
      severity: "error",
      comment:
        "No module imports itself through others: in a cycle, whichever module loads first sees " +
        "the others half-initialised (a protocol's actions reach the routing engine through the " +
        "compile context for this reason, not by import).",
      from: { path: "^(engine|src)/" },
      to: {
        circular: true,
        dependencyTypesNot: ["type-only"],
        viaOnly: { dependencyTypesNot: ["type-only"] },
      },
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
