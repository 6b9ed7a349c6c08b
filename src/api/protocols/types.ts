import type { Address, ChainSetup, Protocol, RoutingGraph } from "../../../engine/index.js";
import type { ApiDatabase } from "../database.js";
import type { AddressInterner } from "../snapshot/address-interner.js";
import type { Reader } from "../snapshot/reader.js";

/** One refresh of a chain's routing graph, as a source applies it. */
export type PoolLoad = {
  reader: Reader;
  chainId: number;
  /** The chain's configuration (the V4 hook allow-list, say). */
  chain: ChainSetup;
  /** Apply the rows updated after this block; -1: every row of the chain (a full load). */
  since: bigint;
  /** The timestamp of the indexed block the graph will stand at (interest accrues to it). */
  timestamp: bigint;
  /**
   * Keys of the rows a reorg may have reverted, by undo log: the source re-reads them and
   * removes the pools whose row is gone.
   */
  reread(undoLog: string): ReadonlySet<Address>;
  graph: RoutingGraph;
  addresses: AddressInterner;
};

/**
 * How the API reads back what the indexer wrote for one pool source (`Protocol.poolSource`):
 * the routing snapshot's loader and the `/v1/projects` pool count. The indexing half (tables,
 * contracts, handlers) is in `src/protocols/<slug>/`.
 */
export type IndexedSource = {
  /**
   * The tables the source's pools come from, by the name of their undo log (`_reorg__<name>`),
   * with the column that holds the pool's address: the snapshot follows these logs for reorgs.
   */
  undoLogs: Readonly<Record<string, string>>;
  /** Puts the pools no table holds (fixed by the chain's configuration) in a new graph. */
  seed?(graph: RoutingGraph, chain: ChainSetup): void;
  /** Applies the rows `load` names to its graph. */
  load?(load: PoolLoad): Promise<void>;
  /** The protocol's pools in the index (`/v1/projects`). */
  poolCount(db: ApiDatabase, protocol: Protocol, chains: readonly ChainSetup[]): Promise<number>;
};
