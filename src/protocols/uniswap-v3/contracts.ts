import { getAbiItem } from "viem";
import { UniswapV3FactoryAbi } from "../../../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../../../abis/UniswapV3Pool.js";
import type { ChainSetup } from "../../../engine/index.js";
import { factoryAndChildren } from "../factory-children.js";

/** The factory, and every pool it creates, on the chains with a V3 factory configured. */
export function uniswapV3Contracts(chains: readonly ChainSetup[]) {
  const { factory, children } = factoryAndChildren({
    chains,
    at: (c) => c.uniswapV3,
    factoryAbi: UniswapV3FactoryAbi,
    childAbi: UniswapV3PoolAbi,
    created: getAbiItem({ abi: UniswapV3FactoryAbi, name: "PoolCreated" }),
    parameter: "pool",
  });
  return { UniswapV3Factory: factory, UniswapV3Pool: children };
}
