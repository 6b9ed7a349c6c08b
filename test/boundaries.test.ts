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
  "engine/amounts.ts": "export const WAD = 10n ** 18n;\n",
  "engine/quote.ts": [
    'import { Hono } from "hono"; // bad: a framework in the core',
    'import { parseUnits } from "viem"; // ok',
    'import { z } from "zod"; // ok',
    'import { PoolAbi } from "../abis/Pool.js"; // ok: generated ABIs are data',
    'import { WAD } from "./amounts.js"; // ok: inside engine/',
    "export const quote = () => [Hono, parseUnits, z, PoolAbi, WAD];",
  ].join("\n"),
  "engine/store.ts": [
    'import { readFileSync } from "node:fs"; // bad: a builtin (reported as "fs")',
    'import schema from "ponder:schema"; // bad: Ponder, even as a virtual module',
    'import { chains } from "../chains.js"; // bad: the environment\'s chain list',
    'import { metrics } from "../src/api/metrics.js"; // bad: the service',
    "export const store = [readFileSync, schema, chains, metrics];",
  ].join("\n"),
  "engine/protocols/types.ts": "export type Protocol = { slug: string };\n",
  "engine/protocols/native.ts": 'export const NATIVE = "0xeeee";\n',
  "engine/protocols/erc4626.ts": [
    'import type { Protocol } from "./types.js";',
    "export const vaults = (slug: string): Protocol => ({ slug });",
  ].join("\n"),
  "engine/protocols/alpha.ts": [
    'import { beta } from "./beta/index.js"; // bad: another protocol',
    'import { NATIVE } from "./native.js"; // ok: shared',
    'import type { Protocol } from "./types.js"; // ok: shared',
    'export const alpha: Protocol = { slug: "alpha" };',
    "export const both = [beta, NATIVE];",
  ].join("\n"),
  "engine/protocols/beta/index.ts": [
    'import { betaPools } from "./pools.js"; // ok: its own folder',
    'import { vaults } from "../erc4626.js"; // ok: the shared ERC4626 family',
    'export const beta = vaults("beta");',
    "export const pools = betaPools;",
  ].join("\n"),
  "engine/protocols/beta/pools.ts": [
    'import { alpha } from "../alpha.js"; // bad: another protocol',
    'import { search } from "../../routing/search.js"; // ok: the engine',
    "export const betaPools = [alpha, search];",
  ].join("\n"),
  "engine/protocols/registry.ts": [
    'import { alpha } from "./alpha.js"; // ok: the registry lists every protocol',
    'import { beta } from "./beta/index.js";',
    "export const protocols = [alpha, beta];",
  ].join("\n"),
  "engine/routing/types.ts": [
    'import type { Context } from "hono"; // bad: even a type-only import',
    "export type Pool = { reserve: bigint; context?: Context };",
  ].join("\n"),
  "engine/routing/search.ts": [
    'import { STEP } from "../program/steps.js"; // bad: the search below the programs',
    "export const search = STEP;",
  ].join("\n"),
  "engine/program/steps.ts": [
    'import { plan } from "../bundle/plan.js"; // bad: the programs below the bundles',
    "export const STEP = 1;",
    "export const planned = () => plan;",
  ].join("\n"),
  "engine/bundle/plan.ts": [
    'import { search } from "../routing/search.js"; // ok: bundles route',
    'import { STEP } from "../program/steps.js"; // ok: bundles are programs',
    "export const plan = [search, STEP];",
  ].join("\n"),
  "engine/routing/edges.ts": [
    'import type { Hop } from "./hops.js"; // ok: a cycle of types only is erased at run time',
    "export type Edge = { next?: Hop };",
  ].join("\n"),
  "engine/routing/hops.ts": [
    'import type { Edge } from "./edges.js";',
    "export type Hop = { edge: Edge };",
  ].join("\n"),
  "engine/routing/math/swap.ts": [
    'import { maxUint256 } from "viem"; // ok',
    'import type { Pool } from "../types.js"; // ok: the pool shapes',
    'import { search } from "../search.js"; // bad: outside the math',
    "export const swap = (p: Pool) => [p, maxUint256, search];",
  ].join("\n"),
  "src/protocols/per-chain.ts": "export const perChain = () => ({});\n",
  "src/protocols/gamma/tables.ts": [
    'import { perChain } from "../per-chain.js"; // ok: shared',
    'import { alpha } from "../../../engine/protocols/alpha.js"; // bad: another protocol',
    "export const gammaTable = [perChain, alpha];",
  ].join("\n"),
  "src/protocols/delta/tables.ts": [
    'import { beta } from "../../../engine/protocols/beta/index.js"; // bad: another protocol',
    'import { NATIVE } from "../../../engine/protocols/native.js"; // ok: shared',
    "export const deltaTable = [beta, NATIVE];",
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
  const output = await cruise(["engine", "src", "chains.ts", "abis"], { ...options, baseDir: dir });
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
      "error engine-is-pure: engine/quote.ts -> hono",
      "error engine-is-pure: engine/routing/types.ts -> hono",
      "error engine-is-pure: engine/store.ts -> chains.ts",
      "error engine-is-pure: engine/store.ts -> fs",
      "error engine-is-pure: engine/store.ts -> ponder:schema",
      "error engine-is-pure: engine/store.ts -> src/api/metrics.ts",
      // The planted layer violations close cycles, each reported once where it is entered.
      "error no-cycles: engine/bundle/plan.ts -> engine/program/steps.ts",
      "error no-cycles: engine/bundle/plan.ts -> engine/routing/search.ts",
      "error no-cycles: engine/protocols/alpha.ts -> engine/protocols/beta/index.ts",
      "error programs-below-bundles: engine/program/steps.ts -> engine/bundle/plan.ts",
      "error protocol-not-to-other-protocol: engine/protocols/alpha.ts -> engine/protocols/beta/index.ts",
      "error protocol-not-to-other-protocol: engine/protocols/beta/pools.ts -> engine/protocols/alpha.ts",
      "error routing-below-programs: engine/routing/search.ts -> engine/program/steps.ts",
      "error routing-math-self-contained: engine/routing/math/swap.ts -> engine/routing/search.ts",
      "error routing-types-import-free: engine/routing/types.ts -> hono",
      "error service-protocol-not-to-other-protocol: src/api/protocols/gamma.ts -> src/protocols/delta/tables.ts",
      "error service-protocol-not-to-other-protocol: src/protocols/delta/tables.ts -> engine/protocols/beta/index.ts",
      "error service-protocol-not-to-other-protocol: src/protocols/gamma/tables.ts -> engine/protocols/alpha.ts",
    ]);
    expect(result.summary.error).toBe(18);
  });

  it("takes Ponder's virtual modules as built in, not as unresolvable imports", () => {
    const store = result.modules.find((m) => m.source === "engine/store.ts");
    const ponder = store?.dependencies.find((d) => d.module === "ponder:schema");
    expect(ponder).toMatchObject({ coreModule: true, couldNotResolve: false });
  });
});

/** An npm package by its name, wherever the (possibly symlinked) node_modules lies. */
function tidy(to: string): string {
  return to.match(/(?:^|\/)node_modules\/([^/]+)\//)?.[1] ?? to;
}
