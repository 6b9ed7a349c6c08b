/**
 * The chains this service indexes and the contract addresses it uses on each: the devnet world
 * from its deployment file, and real chains enabled with `PONDER_RPC_URL_<chainId>` (the known ones,
 * known-chains.ts, with their canonical contracts; any other with what its variables name).
 * `ponder.config.ts`, the indexing handlers and the API all read this one list.
 */
import { type Address, getAddress, type Hex, isAddress } from "viem";
import { readConfig } from "./config.js";
import { deploymentPath, readDeployment } from "./deployment-file.js";
import type { ChainSetup, L1FeeSetup, VaultConfig } from "./engine/index.js";
import {
  CANONICAL_UNISWAP_V3_FACTORY,
  deterministicExecutionAddresses,
  OP_STACK_GAS_PRICE_ORACLE,
  UNISWAP_V2_FORKS,
  UNISWAP_V3_FORKS,
  uniswapV3Fork,
  v3ForkPoolDeployers,
} from "./engine/index.js";
import { KNOWN_CHAINS } from "./known-chains.js";
import { pinnedStart, startSetting } from "./start-blocks.js";

/** Parses `VAULTS_<id>`: comma-separated `slug:0xaddress` entries. */
export function parseVaultList(value: string | undefined, variable: string): VaultConfig[] {
  if (!value?.trim()) return [];
  return value.split(",").map((entry) => {
    const [slug, address] = entry.trim().split(":");
    if (!slug || !address || !isAddress(address, { strict: false })) {
      throw new Error(`${variable}: expected "slug:0xaddress" entries, got "${entry.trim()}"`);
    }
    return { protocolSlug: slug, address: getAddress(address) };
  });
}

const DEVNET_STABLECOINS = ["USDC", "USDT", "DAI"];

function parseAddressList(value: string | undefined, variable: string): Address[] | undefined {
  if (!value?.trim()) return undefined;
  return value.split(",").map((entry) => {
    if (!isAddress(entry.trim(), { strict: false })) {
      throw new Error(`${variable}: expected comma-separated addresses, got "${entry.trim()}"`);
    }
    return getAddress(entry.trim());
  });
}

/**
 * Parses `UNISWAP_V4_HOOKS_<id>`: comma-separated hook addresses, lowercase (how the routing
 * compares them).
 */
export function parseHookList(value: string | undefined, variable: string): Address[] {
  return (parseAddressList(value, variable) ?? []).map((a) => a.toLowerCase() as Address);
}

/** Parses `EXECUTION_<id>`: comma-separated `name:0xaddress` (router, executor, …). */
function parseExecution(value: string | undefined, variable: string): Record<string, Address> {
  const out: Record<string, Address> = {};
  if (!value?.trim()) return out;
  for (const entry of value.split(",")) {
    const [name, address] = entry.trim().split(":");
    if (!name || !address || !isAddress(address, { strict: false })) {
      throw new Error(`${variable}: expected "name:0xaddress" entries, got "${entry.trim()}"`);
    }
    out[name] = getAddress(address);
  }
  return out;
}

/**
 * Parses `L1_FEE_<id>`: `op-stack` (the chain's `GasPriceOracle` predeploy prices its L1 data
 * fee) or `none`; unset, the known chain's own setting.
 */
export function parseL1Fee(
  value: string | undefined,
  variable: string,
  known: L1FeeSetup | undefined,
): L1FeeSetup | undefined {
  const setting = value?.trim();
  if (!setting) return known;
  if (setting === "none") return undefined;
  if (setting === "op-stack")
    return { kind: "op-stack", gasPriceOracle: OP_STACK_GAS_PRICE_ORACLE };
  throw new Error(`${variable}: expected "op-stack" or "none", got "${setting}"`);
}

/** The `l1Fee` field when the chain has one (absent otherwise, as the chain setup's other options). */
function withL1Fee(l1Fee: L1FeeSetup | undefined): { l1Fee?: L1FeeSetup } {
  return l1Fee ? { l1Fee } : {};
}

/**
 * `UNISWAP_V2_FORKS_<id>`: forks of Uniswap V2 on a real chain, comma-separated
 * `<slug>:<factory>` or `<slug>:<factory>:<deployment block>`, each slug a known fork
 * (engine/protocols/uniswap-v2/forks.ts, which holds its fee). Without a block its pairs are
 * discovered from genesis: slower, never incomplete.
 */
export function parseV2Forks(
  value: string | undefined,
  variable: string,
): { slug: string; factory: Address; deployedAt: number | undefined }[] {
  return parseForkList(value, variable, {
    family: "Uniswap V2",
    known: UNISWAP_V2_FORKS.map((f) => f.slug),
    addresses: ["factory"],
  }).map(({ slug, addresses: [factory], deployedAt }) => ({
    slug,
    factory: factory as Address,
    deployedAt,
  }));
}

/**
 * `UNISWAP_V3_FORKS_<id>`: comma-separated `<slug>:<factory>:<SwapRouter>[:<deployment block>]`,
 * each slug a known fork of Uniswap V3 (engine/protocols/uniswap-v3/forks.ts); a fork whose
 * factory creates pools through a separate pool deployer (`pancakeswap-v3`) names it after the
 * SwapRouter: `<slug>:<factory>:<SwapRouter>:<pool deployer>[:<deployment block>]`. Under the
 * router its pools are called directly (the executor pays the CREATE2 addresses of the pool
 * deployer and the fork's init code hash); other accounts swap them through that SwapRouter.
 */
export function parseV3Forks(
  value: string | undefined,
  variable: string,
): {
  slug: string;
  factory: Address;
  swapRouter: Address | undefined;
  poolDeployer: Address;
  poolInitCodeHash: Hex;
  deployedAt: number | undefined;
}[] {
  const addresses = (slug: string) =>
    uniswapV3Fork(slug)?.separatePoolDeployer
      ? ["factory", "SwapRouter", "pool deployer"]
      : ["factory", "SwapRouter"];
  return parseForkList(value, variable, {
    family: "Uniswap V3",
    known: UNISWAP_V3_FORKS.map((f) => f.slug),
    addresses,
  }).map(({ slug, addresses: [factory, swapRouter, poolDeployer], deployedAt }) => ({
    slug,
    factory: factory as Address,
    swapRouter: swapRouter as Address,
    poolDeployer: (poolDeployer ?? factory) as Address,
    poolInitCodeHash: v3ForkInitCodeHash(slug),
    deployedAt,
  }));
}

/**
 * The forks of one family on chain `id`: the known chain's (known-chains.ts), then those
 * `variable` names, each replacing a known one of its slug; `none` turns the known ones off.
 */
function forksOn<T extends { slug: string }>(
  known: readonly T[],
  value: string | undefined,
  parse: (value: string | undefined) => T[],
): T[] {
  if (value?.trim() === "none") return [];
  const configured = parse(value);
  const named = new Set(configured.map((f) => f.slug));
  return [...known.filter((f) => !named.has(f.slug)), ...configured];
}

/** The forks of Uniswap V2 on chain `id`: the known chain's and `UNISWAP_V2_FORKS_<id>`'s. */
export function v2ForksOf(id: number, env: NodeJS.ProcessEnv): ReturnType<typeof parseV2Forks> {
  const variable = `UNISWAP_V2_FORKS_${id}`;
  const known = (KNOWN_CHAINS[id]?.uniswapV2Forks ?? []).map((f) => ({
    slug: f.slug,
    factory: f.factory,
    deployedAt: f.startBlock || undefined,
  }));
  return forksOn(known, env[variable], (value) => parseV2Forks(value, variable));
}

/**
 * The forks of Uniswap V3 on chain `id`: the known chain's and `UNISWAP_V3_FORKS_<id>`'s (what
 * the service indexes and routes, and whose pool deployers `npm run deploy`'s executor trusts).
 */
export function v3ForksOf(id: number, env: NodeJS.ProcessEnv): ReturnType<typeof parseV3Forks> {
  const variable = `UNISWAP_V3_FORKS_${id}`;
  const known = (KNOWN_CHAINS[id]?.uniswapV3Forks ?? []).map((f) => ({
    slug: f.slug,
    factory: f.factory,
    swapRouter: f.swapRouter,
    poolDeployer: f.poolDeployer,
    poolInitCodeHash: f.poolInitCodeHash,
    deployedAt: f.startBlock || undefined,
  }));
  return forksOn(known, env[variable], (value) => parseV3Forks(value, variable));
}

/** The pool init code hash of a known Uniswap V3 fork. */
function v3ForkInitCodeHash(slug: string): Hex {
  const fork = uniswapV3Fork(slug);
  if (!fork) throw new Error(`${slug} is not a known Uniswap V3 fork`);
  return fork.poolInitCodeHash;
}

/**
 * A fork list: comma-separated `<slug>:<address>…[:<deployment block>]`, the addresses named by
 * `addresses` (for the entry's slug), each slug one of `known`.
 * @throws Error naming the variable for an unknown slug or a malformed entry.
 */
function parseForkList(
  value: string | undefined,
  variable: string,
  shape: { family: string; known: string[]; addresses: string[] | ((slug: string) => string[]) },
): { slug: string; addresses: Address[]; deployedAt: number | undefined }[] {
  if (value === undefined || value.trim() === "") return [];
  return value.split(",").map((entry) => {
    const [slug = "", ...rest] = entry.trim().split(":");
    if (!shape.known.includes(slug)) {
      throw new Error(
        `${variable}: "${slug}" is not a known ${shape.family} fork (known: ${shape.known.join(", ")})`,
      );
    }
    const names = typeof shape.addresses === "function" ? shape.addresses(slug) : shape.addresses;
    const addresses = rest.slice(0, names.length);
    const [block, ...extra] = rest.slice(names.length);
    if (
      addresses.length < names.length ||
      !addresses.every((a) => isAddress(a, { strict: false })) ||
      extra.length > 0
    ) {
      const expected = `<slug>:${names.map((a) => `<${a} address>`).join(":")}[:<deployment block>]`;
      throw new Error(`${variable}: expected ${expected}, got "${entry.trim()}"`);
    }
    if (block !== undefined && !/^\d+$/.test(block)) {
      throw new Error(
        `${variable}: the deployment block of ${slug} must be a block number, got "${block}"`,
      );
    }
    return {
      slug,
      addresses: addresses.map((a) => getAddress(a)),
      deployedAt: block === undefined ? undefined : Number(block),
    };
  });
}

function addressFromEnv(env: NodeJS.ProcessEnv, variable: string): Address | undefined {
  const raw = env[variable];
  if (raw === undefined || raw === "") return undefined;
  if (!isAddress(raw, { strict: false }))
    throw new Error(`${variable} must be an address, got "${raw}"`);
  return getAddress(raw);
}

/**
 * Aave V3 on a real chain: the Pool and PoolAddressesProvider of `AAVE_V3_POOL_<id>` and
 * `AAVE_V3_POOL_ADDRESSES_PROVIDER_<id>`, else the chain's known market. The two go together:
 * the provider names its pool, but this file reads no chain to ask it. The known configurator
 * and data provider belong to the known market only; another market's configurator, whose events
 * list the reserves, comes from `AAVE_V3_POOL_CONFIGURATOR_<id>`.
 */
function aaveV3Market(
  id: number,
  env: NodeJS.ProcessEnv,
  known: ChainSetup["aaveV3"],
): ChainSetup["aaveV3"] {
  const poolVariable = `AAVE_V3_POOL_${id}`;
  const providerVariable = `AAVE_V3_POOL_ADDRESSES_PROVIDER_${id}`;
  const pool = addressFromEnv(env, poolVariable);
  const provider = addressFromEnv(env, providerVariable);
  if (pool === undefined && provider === undefined) {
    return known;
  }
  if (pool === undefined || provider === undefined) {
    const [set, unset] = pool ? [poolVariable, providerVariable] : [providerVariable, poolVariable];
    throw new Error(
      `${set} is set but ${unset} is not: set both, the Pool and the PoolAddressesProvider of one Aave V3 market`,
    );
  }
  const knownMarket =
    known && pool === known.pool && provider === known.poolAddressesProvider ? known : undefined;
  return {
    pool,
    poolAddressesProvider: provider,
    // The configurator's events list the reserves: without it none is indexed.
    poolConfigurator:
      addressFromEnv(env, `AAVE_V3_POOL_CONFIGURATOR_${id}`) ?? knownMarket?.poolConfigurator,
    dataProvider: knownMarket?.dataProvider,
    startBlock: knownMarket?.startBlock ?? 0,
  };
}

function realChain(id: number, rpc: string[], env: NodeJS.ProcessEnv): ChainSetup {
  const known = KNOWN_CHAINS[id];
  const v2Factory = addressFromEnv(env, `UNISWAP_V2_FACTORY_${id}`) ?? known?.uniswapV2?.factory;
  const v3Factory = addressFromEnv(env, `UNISWAP_V3_FACTORY_${id}`) ?? known?.uniswapV3?.factory;
  const v4PoolManager =
    addressFromEnv(env, `UNISWAP_V4_POOL_MANAGER_${id}`) ?? known?.uniswapV4?.poolManager;
  const start = startSetting(env, id);
  // Where a protocol's pools are discovered from: its deployment block, or the start block when
  // that comes first. A start before every recorded deployment means this chain's history is not
  // the recorded one (a local copy of the chain's contracts at their canonical addresses, in a
  // history of its own): its pools may have been created in any block before the start, and a
  // state start must know them all, so they are discovered from genesis. (A known protocol
  // whose deployment block no source names has 0, known-chains.ts: nothing recorded.)
  const v2Forks = v2ForksOf(id, env);
  const v3Forks = v3ForksOf(id, env);
  const recorded = Math.min(
    ...[known?.uniswapV2, known?.uniswapV3, known?.uniswapV4, known?.aaveV3].map((p) =>
      p?.startBlock ? p.startBlock : Number.POSITIVE_INFINITY,
    ),
    ...[...v2Forks, ...v3Forks].map((f) => f.deployedAt || Number.POSITIVE_INFINITY),
  );
  const discoverFrom = (deployed: number | undefined) => {
    if (typeof start !== "number") return deployed ?? 0;
    return start < recorded ? 0 : Math.min(deployed ?? 0, start);
  };
  const execution = parseExecution(env[`EXECUTION_${id}`], `EXECUTION_${id}`);
  const uniswapV2 = v2Factory
    ? {
        factory: v2Factory,
        router02: known?.uniswapV2?.router02,
        startBlock: discoverFrom(known?.uniswapV2?.startBlock),
      }
    : undefined;
  const uniswapV2Forks = v2Forks.map((f) => ({
    slug: f.slug,
    factory: f.factory,
    startBlock: discoverFrom(f.deployedAt),
  }));
  const uniswapV3Forks = v3Forks.map((f) => ({
    slug: f.slug,
    factory: f.factory,
    poolDeployer: f.poolDeployer,
    poolInitCodeHash: f.poolInitCodeHash,
    swapRouter: f.swapRouter,
    startBlock: discoverFrom(f.deployedAt),
  }));
  const uniswapV3 = v3Factory
    ? {
        factory: v3Factory,
        swapRouter: known?.uniswapV3?.swapRouter,
        quoterV2: known?.uniswapV3?.quoterV2,
        startBlock: discoverFrom(known?.uniswapV3?.startBlock),
      }
    : undefined;
  // The known periphery reads the known manager only: another manager comes without it.
  const knownV4 =
    known?.uniswapV4 && v4PoolManager === known.uniswapV4.poolManager ? known.uniswapV4 : undefined;
  const uniswapV4 = v4PoolManager
    ? {
        poolManager: v4PoolManager,
        stateView: knownV4?.stateView,
        quoter: knownV4?.quoter,
        startBlock: discoverFrom(knownV4?.startBlock),
        allowedHooks: parseHookList(env[`UNISWAP_V4_HOOKS_${id}`], `UNISWAP_V4_HOOKS_${id}`),
      }
    : undefined;
  const market = aaveV3Market(id, env, known?.aaveV3);
  const aaveV3 = market && { ...market, startBlock: discoverFrom(market.startBlock) };
  const balancerV2 = known?.balancerV2 && {
    ...known.balancerV2,
    startBlock: discoverFrom(known.balancerV2.startBlock),
  };
  const deployed = Math.min(
    uniswapV2?.startBlock ?? Number.POSITIVE_INFINITY,
    ...uniswapV2Forks.map((f) => f.startBlock),
    uniswapV3?.startBlock ?? Number.POSITIVE_INFINITY,
    ...uniswapV3Forks.map((f) => f.startBlock),
    uniswapV4?.startBlock ?? Number.POSITIVE_INFINITY,
    aaveV3?.startBlock ?? Number.POSITIVE_INFINITY,
    balancerV2?.startBlock ?? Number.POSITIVE_INFINITY,
  );
  return {
    id,
    name: known?.name ?? `chain${id}`,
    title: known?.title ?? `Chain ${id}`,
    rpc,
    // A number: that block. Otherwise the head pinned when this index was created
    // (ponder.config.ts pins it); before that, a process that only reads the index has none.
    startBlock:
      typeof start === "number"
        ? start
        : (pinnedStart(env, id) ?? (Number.isFinite(deployed) ? deployed : 0)),
    weth: addressFromEnv(env, `WETH_${id}`) ?? known?.weth,
    uniswapV2,
    uniswapV2Forks: uniswapV2Forks.length > 0 ? uniswapV2Forks : undefined,
    uniswapV3,
    uniswapV3Forks: uniswapV3Forks.length > 0 ? uniswapV3Forks : undefined,
    uniswapV4,
    aaveV3,
    balancerV2,
    vaults: parseVaultList(env[`VAULTS_${id}`], `VAULTS_${id}`),
    stablecoins:
      parseAddressList(env[`STABLECOINS_${id}`], `STABLECOINS_${id}`) ?? known?.stablecoins ?? [],
    execution,
    deterministicExecution:
      Object.keys(execution).length === 0
        ? deterministicExecutionAddresses({
            v3Factory: v3Factory ?? CANONICAL_UNISWAP_V3_FACTORY,
            v4PoolManager: uniswapV4?.poolManager,
            v3ForkDeployers: v3ForkPoolDeployers(uniswapV3Forks),
          })
        : undefined,
    devnet: false,
    ...withL1Fee(parseL1Fee(env[`L1_FEE_${id}`], `L1_FEE_${id}`, known?.l1Fee)),
  };
}

/**
 * Where the devnet's index starts: `START_BLOCK_<id>` (a number, or `latest` pinned like a real
 * chain's head), else the world's first block (a full replay).
 */
function devnetStart(env: NodeJS.ProcessEnv, chainId: number, worldStart: number): number {
  const start = startSetting(env, chainId);
  if (typeof start === "number") return start;
  if (start === "latest") return pinnedStart(env, chainId) ?? worldStart;
  return worldStart;
}

/**
 * Whether the chain's start follows its head when `START_BLOCK_<id>` does not name a block: a
 * real chain does unless told otherwise, the devnet only when told `latest`.
 */
export function startFollowsHead(env: NodeJS.ProcessEnv, chain: ChainSetup): boolean {
  const start = startSetting(env, chain.id);
  return chain.devnet ? start === "latest" : start === undefined || start === "latest";
}

/** The devnet chain from its deployment file, or undefined when nothing was deployed. */
function devnetChain(env: NodeJS.ProcessEnv): ChainSetup | undefined {
  const settings = readConfig(env).devnet;
  const deployment = readDeployment(deploymentPath(env));
  if (!deployment) return undefined;
  return {
    id: deployment.chainId,
    name: "devnet",
    title: "Devnet",
    // One endpoint per lane (config.ts `DEFAULTS.devnetRpcLanes`).
    rpc: Array.from(
      { length: settings.rpcLanes },
      () => settings.rpcUrl ?? "http://127.0.0.1:8545",
    ),
    startBlock: devnetStart(env, deployment.chainId, deployment.startBlock),
    weth: deployment.weth,
    uniswapV2: {
      factory: deployment.uniswapV2.factory,
      router02: deployment.uniswapV2.router02,
      startBlock: deployment.startBlock,
    },
    uniswapV2Forks: (deployment.uniswapV2Forks ?? []).map((f) => ({
      slug: f.slug,
      factory: f.factory,
      startBlock: deployment.startBlock,
    })),
    uniswapV3: {
      factory: deployment.uniswapV3.factory,
      swapRouter: deployment.uniswapV3.swapRouter,
      quoterV2: deployment.uniswapV3.quoterV2,
      startBlock: deployment.startBlock,
    },
    uniswapV3Forks: (deployment.uniswapV3Forks ?? []).map((f) => ({
      slug: f.slug,
      factory: f.factory,
      poolDeployer: f.poolDeployer,
      poolInitCodeHash: v3ForkInitCodeHash(f.slug),
      swapRouter: f.swapRouter,
      quoterV2: f.quoterV2,
      startBlock: deployment.startBlock,
    })),
    uniswapV4: deployment.uniswapV4 && {
      poolManager: deployment.uniswapV4.poolManager,
      stateView: deployment.uniswapV4.stateView,
      quoter: deployment.uniswapV4.quoter,
      startBlock: deployment.startBlock,
      allowedHooks: parseHookList(
        env[`UNISWAP_V4_HOOKS_${deployment.chainId}`],
        `UNISWAP_V4_HOOKS_${deployment.chainId}`,
      ),
    },
    aaveV3: deployment.aaveV3 && {
      pool: deployment.aaveV3.pool,
      poolAddressesProvider: deployment.aaveV3.poolAddressesProvider,
      poolConfigurator: deployment.aaveV3.poolConfigurator,
      dataProvider: deployment.aaveV3.dataProvider,
      startBlock: deployment.startBlock,
    },
    balancerV2: deployment.balancerV2 && {
      vault: deployment.balancerV2.vault,
      weightedPoolFactories: [deployment.balancerV2.weightedPoolFactory],
      composableStablePoolFactories: [deployment.balancerV2.composableStablePoolFactory],
      startBlock: deployment.startBlock,
    },
    vaults: deployment.vaults.map((v) => ({ address: v.address, protocolSlug: v.protocolSlug })),
    stablecoins: deployment.tokens
      .filter((t) => DEVNET_STABLECOINS.includes(t.symbol))
      .map((t) => t.address),
    execution: deployment.execution,
    devnet: true,
    ...withL1Fee(
      parseL1Fee(env[`L1_FEE_${deployment.chainId}`], `L1_FEE_${deployment.chainId}`, undefined),
    ),
  };
}

/**
 * Every chain to index: real chains from `PONDER_RPC_URL_<id>`, and the devnet when its
 * deployment file exists (unless `DEVNET=false`).
 */
export function indexedChains(env: NodeJS.ProcessEnv = process.env): ChainSetup[] {
  const chains: ChainSetup[] = [];
  for (const [key, value] of Object.entries(env)) {
    const match = /^PONDER_RPC_URL_(\d+)$/.exec(key);
    if (match?.[1] && value) {
      const urls = value
        .split(",")
        .map((u) => u.trim())
        .filter((u) => u.length > 0);
      chains.push(realChain(Number(match[1]), urls, env));
    }
  }
  if (readConfig(env).devnet.enabled) {
    const devnet = devnetChain(env);
    if (devnet && !chains.some((c) => c.id === devnet.id)) chains.push(devnet);
  }
  return chains.sort((a, b) => a.id - b.id);
}

let chainsOfProcess: ChainSetup[] | undefined;

/**
 * `indexedChains()` of this process's environment, read once: neither the environment nor the
 * deployment file changes while the service runs, and the API asks on every request.
 */
export function servedChains(): ChainSetup[] {
  chainsOfProcess ??= indexedChains();
  return chainsOfProcess;
}
