import { factory } from "ponder";
import type { Abi, AbiEvent, Address } from "viem";
import { type ChainSetup, eventsFrom } from "../../engine/index.js";
import { perChain } from "./per-chain.js";

/**
 * Where a factory is deployed on a chain (or several of one family, whose children share an
 * ABI), and the block its events start at (the earliest of them).
 */
type FactoryAt = { factory: Address | Address[]; startBlock: number };

/**
 * A factory contract and every contract it creates (Ponder's `factory()` address), on the
 * chains where `at` finds the factory: the two contract entries of a Uniswap-style protocol.
 * Ponder discovers the children from the factory's deployment (its creation logs alone, a few
 * hundred thousand small logs on mainnet, no block fetched), so the events of every child are
 * followed; the factory's and the children's own events are handled only from the chain's
 * start (`eventsFrom`): what existed before it is read as state (src/state-start/).
 */
export function factoryAndChildren<
  FactoryAbi extends Abi,
  ChildAbi extends Abi,
  Created extends AbiEvent,
>(params: {
  chains: readonly ChainSetup[];
  at: (chain: ChainSetup) => FactoryAt | undefined;
  factoryAbi: FactoryAbi;
  childAbi: ChildAbi;
  /** The factory's event that announces a child, and the argument holding its address. */
  created: Created;
  parameter: NonNullable<Parameters<typeof factory<Created>>[0]["parameter"]>;
}) {
  const { chains, at } = params;
  return {
    factory: {
      abi: params.factoryAbi,
      chain: perChain(chains, (c) => {
        const where = at(c);
        return where && { address: where.factory, startBlock: eventsFrom(c, where.startBlock) };
      }),
    },
    children: {
      abi: params.childAbi,
      chain: perChain(chains, (c) => {
        const where = at(c);
        return (
          where && {
            address: factory({
              address: where.factory,
              event: params.created,
              parameter: params.parameter,
              startBlock: where.startBlock,
            }),
            startBlock: eventsFrom(c, where.startBlock),
          }
        );
      }),
    },
  };
}
