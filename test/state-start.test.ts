/**
 * A state start (`START_BLOCK_<id>`) against a full replay of the same devnet at the same head:
 * an index started at block N reads every pool, pair, tick, V4 pool, Aave reserve and vault that
 * exists before N at the end of block N − 1, then follows events. It must hold the same current
 * state, row for row and value for value, as the replay, and answer `/v1/tokens`, `/v1/prices`
 * and routes identically.
 *
 * Start blocks: in the middle of the world's deployment (V3 pools created both before and after
 * it, positions minted before it and burned after it; Balancer V2's vault and pools after it),
 * in the middle of later activity (every pool exists; swaps, burns, Aave borrows and vault yield
 * follow; Balancer V2 swaps, joins and exits on both sides of it, a swap fee changed and an amp
 * update stopped before it, an amp update under way across it, and a rate provider's rate moved
 * before it and again at the head), and at the head. Besides the world's pools the chain has a
 * fee-100 V3 pool (tick spacing 1) with ticks at MIN_TICK and MAX_TICK, near both and around its
 * price, read through the tick bitmap reader. What counts as state, and how it is compared:
 * test/harness/same-state.ts; the same proof on the mainnet-shaped chain:
 * test/mainnet-shaped-state-start.test.ts.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type pg from "pg";
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbiItem,
  toEventSelector,
  zeroHash,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { runActivity } from "../devnet/activity.js";
import { DEVNET_DEPLOYER_KEY } from "../devnet/anvil.js";
import type { BalancerV2DeployedPool, Deployment } from "../devnet/deployment.js";
import { purgeSyncCache } from "../devnet/sync-cache.js";
import { devnetDeployer } from "../devnet/world.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/index.js";
import { bitmapReaderRanges } from "../src/state-start/bitmap-reader.js";
import { jsonRpc } from "./harness/json-rpc.js";
import {
  type DevnetChain,
  dropSchema,
  type PonderProcess,
  queryRows,
  spawnPonder,
  startDevnetChain,
  waitForBlock,
  waitForIndexes,
  waitUntil,
} from "./harness/ponder-process.js";
import { startRpcGate } from "./harness/rpc-gate.js";
import { type RpcRecorder, startRpcRecorder } from "./harness/rpc-recorder.js";
import { expectSameAnswers, expectSameState, routePath } from "./harness/same-state.js";
import { type ServiceInstance, TEST_DATABASE_URL, waitForRoutingGraph } from "./harness/service.js";
import { addTickSpacing1Pool, type TickSpacing1Pool } from "./harness/tick-spacing-1-pool.js";
import { balancerV2Actions } from "./protocols/balancer-v2-chain.js";

const chainId = 900_000 + Math.floor(Math.random() * 90_000);
const suffix = `${process.pid}_${randomBytes(3).toString("hex")}`;
let chain: DevnetChain;
let head: bigint;
const indexes: {
  name: string;
  schema: string;
  start?: bigint;
  /** The node it is given, when not the chain's own. */
  rpcUrl?: string;
  /** `STATE_READ_BATCH`, when not the default. */
  batch?: number;
  ponder?: PonderProcess;
}[] = [];
/** What the mid-world start asks the node for. */
let recorder: RpcRecorder;
/** What the head start asks the node for. */
let headRecorder: RpcRecorder;
/** The fee-100 pool, created after the world (before the mid-activity and head starts). */
let spacing1: TickSpacing1Pool;
/**
 * The blocks holding a pool's creation (V2 `PairCreated`, V3 and Balancer V2 `PoolCreated`, V4
 * `Initialize`).
 */
let creationBlocks: bigint[];

const rpc = <T>(method: string, params: unknown[]) => jsonRpc<T>(chain.anvil.url, method, params);

const query = <T extends pg.QueryResultRow>(sql: string, values: unknown[] = []) =>
  queryRows<T>(TEST_DATABASE_URL, sql, values);

/** Every state table of `schema` equals the one of the full replay, row for row. */
const expectSameAsReplay = async (index: { name: string; schema: string }) =>
  await expectSameState({
    databaseUrl: TEST_DATABASE_URL,
    chainId,
    replay: (indexes[0] as { schema: string }).schema,
    starts: [index],
  });

beforeAll(async () => {
  await purgeSyncCache(TEST_DATABASE_URL, chainId);
  chain = await startDevnetChain({ chainId });
  const rpcUrl = chain.anvil.url;
  const d = chain.deployment;
  // The V3 pools' creation blocks: the middle one splits the world's pools in two.
  const created = await rpc<{ blockNumber: `0x${string}` }[]>("eth_getLogs", [
    {
      address: d.uniswapV3.factory,
      fromBlock: "0x0",
      toBlock: "latest",
      topics: [
        toEventSelector(
          parseAbiItem(
            "event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)",
          ),
        ),
      ],
    },
  ]);
  const blocks = created.map((l) => BigInt(l.blockNumber));
  const midWorld = blocks[Math.floor(blocks.length / 2)] as bigint;
  const creations = await rpc<{ blockNumber: `0x${string}` }[]>("eth_getLogs", [
    {
      address: [
        d.uniswapV2.factory,
        d.uniswapV3.factory,
        d.uniswapV4?.poolManager,
        d.balancerV2?.weightedPoolFactory,
        d.balancerV2?.composableStablePoolFactory,
      ],
      fromBlock: "0x0",
      toBlock: "latest",
      topics: [
        [
          "PairCreated(address,address,address,uint256)",
          "PoolCreated(address,address,uint24,int24,address)",
          "Initialize(bytes32,address,address,uint24,int24,address,uint160,int24)",
          "PoolCreated(address)",
        ].map((signature) => toEventSelector(signature)),
      ],
    },
  ]);
  creationBlocks = [...new Set(creations.map((l) => BigInt(l.blockNumber)))];
  recorder = await startRpcRecorder({ target: rpcUrl });
  headRecorder = await startRpcRecorder({ target: rpcUrl });
  spacing1 = await addTickSpacing1Pool(rpcUrl, d, ["USDC", "DAI"]);
  // Activity on both sides of the second start: burns of positions minted in the world, swaps,
  // Aave supplies and borrows (interest accrues between them), vault deposits and yield.
  await runActivity({ rpcUrl, deployment: d, steps: 28, intervalMs: 0, seed: 11 });
  const balancer = await balancerActivity(d);
  await balancer.beforeMidActivity();
  const midActivity = BigInt(await rpc<string>("eth_blockNumber", [])) + 1n;
  await runActivity({ rpcUrl, deployment: d, steps: 28, intervalMs: 0, seed: 12 });
  await balancer.afterMidActivity();
  head = BigInt(await rpc<string>("eth_blockNumber", []));
  expect(blocks.filter((b) => b < midWorld).length).toBeGreaterThan(0);
  expect(blocks.filter((b) => b >= midWorld).length).toBeGreaterThan(0);

  indexes.push(
    { name: "full replay", schema: `replay_${suffix}` },
    {
      name: "mid-world start",
      schema: `start_world_${suffix}`,
      start: midWorld,
      rpcUrl: recorder.url,
    },
    // Ten calls a request: a state read group holds 640 calls, less than one fee-500 pool's
    // V4 reads (2 + 694 bitmap words), so the V4 pools are read and written group by group, and
    // the V3 bitmaps 70 words a request: the fee-100 pool's in 100 requests.
    {
      name: "mid-activity start",
      schema: `start_activity_${suffix}`,
      start: midActivity,
      batch: 10,
    },
    { name: "head start", schema: `start_head_${suffix}`, start: head, rpcUrl: headRecorder.url },
  );
  for (const index of indexes) {
    index.ponder = await spawnPonder({
      command: "start",
      chain,
      databaseUrl: TEST_DATABASE_URL,
      schema: index.schema,
      env: {
        ...(index.start === undefined ? {} : { [`START_BLOCK_${chainId}`]: String(index.start) }),
        ...(index.rpcUrl === undefined ? {} : { RPC_URL: index.rpcUrl }),
        ...(index.batch === undefined ? {} : { STATE_READ_BATCH: String(index.batch) }),
      },
    });
  }
  await waitForIndexes(indexes, { databaseUrl: TEST_DATABASE_URL, block: head });
}, 600_000);

const DAY = 86_400n;
const e18 = 10n ** 18n;

/**
 * The deployer's Balancer V2 activity on both sides of the mid-activity start (the world's five
 * pools, their owner's changes and the staked ETH token's rate), every pool's state moved by it.
 */
async function balancerActivity(d: Deployment) {
  const b = d.balancerV2;
  if (!b) throw new Error("the world has no Balancer V2");
  const pool = (name: string): BalancerV2DeployedPool => {
    const p = b.pools[name];
    if (!p) throw new Error(`no Balancer V2 pool ${name}`);
    return p;
  };
  const token = (symbol: string): Address => {
    const t = d.tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`no token ${symbol}`);
    return getAddress(t.address);
  };
  const [weth, bal, usdc, usdt, dai, wbtc, wsteth] = [
    token("WETH"),
    token("BAL"),
    token("USDC"),
    token("USDT"),
    token("DAI"),
    token("WBTC"),
    token("wstETH"),
  ];
  const w8020 = pool("weighted8020");
  const w5050 = pool("weighted5050");
  const w3 = pool("weightedThreeToken");
  const stableUsd = pool("stableUsd");
  const stableEth = pool("stableEth");
  const usd6 = (n: bigint) => n * 10n ** 6n;
  const actions = async () =>
    balancerV2Actions(await devnetDeployer(chain.anvil.url), b.vault, getAddress(d.weth));
  const now = async () =>
    BigInt((await rpc<{ timestamp: Hex }>("eth_getBlockByNumber", ["latest", false])).timestamp);
  return {
    beforeMidActivity: async () => {
      const a = await actions();
      await a.swap(w8020, bal, weth, 10_000n * e18);
      await a.swap(w5050, usdc, weth, usd6(50_000n));
      await a.swap(w3, wbtc, usdc, 5n * 10n ** 7n);
      await a.swap(stableUsd, usdt, dai, usd6(100_000n));
      await a.swap(stableEth, weth, wsteth, 20n * e18);
      await a.join(
        w5050,
        new Map([
          [weth, 10n * e18],
          [usdc, usd6(30_000n)],
        ]),
      );
      await a.join(
        stableUsd,
        new Map([
          [usdc, usd6(50_000n)],
          [dai, 20_000n * e18],
        ]),
      );
      await a.exit(w3, e18);
      await a.exit(stableUsd, 10_000n * e18);
      await a.setSwapFee(w5050, 4n * 10n ** 15n);
      // A = 200 to 400 over two days, under way at the start; 50 to 100 on the other, stopped.
      await a.startAmpUpdate(stableUsd, 400n, (await now()) + 2n * DAY);
      await a.startAmpUpdate(stableEth, 100n, (await now()) + 2n * DAY);
      await a.stopAmpUpdate(stableEth);
      // No event of its pool follows before the start: the pool's rate moved without one.
      await a.setRate(b.stakedEthRateProvider, 1_160_000_000_000_000_000n);
    },
    afterMidActivity: async () => {
      const a = await actions();
      await a.swap(stableUsd, dai, usdc, 80_000n * e18);
      await a.swap(w8020, weth, bal, 2n * e18);
      await a.swap(w3, usdc, weth, usd6(20_000n));
      await a.join(w8020, new Map([[bal, 1_000n * e18]]));
      await a.exit(w5050, e18);
      // Past the amp update's end and the rate cache's expiry (an hour).
      await rpc("evm_increaseTime", [Number(3n * DAY)]);
      await rpc("evm_mine", []);
      await a.swap(stableUsd, usdc, usdt, usd6(30_000n));
      await a.swap(stableEth, wsteth, weth, 5n * e18);
      await a.exit(stableEth, e18);
      await a.setSwapFee(stableEth, 2n * 10n ** 14n);
      await a.setRate(b.stakedEthRateProvider, 1_170_000_000_000_000_000n);
    },
  };
}

afterAll(async () => {
  for (const index of indexes) await index.ponder?.stop();
  await recorder?.close();
  await headRecorder?.close();
  await chain?.stop();
  for (const index of indexes) await dropSchema(TEST_DATABASE_URL, index.schema);
  await purgeSyncCache(TEST_DATABASE_URL, chainId);
});

describe("an index started from the chain's state", () => {
  test("reads the state once, at the end of the block before its start", () => {
    for (const index of indexes.slice(1)) {
      expect(index.ponder?.output()).toContain(`Chain ${chainId}: state start read `);
      expect(index.ponder?.output()).toContain(` at block ${(index.start as bigint) - 1n} in `);
    }
    // A full replay reads no state.
    expect(indexes[0]?.ponder?.output()).not.toContain("state start read");
  });

  test("counts each pool and each token it read once, as the full replay's tables hold them", async () => {
    const replay = indexes[0]?.schema as string;
    for (const index of indexes.slice(1)) {
      const start = index.start as bigint;
      // A Balancer V2 pool's tokens: those it holds, its own BPT not among them.
      const [counts] = await query<{ pools: string; tokens: string }>(
        `with pools as (
           select array[token0, token1] as tokens from "${replay}".v2_pair where chain_id = $1 and created_block < $2
           union all select array[token0, token1] from "${replay}".v3_pool where chain_id = $1 and created_block < $2
           union all select array[token0, token1] from "${replay}".v4_pool where chain_id = $1 and created_block < $2
           union all select array_remove(tokens, address) from "${replay}".balancer_v2_pool where chain_id = $1 and created_block < $2)
         select (select count(*) from pools) as pools,
                (select count(distinct t) from pools, unnest(tokens) as t where t <> $3) as tokens`,
        [chainId, start, NATIVE_TOKEN_ADDRESS],
      );
      expect(index.ponder?.output()).toContain(
        `state start read ${counts?.pools} pools and ${counts?.tokens} tokens at block ${start - 1n}`,
      );
    }
  });

  test("finds the pools created before its start from their creators' logs, fetching none of their blocks", () => {
    const start = indexes[1]?.start as bigint;
    const before = creationBlocks.filter((b) => b < start - 1n);
    expect(before.length).toBeGreaterThan(10);
    const requests = recorder.requests();
    const fetched = new Set(
      requests
        .filter((r) => r.method === "eth_getBlockByNumber" && `${r.params[0]}`.startsWith("0x"))
        .map((r) => BigInt(r.params[0] as string)),
    );
    expect(before.filter((b) => fetched.has(b))).toEqual([]);
    // The state start's own reading of the creations, up to the block its state is read at:
    // Uniswap V2's factory and PancakeSwap V1's, Uniswap V3's factory and PancakeSwap V3's, the
    // V4 pool manager, and both Balancer V2 factories.
    const toStateBlock = requests.filter(
      (r) =>
        r.method === "eth_getLogs" &&
        (r.params[0] as { toBlock?: string }).toBlock === `0x${(start - 1n).toString(16)}`,
    );
    expect(toStateBlock.length).toBe(7);
  });

  test("holds the same tokens, pairs, pools, ticks, reserves, vaults and Balancer V2 pools as a full replay", async () => {
    const [replay, ...starts] = indexes;
    const replayed = await expectSameState({
      databaseUrl: TEST_DATABASE_URL,
      chainId,
      replay: replay?.schema as string,
      starts,
    });
    for (const [table, rows] of Object.entries(replayed)) {
      if (table !== "vault") expect(rows.length, table).toBeGreaterThan(0);
    }
    // The mid-world start is before Balancer V2's pools; the others read all five, as the replay
    // left them: the amp update's start and end, the stopped one's amp, the swap fees and rates
    // the activity set.
    const [created] = await query<{ first: string; last: string }>(
      `select min(created_block)::text as first, max(created_block)::text as last from "${replay?.schema}".balancer_v2_pool where chain_id = $1`,
      [chainId],
    );
    expect(starts.map((index) => (index.start as bigint) > BigInt(created?.last ?? 0))).toEqual([
      false,
      true,
      true,
    ]);
    expect((starts[0]?.start as bigint) < BigInt(created?.first ?? 0)).toBe(true);
    const pools = replayed.balancer_v2_pool as Record<string, unknown>[];
    const b = chain.deployment.balancerV2;
    const row = (name: string) =>
      pools.find((p) => p.address === b?.pools[name]?.address.toLowerCase());
    expect(pools).toHaveLength(5);
    expect(row("stableUsd")).toMatchObject({
      amp: "400000",
      amp_start_value: "200000",
      amp_end_value: "400000",
    });
    expect(BigInt(row("stableUsd")?.amp_end_time as string)).toBeGreaterThan(
      BigInt(row("stableUsd")?.amp_start_time as string),
    );
    expect(row("stableEth")).toMatchObject({
      amp_start_value: row("stableEth")?.amp,
      amp_end_value: row("stableEth")?.amp,
      amp_start_time: "0",
      amp_end_time: "0",
      swap_fee_percentage: "200000000000000",
      provider_rates: expect.arrayContaining(["1170000000000000000"]),
    });
    expect(row("weighted5050")).toMatchObject({ swap_fee_percentage: "4000000000000000" });
  });

  test("reads a tick-spacing-1 pool's ticks, far apart, in one request of the bitmap reader (V3 and V4)", async () => {
    const pool = spacing1.address.toLowerCase();
    const ticksIn = async (schema: string) =>
      (
        await query<{ tick: number }>(
          `select tick from "${schema}".v3_tick where chain_id = $1 and pool = $2 order by tick`,
          [chainId, pool],
        )
      ).map((r) => r.tick);
    // At MIN_TICK and MAX_TICK, near each, and around the price (-276325 when created).
    const expected = [-887272, -887269, -886272, -276328, -276323, 886572, 887271, 887272];
    expect(spacing1.ticks).toEqual(expected);
    // The mid-world start is before the pool: the others hold it.
    for (const index of [indexes[0], indexes[2], indexes[3]] as {
      name: string;
      schema: string;
    }[]) {
      expect({ index: index.name, ticks: await ticksIn(index.schema) }).toEqual({
        index: index.name,
        ticks: expected,
      });
    }
    // The head start's reader requests: every V3 pool's bitmap words, 7,000 a request at the
    // default STATE_READ_BATCH, a pool never cut when it fits in one, the forks' pools batched
    // with Uniswap's. The world's eight Uniswap pools and PancakeSwap's one (3 × 694 + 3 × 116 +
    // 2 × 36 + 140 = 2,642 words) are one request; the fee-100 pool's 6,932 words
    // do not fit beside them and are the next, alone: where a Multicall3 batch of 1,000 calls
    // took 7 requests for them.
    const reads = headRecorder
      .requests()
      .filter((r) => r.method === "eth_call")
      .map((r) => r.params as [{ to?: string; data?: Hex; input?: Hex }, string])
      .filter(([call, block]) => block === `0x${(head - 1n).toString(16)}` && call.to === undefined)
      .flatMap(([call]) => {
        const ranges = bitmapReaderRanges(call.data ?? call.input ?? "0x");
        return ranges === undefined
          ? []
          : [ranges.map(({ bitmapSlot, ...r }) => ({ ...r, v3: bitmapSlot === zeroHash }))];
      });
    const v3 = reads.filter((ranges) => ranges.every((r) => r.v3));
    const world = [
      ...chain.deployment.uniswapV3.pools,
      ...(chain.deployment.uniswapV3Forks ?? []).flatMap((f) => f.pools),
    ].map((p) => p.toLowerCase());
    expect(world).toHaveLength(9);
    expect(v3.length).toBe(2);
    expect(v3.find((ranges) => ranges.some((r) => r.target === pool))).toEqual([
      { target: pool, v3: true, firstWord: -3466, words: 6932 },
    ]);
    expect(
      v3
        .find((ranges) => ranges.every((r) => r.target !== pool))
        ?.map((r) => r.target)
        .sort(),
    ).toEqual([...world].sort());
    // The V4 pools' words, from the pool manager: spacings 10, 10, 1, 50, 60, 10, 10 in the order
    // they were initialized (694, 694, 6,932, 140, 116, 694, 694 words), so the tick-spacing-1
    // pool is one request alone, between the two pools before it and the four after it.
    const manager = chain.deployment.uniswapV4?.poolManager.toLowerCase();
    const v4 = reads.filter((ranges) => ranges.every((r) => !r.v3 && r.target === manager));
    // (The requests go out together: in whatever order they arrived.)
    expect(
      v4.map((ranges) => ranges.map((r) => r.words)).sort((a, b) => a.length - b.length),
    ).toEqual([[6932], [694, 694], [140, 116, 694, 694]]);
    expect(v3.length + v4.length).toBe(reads.length);
  });

  test("says from which block its history is complete, on /v1/networks and the front page's figures", async () => {
    for (const index of indexes) {
      const from = Number(index.start ?? chain.deployment.startBlock);
      const url = index.ponder?.url as string;
      const [network] = (await (await fetch(`${url}/v1/networks`)).json()) as {
        historyFromBlock: number;
      }[];
      const overview = (await (await fetch(`${url}/overview.json`)).json()) as {
        chains: { startBlock: number }[];
      };
      expect({
        index: index.name,
        network: network?.historyFromBlock,
        page: overview.chains[0]?.startBlock,
      }).toEqual({
        index: index.name,
        network: from,
        page: from,
      });
      // No swap before the start is in its history.
      const [first] = await query<{ min: string | null }>(
        `select min(block_number)::text as min from "${index.schema}"."swap" where chain_id = $1`,
        [chainId],
      );
      expect(BigInt(first?.min ?? from) >= BigInt(from), index.name).toBe(true);
    }
  });

  test("answers /v1/tokens, /v1/prices and routes as the full replay does", async () => {
    const d = chain.deployment;
    for (const index of indexes) {
      const ponder = index.ponder as PonderProcess;
      await waitForRoutingGraph(
        { url: ponder.url, output: ponder.output } as ServiceInstance,
        chainId,
        head,
      );
    }
    const symbol = (s: string) => d.tokens.find((t) => t.symbol === s)?.address as Address;
    const paths = [
      `/v1/tokens?chainId=${chainId}`,
      `/v1/tokens?chainId=${chainId}&protocolSlug=uniswap-v2`,
      `/v1/tokens?chainId=${chainId}&protocolSlug=aave-v3`,
      `/v1/prices/${chainId}?${d.tokens.map((t) => `addresses=${t.address}`).join("&")}`,
      routePath({
        chainId,
        tokenIn: symbol("USDC"),
        tokenOut: symbol("WETH"),
        amountIn: 2_500_000_000n,
      }),
      routePath({
        chainId,
        tokenIn: symbol("WETH"),
        tokenOut: symbol("DAI"),
        amountIn: 1_000_000_000_000_000_000n,
      }),
    ];
    // Through Balancer V2: the stable pool, the 80/20 pool and the rate-provided pool.
    const balancerPaths = [
      `/v1/tokens?chainId=${chainId}&protocolSlug=balancer-v2`,
      routePath({
        chainId,
        tokenIn: symbol("USDT"),
        tokenOut: symbol("DAI"),
        amountIn: 50_000_000_000n,
      }),
      routePath({
        chainId,
        tokenIn: symbol("BAL"),
        tokenOut: symbol("WETH"),
        amountIn: 4_000n * 10n ** 18n,
      }),
      routePath({
        chainId,
        tokenIn: symbol("WETH"),
        tokenOut: symbol("wstETH"),
        amountIn: 10n ** 19n,
      }),
    ];
    paths.push(...balancerPaths);
    const replayed = await expectSameAnswers({
      replay: indexes[0]?.ponder?.url as string,
      starts: indexes
        .slice(1)
        .map((index) => ({ name: index.name, url: index.ponder?.url as string })),
      paths,
    });
    const [bpts, ...routes] = balancerPaths.map((path) => replayed[path]);
    expect((bpts as { data: unknown[] }).data).toHaveLength(5);
    for (const answer of routes) {
      expect((answer as { route: { protocol: string }[] }).route.map((s) => s.protocol)).toContain(
        "balancer-v2",
      );
    }
  });

  test("at the head when told latest: the head is pinned, and a restart resumes the same index", async () => {
    const pins = join(mkdtempSync(join(tmpdir(), "state-start-pins-")), "pins.json");
    onTestFinished(() => rmSync(dirname(pins), { recursive: true, force: true }));
    const index = { name: "latest start", schema: `start_latest_${suffix}` };
    const env = { [`START_BLOCK_${chainId}`]: "latest", START_BLOCK_PIN_FILE: pins };
    indexes.push(index);
    const run = async () => {
      const ponder = await spawnPonder({
        command: "start",
        chain,
        databaseUrl: TEST_DATABASE_URL,
        schema: index.schema,
        env,
      });
      (index as { ponder?: PonderProcess }).ponder = ponder;
      return ponder;
    };
    const pinnedAt = BigInt(await rpc<string>("eth_blockNumber", []));
    const first = await run();
    await waitForBlock(first, {
      databaseUrl: TEST_DATABASE_URL,
      schema: index.schema,
      block: pinnedAt,
      timeoutMs: 240_000,
    });
    expect(first.output()).toContain(`state start read `);
    expect(first.output()).toContain(` at block ${pinnedAt - 1n} in `);
    await first.stop();
    // The chain moves on while the indexer is down; the restart resumes from its checkpoint.
    await runActivity({
      rpcUrl: chain.anvil.url,
      deployment: chain.deployment,
      steps: 6,
      intervalMs: 0,
      seed: 13,
    });
    const now = BigInt(await rpc<string>("eth_blockNumber", []));
    const second = await run();
    const replay = indexes[0] as { schema: string; ponder?: PonderProcess };
    for (const [p, schema] of [
      [second, index.schema],
      [replay.ponder as PonderProcess, replay.schema],
    ] as const) {
      await waitForBlock(p, {
        databaseUrl: TEST_DATABASE_URL,
        schema,
        block: now,
        timeoutMs: 240_000,
      });
    }
    // Ponder re-runs what is not final yet after a restart: a state read again reads the pinned
    // block, never the new head.
    const reads = [...second.output().matchAll(/state start read .* at block (\d+) in /g)];
    expect(reads.map((m) => m[1])).toEqual(reads.map(() => String(pinnedAt - 1n)));
    expect(second.output()).not.toContain("previously used by a different Ponder app");
    await expectSameAsReplay(index);
  }, 300_000);

  test("killed while it reads the state, then restarted: the same tables", async () => {
    // A block no other index read at: its answers are not in Ponder's cache of RPC results.
    const start = (indexes[2]?.start as bigint) + 1n;
    const index = { name: "killed during the state read", schema: `start_killed_${suffix}`, start };
    indexes.push(index);
    // The state read's batched calls are held, so the kill lands inside it.
    const gate = await startRpcGate({ target: chain.anvil.url, hold: (m) => m === "eth_call" });
    try {
      const env = { [`START_BLOCK_${chainId}`]: String(start) };
      const first = await spawnPonder({
        command: "start",
        chain,
        databaseUrl: TEST_DATABASE_URL,
        schema: index.schema,
        env: { ...env, RPC_URL: gate.url },
      });
      (index as { ponder?: PonderProcess }).ponder = first;
      await waitUntil(
        "the state read did not begin",
        async () => gate.held().includes("eth_call"),
        {
          timeoutMs: 120_000,
          output: first.output,
          process: first.process,
        },
      );
      // While the state is being read, the index answers nothing from it.
      const during = await fetch(`${first.url}/v1/tokens?chainId=${chainId}`);
      expect(during.status).toBe(503);
      first.process.kill("SIGKILL");
      await first.exited;
      const second = await spawnPonder({
        command: "start",
        chain,
        databaseUrl: TEST_DATABASE_URL,
        schema: index.schema,
        env,
      });
      (index as { ponder?: PonderProcess }).ponder = second;
      const now = BigInt(await rpc<string>("eth_blockNumber", []));
      await waitForBlock(second, {
        databaseUrl: TEST_DATABASE_URL,
        schema: index.schema,
        block: now,
        timeoutMs: 240_000,
      });
      expect(second.output()).toContain(` at block ${start - 1n} in `);
      await expectSameAsReplay(index);
    } finally {
      gate.open();
      await gate.close();
    }
  }, 300_000);

  test("a reorg that replaces the block its state was read at ends in the same tables", async () => {
    const d = chain.deployment;
    const top = BigInt(await rpc<string>("eth_blockNumber", []));
    // The state is read at top − 2, inside the four blocks the reorg replaces.
    const index = {
      name: "start across a reorg",
      schema: `start_reorg_${suffix}`,
      start: top - 1n,
    };
    indexes.push(index);
    const ponder = await spawnPonder({
      command: "start",
      chain,
      databaseUrl: TEST_DATABASE_URL,
      schema: index.schema,
      env: { [`START_BLOCK_${chainId}`]: String(index.start) },
    });
    (index as { ponder?: PonderProcess }).ponder = ponder;
    await waitForBlock(ponder, {
      databaseUrl: TEST_DATABASE_URL,
      schema: index.schema,
      block: top,
      timeoutMs: 240_000,
    });
    expect(ponder.output()).toContain(` at block ${top - 2n} in `);
    // The replaced blocks: 1,000 USDC minted to the first pair, then its reserves synced to it.
    const pair = d.uniswapV2.pairs[0] as Address;
    const usdc = d.tokens.find((t) => t.symbol === "USDC")?.address as Address;
    const deployer = privateKeyToAccount(DEVNET_DEPLOYER_KEY).address;
    const tx = (to: Address, data: Hex) => ({
      from: deployer,
      to,
      data,
      value: "0x0",
      gas: "0x30d40",
    });
    await rpc("anvil_reorg", [
      4,
      [
        [
          tx(
            usdc,
            encodeFunctionData({
              abi: DevTokenAbi,
              functionName: "mint",
              args: [pair, 1_000_000_000n],
            }),
          ),
          0,
        ],
        [tx(pair, encodeFunctionData({ abi: UniswapV2PairAbi, functionName: "sync" })), 1],
      ],
    ]);
    await rpc("evm_mine", []);
    const now = top + 1n;
    const replay = indexes[0] as { schema: string; ponder?: PonderProcess };
    for (const [p, schema] of [
      [ponder, index.schema],
      [replay.ponder as PonderProcess, replay.schema],
    ] as const) {
      await waitForBlock(p, {
        databaseUrl: TEST_DATABASE_URL,
        schema,
        block: now,
        timeoutMs: 240_000,
      });
    }
    // The pair's reserves at the end are the new chain's (the replaced blocks' sync), in both.
    const [reserves] = await query<{ reserve0: string; reserve1: string }>(
      `select reserve0::text, reserve1::text from "${index.schema}"."v2_pair" where chain_id = $1 and address = $2`,
      [chainId, pair.toLowerCase()],
    );
    const [onChain0, onChain1] = await readReserves(pair);
    expect(reserves).toEqual({ reserve0: onChain0.toString(), reserve1: onChain1.toString() });
    await expectSameAsReplay(index);
  }, 300_000);
});

/** The pair's reserves at the head, as `getReserves` answers. */
async function readReserves(pair: Address): Promise<[bigint, bigint]> {
  const data = await rpc<Hex>("eth_call", [
    { to: pair, data: encodeFunctionData({ abi: UniswapV2PairAbi, functionName: "getReserves" }) },
    "latest",
  ]);
  const [r0, r1] = decodeFunctionResult({
    abi: UniswapV2PairAbi,
    functionName: "getReserves",
    data,
  });
  return [r0, r1];
}
