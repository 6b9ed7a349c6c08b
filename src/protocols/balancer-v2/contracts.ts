import { factory } from "ponder";
import { getAbiItem } from "viem";
import { BalancerV2ComposableStablePoolAbi } from "../../../abis/BalancerV2ComposableStablePool.js";
import { BalancerV2VaultAbi } from "../../../abis/BalancerV2Vault.js";
import { BalancerV2WeightedPoolAbi } from "../../../abis/BalancerV2WeightedPool.js";
import { BalancerV2WeightedPoolFactoryAbi } from "../../../abis/BalancerV2WeightedPoolFactory.js";
import { type ChainSetup, eventsFrom } from "../../../engine/index.js";
import { perChain } from "../per-chain.js";

// The composable stable pool factory's `PoolCreated` is the weighted one's (`BasePoolFactory`).
const poolCreated = getAbiItem({ abi: BalancerV2WeightedPoolFactoryAbi, name: "PoolCreated" });

type Factories = "weightedPoolFactories" | "composableStablePoolFactories";

/**
 * Balancer V2 on the chains whose setup names a vault: the vault's events (for every pool; the
 * handlers keep those of indexed pools), the known factories, and the pools they create.
 *
 * Ponder discovers the pools from the factories' logs from the vault's deployment, so it follows
 * the events of every pool; the events themselves are handled from the chain's start
 * (`eventsFrom`): the pools that exist before it are read as state (`state-start.ts`).
 */
export function balancerV2Contracts(chains: readonly ChainSetup[]) {
  const factories = (at: Factories) =>
    perChain(chains, (c) =>
      c.balancerV2 && c.balancerV2[at].length > 0
        ? { address: c.balancerV2[at], startBlock: eventsFrom(c, c.balancerV2.startBlock) }
        : undefined,
    );
  const children = (at: Factories) =>
    perChain(chains, (c) =>
      c.balancerV2 && c.balancerV2[at].length > 0
        ? {
            address: factory({
              address: c.balancerV2[at],
              event: poolCreated,
              parameter: "pool",
              startBlock: c.balancerV2.startBlock,
            }),
            startBlock: eventsFrom(c, c.balancerV2.startBlock),
          }
        : undefined,
    );
  return {
    BalancerV2Vault: {
      abi: BalancerV2VaultAbi,
      chain: perChain(chains, (c) =>
        c.balancerV2
          ? { address: c.balancerV2.vault, startBlock: eventsFrom(c, c.balancerV2.startBlock) }
          : undefined,
      ),
    },
    BalancerV2WeightedPoolFactory: {
      abi: BalancerV2WeightedPoolFactoryAbi,
      chain: factories("weightedPoolFactories"),
    },
    BalancerV2ComposableStablePoolFactory: {
      abi: BalancerV2WeightedPoolFactoryAbi,
      chain: factories("composableStablePoolFactories"),
    },
    BalancerV2WeightedPool: {
      abi: BalancerV2WeightedPoolAbi,
      chain: children("weightedPoolFactories"),
    },
    BalancerV2ComposableStablePool: {
      abi: BalancerV2ComposableStablePoolAbi,
      chain: children("composableStablePoolFactories"),
    },
  } as const;
}

/**
 * Rates move without events (a rate provider's `getRate()`, a cache that expires): from the
 * head at startup on, every `refreshBlocks` blocks, the pools with rate providers are read again.
 */
export function balancerV2Blocks(chains: readonly ChainSetup[], refreshBlocks: number) {
  return {
    BalancerV2RateRefresh: {
      chain: perChain(chains, (c) =>
        c.balancerV2 ? { startBlock: "latest" as const, interval: refreshBlocks } : undefined,
      ),
    },
  };
}
