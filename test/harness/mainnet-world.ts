/**
 * A chain that looks like Ethereum to the indexer and the API: WETH9, Uniswap V2 and V3 (factory
 * and periphery), Uniswap V4's PoolManager, StateView and V4Quoter, and the big stablecoins at
 * their canonical mainnet addresses with the real bytecode of their npm artifacts, and tokens
 * that behave as real chains' odd tokens do (`contracts/test/RealWorldTokens.sol`), each in a
 * seeded V2 pair against WETH.
 *
 * A contract is put at its canonical address by deploying it normally, reading what its
 * constructor stored (the deployment's state diff), and writing that code and storage at the
 * canonical address (the V4 PoolManager's owner among it); immutables that hold the contract's
 * own address (the delegate-call guards of the V3 factory and the V4 PoolManager) are rewritten
 * to the canonical address.
 */
import {
  type Abi,
  type Address,
  getAddress,
  type Hex,
  maxUint256,
  type PublicClient,
  parseAbi,
  parseUnits,
} from "viem";
import { UniswapV3FactoryAbi } from "../../abis/UniswapV3Factory.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { buildContracts, loadArtifact } from "../../contracts/build.js";
import { AAVE_V3_RESERVES, deployAaveV3 } from "../../devnet/aave-v3.js";
import { readNpmArtifact } from "../../devnet/artifacts.js";
import type { AaveV3Deployment } from "../../devnet/deployment.js";
import { placeMulticall3 } from "../../devnet/multicall3.js";
import {
  amountForUsd,
  type Deployer,
  devnetDeployer,
  seedV2Pair as seedPair,
  seedV3Positions,
} from "../../devnet/world.js";

/** Canonical Ethereum mainnet addresses the world reproduces. */
export const MAINNET = {
  weth: getAddress("0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"),
  usdc: getAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"),
  usdt: getAddress("0xdAC17F958D2ee523a2206206994597C13D831ec7"),
  dai: getAddress("0x6B175474E89094C44Da98b954EedeAC495271d0F"),
  mkr: getAddress("0x9f8F72aA9304c8B593d555F12eF6589cC3A579A2"),
  uniswapV2Factory: getAddress("0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f"),
  uniswapV2Router02: getAddress("0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D"),
  uniswapV3Factory: getAddress("0x1F98431c8aD98523631AE4a59f267346ea31F984"),
  positionManager: getAddress("0xC36442b4a4522E871399CD717aBDD847Ab11FE88"),
  swapRouter: getAddress("0xE592427A0AEce92De3Edee1F18E0157C05861564"),
  quoterV2: getAddress("0x61fFE014bA17989E743c5F6cB21bF9697530B21e"),
  uniswapV4PoolManager: getAddress("0x000000000004444c5dc75cB358380D2e3dE08A90"),
  uniswapV4StateView: getAddress("0x7fFE42C4a5DEeA5b0feC41C94C136Cf115597227"),
  uniswapV4Quoter: getAddress("0x52F0E24D1c21C8A0cB1e5a5dD6198556BD9E1203"),
} as const;

/** Pools of the real mainnet, at the addresses the canonical factories and init codes give. */
export const MAINNET_POOLS = {
  /** Uniswap V2 USDC/WETH. */
  v2UsdcWeth: getAddress("0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc"),
  /** Uniswap V2 WETH/USDT. */
  v2WethUsdt: getAddress("0x0d4a11d5EEaaC28EC3F61d100daF4d40471f1852"),
  /** Uniswap V3 USDC/WETH 0.05%. */
  v3UsdcWeth500: getAddress("0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640"),
} as const;

/** The odd tokens, by the symbol the world knows them under. */
export type OddToken = "MKR" | "NUL" | "NODEC" | "WHOLE" | "BOMB" | "FEE" | "REBASE";

export type WorldToken = {
  address: Address;
  symbol: string;
  decimals: number;
  usdPrice: number;
};

export type MainnetWorld = {
  /** First block the world wrote: what `START_BLOCK_1` is set to. */
  startBlock: number;
  deployer: Address;
  client: PublicClient;
  tokens: Record<"WETH" | "USDC" | "USDT" | "DAI" | OddToken, WorldToken>;
  v2Pairs: Address[];
  v3Pools: Address[];
  /** An ERC4626 savings vault of USDC (what `VAULTS_1` names). */
  vault: Address;
  /**
   * An Aave V3 market of WETH, USDC and DAI, when asked for: deployed at addresses of its own,
   * so an index follows it as an operator follows a market other than chain 1's known one (the
   * `AAVE_V3_POOL_1` variables).
   */
  aaveV3?: AaveV3Deployment;
};

type StateDiff = {
  post: Record<string, { code?: Hex; storage?: Record<Hex, Hex> }>;
};

/**
 * Deploys a contract and moves it to `target`: its runtime code (its own address in immutables
 * rewritten) and the storage its constructor wrote.
 */
async function deployAt(
  d: Deployer,
  target: Address,
  abi: Abi,
  bytecode: Hex,
  args: readonly unknown[] = [],
): Promise<void> {
  const { hash, address } = await d.deployTransaction(abi, bytecode, args);
  const diff = await d.client.request({
    method: "debug_traceTransaction" as never,
    params: [hash, { tracer: "prestateTracer", tracerConfig: { diffMode: true } }] as never,
  });
  const created = (diff as StateDiff).post[address.toLowerCase()];
  const code = await d.client.getCode({ address });
  if (!code || code === "0x") throw new Error(`no code at ${address} after deployment`);
  const own = address.slice(2).toLowerCase();
  const patched = code.toLowerCase().replaceAll(own, target.slice(2).toLowerCase()) as Hex;
  const rpc = (method: string, params: unknown[]) =>
    d.client.request({ method: method as never, params: params as never });
  await rpc("anvil_setCode", [target, patched]);
  for (const [slot, value] of Object.entries(created?.storage ?? {})) {
    await rpc("anvil_setStorageAt", [target, slot, value]);
  }
  await rpc("anvil_setCode", [address, "0x"]);
}

const PRICES = { WETH: 3_000, USDC: 1, USDT: 1, DAI: 1 } as const;

/** V2 pairs against WETH of every odd token (USD per side), and the stablecoin pairs. */
const V2_PAIRS: [string, string, number][] = [
  ["WETH", "USDC", 20_000_000],
  ["WETH", "USDT", 10_000_000],
  ["USDC", "USDT", 5_000_000],
  ["WETH", "DAI", 5_000_000],
  ["WETH", "MKR", 1_000_000],
  ["WETH", "NUL", 100_000],
  ["WETH", "NODEC", 100_000],
  ["WETH", "WHOLE", 100_000],
  ["WETH", "BOMB", 100_000],
  ["WETH", "FEE", 1_000_000],
  ["WETH", "REBASE", 1_000_000],
];

const V3_POOLS: [string, string, 500 | 3000, number][] = [
  ["USDC", "WETH", 500, 5_000_000],
  ["WETH", "USDT", 3000, 2_000_000],
  ["USDC", "USDT", 500, 2_000_000],
];

/** The odd tokens: contract, symbol, decimals as the world prices them, USD price. */
const ODD_TOKENS: [string, OddToken, number, number][] = [
  ["Bytes32MetadataToken", "MKR", 18, 1_500],
  ["OddTextToken", "NUL", 18, 0.5],
  ["RevertingDecimalsToken", "NODEC", 18, 2],
  ["ZeroDecimalsToken", "WHOLE", 0, 100],
  ["GasBombSymbolToken", "BOMB", 18, 0.1],
  ["FeeOnTransferToken", "FEE", 18, 1],
  ["RebasingToken", "REBASE", 18, 1],
];

/** ERC20 calls without a declared return value, so USDT-style tokens can be driven too. */
export const bareErc20Abi = parseAbi([
  "function transfer(address to, uint256 amount)",
  "function approve(address spender, uint256 amount)",
  "function mint(address to, uint256 amount)",
]);

/**
 * Creates the V2 pair of `a` and `b` on the canonical factory and seeds it with `usd` worth of
 * each from the deployer's inventory; returns the pair.
 */
export async function seedV2Pair(
  d: Deployer,
  a: WorldToken,
  b: WorldToken,
  usd: number,
): Promise<Address> {
  return await seedPair(d, MAINNET.uniswapV2Factory, [a, b], usd);
}

/**
 * Creates the V3 pool of `a` and `b` at `fee` on the canonical factory with three positions of
 * the deployer around their USD price (`seedV3Positions`); the deployer must have approved the
 * position manager for both. Returns the pool.
 */
export async function seedV3Pool(
  d: Deployer,
  a: WorldToken,
  b: WorldToken,
  fee: 500 | 3000,
  usd: number,
): Promise<Address> {
  const [t0, t1] = a.address.toLowerCase() < b.address.toLowerCase() ? [a, b] : [b, a];
  await d.write(MAINNET.uniswapV3Factory, UniswapV3FactoryAbi, "createPool", [
    t0.address,
    t1.address,
    fee,
  ]);
  const pool = getAddress(
    await d.client.readContract({
      address: MAINNET.uniswapV3Factory,
      abi: UniswapV3FactoryAbi,
      functionName: "getPool",
      args: [t0.address, t1.address, fee],
    }),
  );
  await seedV3Positions(d, {
    pool,
    positionManager: MAINNET.positionManager,
    token0: t0,
    token1: t1,
    fee,
    halfWidths: [12, 60, 600],
    usd,
  });
  return pool;
}

/**
 * Deploys the mainnet-shaped world on an anvil started with `--chain-id 1`, from anvil's first
 * dev account, with an Aave V3 market when `aaveV3` is set. The execution layer is not part of
 * it: `npm run deploy` puts it there.
 */
export async function deployMainnetWorld(
  rpcUrl: string,
  options: { aaveV3?: boolean } = {},
): Promise<MainnetWorld> {
  buildContracts();
  const d = await devnetDeployer(rpcUrl);
  const { client, chain } = d;
  if (chain.id !== 1) throw new Error(`the mainnet-shaped world needs chain id 1, got ${chain.id}`);
  const deployer = d.address;
  const startBlock = Number(await client.getBlockNumber()) + 1;

  const weth9 = readNpmArtifact("WETH9");
  await deployAt(d, MAINNET.weth, weth9.abi, weth9.bytecode);
  const devToken = loadArtifact("DevToken");
  await deployAt(d, MAINNET.usdc, devToken.abi, devToken.bytecode, ["USD Coin", "USDC", 6]);
  await deployAt(d, MAINNET.dai, devToken.abi, devToken.bytecode, ["Dai Stablecoin", "DAI", 18]);
  const usdt = loadArtifact("UsdtStyleToken");
  await deployAt(d, MAINNET.usdt, usdt.abi, usdt.bytecode);

  const tokens = {
    WETH: { address: MAINNET.weth, symbol: "WETH", decimals: 18, usdPrice: PRICES.WETH },
    USDC: { address: MAINNET.usdc, symbol: "USDC", decimals: 6, usdPrice: PRICES.USDC },
    USDT: { address: MAINNET.usdt, symbol: "USDT", decimals: 6, usdPrice: PRICES.USDT },
    DAI: { address: MAINNET.dai, symbol: "DAI", decimals: 18, usdPrice: PRICES.DAI },
  } as MainnetWorld["tokens"];
  for (const [contract, symbol, decimals, usdPrice] of ODD_TOKENS) {
    const artifact = loadArtifact(contract);
    let address: Address;
    if (symbol === "MKR") {
      await deployAt(d, MAINNET.mkr, artifact.abi, artifact.bytecode);
      address = MAINNET.mkr;
    } else {
      address = await d.deploy(artifact.abi, artifact.bytecode);
    }
    tokens[symbol] = { address, symbol, decimals, usdPrice };
  }

  // Inventory: every token minted to the deployer, 100k ETH wrapped.
  for (const t of Object.values(tokens)) {
    if (t.symbol === "WETH") continue;
    await d.write(t.address, bareErc20Abi, "mint", [deployer, amountForUsd(t, 1_000_000_000)]);
  }
  await d.write(MAINNET.weth, WETH9Abi, "deposit", [], parseUnits("100000", 18));

  const v2Factory = readNpmArtifact("UniswapV2Factory");
  await deployAt(d, MAINNET.uniswapV2Factory, v2Factory.abi, v2Factory.bytecode, [deployer]);
  const router02 = readNpmArtifact("UniswapV2Router02");
  await deployAt(d, MAINNET.uniswapV2Router02, router02.abi, router02.bytecode, [
    MAINNET.uniswapV2Factory,
    MAINNET.weth,
  ]);
  const token = (symbol: string): WorldToken => {
    const t = (tokens as Record<string, WorldToken>)[symbol];
    if (!t) throw new Error(`unknown token ${symbol}`);
    return t;
  };
  const v2Pairs: Address[] = [];
  for (const [a, b, usd] of V2_PAIRS) v2Pairs.push(await seedV2Pair(d, token(a), token(b), usd));

  const v3Factory = readNpmArtifact("UniswapV3Factory");
  await deployAt(d, MAINNET.uniswapV3Factory, v3Factory.abi, v3Factory.bytecode);
  const positionManager = readNpmArtifact("NonfungiblePositionManager");
  await deployAt(d, MAINNET.positionManager, positionManager.abi, positionManager.bytecode, [
    MAINNET.uniswapV3Factory,
    MAINNET.weth,
    deployer,
  ]);
  const swapRouter = readNpmArtifact("SwapRouter");
  await deployAt(d, MAINNET.swapRouter, swapRouter.abi, swapRouter.bytecode, [
    MAINNET.uniswapV3Factory,
    MAINNET.weth,
  ]);
  const quoter = readNpmArtifact("QuoterV2");
  await deployAt(d, MAINNET.quoterV2, quoter.abi, quoter.bytecode, [
    MAINNET.uniswapV3Factory,
    MAINNET.weth,
  ]);
  for (const symbol of ["WETH", "USDC", "USDT"]) {
    await d.write(token(symbol).address, bareErc20Abi, "approve", [
      MAINNET.positionManager,
      maxUint256,
    ]);
  }
  const v3Pools: Address[] = [];
  for (const [a, b, fee, usd] of V3_POOLS) {
    v3Pools.push(await seedV3Pool(d, token(a), token(b), fee, usd));
  }

  const poolManager = readNpmArtifact("PoolManager");
  await deployAt(d, MAINNET.uniswapV4PoolManager, poolManager.abi, poolManager.bytecode, [
    deployer,
  ]);
  for (const [target, name] of [
    [MAINNET.uniswapV4StateView, "StateView"],
    [MAINNET.uniswapV4Quoter, "V4Quoter"],
  ] as const) {
    const artifact = readNpmArtifact(name);
    await deployAt(d, target, artifact.abi, artifact.bytecode, [MAINNET.uniswapV4PoolManager]);
  }

  const devVault = loadArtifact("DevVault");
  const vault = await d.deploy(devVault.abi, devVault.bytecode, [
    MAINNET.usdc,
    "Savings USDC",
    "svUSDC",
  ]);
  const deposited = parseUnits("2000000", 6);
  await d.write(MAINNET.usdc, bareErc20Abi, "approve", [vault, deposited]);
  await d.write(vault, devVault.abi, "deposit", [deposited, deployer]);

  // A rebase after seeding: the pair's balance of REBASE now exceeds its reserve, as happens
  // on chain between syncs.
  await d.write(token("REBASE").address, loadArtifact("RebasingToken").abi, "rebase", [
    1_010_000_000_000_000_000n,
  ]);
  // The world's reserves of the devnet market's list: USDT-style approvals return nothing, and
  // the world has no WBTC.
  const aaveV3 = options.aaveV3
    ? await deployAaveV3({
        deployer: d,
        token,
        reserves: AAVE_V3_RESERVES.filter((r) => ["WETH", "USDC", "DAI"].includes(r.symbol)),
      })
    : undefined;
  // Multicall3 where mainnet has it, deployed as it was there: by its pre-signed transaction.
  if (!(await placeMulticall3(client))) throw new Error("the chain node cannot place Multicall3");
  return { startBlock, deployer, client, tokens, v2Pairs, v3Pools, vault, aaveV3 };
}

/** Sends `amount` of a token (USDT-style included) from the world's deployer to `to`. */
export async function fundFromDeployer(
  rpcUrl: string,
  token: Address,
  to: Address,
  amount: bigint,
): Promise<void> {
  const d = await devnetDeployer(rpcUrl);
  await d.write(token, bareErc20Abi, "transfer", [to, amount]);
}
