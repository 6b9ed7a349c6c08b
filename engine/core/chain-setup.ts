/**
 * What the engine knows of one chain: its id and name, the protocol contracts it routes
 * through and the execution layer's addresses. `chains.ts` builds these from the devnet
 * deployment and the environment; the engine only reads them.
 */
import { type Address, type Hex, parseAbi } from "viem";
import type { ExecutionAddresses, V3PoolDeployer } from "./execution-addresses.js";

export type VaultConfig = { address: Address; protocolSlug: string };

export type ChainSetup = {
  id: number;
  /** Ponder chain name (also the key of `publicClients` in the API). */
  name: string;
  title: string;
  /** One or more JSON-RPC URLs; Ponder balances requests over them. */
  rpc: string[];
  /**
   * The first block whose events the index applies to pools, reserves and vaults. Whatever
   * exists before it (created since the protocols' deployment blocks, each protocol's own
   * `startBlock`) is read as it stands at the end of the block before: a state start. At or
   * before every deployment block it is a full replay. History tables begin here.
   */
  startBlock: number;
  weth?: Address;
  uniswapV2?: { factory: Address; router02?: Address; startBlock: number };
  /**
   * Forks of Uniswap V2 on this chain, each its factory under the slug of a known fork
   * (engine/protocols/uniswap-v2/forks.ts, which holds its fee and LP token).
   */
  uniswapV2Forks?: UniswapV2ForkDeployment[];
  uniswapV3?: { factory: Address; swapRouter?: Address; quoterV2?: Address; startBlock: number };
  /**
   * Forks of Uniswap V3 on this chain, each its factory and SwapRouter under the slug of a known
   * fork (engine/protocols/uniswap-v3/forks.ts, which says which pool contract it runs).
   */
  uniswapV3Forks?: UniswapV3ForkDeployment[];
  uniswapV4?: {
    /** The singleton PoolManager: every V4 pool lives in it, named by its PoolId. */
    poolManager: Address;
    stateView?: Address;
    quoter?: Address;
    startBlock: number;
    /**
     * Hooks the operator trusts (`UNISWAP_V4_HOOKS_<id>`): pools whose hook may change a
     * swap's amounts are routed only when their hook is listed here (lowercase).
     */
    allowedHooks: Address[];
  };
  /** Aave V3: its Pool (proxy) and the contracts around it. */
  aaveV3?: {
    pool: Address;
    poolAddressesProvider: Address;
    /** Indexed for the reserves it lists and their parameters; without it no reserve is known. */
    poolConfigurator?: Address;
    dataProvider?: Address;
    startBlock: number;
  };
  /**
   * Balancer V2: its vault, and the factories whose pools are indexed and routed (weighted and
   * composable stable pools; a pool another factory registered in the vault is ignored).
   */
  balancerV2?: {
    vault: Address;
    weightedPoolFactories: Address[];
    composableStablePoolFactories: Address[];
    startBlock: number;
  };
  vaults: VaultConfig[];
  /** USD stablecoins: the reference for USD prices (price impact). */
  stablecoins: Address[];
  /** The project's execution-layer contracts, where deployed. */
  execution: Record<string, Address>;
  /**
   * A real chain without `EXECUTION_<id>`: where `npm run deploy` puts the execution layer
   * (for the chain's V3 factory, else the canonical one). Computed, never read from the chain
   * here (Ponder's config reads this file); the API uses them once it finds code there.
   */
  deterministicExecution?: ExecutionAddresses;
  /** True for the local devnet this project deploys itself. */
  devnet: boolean;
  /**
   * What a transaction pays besides its L2 gas for its data to be posted to L1, where the chain
   * charges it (`L1_FEE_<id>`): on an OP-stack chain, the `GasPriceOracle` predeploy's
   * `getL1Fee` of its calldata. Routes are valued net of it and report it.
   */
  l1Fee?: L1FeeSetup;
};

/** Where one fork of Uniswap V2 is deployed on a chain. */
export type UniswapV2ForkDeployment = { slug: string; factory: Address; startBlock: number };

/**
 * Where one fork of Uniswap V3 is deployed on a chain: its factory, the contract whose CREATE2
 * makes its pools (the factory itself, or PancakeSwap's separate pool deployer) with the pools'
 * init code hash, the SwapRouter accounts without a swap callback swap its pools through where
 * one is known (without it only the router, which swaps the pools directly, routes through
 * them), and its QuoterV2 where known.
 */
export type UniswapV3ForkDeployment = {
  slug: string;
  factory: Address;
  poolDeployer: Address;
  poolInitCodeHash: Hex;
  swapRouter?: Address;
  quoterV2?: Address;
  startBlock: number;
};

/** The SwapRouter of each fork of Uniswap V3 on `chain` that has one, by the fork's slug. */
export function forkSwapRouters(chain: ChainSetup): Record<string, Address> {
  return Object.fromEntries(
    (chain.uniswapV3Forks ?? []).flatMap((f) => (f.swapRouter ? [[f.slug, f.swapRouter]] : [])),
  );
}

/**
 * The pool deployer of each fork of Uniswap V3 on `chain`, by the fork's slug: the router
 * executor built for this chain pays the pools at its CREATE2 addresses from its swap callback
 * ({@link v3ForkPoolDeployers}). Without the forks `untrusted` names: those the chain's deployed
 * executor was not built with.
 */
export function forkPoolDeployers(
  chain: ChainSetup,
  untrusted: readonly string[] = [],
): Record<string, Address> {
  return Object.fromEntries(
    (chain.uniswapV3Forks ?? [])
      .filter((f) => !untrusted.includes(f.slug))
      .map((f) => [f.slug, f.poolDeployer]),
  );
}

/** What the router executor of `forks` trusts: each fork's pool deployer, in their order. */
export function v3ForkPoolDeployers(
  forks: readonly Pick<UniswapV3ForkDeployment, "poolDeployer" | "poolInitCodeHash">[] = [],
): V3PoolDeployer[] {
  return forks.map((f) => ({ deployer: f.poolDeployer, initCodeHash: f.poolInitCodeHash }));
}

/** How a chain charges for its transactions' L1 data. */
export type L1FeeSetup = { kind: "op-stack"; gasPriceOracle: Address };

/** Multicall3's address on every chain it is deployed to (the devnets place it there too). */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * Multicall3's `tryAggregate`: many calls, each answered or failed on its own (`payable` in the
 * contract; declared `view` here, as it is only ever read with `eth_call`).
 */
export const multicall3TryAggregateAbi = parseAbi([
  "struct Call { address target; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function tryAggregate(bool requireSuccess, Call[] calls) view returns (Result[] returnData)",
]);

/** The block a protocol deployed at `deployedAt` has its pools' events applied from. */
export function eventsFrom(chain: ChainSetup, deployedAt: number): number {
  return Math.max(chain.startBlock, deployedAt);
}

/**
 * The block at whose end a state start reads every pool, reserve and vault that exists, or
 * undefined when the index replays every protocol from its deployment (no pool predates
 * `startBlock`).
 */
export function stateReadBlock(chain: ChainSetup): number | undefined {
  const deployed = [
    chain.uniswapV2,
    ...(chain.uniswapV2Forks ?? []),
    chain.uniswapV3,
    ...(chain.uniswapV3Forks ?? []),
    chain.uniswapV4,
    chain.aaveV3,
    chain.balancerV2,
  ].flatMap((p) => (p ? [p.startBlock] : []));
  const first = Math.min(...deployed);
  // START_BLOCK 1 (or 0) replays everything: nothing exists at the end of the genesis block.
  return deployed.length > 0 && first < chain.startBlock && chain.startBlock > 1
    ? chain.startBlock - 1
    : undefined;
}
