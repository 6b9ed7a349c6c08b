/**
 * The Uniswap V2 factories indexed on a chain: Uniswap's own and its forks' (each a known fork of
 * engine/protocols/uniswap-v2/forks.ts). One family, one table (`v2_pair`): a pair's row names
 * the protocol whose factory created it, and carries that protocol's fee.
 */
import type { Address } from "viem";
import { type ChainSetup, uniswapV2Fork } from "../../../engine/index.js";

/** One factory of the family on a chain. */
export type V2Factory = {
  protocolSlug: string;
  factory: Address;
  startBlock: number;
  /** Its pairs' swap fee in millionths of the input. */
  feePpm: number;
  /** Its pairs' LP token metadata (constants of the pair contract: no read needed). */
  lp: { name: string; symbol: string; decimals: number };
};

/** Uniswap V2 charges 0.3% on every pair, in millionths as V3 counts fees. */
const V2_FEE = 3000;

/** Compile-time constants of every canonical V2 pair's LP token. */
const UNISWAP_V2_LP = { name: "Uniswap V2", symbol: "UNI-V2", decimals: 18 };

/**
 * Every V2-family factory configured on `chain`, Uniswap's first.
 * @throws Error for a fork deployment whose slug is no known fork (a configuration mistake).
 */
export function v2FactoriesOf(chain: ChainSetup): V2Factory[] {
  const own: V2Factory[] = chain.uniswapV2
    ? [
        {
          protocolSlug: "uniswap-v2",
          factory: chain.uniswapV2.factory,
          startBlock: chain.uniswapV2.startBlock,
          feePpm: V2_FEE,
          lp: UNISWAP_V2_LP,
        },
      ]
    : [];
  const forks = (chain.uniswapV2Forks ?? []).map((d): V2Factory => {
    const fork = uniswapV2Fork(d.slug);
    if (!fork) throw new Error(`Chain ${chain.id}: ${d.slug} is not a known Uniswap V2 fork.`);
    return {
      protocolSlug: fork.slug,
      factory: d.factory,
      startBlock: d.startBlock,
      feePpm: fork.feePpm,
      lp: fork.lp,
    };
  });
  return [...own, ...forks];
}
