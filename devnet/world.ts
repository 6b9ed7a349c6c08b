/**
 * Deploys the devnet world: WETH9, a dozen ERC20s, Uniswap V2, V3 and V4 from their npm build
 * artifacts (canonical init-code hashes), pools seeded at realistic prices, V4 pools with and
 * without hooks (`devnet/uniswap-v4.ts`), ERC4626 vaults under two protocol slugs (one accruing
 * yield), the project's execution-layer contracts, an Aave V3 market with WETH, USDC, DAI and
 * WBTC supplied and borrowed (`devnet/aave-v3.ts`), and Balancer V2 with three weighted and two
 * composable stable pools (`devnet/balancer-v2.ts`).
 * The same account, nonces and inputs give the same addresses on every fresh chain.
 */
import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  keccak256,
  maxUint256,
  type PublicClient,
  parseUnits,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DevPancakeV3PoolDeployerAbi } from "../abis/generated/DevPancakeV3PoolDeployer.js";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { DevVaultAbi } from "../abis/generated/DevVault.js";
import { NonfungiblePositionManagerAbi } from "../abis/NonfungiblePositionManager.js";
import { UniswapV2FactoryAbi } from "../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { UniswapV3FactoryAbi } from "../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../abis/UniswapV3Pool.js";
import { WETH9Abi } from "../abis/WETH9.js";
import { buildContracts, loadArtifact } from "../contracts/build.js";
import { deployAaveV3 } from "./aave-v3.js";
import { DEVNET_DEPLOYER_KEY } from "./anvil.js";
import { readNpmArtifact } from "./artifacts.js";
import { createBalancerV2DevnetPools, deployBalancerV2 } from "./balancer-v2.js";
import type {
  BalancerV2Deployment,
  DeployedToken,
  DeployedVault,
  Deployment,
  UniswapV3ForkDeployment,
} from "./deployment.js";
import { deployExecutionLayer } from "./execution.js";
import { MULTICALL3_ADDRESS, placeMulticall3 } from "./multicall3.js";
import { amountForUsd, sqrtPriceX96FromPrice, tickFromSqrtPriceX96 } from "./price.js";
import { mulberry32 } from "./random.js";
import { devnetReceipt } from "./receipts.js";
import { deployUniswapV4 } from "./uniswap-v4.js";

// Its home is ./price.js (devnet/uniswap-v4.ts needs it too); the world's users import it here.
export { amountForUsd };

type TokenSpec = { symbol: string; name: string; decimals: number; usdPrice: number };

/** The ERC20s of the default world (WETH9 is deployed separately and priced at 3,000 USD). */
export const DEFAULT_TOKENS: TokenSpec[] = [
  { symbol: "USDC", name: "USD Coin", decimals: 6, usdPrice: 1 },
  { symbol: "USDT", name: "Tether USD", decimals: 6, usdPrice: 1 },
  { symbol: "DAI", name: "Dai Stablecoin", decimals: 18, usdPrice: 1 },
  { symbol: "WBTC", name: "Wrapped BTC", decimals: 8, usdPrice: 60_000 },
  { symbol: "LINK", name: "ChainLink Token", decimals: 18, usdPrice: 15 },
  { symbol: "UNI", name: "Uniswap", decimals: 18, usdPrice: 8 },
  { symbol: "AAVE", name: "Aave Token", decimals: 18, usdPrice: 150 },
  { symbol: "CRV", name: "Curve DAO Token", decimals: 18, usdPrice: 0.5 },
  { symbol: "MKR", name: "Maker", decimals: 18, usdPrice: 1_500 },
  { symbol: "PEPE", name: "Pepe", decimals: 18, usdPrice: 0.00001 },
  { symbol: "FROG", name: "Frog Coin", decimals: 9, usdPrice: 0.02 },
];
export const WETH_USD_PRICE = 3_000;

/** V2 pairs: the two symbols and the USD value of each side. */
const V2_PAIRS: [string, string, number][] = [
  ["WETH", "USDC", 20_000_000],
  ["WETH", "USDT", 10_000_000],
  ["WETH", "DAI", 8_000_000],
  ["WETH", "WBTC", 10_000_000],
  ["USDC", "USDT", 5_000_000],
  ["USDC", "DAI", 5_000_000],
  ["WBTC", "USDC", 3_000_000],
  ["WETH", "LINK", 3_000_000],
  ["LINK", "USDC", 1_000_000],
  ["WETH", "UNI", 2_000_000],
  ["WETH", "AAVE", 2_000_000],
  ["WETH", "CRV", 1_000_000],
  ["WETH", "MKR", 1_000_000],
  ["WETH", "PEPE", 500_000],
  ["FROG", "WETH", 100_000],
];

/**
 * Pairs of PancakeSwap's first AMM (0.2% fee, `pancakeswap-v1`), beside Uniswap V2's pairs of
 * the same tokens: the symbols and the USD value of each side.
 */
const PANCAKESWAP_V1_PAIRS: [string, string, number][] = [
  ["WETH", "DAI", 4_000_000],
  ["WETH", "LINK", 2_000_000],
];

/**
 * Pools of PancakeSwap V3 (`pancakeswap-v3`, a fork of Uniswap V3 with a 0.25% tier), beside
 * Uniswap's pair of the same tokens: symbols, fee tier, and the USD value of each position's side.
 */
const PANCAKESWAP_V3_POOLS: [string, string, 2500, number][] = [["WETH", "AAVE", 2500, 1_000_000]];

/** V3 pools: symbols, fee tier, and the USD value of each of the three positions' sides. */
const V3_POOLS: [string, string, 500 | 3000 | 10000, number][] = [
  ["WETH", "USDC", 500, 5_000_000],
  ["WETH", "USDC", 3000, 2_000_000],
  ["USDC", "USDT", 500, 2_000_000],
  ["USDC", "DAI", 500, 1_000_000],
  ["WETH", "WBTC", 3000, 2_000_000],
  ["WETH", "DAI", 3000, 1_000_000],
  ["WETH", "LINK", 10000, 500_000],
  ["WETH", "UNI", 10000, 300_000],
];

/** Vaults: protocol slug, underlying symbol, share name and symbol, USD deposited. */
const VAULTS: [string, string, string, string, number][] = [
  ["savings-vaults", "USDC", "Savings USDC", "svUSDC", 2_000_000],
  ["savings-vaults", "DAI", "Savings DAI", "svDAI", 1_000_000],
  ["yield-vaults", "WETH", "Yield WETH", "yvWETH", 3_000_000],
  ["yield-vaults", "USDT", "Yield USDT", "yvUSDT", 500_000],
];
/** The vault whose assets grow without new shares (simulated yield). */
export const YIELD_VAULT_SYMBOL = "yvWETH";

/** Ponder's finality window for chains it does not know (31337 among them), in blocks. */
const FINALITY_PADDING = 30;

/** Tick spacing by fee tier: Uniswap V3's three, and PancakeSwap V3's 0.25%. */
const TICK_SPACING = { 500: 10, 2500: 50, 3000: 60, 10000: 200 } as const;
/** Half-widths (in tick spacings) of the three positions minted in each V3 pool. */
const POSITION_HALF_WIDTHS = [12, 60, 600];

export type WorldScale = {
  /** Extra synthetic tokens beyond the default set. */
  tokens?: number;
  /** Extra synthetic pools (alternating V2 pairs and V3 pools) among all tokens. */
  pools?: number;
};

export type DeployWorldParameters = {
  rpcUrl: string;
  scale?: WorldScale;
  /**
   * Deploy Balancer V2 (its vault, factories and five pools, `devnet/balancer-v2.ts`) after
   * everything else, with the BAL and wstETH tokens its pools hold (default true).
   */
  balancerV2?: boolean;
  log?: (line: string) => void;
};

/** Sends the deployer's transactions one after another and checks that each succeeded. */
export class Deployer {
  readonly address: Address;
  private nonce = 0;
  constructor(
    readonly wallet: WalletClient,
    readonly client: PublicClient,
    readonly chain: Chain,
  ) {
    if (!wallet.account) throw new Error("wallet client without account");
    this.address = wallet.account.address;
  }

  async init(): Promise<void> {
    this.nonce = await this.client.getTransactionCount({
      address: this.address,
      blockTag: "pending",
    });
  }

  async deploy(abi: Abi, bytecode: Hex, args: readonly unknown[] = []): Promise<Address> {
    return (await this.deployTransaction(abi, bytecode, args)).address;
  }

  /** Deploys a contract; resolves with its address and the deployment's transaction hash. */
  async deployTransaction(
    abi: Abi,
    bytecode: Hex,
    args: readonly unknown[] = [],
  ): Promise<{ address: Address; hash: Hex }> {
    const hash = await this.wallet.deployContract({
      abi,
      bytecode,
      args,
      account: this.wallet.account ?? null,
      chain: this.chain,
      nonce: this.nonce++,
      gas: 16_000_000n,
    } as never);
    const receipt = await devnetReceipt(this.client as never, hash);
    if (receipt.status !== "success" || !receipt.contractAddress) {
      throw new Error(`deployment reverted (tx ${hash})`);
    }
    return { address: getAddress(receipt.contractAddress), hash };
  }

  async write(
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
    value?: bigint,
  ): Promise<void> {
    const data = encodeFunctionData({ abi, functionName, args } as never);
    await this.submit(
      { to: address, data, value },
      (hash) => `${functionName} on ${address} reverted (tx ${hash})`,
    );
  }

  /** Sends raw calldata (a call no ABI describes, such as the CREATE2 proxy's). */
  async send(to: Address, data: Hex, value?: bigint): Promise<void> {
    await this.submit({ to, data, value }, (hash) => `call to ${to} reverted (tx ${hash})`);
  }

  /** Sends one transaction at the deployer's next nonce and waits for it to succeed. */
  private async submit(
    request: { to: Address; data: Hex; value?: bigint },
    failure: (hash: Hex) => string,
  ): Promise<void> {
    const hash = await this.wallet.sendTransaction({
      ...request,
      account: this.wallet.account ?? null,
      chain: this.chain,
      nonce: this.nonce++,
      gas: 8_000_000n,
    } as never);
    const receipt = await devnetReceipt(this.client as never, hash);
    if (receipt.status !== "success") throw new Error(failure(hash));
  }
}

/** A chain definition for whatever node `rpcUrl` is (anvil by default). */
export async function chainOf(rpcUrl: string): Promise<Chain> {
  const probe = createPublicClient({ transport: http(rpcUrl) });
  const id = await probe.getChainId();
  return defineChain({
    id,
    name: id === 31337 ? "Devnet" : `Chain ${id}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    // Placed by deployWorld (and on real chains, deployed there): viem's `multicall` uses it.
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
}

/** A {@link Deployer} sending from anvil's first dev account to the node at `rpcUrl`. */
export async function devnetDeployer(rpcUrl: string): Promise<Deployer> {
  const chain = await chainOf(rpcUrl);
  const transport = http(rpcUrl, { batch: false });
  const client = createPublicClient({ chain, transport }) as PublicClient;
  const wallet = createWalletClient({
    account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
    chain,
    transport,
  });
  const d = new Deployer(wallet, client, chain);
  await d.init();
  return d;
}

/**
 * Deploys and seeds the whole devnet world on the node at `rpcUrl` from anvil's first dev account.
 * @returns the deployment, ready to be written where `ponder.config.ts` reads it.
 */
export async function deployWorld(params: DeployWorldParameters): Promise<Deployment> {
  const log = params.log ?? (() => {});
  buildContracts();
  const d = await devnetDeployer(params.rpcUrl);
  const { wallet, client, chain } = d;
  const startBlock = Number(await client.getBlockNumber()) + 1;

  const weth9 = readNpmArtifact("WETH9");
  const weth = await d.deploy(weth9.abi, weth9.bytecode);
  const devToken = loadArtifact("DevToken");
  const tokens: DeployedToken[] = [];
  const specs = [...DEFAULT_TOKENS, ...syntheticTokens(params.scale?.tokens ?? 0)];
  for (const spec of specs) {
    const address = await d.deploy(devToken.abi, devToken.bytecode, [
      spec.name,
      spec.symbol,
      spec.decimals,
    ]);
    tokens.push({ address, ...spec });
  }
  const bySymbol = new Map<string, DeployedToken>(tokens.map((t) => [t.symbol, t]));
  bySymbol.set("WETH", {
    address: weth,
    name: "Wrapped Ether",
    symbol: "WETH",
    decimals: 18,
    usdPrice: WETH_USD_PRICE,
  });
  const token = (symbol: string): DeployedToken => {
    const t = bySymbol.get(symbol);
    if (!t) throw new Error(`unknown devnet token ${symbol}`);
    return t;
  };
  log(`deployed WETH9 and ${tokens.length} tokens`);

  // Inventory for seeding: plenty of every token and 300k ETH wrapped.
  for (const t of tokens) {
    await d.write(t.address, DevTokenAbi, "mint", [d.address, amountForUsd(t, 5_000_000_000)]);
  }
  await d.write(weth, WETH9Abi, "deposit", [], parseUnits("300000", 18));

  // Uniswap V2: factory, Router02 and seeded pairs.
  const v2FactoryArt = readNpmArtifact("UniswapV2Factory");
  const v2Factory = await d.deploy(v2FactoryArt.abi, v2FactoryArt.bytecode, [d.address]);
  const router02Art = readNpmArtifact("UniswapV2Router02");
  const router02 = await d.deploy(router02Art.abi, router02Art.bytecode, [v2Factory, weth]);
  const extraPools = params.scale?.pools ?? 0;
  const pairSpecs = [
    ...V2_PAIRS,
    ...syntheticPairs(
      specs,
      Math.ceil(extraPools / 2),
      11,
      new Set(V2_PAIRS.map(([a, b]) => pairKey(a, b))),
    ),
  ];
  const pairs: Address[] = [];
  for (const [a, b, usd] of pairSpecs) {
    pairs.push(await seedV2Pair(d, v2Factory, [token(a), token(b)], usd));
  }
  log(`deployed Uniswap V2 with ${pairs.length} pairs`);

  // Uniswap V3: factory, periphery, and pools with three positions each.
  const v3FactoryArt = readNpmArtifact("UniswapV3Factory");
  const v3Factory = await d.deploy(v3FactoryArt.abi, v3FactoryArt.bytecode);
  const npmArt = readNpmArtifact("NonfungiblePositionManager");
  // The token descriptor only renders NFT metadata; no devnet flow reads it.
  const positionManager = await d.deploy(npmArt.abi, npmArt.bytecode, [v3Factory, weth, d.address]);
  const swapRouterArt = readNpmArtifact("SwapRouter");
  const swapRouter = await d.deploy(swapRouterArt.abi, swapRouterArt.bytecode, [v3Factory, weth]);
  const quoterArt = readNpmArtifact("QuoterV2");
  const quoterV2 = await d.deploy(quoterArt.abi, quoterArt.bytecode, [v3Factory, weth]);
  for (const t of [...tokens.map((t) => t.address), weth]) {
    await d.write(t, DevTokenAbi, "approve", [positionManager, maxUint256]);
  }
  const poolSpecs = [...V3_POOLS, ...syntheticPools(specs, Math.floor(extraPools / 2))];
  const pools: Address[] = [];
  for (const [a, b, fee, usd] of poolSpecs) {
    const halfWidths = usd >= 1_000_000 ? POSITION_HALF_WIDTHS : POSITION_HALF_WIDTHS.slice(0, 1);
    pools.push(
      await createSeededV3Pool(d, { factory: v3Factory, positionManager }, [token(a), token(b)], {
        fee,
        usd,
        halfWidths,
      }),
    );
  }
  log(`deployed Uniswap V3 with ${pools.length} pools`);

  // ERC4626 vaults under two protocol slugs, with deposits; one accrues yield.
  const vaultArt = loadArtifact("DevVault");
  const vaults: DeployedVault[] = [];
  for (const [protocolSlug, assetSymbol, name, symbol, usd] of VAULTS) {
    const asset = token(assetSymbol);
    const address = await d.deploy(vaultArt.abi, vaultArt.bytecode, [asset.address, name, symbol]);
    const amount = amountForUsd(asset, usd);
    await d.write(asset.address, DevTokenAbi, "approve", [address, amount]);
    await d.write(address, DevVaultAbi, "deposit", [amount, d.address]);
    if (symbol === YIELD_VAULT_SYMBOL) {
      await d.write(asset.address, DevTokenAbi, "transfer", [
        address,
        amountForUsd(asset, usd / 50),
      ]);
    }
    vaults.push({ address, protocolSlug, asset: asset.address, name, symbol });
  }
  log(`deployed ${vaults.length} ERC4626 vaults`);

  const uniswapV4 = await deployUniswapV4({
    deployer: d,
    token,
    ethUsdPrice: WETH_USD_PRICE,
  });
  log(`deployed Uniswap V4 with ${uniswapV4.pools.length} pools`);

  const aaveV3 = await deployAaveV3({ deployer: d, token });
  log(`deployed Aave V3 with ${aaveV3.reserves.length} reserves`);

  // After Aave V3, so that nothing deployed before it moves.
  let balancerV2: BalancerV2Deployment | undefined;
  if (params.balancerV2 ?? true) {
    balancerV2 = await deployBalancerV2World(d, weth, token, (t) => bySymbol.set(t.symbol, t));
    log(`deployed Balancer V2 with ${Object.keys(balancerV2.pools).length} pools`);
  }

  // A fork of Uniswap V2 with another fee, from its own published bytecode; after Balancer V2,
  // so that nothing deployed before the devnet had it moves.
  const pancakeArt = readNpmArtifact("PancakeFactory");
  const pancakeFactory = await d.deploy(pancakeArt.abi, pancakeArt.bytecode, [d.address]);
  const pancakePairs: Address[] = [];
  for (const [a, b, usd] of PANCAKESWAP_V1_PAIRS) {
    pancakePairs.push(await seedV2Pair(d, pancakeFactory, [token(a), token(b)], usd));
  }
  log(`deployed PancakeSwap V1 with ${pancakePairs.length} pairs`);

  // A fork of Uniswap V3 from its own published bytecode, after PancakeSwap V1 for the same
  // reason.
  const pancakeV3 = await deployPancakeSwapV3(d, weth, token);
  log(`deployed PancakeSwap V3 with ${pancakeV3.pools.length} pools`);

  // After the forks of Uniswap V3, whose pool deployers the router executor is built to trust.
  const execution = await deployExecutionLayer({
    walletClient: wallet,
    publicClient: client,
    v3Factory,
    weth,
    swapRouter,
    v4PoolManager: uniswapV4.poolManager,
    // The pools are CREATE2s of the npm pool's creation code (DevPancakeV3PoolDeployer).
    v3ForkDeployers: [
      {
        deployer: pancakeV3.poolDeployer,
        initCodeHash: keccak256(readNpmArtifact("PancakeV3Pool").bytecode),
      },
    ],
  });
  log(`deployed the execution layer: ${Object.keys(execution).join(", ")}`);

  // Last, so that nothing deployed before it moves: one more block, sent by its own signer.
  if (await placeMulticall3(client)) log("placed Multicall3 at its canonical address");
  else log("the node does not support anvil_setBalance; Multicall3 is not placed");

  // Ponder indexes the newest 30 blocks of an unknown chain one by one (its finality window)
  // and the rest in fast batches: empty blocks on top put the whole world in the batches.
  await client
    .request({
      method: "anvil_mine" as never,
      params: [`0x${FINALITY_PADDING.toString(16)}`] as never,
    })
    .catch(() => {
      log(
        "the node does not support anvil_mine; the newest deployment blocks will be indexed live",
      );
    });
  const genesis = await client.getBlock({ blockNumber: 0n });
  return {
    chainId: chain.id,
    genesisHash: genesis.hash,
    startBlock,
    deployer: d.address,
    weth,
    tokens: [...bySymbol.values()].sort((x, y) => x.symbol.localeCompare(y.symbol)),
    uniswapV2: { factory: v2Factory, router02, pairs },
    uniswapV2Forks: [{ slug: "pancakeswap-v1", factory: pancakeFactory, pairs: pancakePairs }],
    uniswapV3: { factory: v3Factory, positionManager, swapRouter, quoterV2, pools },
    uniswapV3Forks: [pancakeV3],
    uniswapV4,
    aaveV3,
    balancerV2,
    vaults,
    execution,
  };
}

/** A token the deployer holds, with what `amountForUsd` needs. */
type SeedToken = { address: Address; decimals: number; usdPrice: number };

/**
 * Creates the pair of two tokens on a Uniswap V2 factory (or a fork's, the same interface) and
 * mints its first liquidity: `usd` of each token, to the deployer.
 */
export async function seedV2Pair(
  d: Deployer,
  factory: Address,
  [a, b]: [SeedToken, SeedToken],
  usd: number,
): Promise<Address> {
  await d.write(factory, UniswapV2FactoryAbi, "createPair", [a.address, b.address]);
  const pair = await d.client.readContract({
    address: factory,
    abi: UniswapV2FactoryAbi,
    functionName: "getPair",
    args: [a.address, b.address],
  });
  for (const t of [a, b]) {
    await d.write(t.address, DevTokenAbi, "transfer", [pair, amountForUsd(t, usd)]);
  }
  await d.write(pair, UniswapV2PairAbi, "mint", [d.address]);
  return getAddress(pair);
}

/** The tokens only the devnet's Balancer pools hold (BAL and a staked ETH token), with prices. */
const BALANCER_V2_TOKENS: TokenSpec[] = [
  { symbol: "BAL", name: "Balancer", decimals: 18, usdPrice: 5 },
  { symbol: "wstETH", name: "Wrapped liquid staked Ether", decimals: 18, usdPrice: 3_450 },
];

/**
 * Balancer V2 beside the world's tokens: the vault and factories, BAL and wstETH deployed and
 * added (`add`), and the five pools of `createBalancerV2DevnetPools` joined through the vault.
 */
async function deployBalancerV2World(
  d: Deployer,
  weth: Address,
  token: (symbol: string) => DeployedToken,
  add: (token: DeployedToken) => void,
): Promise<BalancerV2Deployment> {
  const devToken = loadArtifact("DevToken");
  for (const spec of BALANCER_V2_TOKENS) {
    const address = await d.deploy(devToken.abi, devToken.bytecode, [
      spec.name,
      spec.symbol,
      spec.decimals,
    ]);
    add({ address, ...spec });
  }
  const balancer = await deployBalancerV2(d, { weth });
  const { stakedEthRateProvider, ...pools } = await createBalancerV2DevnetPools(d, balancer, {
    WETH: weth,
    BAL: token("BAL").address,
    USDC: token("USDC").address,
    USDT: token("USDT").address,
    DAI: token("DAI").address,
    WBTC: token("WBTC").address,
    wstETH: token("wstETH").address,
  });
  return {
    vault: balancer.vault,
    weightedPoolFactory: balancer.weightedPoolFactory,
    composableStablePoolFactory: balancer.composableStablePoolFactory,
    stakedEthRateProvider,
    pools,
  };
}

/**
 * PancakeSwap V3: the devnet's pool deployer holding the npm pool's creation code, the npm
 * factory, SwapRouter, QuoterV2 and position manager, and the pools of `PANCAKESWAP_V3_POOLS`
 * with positions minted through that position manager.
 */
async function deployPancakeSwapV3(
  d: Deployer,
  weth: Address,
  token: (symbol: string) => DeployedToken,
): Promise<UniswapV3ForkDeployment> {
  const deployerArt = loadArtifact("DevPancakeV3PoolDeployer");
  const poolDeployer = await d.deploy(deployerArt.abi, deployerArt.bytecode, [
    readNpmArtifact("PancakeV3Pool").bytecode,
  ]);
  const factoryArt = readNpmArtifact("PancakeV3Factory");
  const factory = await d.deploy(factoryArt.abi, factoryArt.bytecode, [poolDeployer]);
  await d.write(poolDeployer, DevPancakeV3PoolDeployerAbi, "setFactoryAddress", [factory]);
  const periphery = [poolDeployer, factory, weth] as const;
  const routerArt = readNpmArtifact("PancakeV3SwapRouter");
  const swapRouter = await d.deploy(routerArt.abi, routerArt.bytecode, periphery);
  const quoterArt = readNpmArtifact("PancakeV3QuoterV2");
  const quoterV2 = await d.deploy(quoterArt.abi, quoterArt.bytecode, periphery);
  const npmArt = readNpmArtifact("PancakeV3PositionManager");
  // The token descriptor only renders NFT metadata; no devnet flow reads it.
  const positionManager = await d.deploy(npmArt.abi, npmArt.bytecode, [...periphery, d.address]);
  const pools: Address[] = [];
  for (const [a, b, fee, usd] of PANCAKESWAP_V3_POOLS) {
    for (const t of [token(a), token(b)]) {
      await d.write(t.address, DevTokenAbi, "approve", [positionManager, maxUint256]);
    }
    // The factory's and position manager's interfaces are Uniswap V3's.
    pools.push(
      await createSeededV3Pool(d, { factory, positionManager }, [token(a), token(b)], {
        fee,
        usd,
        halfWidths: POSITION_HALF_WIDTHS,
      }),
    );
  }
  return {
    slug: "pancakeswap-v3",
    factory,
    poolDeployer,
    positionManager,
    swapRouter,
    quoterV2,
    pools,
  };
}

/**
 * Creates the pool of two tokens and a fee on a V3 factory (Uniswap's, or a fork's with its
 * interface) and seeds its positions through the position manager (`seedV3Positions`).
 */
async function createSeededV3Pool(
  d: Deployer,
  at: { factory: Address; positionManager: Address },
  tokens: [DeployedToken, DeployedToken],
  params: { fee: keyof typeof TICK_SPACING; usd: number; halfWidths: readonly number[] },
): Promise<Address> {
  const [t0, t1] = sortTokens(...tokens);
  await d.write(at.factory, UniswapV3FactoryAbi, "createPool", [
    t0.address,
    t1.address,
    params.fee,
  ]);
  const pool = getAddress(
    await d.client.readContract({
      address: at.factory,
      abi: UniswapV3FactoryAbi,
      functionName: "getPool",
      args: [t0.address, t1.address, params.fee],
    }),
  );
  await seedV3Positions(d, {
    pool,
    positionManager: at.positionManager,
    token0: t0,
    token1: t1,
    ...params,
  });
  return pool;
}

function sortTokens<T extends { address: Address }>(a: T, b: T): [T, T] {
  return a.address.toLowerCase() < b.address.toLowerCase() ? [a, b] : [b, a];
}

/**
 * Initializes a new V3 pool at its tokens' USD prices and mints the deployer one position per
 * half width around that price (`half` tick spacings below it, `half + 1` above), each paying
 * up to `usd` worth of each token; the deployer must have approved the position manager for both.
 * Position manager token ids follow in mint order.
 */
export async function seedV3Positions(
  d: Deployer,
  params: {
    pool: Address;
    positionManager: Address;
    token0: { address: Address; decimals: number; usdPrice: number };
    token1: { address: Address; decimals: number; usdPrice: number };
    fee: keyof typeof TICK_SPACING;
    halfWidths: readonly number[];
    usd: number;
  },
): Promise<void> {
  const { token0: t0, token1: t1, fee, usd } = params;
  const sqrtPriceX96 = sqrtPriceX96FromPrice(t0, t1);
  await d.write(params.pool, UniswapV3PoolAbi, "initialize", [sqrtPriceX96]);
  const spacing = TICK_SPACING[fee];
  const center = Math.floor(tickFromSqrtPriceX96(sqrtPriceX96) / spacing) * spacing;
  for (const half of params.halfWidths) {
    await d.write(params.positionManager, NonfungiblePositionManagerAbi, "mint", [
      {
        token0: t0.address,
        token1: t1.address,
        fee,
        tickLower: clampTick(center - half * spacing, spacing),
        tickUpper: clampTick(center + (half + 1) * spacing, spacing),
        amount0Desired: amountForUsd(t0, usd),
        amount1Desired: amountForUsd(t1, usd),
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: d.address,
        deadline: maxUint256,
      },
    ]);
  }
}

const MAX_TICK = 887272;
function clampTick(tick: number, spacing: number): number {
  const bound = Math.floor(MAX_TICK / spacing) * spacing;
  return Math.max(-bound, Math.min(bound, tick));
}

function syntheticTokens(count: number): TokenSpec[] {
  const random = mulberry32(7);
  return Array.from({ length: count }, (_, i) => ({
    symbol: `TKN${i}`,
    name: `Synthetic Token ${i}`,
    decimals: [6, 8, 18][i % 3] ?? 18,
    usdPrice: Number((0.01 + random() * 100).toFixed(4)),
  }));
}

function pairKey(a: string, b: string): string {
  return [a, b].sort().join("/");
}

/** `count` distinct random token pairs (seeded), none of them in `exclude`, with a USD depth. */
function syntheticPairs(
  specs: TokenSpec[],
  count: number,
  seed: number,
  exclude: Set<string>,
): [string, string, number][] {
  const random = mulberry32(seed);
  const symbols = ["WETH", ...specs.map((s) => s.symbol)];
  const out: [string, string, number][] = [];
  const seen = new Set(exclude);
  const want = count;
  for (let guard = 0; out.length < want && guard < want * 20; guard++) {
    const a = symbols[Math.floor(random() * symbols.length)] ?? "WETH";
    const b = symbols[Math.floor(random() * symbols.length)] ?? "USDC";
    const key = pairKey(a, b);
    if (a === b || seen.has(key)) continue;
    seen.add(key);
    out.push([a, b, 10_000 + Math.floor(random() * 1_000_000)]);
  }
  return out;
}

function syntheticPools(
  specs: TokenSpec[],
  count: number,
): [string, string, 500 | 3000 | 10000, number][] {
  const fees = [500, 3000, 10000] as const;
  const exclude = new Set(V3_POOLS.map(([a, b]) => pairKey(a, b)));
  return syntheticPairs(specs, count, 13, exclude).map(([a, b, usd], i) => [
    a,
    b,
    fees[i % 3] ?? 3000,
    usd,
  ]);
}
