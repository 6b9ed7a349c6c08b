/**
 * Compressed calldata per route step, for the route search's L1 data model (engine/routing/gas.ts,
 * `routeDataBytes`): the router strategy's transactions as the route builder encodes them, for
 * routes of one to three V2 and V3 hops and a two-leg split, their calldata FastLZ-compressed as
 * an OP-stack chain's Fjord L1 fee counts it (engine/routing/l1-data-fee.ts). Calldata does not
 * depend on chain state, only on the route's shape, amounts and addresses: the pools and tokens
 * sit at random-looking addresses (seeded), as real ones do (made-up small addresses compress
 * better than real ones). Writes bench/results/routing-l1-data.md.
 *
 * Run: npx tsx bench/routing-l1-data.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bytesToHex, getAddress, hexToBytes } from "viem";
import { mulberry32 } from "../devnet/random.js";
import type { Address, ExecutionContracts, Pool } from "../engine/index.js";
import { buildRoute, createRoutingGraph, fastLzCompressedLength } from "../engine/index.js";
import {
  EXTRA_LEG_DATA_BYTES,
  HOP_DATA_BYTES,
  ROUTE_BASE_DATA_BYTES,
  routeDataBytes,
} from "../engine/routing/gas.js";
import { chain, routeRequest } from "../test/engine/fixtures.js";
import { E18, v2, v3 } from "../test/routing/fixtures.js";

const SEED = 0x1da7a;
const next = mulberry32(SEED);
const randomAddress = (): Address =>
  bytesToHex(Uint8Array.from({ length: 20 }, () => Math.floor(next() * 256))) as Address;

const contracts: ExecutionContracts = {
  router: randomAddress(),
  executor: randomAddress(),
  delegateExecutor: randomAddress(),
  walletFactory: randomAddress(),
  walletImplementation: randomAddress(),
  minAmountOutCheck: randomAddress(),
  programValues: randomAddress(),
  uniswapV4Router: randomAddress(),
};
const user = getAddress(randomAddress());

/** The pool at a random address. */
function placed<P extends Pool>(pool: P): P {
  return { ...pool, address: randomAddress() };
}

function v3Pool(a: Address, b: Address): Pool {
  const [token0, token1] = a < b ? [a, b] : [b, a];
  return placed(
    v3({
      token0,
      token1,
      feePpm: 3000,
      tickSpacing: 60,
      tick: 0,
      positions: [{ lower: -600, upper: 600, liquidity: 10n ** 24n }],
    }),
  );
}

type Shape = { name: string; hops: number; legs: number; pools: (t: Address[]) => Pool[] };

const v2Pool = (a: Address, b: Address) => placed(v2(a, b, 1_000_000n * E18, 1_000_000n * E18));

/** A path of `hops` pools made by `pool`, token i to token i + 1. */
function path(name: string, hops: number, pool: (a: Address, b: Address) => Pool): Shape {
  return {
    name,
    hops,
    legs: 1,
    pools: (t) =>
      Array.from({ length: hops }, (_, i) => pool(t[i] as Address, t[i + 1] as Address)),
  };
}

const SHAPES: Shape[] = [
  path("V2", 1, v2Pool),
  path("V2, V2", 2, v2Pool),
  path("V2, V2, V2", 3, v2Pool),
  path("V3", 1, v3Pool),
  path("V3, V3", 2, v3Pool),
  path("V3, V3, V3", 3, v3Pool),
  {
    name: "split: V2 | V3",
    hops: 2,
    legs: 2,
    pools: ([a, b]) => [v2Pool(a as Address, b as Address), v3Pool(a as Address, b as Address)],
  },
];

/** The compressed calldata of the route through `shape`'s pools from its first to its last token. */
function measure(shape: Shape): { bytes: number; compressed: number; legs: number; hops: number } {
  const tokens = Array.from(
    { length: shape.hops + 1 },
    () => randomAddress().toLowerCase() as Address,
  );
  const graph = createRoutingGraph();
  for (const pool of shape.pools(tokens)) graph.upsertPool(pool);
  const request = routeRequest({
    fromAddress: user,
    tokenIn: tokens[0] as Address,
    tokenOut: tokens[shape.legs === 2 ? 1 : shape.hops] as Address,
    amountIn: 10_000n * E18,
    slippage: 50,
  });
  const built = buildRoute({ chain, contracts, graph, gasPriceWei: 0n, request });
  const hops = built.quote.legs.reduce((s, l) => s + l.hops.length, 0);
  const { tx } = built.encode((built.quote.amountOut * 995n) / 1000n, 1_800_000_000n);
  const data = hexToBytes(tx.data);
  return {
    bytes: data.length,
    compressed: fastLzCompressedLength(data),
    legs: built.quote.legs.length,
    hops,
  };
}

function main(): void {
  const rows = SHAPES.map((shape) => ({ shape, ...measure(shape) }));
  const by = (name: string) => rows.find((r) => r.shape.name === name)?.compressed ?? 0;
  const perHopV2 = ((by("V2, V2, V2") - by("V2")) / 2).toFixed(0);
  const perHopV3 = ((by("V3, V3, V3") - by("V3")) / 2).toFixed(0);
  const base = (by("V2") + by("V3")) / 2 - (Number(perHopV2) + Number(perHopV3)) / 2;
  const extraLeg =
    by("split: V2 | V3") - (by("V2") + by("V3")) / 2 - (Number(perHopV2) + Number(perHopV3)) / 2;
  const lines = [
    "# Compressed calldata per route step",
    "",
    `Reproduce with \`npx tsx bench/routing-l1-data.ts\` (seed ${SEED}). The router strategy's`,
    "transactions as the route builder encodes them, with pools, tokens and the execution layer at",
    "random-looking addresses; `compressed` is the FastLZ size of the calldata that Fjord's",
    "`GasPriceOracle.getL1Fee` prices (engine/routing/l1-data-fee.ts, equal to the predeploy's to",
    "the wei: test/routing/l1-data-fee.test.ts).",
    "",
    "| route | legs | hops | calldata bytes | compressed | model (gas.ts) |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.shape.name} | ${r.legs} | ${r.hops} | ${r.bytes} | ${r.compressed} | ${routeDataBytes(r.legs, r.hops)} |`,
    ),
    "",
    "| constant | measured | in gas.ts |",
    "|---|---:|---:|",
    `| ROUTE_BASE_DATA_BYTES | ${base.toFixed(0)} | ${ROUTE_BASE_DATA_BYTES} |`,
    `| HOP_DATA_BYTES (V2 / V3) | ${perHopV2} / ${perHopV3} | ${HOP_DATA_BYTES} |`,
    `| EXTRA_LEG_DATA_BYTES | ${extraLeg.toFixed(0)} | ${EXTRA_LEG_DATA_BYTES} |`,
    "",
  ];
  const out = join(dirname(fileURLToPath(import.meta.url)), "results", "routing-l1-data.md");
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, lines.join("\n"));
  console.log(lines.join("\n"));
}

main();
