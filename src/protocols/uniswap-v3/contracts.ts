import { getAbiItem } from "viem";
import { PancakeV3PoolAbi } from "../../../abis/PancakeV3Pool.js";
import { UniswapV3FactoryAbi } from "../../../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../../../abis/UniswapV3Pool.js";
import type { ChainSetup } from "../../../engine/index.js";
import { factoryAndChildren } from "../factory-children.js";
import { v3FactoriesAt } from "./factories.js";

/**
 * The factories of the family (Uniswap V3's and its forks', factories.ts), and every pool they
 * create, on the chains where one is configured: factories whose pools run Uniswap's pool
 * contract under `UniswapV3Factory`/`UniswapV3Pool`, those whose pools run PancakeSwap's (the
 * same interface, but a `Swap` event with the protocol fees added) under `PancakeV3Factory`/
 * `PancakeV3Pool`. The factories' `PoolCreated` is the same event.
 */
export function uniswapV3Contracts(chains: readonly ChainSetup[]) {
  const created = getAbiItem({ abi: UniswapV3FactoryAbi, name: "PoolCreated" });
  const uniswap = factoryAndChildren({
    chains,
    at: (c) => v3FactoriesAt(c, "uniswap"),
    factoryAbi: UniswapV3FactoryAbi,
    childAbi: UniswapV3PoolAbi,
    created,
    parameter: "pool",
  });
  const pancakeswap = factoryAndChildren({
    chains,
    at: (c) => v3FactoriesAt(c, "pancakeswap"),
    factoryAbi: UniswapV3FactoryAbi,
    childAbi: PancakeV3PoolAbi,
    created,
    parameter: "pool",
  });
  return {
    UniswapV3Factory: uniswap.factory,
    UniswapV3Pool: uniswap.children,
    PancakeV3Factory: pancakeswap.factory,
    PancakeV3Pool: pancakeswap.children,
  };
}
