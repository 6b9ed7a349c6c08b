/**
 * test/state-start.test.ts's proof on the mainnet-shaped chain (test/harness/mainnet-world.ts:
 * chain id 1, the canonical addresses, the odd tokens real chains hold), each index started as an
 * operator starts one (`npm run indexer` with `START_BLOCK_1`): an index started at block N holds
 * the same current state, row for row and value for value, as a full replay of the same chain at
 * the same head, and answers `/v1/tokens`, `/v1/prices` and routes identically.
 *
 * Start blocks: the block the first pool is created in (the state read finds nothing), the middle
 * of the activity (test/harness/mainnet-activity.ts: V2 pairs, a V3 pool and a V4 pool created
 * both before and after it, V3 and V4 positions minted before it and burned after it, swaps
 * through the odd tokens, a rebase, vault deposits, redemptions and yield, Aave V3 supplies,
 * borrows, repayments and withdrawals with interest accruing), and the head.
 *
 * The world's Aave V3 market (WETH, USDC, DAI) sits at addresses of its own, so each index is
 * given the `AAVE_V3_POOL_1` variables an operator sets for a market other than chain 1's known
 * one.
 */
import { type Address, parseAbiItem, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { NATIVE_TOKEN_ADDRESS } from "../engine/index.js";
import { runMainnetActivity } from "./harness/mainnet-activity.js";
import {
  type MainnetChain,
  spawnMainnetIndexer,
  startMainnetChain,
} from "./harness/mainnet-service.js";
import { MAINNET } from "./harness/mainnet-world.js";
import { type PonderProcess, queryRows, waitForIndexes } from "./harness/ponder-process.js";
import { expectSameAnswers, expectSameState, routePath } from "./harness/same-state.js";
import { type ServiceInstance, waitForRoutingGraph } from "./harness/service.js";

const chainId = 1;

let chain: MainnetChain;
let head: bigint;
const indexes: { name: string; schema: string; start: bigint; ponder?: PonderProcess }[] = [];

beforeAll(async () => {
  chain = await startMainnetChain({ aaveV3: true });
  const { world } = chain;
  const [firstPair] = await world.client.getLogs({
    address: MAINNET.uniswapV2Factory,
    event: parseAbiItem(
      "event PairCreated(address indexed token0, address indexed token1, address pair, uint256)",
    ),
    fromBlock: 0n,
    toBlock: "latest",
  });
  const { middle } = await runMainnetActivity({ rpcUrl: chain.anvil.url, world });
  head = await world.client.getBlockNumber({ cacheTime: 0 });

  indexes.push(
    { name: "full replay", schema: "replay", start: BigInt(world.startBlock) },
    {
      name: "start at the first pool",
      schema: "start_first_pool",
      start: firstPair?.blockNumber ?? 0n,
    },
    { name: "mid-activity start", schema: "start_middle", start: middle },
    { name: "head start", schema: "start_head", start: head },
  );
  for (const index of indexes) {
    index.ponder = await spawnMainnetIndexer(chain, {
      schema: index.schema,
      startBlock: index.start,
    });
  }
  await waitForIndexes(indexes, { databaseUrl: chain.databaseUrl, block: head });
}, 600_000);

afterAll(async () => {
  for (const index of indexes) await index.ponder?.stop();
  // The indexes' schemas live in the chain's database, dropped with it.
  await chain?.stop();
});

describe("an index started from the mainnet-shaped chain's state", () => {
  test("starts where it was told, and says so on /v1/networks", async () => {
    const [replay, firstPool, middle, atHead] = indexes;
    // The world's first block replays everything; the others start inside its history.
    expect(replay?.start).toBe(1n);
    expect((firstPool?.start as bigint) > 1n).toBe(true);
    expect((middle?.start as bigint) > (firstPool?.start as bigint)).toBe(true);
    expect((atHead?.start as bigint) > (middle?.start as bigint)).toBe(true);
    for (const index of indexes) {
      const [network] = (await (await fetch(`${index.ponder?.url}/v1/networks`)).json()) as {
        historyFromBlock: number;
      }[];
      expect({ index: index.name, from: network?.historyFromBlock }).toEqual({
        index: index.name,
        from: Number(index.start),
      });
    }
    for (const index of indexes.slice(1)) {
      expect(index.ponder?.output()).toContain(`Chain ${chainId}: state start read `);
      expect(index.ponder?.output()).toContain(` at block ${index.start - 1n} in `);
    }
    expect(replay?.ponder?.output()).not.toContain("state start read");
    // The middle start has pools of each kind created before it and after it.
    const created = await queryRows<{ table: string; before: number; after: number }>(
      chain.databaseUrl,
      ["v2_pair", "v3_pool", "v4_pool"]
        .map(
          (table) =>
            `select '${table}' as table, count(*) filter (where created_block < $1)::int as before, count(*) filter (where created_block >= $1)::int as after from "${replay?.schema}"."${table}"`,
        )
        .join(" union all ")
        .concat(" order by 1"),
      [middle?.start],
    );
    expect(created).toEqual([
      { table: "v2_pair", before: 11, after: 2 },
      { table: "v3_pool", before: 3, after: 1 },
      { table: "v4_pool", before: 1, after: 1 },
    ]);
  });

  test("holds the same tokens, pairs, pools, ticks, V4 pools and ticks, reserves and vaults as a full replay", async () => {
    const [replay, ...starts] = indexes;
    const replayed = await expectSameState({
      databaseUrl: chain.databaseUrl,
      chainId,
      replay: replay?.schema as string,
      starts,
    });
    expect(
      Object.fromEntries(Object.entries(replayed).map(([table, rows]) => [table, rows.length])),
    ).toEqual({
      // Ten base tokens (NODEC left out), ether, 13 V2 LP tokens, the vault's share, three
      // aTokens.
      token: 28,
      v2_pair: 13,
      v3_pool: 4,
      // Three positions in each pool, one more in USDC/WETH; two of those burned.
      v3_tick: 4 * 6 + 2 - 2 * 2,
      v4_pool: 2,
      // Two positions in the ether pool, one in DAI/USDC; one of the first two removed.
      v4_tick: 3 * 2 - 2,
      aave_reserve: 3,
      vault: 1,
      // Balancer V2's known vault and factories have no code on this chain: no pool.
      balancer_v2_pool: 0,
    });
    // Interest accrued on every reserve before the middle start read it, and after.
    const [, middle] = indexes;
    const reserves = await queryRows<{ schema: string; accrued: number; moved: number }>(
      chain.databaseUrl,
      [replay?.schema, middle?.schema]
        .map(
          (schema) =>
            `select '${schema}' as schema, count(*) filter (where liquidity_index > 10::numeric ^ 27 and variable_borrow_index > 10::numeric ^ 27)::int as accrued, count(*) filter (where updated_block >= $1)::int as moved from "${schema}".aave_reserve`,
        )
        .join(" union all ")
        .concat(" order by 1"),
      [middle?.start],
    );
    expect(reserves).toEqual(
      [
        { schema: replay?.schema, accrued: 3, moved: 3 },
        { schema: middle?.schema, accrued: 3, moved: 3 },
      ].sort((a, b) => String(a.schema).localeCompare(String(b.schema))),
    );
  });

  test("answers /v1/tokens, /v1/prices and routes through the odd tokens as the full replay does", async () => {
    const t = (symbol: keyof MainnetChain["world"]["tokens"]): Address =>
      chain.world.tokens[symbol].address;
    const aaveV3 = chain.world.aaveV3;
    if (!aaveV3) throw new Error("the world has no Aave V3 market");
    const aToken = (symbol: string): Address => {
      const reserve = aaveV3.reserves.find((r) => r.symbol === symbol);
      if (!reserve) throw new Error(`no Aave V3 reserve of ${symbol}`);
      return reserve.aToken;
    };
    const addresses = [
      ...Object.values(chain.world.tokens).map((x) => x.address),
      chain.world.vault,
      ...aaveV3.reserves.map((r) => r.aToken),
    ];
    const route = (tokenIn: Address, tokenOut: Address, amountIn: bigint) =>
      routePath({ chainId, tokenIn, tokenOut, amountIn });
    const paths = [
      `/v1/tokens?chainId=${chainId}`,
      `/v1/tokens?chainId=${chainId}&type=base`,
      `/v1/tokens?chainId=${chainId}&protocolSlug=uniswap-v2`,
      `/v1/tokens?chainId=${chainId}&protocolSlug=savings-vaults`,
      `/v1/tokens?chainId=${chainId}&protocolSlug=aave-v3`,
      `/v1/prices/${chainId}?${addresses.map((a) => `addresses=${a}`).join("&")}`,
      route(t("USDC"), t("WETH"), parseUnits("50000", 6)),
      route(t("USDT"), t("WETH"), parseUnits("20000", 6)),
      route(t("WETH"), t("DAI"), parseUnits("2", 18)),
      route(NATIVE_TOKEN_ADDRESS, t("USDC"), parseUnits("3", 18)),
      route(t("DAI"), t("USDC"), parseUnits("10000", 18)),
      route(t("WETH"), t("MKR"), parseUnits("1", 18)),
      route(t("WETH"), t("NUL"), parseUnits("1", 18)),
      route(t("WETH"), t("NODEC"), parseUnits("1", 18)),
      route(t("WETH"), t("WHOLE"), parseUnits("1", 18)),
      route(t("WETH"), t("BOMB"), parseUnits("1", 18)),
      route(t("WETH"), t("FEE"), parseUnits("1", 18)),
      route(t("WETH"), t("REBASE"), parseUnits("1", 18)),
      route(t("USDC"), chain.world.vault, parseUnits("1000", 6)),
      route(t("DAI"), aToken("DAI"), parseUnits("5000", 18)),
      route(t("WETH"), aToken("USDC"), parseUnits("2", 18)),
    ];
    for (const index of indexes) {
      const { url, output } = index.ponder as PonderProcess;
      await waitForRoutingGraph({ url, output } as ServiceInstance, chainId, head);
    }
    const [replay, ...starts] = indexes;
    await expectSameAnswers({
      replay: replay?.ponder?.url as string,
      starts: starts.map((index) => ({ name: index.name, url: index.ponder?.url as string })),
      paths,
    });
  });
});
