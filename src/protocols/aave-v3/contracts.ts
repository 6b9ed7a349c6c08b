import { AaveV3PoolAbi } from "../../../abis/AaveV3Pool.js";
import { AaveV3PoolConfiguratorAbi } from "../../../abis/AaveV3PoolConfigurator.js";
import { type ChainSetup, eventsFrom } from "../../../engine/index.js";
import { perChain } from "../per-chain.js";

/**
 * The Aave V3 Pool (reserve state, supplies, borrows…) and its PoolConfigurator (reserves
 * listed, their risk parameters), on the chains with Aave V3 configured, both from the chain's
 * start: the reserves listed before it are read with their state from the pool's own list
 * (`getReservesList`, src/state-start/).
 */
export function aaveV3Contracts(chains: readonly ChainSetup[]) {
  return {
    AaveV3Pool: {
      abi: AaveV3PoolAbi,
      chain: perChain(chains, (c) => {
        const aave = c.aaveV3;
        return aave && { address: aave.pool, startBlock: eventsFrom(c, aave.startBlock) };
      }),
    },
    AaveV3PoolConfigurator: {
      abi: AaveV3PoolConfiguratorAbi,
      chain: perChain(chains, (c) => {
        const aave = c.aaveV3;
        return (
          aave?.poolConfigurator && {
            address: aave.poolConfigurator,
            startBlock: eventsFrom(c, aave.startBlock),
          }
        );
      }),
    },
  };
}
