import { createConfig, factory } from "ponder";
import { erc4626Abi, getAbiItem } from "viem";
import { UniswapV2FactoryAbi } from "./abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "./abis/UniswapV2Pair.js";
import { UniswapV3FactoryAbi } from "./abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "./abis/UniswapV3Pool.js";
import { indexedChains } from "./chains.js";
import { readConfig } from "./config.js";
import type { ChainSetup } from "./engine/chain-setup.js";

const chains = indexedChains();
if (chains.length === 0) {
  throw new Error(
    "No chain to index: run `npm start` (deploys the devnet) or set PONDER_RPC_URL_<chainId>; see README.md",
  );
}

/**
 * Vault share prices move without events (yield): from the head at startup on, re-read vault
 * totals this often (blocks). One `eth_call` per refresh for all vaults (src/erc4626.ts).
 */
const VAULT_REFRESH_BLOCKS = readConfig().vaultRefreshBlocks;

function perChain<T>(select: (chain: ChainSetup) => T | undefined): Record<string, T> {
  const out: Record<string, T> = {};
  for (const chain of chains) {
    const value = select(chain);
    if (value !== undefined) out[chain.name] = value;
  }
  return out;
}

export default createConfig({
  database: process.env.DATABASE_URL
    ? { kind: "postgres", connectionString: process.env.DATABASE_URL }
    : { kind: "pglite", directory: process.env.PONDER_PGLITE_DIR ?? ".ponder/pglite" },
  ordering: "multichain",
  chains: perChain((c) => ({
    id: c.id,
    rpc: c.rpc,
    // A devnet is restarted as a new chain with the same id: never reuse cached RPC answers.
    disableCache: c.devnet,
    pollingInterval: c.devnet ? 200 : 1_000,
  })),
  contracts: {
    UniswapV2Factory: {
      abi: UniswapV2FactoryAbi,
      chain: perChain((c) =>
        c.uniswapV2
          ? { address: c.uniswapV2.factory, startBlock: c.uniswapV2.startBlock }
          : undefined,
      ),
    },
    UniswapV2Pair: {
      abi: UniswapV2PairAbi,
      chain: perChain((c) =>
        c.uniswapV2
          ? {
              address: factory({
                address: c.uniswapV2.factory,
                event: getAbiItem({ abi: UniswapV2FactoryAbi, name: "PairCreated" }),
                parameter: "pair",
              }),
              startBlock: c.uniswapV2.startBlock,
            }
          : undefined,
      ),
    },
    UniswapV3Factory: {
      abi: UniswapV3FactoryAbi,
      chain: perChain((c) =>
        c.uniswapV3
          ? { address: c.uniswapV3.factory, startBlock: c.uniswapV3.startBlock }
          : undefined,
      ),
    },
    UniswapV3Pool: {
      abi: UniswapV3PoolAbi,
      chain: perChain((c) =>
        c.uniswapV3
          ? {
              address: factory({
                address: c.uniswapV3.factory,
                event: getAbiItem({ abi: UniswapV3FactoryAbi, name: "PoolCreated" }),
                parameter: "pool",
              }),
              startBlock: c.uniswapV3.startBlock,
            }
          : undefined,
      ),
    },
    ERC4626Vault: {
      abi: erc4626Abi,
      chain: perChain((c) =>
        c.vaults.length > 0
          ? { address: c.vaults.map((v) => v.address), startBlock: c.startBlock }
          : undefined,
      ),
    },
  },
  blocks: {
    VaultRefresh: {
      // Not during a historical backfill: the vault handlers add event amounts there, and the
      // first refresh, at the block that was the head when indexing started, adds the yield.
      chain: perChain((c) =>
        c.vaults.length > 0 ? { startBlock: "latest", interval: VAULT_REFRESH_BLOCKS } : undefined,
      ),
    },
  },
});
