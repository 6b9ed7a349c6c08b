import { getAbiItem } from "viem";
import { UniswapV2FactoryAbi } from "../../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../../abis/UniswapV2Pair.js";
import type { ChainSetup } from "../../../engine/index.js";
import { factoryAndChildren } from "../factory-children.js";

/** The factory, and every pair it creates, on the chains with a V2 factory configured. */
export function uniswapV2Contracts(chains: readonly ChainSetup[]) {
  const { factory, children } = factoryAndChildren({
    chains,
    at: (c) => c.uniswapV2,
    factoryAbi: UniswapV2FactoryAbi,
    childAbi: UniswapV2PairAbi,
    created: getAbiItem({ abi: UniswapV2FactoryAbi, name: "PairCreated" }),
    parameter: "pair",
  });
  return { UniswapV2Factory: factory, UniswapV2Pair: children };
}
