/**
 * The state start (`START_BLOCK_<id>`, chains.ts): at the end of the block before the start,
 * every pool (Uniswap V2/V3/V4, Balancer V2), reserve and vault that exists is found (pools from
 * their creators' logs, discover.ts) and read from the chain — in batched reads pinned to that
 * block — and written as a replay of every event before it would have left it. From the start
 * block on, their events keep it current.
 */
import { ponder } from "ponder:registry";
import { indexedChains } from "../../chains.js";
import { type Address, NATIVE_TOKEN_ADDRESS } from "../../engine/index.js";
import { seedPoolMarkets } from "../analytics/record.js";
import { readAaveState } from "../protocols/aave-v3/state.js";
import { readBalancerV2State } from "../protocols/balancer-v2/state-start.js";
import { readVaultState } from "../protocols/erc4626/totals.js";
import { v2FactoriesOf } from "../protocols/uniswap-v2/factories.js";
import { readV2FamilyState } from "../protocols/uniswap-v2/state.js";
import { v3FactoriesOf } from "../protocols/uniswap-v3/factories.js";
import { readV3State } from "../protocols/uniswap-v3/state.js";
import { readV4State } from "../protocols/uniswap-v4/state.js";
import { ensureTokens } from "../tokens/tokens.js";
import { readGroups } from "./groups.js";
import { type StateSeed, stateReader } from "./reads.js";
import { releaseIndexingCache } from "./release.js";

const chains = new Map(indexedChains().map((c) => [c.id, c]));

ponder.on("StateStart:block", async ({ event, context }) => {
  const chain = chains.get(context.chain.id);
  if (!chain) return;
  const started = Date.now();
  const block = event.block.number;
  const reader = await stateReader(context, block);
  const { uniswapV4, balancerV2 } = chain;
  const [v2, v3, v4, balancerPools] = await Promise.all([
    readV2FamilyState(context, reader, v2FactoriesOf(chain)),
    readV3State(context, reader, v3FactoriesOf(chain)),
    uniswapV4 ? readV4State(context, reader, uniswapV4) : [],
    balancerV2 ? readBalancerV2State(context, reader, balancerV2) : [],
  ]);
  const pools: StateSeed = [...v2, ...v3, ...v4];
  // Each token as first seen: in the earliest pool that names it. (Balancer V2's pools have no
  // market rows: their events keep none.)
  const named = [
    ...pools.map((p) => ({ createdBlock: p.createdBlock, tokens: [p.token0, p.token1] })),
    ...balancerPools,
  ];
  const firstSeen = new Map<string, bigint>();
  for (const pool of named) {
    for (const address of pool.tokens) {
      if (address === NATIVE_TOKEN_ADDRESS) continue;
      const seen = firstSeen.get(address);
      if (seen === undefined || pool.createdBlock < seen) firstSeen.set(address, pool.createdBlock);
    }
  }
  // Tokens and market rows group by group too, Ponder's cache emptied after each (reads.ts).
  const tokens = [...firstSeen].map(([address, seenAt]) => ({
    address: address as Address,
    seenAt,
  }));
  for (const group of readGroups(tokens, () => 1)) {
    await ensureTokens(context, group, block);
    await releaseIndexingCache(context);
  }
  for (const group of readGroups(pools, () => 1)) {
    await seedPoolMarkets(context, group, block);
    await releaseIndexingCache(context);
  }
  if (chain.aaveV3) await readAaveState(context, block, chain.aaveV3.startBlock);
  await readVaultState(context, block);
  console.info(
    `Chain ${chain.id}: state start read ${named.length} pools and ${firstSeen.size} tokens at block ${block} in ${((Date.now() - started) / 1000).toFixed(1)} s; events apply from block ${chain.startBlock}.`,
  );
});
