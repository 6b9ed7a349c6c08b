/**
 * The import boundaries of `.dependency-cruiser.cjs` bite: the repository's own rule set,
 * cruised over a small tree written under the OS temp dir, reports each planted violation by
 * the rule it breaks, and nothing for the imports the rules allow.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Each file of the tree, with what it imports; `// ok` and `// bad` say what the rules allow. */
const TREE: Record<string, string> = {
  "abis/Pool.ts": "export const PoolAbi = [] as const;\n",
  "chains.ts": "export const chains = [];\n",
  "src/api/metrics.ts": "export const metrics = 1;\n",
  // The service and the tools enter the engine by its door only.
  "scripts/tool.ts": [
    'import { engine } from "../engine/index.js"; // ok: the door',
    'import { rank } from "../engine/routing/rank.js"; // bad: past the door',
    "export const tool = [engine, rank];",
  ].join("\n"),
  "devnet/world.ts": "export const world = 1;\n",
  "src/api/devnet-use.ts": [
    'import { world } from "../../devnet/world.js"; // bad: devnet code in the service',
    "export const used = world;",
  ].join("\n"),
  // core/: the vocabulary, pure.
  "engine/core/amounts.ts": "export const WAD = 10n ** 18n;\n",
  "engine/core/quote.ts": [
    'import { Hono } from "hono"; // bad: a framework in the core',
    'import { parseUnits } from "viem"; // ok',
    'import { z } from "zod"; // ok',
    'import { PoolAbi } from "../../abis/Pool.js"; // ok: generated ABIs are data',
    'import { WAD } from "./amounts.js"; // ok: its own layer',
    "export const quote = () => [Hono, parseUnits, z, PoolAbi, WAD];",
  ].join("\n"),
  "engine/core/store.ts": [
    'import { readFileSync } from "node:fs"; // bad: a builtin (reported as "fs")',
    'import schema from "ponder:schema"; // bad: Ponder, even as a virtual module',
    'import { chains } from "../../chains.js"; // bad: the environment\'s chain list',
    'import { metrics } from "../../src/api/metrics.js"; // bad: the service',
    "export const store = [readFileSync, schema, chains, metrics];",
  ].join("\n"),
  "engine/core/types.ts": [
    'import type { Context } from "hono"; // bad: even a type-only import',
    'import type { Hop } from "../program/hop.js"; // bad: a layer above, by a type alone',
    "export type Pool = { reserve: bigint; context?: Context; hop?: Hop };",
  ].join("\n"),
  // math/ over core/ only.
  "engine/math/swap.ts": [
    'import { maxUint256 } from "viem"; // ok',
    'import { WAD } from "../core/amounts.js"; // ok: the vocabulary',
    'import { rank } from "../routing/rank.js"; // bad: above the math',
    "export const swap = () => [WAD, maxUint256, rank];",
  ].join("\n"),
  // routing/: a search that reaches a protocol through a helper is caught at both.
  "engine/routing/rank.ts": [
    'import { WAD } from "../core/amounts.js"; // ok: below it',
    "export const rank = WAD;",
  ].join("\n"),
  "engine/routing/search.ts": [
    'import { rank } from "./rank.js"; // ok: its own layer',
    'import { helper } from "./helper.js"; // bad, transitively: helper reaches a protocol',
    "export const search = [rank, helper];",
  ].join("\n"),
  "engine/routing/helper.ts": [
    'import { gammaGas } from "../protocols/gamma/gas.js"; // bad: a protocol, from routing',
    "export const helper = gammaGas;",
  ].join("\n"),
  // program/ beside routing/, below route/ and bundle/.
  "engine/program/hop.ts": "export type Hop = { amount: bigint };\n",
  "engine/program/steps.ts": [
    'import type { Hop } from "./hop.js"; // ok',
    'import { plan } from "../bundle/plan.js"; // bad: the programs below the bundles',
    "export const steps = (hop: Hop) => [hop, plan];",
  ].join("\n"),
  "engine/bundle/plan.ts": [
    'import { WAD } from "../core/amounts.js"; // ok: below it',
    "export const plan = WAD;",
  ].join("\n"),
  // route/: a cycle of type-only imports is a cycle.
  "engine/route/edges.ts": [
    'import type { Hop } from "./hops.js"; // bad: a cycle, even of types only',
    "export type Edge = { next?: Hop };",
  ].join("\n"),
  "engine/route/hops.ts": [
    'import type { Edge } from "./edges.js";',
    "export type Hop = { edge: Edge };",
  ].join("\n"),
  // protocols/<slug>/ on top, each its own.
  "engine/protocols/types.ts": "export type Protocol = { slug: string };\n",
  "engine/protocols/erc4626.ts": [
    'import type { Protocol } from "./types.js";',
    "export const vaults = (slug: string): Protocol => ({ slug });",
  ].join("\n"),
  "engine/protocols/alpha.ts": [
    'import type { Protocol } from "./types.js"; // ok: shared',
    'import { search } from "../routing/search.js"; // ok: the engine below',
    'export const alpha: Protocol = { slug: "alpha" };',
    "export const alphaSearch = search;",
  ].join("\n"),
  "engine/protocols/beta/index.ts": [
    'import { betaPools } from "./pools.js"; // ok: its own folder',
    'import { vaults } from "../erc4626.js"; // ok: the shared ERC4626 family',
    'export const beta = vaults("beta");',
    "export const pools = betaPools;",
  ].join("\n"),
  "engine/protocols/beta/pools.ts": [
    'import { alpha } from "../alpha.js"; // bad: another protocol',
    "export const betaPools = [alpha];",
  ].join("\n"),
  "engine/protocols/gamma/gas.ts": "export const gammaGas = 21_000;\n",
  "engine/protocols/registry.ts": [
    'import { alpha } from "./alpha.js"; // ok: the registry lists every protocol',
    'import { beta } from "./beta/index.js";',
    "export const protocols = [alpha, beta];",
  ].join("\n"),
  "engine/index.ts": [
    'import { protocols } from "./protocols/registry.js"; // ok: the composition root',
    "export const engine = protocols;",
  ].join("\n"),
  // The service's half of a protocol: its own tables and shared code only.
  "src/protocols/per-chain.ts": "export const perChain = () => ({});\n",
  "src/protocols/gamma/tables.ts": [
    'import { perChain } from "../per-chain.js"; // ok: shared',
    'import { engine } from "../../../engine/index.js"; // ok: the door',
    "export const gammaTable = [perChain, engine];",
  ].join("\n"),
  "src/protocols/delta/tables.ts": [
    'import { perChain } from "../per-chain.js"; // ok: shared',
    "export const deltaTable = [perChain];",
  ].join("\n"),
  "src/api/protocols/types.ts": "export type Source = { load(): void };\n",
  "src/api/protocols/gamma.ts": [
    'import { gammaTable } from "../../protocols/gamma/tables.js"; // ok: its own tables',
    'import type { Source } from "./types.js"; // ok: shared',
    'import { deltaTable } from "../../protocols/delta/tables.js"; // bad: another protocol',
    "export const gamma: Source = { load: () => [gammaTable, deltaTable] };",
  ].join("\n"),
  "src/api/protocols/registry.ts": [
    'import { gamma } from "./gamma.js"; // ok: the registry lists every source',
    'import { deltaTable } from "../../protocols/delta/tables.js";',
    "export const sources = [gamma, deltaTable];",
  ].join("\n"),
};

let dir: string;
let result: ICruiseResult;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "boundaries-"));
  for (const [file, text] of Object.entries(TREE)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  // npm imports resolve as in the repository (hono to its real files, not "unresolvable").
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));
  const options = await extractDepcruiseOptions(join(repo, ".dependency-cruiser.cjs"));
  const output = await cruise(["engine", "src", "devnet", "scripts", "chains.ts", "abis"], {
    ...options,
    baseDir: dir,
  });
  result = output.output as ICruiseResult;
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("import boundaries", () => {
  it("reports exactly the planted violations, each by the rule it breaks", () => {
    const found = result.summary.violations
      .map((v) => `${v.rule.severity} ${v.rule.name}: ${v.from} -> ${tidy(v.to)}`)
      .sort();
    expect(found).toEqual([
      "error engine-by-its-door: scripts/tool.ts -> engine/routing/rank.ts",
      "error engine-is-pure: engine/core/quote.ts -> hono",
      "error engine-is-pure: engine/core/store.ts -> chains.ts",
      "error engine-is-pure: engine/core/store.ts -> fs",
      "error engine-is-pure: engine/core/store.ts -> ponder:schema",
      "error engine-is-pure: engine/core/store.ts -> src/api/metrics.ts",
      "error engine-is-pure: engine/core/types.ts -> hono",
      // A type-only import counts.
      "error layer-core: engine/core/types.ts -> engine/program/hop.ts",
      "error layer-math: engine/math/swap.ts -> engine/routing/rank.ts",
      "error layer-program: engine/program/steps.ts -> engine/bundle/plan.ts",
      // Reached directly by the helper, and through it by the search.
      "error layer-routing: engine/routing/helper.ts -> engine/protocols/gamma/gas.ts",
      "error layer-routing: engine/routing/search.ts -> engine/protocols/gamma/gas.ts",
      // A cycle of types only.
      "error no-cycles: engine/route/edges.ts -> engine/route/hops.ts",
      "error protocol-not-to-other-protocol: engine/protocols/beta/pools.ts -> engine/protocols/alpha.ts",
      "error service-not-to-devnet: src/api/devnet-use.ts -> devnet/world.ts",
      "error service-protocol-not-to-other-protocol: src/api/protocols/gamma.ts -> src/protocols/delta/tables.ts",
    ]);
    expect(result.summary.error).toBe(16);
  });

  it("takes Ponder's virtual modules as built in, not as unresolvable imports", () => {
    const store = result.modules.find((m) => m.source === "engine/core/store.ts");
    const ponder = store?.dependencies.find((d) => d.module === "ponder:schema");
    expect(ponder).toMatchObject({ coreModule: true, couldNotResolve: false });
  });
});

/** An npm package by its name, wherever the (possibly symlinked) node_modules lies. */
function tidy(to: string): string {
  return to.match(/(?:^|\/)node_modules\/([^/]+)\//)?.[1] ?? to;
}
