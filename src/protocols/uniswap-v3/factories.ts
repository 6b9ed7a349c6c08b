/**
 * The Uniswap V3 factories indexed on a chain: Uniswap's own and its forks' (each a known fork of
 * engine/protocols/uniswap-v3/forks.ts). One family, one table (`v3_pool`): a pool's row names
 * the protocol whose factory created it. The pools of a fork that runs PancakeSwap's pool
 * contract (its own `Swap` event) are followed by their own Ponder sources (contracts.ts).
 */
import type { Address } from "viem";
import { type ChainSetup, type UniswapV3Fork, uniswapV3Fork } from "../../../engine/index.js";

/** One factory of the family on a chain. */
export type V3Factory = {
  protocolSlug: string;
  factory: Address;
  startBlock: number;
  poolContract: UniswapV3Fork["poolContract"];
};

/**
 * Every V3-family factory configured on `chain`, Uniswap's first.
 * @throws Error for a fork deployment whose slug is no known fork (a configuration mistake).
 */
export function v3FactoriesOf(chain: ChainSetup): V3Factory[] {
  const own: V3Factory[] = chain.uniswapV3
    ? [
        {
          protocolSlug: "uniswap-v3",
          factory: chain.uniswapV3.factory,
          startBlock: chain.uniswapV3.startBlock,
          poolContract: "uniswap",
        },
      ]
    : [];
  const forks = (chain.uniswapV3Forks ?? []).map((d): V3Factory => {
    const fork = uniswapV3Fork(d.slug);
    if (!fork) throw new Error(`Chain ${chain.id}: ${d.slug} is not a known Uniswap V3 fork.`);
    return {
      protocolSlug: fork.slug,
      factory: d.factory,
      startBlock: d.startBlock,
      poolContract: fork.poolContract,
    };
  });
  return [...own, ...forks];
}

/** Where the factories of one pool contract are on `chain`, as one Ponder factory source. */
export function v3FactoriesAt(
  chain: ChainSetup,
  poolContract: V3Factory["poolContract"],
): { factory: Address | Address[]; startBlock: number } | undefined {
  const factories = v3FactoriesOf(chain).filter((f) => f.poolContract === poolContract);
  const [first] = factories;
  if (!first) return undefined;
  return {
    factory: factories.length === 1 ? first.factory : factories.map((f) => f.factory),
    startBlock: Math.min(...factories.map((f) => f.startBlock)),
  };
}
