import { createConfig } from "ponder";
import { indexedChains, startFollowsHead } from "./chains.js";
import { readConfig } from "./config.js";
import { aaveV3Contracts } from "./src/protocols/aave-v3/contracts.js";
import { balancerV2Blocks, balancerV2Contracts } from "./src/protocols/balancer-v2/contracts.js";
import { erc4626Blocks, erc4626Contracts } from "./src/protocols/erc4626/contracts.js";
import { perChain } from "./src/protocols/per-chain.js";
import { uniswapV2Contracts } from "./src/protocols/uniswap-v2/contracts.js";
import { uniswapV3Contracts } from "./src/protocols/uniswap-v3/contracts.js";
import { uniswapV4Contracts } from "./src/protocols/uniswap-v4/contracts.js";
import { stateStartBlocks } from "./src/state-start/contracts.js";
import { pinHeadStarts } from "./start-blocks.js";

const settings = readConfig();
// A chain whose index starts at the head pins that head the first time (start-blocks.ts).
await pinHeadStarts(
  process.env,
  indexedChains().map((c) => ({
    id: c.id,
    rpc: c.rpc[0] ?? "",
    followsHead: startFollowsHead(process.env, c),
  })),
);
const chains = indexedChains();
if (chains.length === 0) {
  throw new Error(
    "No chain to index: run `npm start` (deploys the devnet) or set PONDER_RPC_URL_<chainId>; see README.md",
  );
}

/**
 * The chains, and each protocol's contracts (`src/protocols/<slug>/contracts.ts`: a protocol
 * indexes only where its contracts are configured for the chain, see chains.ts).
 */
export default createConfig({
  database: settings.database.url
    ? { kind: "postgres", connectionString: settings.database.url }
    : { kind: "pglite", directory: settings.database.pgliteDir ?? ".ponder/pglite" },
  ordering: "multichain",
  chains: perChain(chains, (c) => ({
    id: c.id,
    rpc: c.rpc,
    // A devnet is restarted as a new chain with the same id: never reuse cached RPC answers.
    disableCache: c.devnet,
    pollingInterval: c.devnet ? 200 : 1_000,
  })),
  contracts: {
    ...uniswapV2Contracts(chains),
    ...uniswapV3Contracts(chains),
    ...uniswapV4Contracts(chains),
    ...erc4626Contracts(chains),
    ...aaveV3Contracts(chains),
    ...balancerV2Contracts(chains),
  },
  blocks: {
    ...stateStartBlocks(chains),
    ...erc4626Blocks(chains, settings.vaultRefreshBlocks),
    ...balancerV2Blocks(chains, settings.vaultRefreshBlocks),
  },
});
