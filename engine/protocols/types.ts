import type { Address, Hex } from "viem";
import type { ActionSpec } from "../bundle/actions/types.js";
import type { ChainSetup } from "../core/chain-setup.js";
import type { Pool } from "../core/types.js";
import type { PoolKind } from "./pool-kind.js";

/** A bundle method of a protocol, as `/v1/standards` lists it (SPEC 2.3). */
export type ProtocolMethod = {
  method: string;
  name: string;
  /** The contract functions the method calls. */
  functionNames: string[];
  /** Input name → what to pass. */
  inputs: Record<string, string>;
  /** Output name → what the action yields for later `useOutputOfCallAt` references. */
  outputs: Record<string, string>;
};

/** Project metadata for `/v1/projects` (SPEC 2.4). */
export type ProjectInfo = {
  title: string;
  description: string;
  url: string;
  twitter: string;
  category: string;
};

/**
 * A read made after the bundle's simulated transaction, and what its answer means: a message
 * when the bundle must be refused (the account left unsafe), else undefined.
 */
export type AccountCheck = {
  to: Address;
  data: Hex;
  /** Why the bundle is refused, from the call's return data; undefined when it is fine. */
  refuse: (returnData: Hex) => string | undefined;
};

/** Which indexed table holds a protocol's pools, for `poolCount`. */
export type PoolSource =
  | "v2Pair"
  | "v3Pool"
  | "v4Pool"
  | "vault"
  | "aaveReserve"
  | "balancerV2Pool"
  | "wrappedNative";

/** One protocol: everything the service knows about it, in one folder under `engine/protocols/`. */
export type Protocol = {
  slug: string;
  url: string;
  /** Absent for the built-in `core` protocol, which is no project. */
  project?: ProjectInfo;
  forks: { slug: string; url: string }[];
  methods: ProtocolMethod[];
  poolSource?: PoolSource;
  /** Whether the protocol is usable on an indexed chain. */
  supports: (chain: ChainSetup) => boolean;
  /**
   * The kind of pool routes go through (its edges, quotes, gas and program steps). Absent for
   * protocols that are not routed through.
   */
  poolKind?: AnyPoolKind;
  /** Its bundle actions, by method: the same set as `methods` (a test holds them to it). */
  actions?: Record<string, ActionSpec>;
  /**
   * Reads to make after a bundle's simulated transaction, for the bundle's actions of this
   * protocol (`args` as understood) run by `account`: each may refuse the bundle (422).
   */
  accountChecks?: (
    actions: readonly { action: string; args: Record<string, unknown> }[],
    account: Address,
  ) => AccountCheck[];
};

/** The pool kind of one of the routing graph's pool types. */
export type AnyPoolKind = {
  [K in Pool["kind"]]: PoolKind<Extract<Pool, { kind: K }>>;
}[Pool["kind"]];

/**
 * What every fork of a protocol family has of its own, whichever the family: its slug and its
 * project (`/v1/projects`). The families' fork tables (uniswap-v2/forks.ts, uniswap-v3/forks.ts)
 * add what differs between their forks.
 */
export type ForkIdentity = {
  slug: string;
  url: string;
  title: string;
  description: string;
  twitter: string;
};

/** The protocol fields a fork's identity fills: a DEX project, with no forks of its own. */
export function forkProtocolIdentity(
  fork: ForkIdentity,
): Pick<Protocol, "slug" | "url" | "project" | "forks"> {
  return {
    slug: fork.slug,
    url: fork.url,
    project: {
      title: fork.title,
      description: fork.description,
      url: fork.url,
      twitter: fork.twitter,
      category: "Dexes",
    },
    forks: [],
  };
}
