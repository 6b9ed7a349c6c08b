/**
 * Import boundaries, checked by `npm run lint:deps` (part of `npm test`).
 *
 * Paths are relative to the repository root. An npm package resolves to
 * `node_modules/<name>/…`, possibly behind a symlinked `node_modules`, hence the unanchored
 * `(^|/)node_modules/viem/` pattern.
 */

/** The only npm package the pure core may use (with its subpaths, e.g. `viem/utils`). */
const VIEM = "(^|/)node_modules/viem/";

/** The pool shapes (types only) that the pool math takes as arguments. */
const ROUTING_TYPES = "^src/api/routing/types\\.ts$";

/**
 * Files in protocols/ that are not a protocol: the registry, the shared types, the chain list,
 * the addresses and helpers every protocol may read, the pool-kind interface, and the ERC4626 family that several
 * vault protocols are made from (it registers no protocol itself). Every other file
 * `protocols/<slug>.ts` and every folder `protocols/<slug>/` is a protocol module.
 */
const PROTOCOLS_SHARED = [
  "^protocols/registry\\.ts$",
  "^protocols/types\\.ts$",
  "^protocols/chains\\.ts$",
  "^protocols/native\\.ts$",
  "^protocols/execution-addresses\\.ts$",
  "^protocols/token-metadata\\.ts$",
  "^protocols/pool-kind\\.ts$",
  "^protocols/erc4626(\\.ts$|/)",
];

/** A protocol module; group 1 is its slug, so `$1` names the importer's own protocol. */
const PROTOCOL_MODULE = "^protocols/([^/.]+)(\\.ts$|/)";

/** Ponder's virtual modules: provided by Ponder's bundler at run time, not files on disk. */
const PONDER_VIRTUAL_MODULES = ["ponder:api", "ponder:schema", "ponder:registry"];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "engine-imports-only-engine-and-viem",
      severity: "error",
      comment:
        "engine/ is the framework-free core: it may import files inside engine/ and viem, " +
        "nothing else (no ponder, ponder:* virtual modules, hono, node:* builtins, src/, protocols/).",
      from: { path: "^engine/" },
      to: { pathNot: ["^engine/", VIEM] },
    },
    {
      name: "protocol-not-to-other-protocol",
      severity: "error",
      comment:
        "A protocol is one self-contained module (protocols/<slug>.ts or protocols/<slug>/): it " +
        "may import the shared files of protocols/ but not another protocol.",
      from: { path: PROTOCOL_MODULE, pathNot: PROTOCOLS_SHARED },
      to: { path: PROTOCOL_MODULE, pathNot: ["^protocols/$1(\\.ts$|/)", ...PROTOCOLS_SHARED] },
    },
    {
      name: "routing-math-self-contained",
      severity: "error",
      comment:
        "The pool math imports nothing but itself, viem and the pool types of " +
        "src/api/routing/types.ts (type-only declarations, no imports of their own).",
      from: { path: "^src/api/routing/math/" },
      to: { pathNot: ["^src/api/routing/math/", ROUTING_TYPES, VIEM] },
    },
    {
      name: "routing-types-import-free",
      severity: "error",
      comment:
        "src/api/routing/types.ts is the pure vocabulary the pool math reads: it imports nothing " +
        "but viem, so the math's one way out of its folder stays pure.",
      from: { path: ROUTING_TYPES },
      to: { pathNot: VIEM },
    },
    {
      // The goal is no cycle between src/api/routing/ and src/api/bundling/, but it does not
      // hold today: routing uses the bundling planner, executing account and revert decoding
      // (route-program.ts, plan-route.ts) while bundling's actions find and quote routes.
      // No single module is in a cycle; the two folders are. A warning keeps the cycle visible
      // until one side is split; make it an error once `npm run lint:deps` reports none.
      name: "no-cycle-routing-bundling",
      severity: "warn",
      comment: "src/api/routing/ and src/api/bundling/ should not depend on each other in a cycle.",
      scope: "folder",
      from: { path: "^src/api/routing(/|$)" },
      to: {
        path: "^src/api/bundling(/|$)",
        circular: true,
        viaOnly: { path: "^src/api/(routing|bundling)(/|$)" },
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
