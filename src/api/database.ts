/**
 * The database the API reads: Ponder's read-only connection to the indexed tables (`ponder:api`
 * in the service; any drizzle database over the same tables elsewhere, e.g. a test's).
 */
import type { db } from "ponder:api";
import type { ChainSetup, RoutingGraph } from "../../engine/index.js";

export type ApiDatabase = typeof db;

/** The routing graphs the API answers from (src/api/snapshot/snapshot.ts keeps them current). */
export type SnapshotSource = {
  /** The chain's routing graph; undefined while it is not loaded. */
  routingGraph(chainId: number): Promise<RoutingGraph | undefined>;
  /** Identifies the indexed state the graphs reflect; undefined before the first load. */
  snapshotVersion(): string | undefined;
};

/** What the endpoints read: the tables, the served chains and the routing graphs. */
export type ApiSources = {
  db: ApiDatabase;
  chains: readonly ChainSetup[];
  snapshots: SnapshotSource;
};
