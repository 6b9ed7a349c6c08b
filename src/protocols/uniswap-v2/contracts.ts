import { getAbiItem, zeroAddress } from "viem";
import { UniswapV2FactoryAbi } from "../../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../../abis/UniswapV2Pair.js";
import type { ChainSetup } from "../../../engine/index.js";
import { factoryAndChildren } from "../factory-children.js";
import { v2FactoriesOf } from "./factories.js";

/** The pair's LP token `Transfer`, alone: what the LP supply follows. */
const lpTransferAbi = [getAbiItem({ abi: UniswapV2PairAbi, name: "Transfer" })] as const;

/**
 * The factories of the family (Uniswap V2's and its forks', factories.ts), and every pair they
 * create, on the chains where one is configured: the forks' pairs are the same contract, with
 * the same events.
 *
 * The LP supply changes only with transfers from the zero address (mints) and to it (burns), so
 * the pairs' `Transfer`s are asked for with that address as a topic, one source each (Ponder
 * 0.16 takes one filter per event and source): the node sends no transfer between holders. Above
 * `factoryAddressCountThreshold` (1,000) pairs Ponder stops naming them in `eth_getLogs` and asks
 * for the topics alone; with the zero-address topic that is every token's mints and burns, not
 * every ERC-20 transfer on the chain.
 */
export function uniswapV2Contracts(chains: readonly ChainSetup[]) {
  const { factory, children } = factoryAndChildren({
    chains,
    at: (c) => {
      const factories = v2FactoriesOf(c);
      const [first] = factories;
      if (!first) return undefined;
      return {
        factory: factories.length === 1 ? first.factory : factories.map((f) => f.factory),
        startBlock: Math.min(...factories.map((f) => f.startBlock)),
      };
    },
    factoryAbi: UniswapV2FactoryAbi,
    childAbi: UniswapV2PairAbi,
    created: getAbiItem({ abi: UniswapV2FactoryAbi, name: "PairCreated" }),
    parameter: "pair",
  });
  return {
    UniswapV2Factory: factory,
    UniswapV2Pair: children,
    UniswapV2LpMint: {
      ...children,
      abi: lpTransferAbi,
      filter: { event: "Transfer", args: { from: zeroAddress } },
    },
    UniswapV2LpBurn: {
      ...children,
      abi: lpTransferAbi,
      filter: { event: "Transfer", args: { to: zeroAddress } },
    },
  } as const;
}
