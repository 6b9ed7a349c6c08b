/**
 * The chain the execution-layer tests and the gas bench run against: WETH9, Uniswap V2 and V3
 * (factory, pools, Router02, SwapRouter, QuoterV2) from their npm build artifacts, three
 * DevTokens, two ERC4626 DevVaults, the execution layer itself, and the test-only contracts.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  type Abi,
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
  parseEther,
  parseUnits,
  type TestClient,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvil as anvilChain } from "viem/chains";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { NonfungiblePositionManagerAbi } from "../../abis/NonfungiblePositionManager.js";
import { UniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV3FactoryAbi } from "../../abis/UniswapV3Factory.js";
import { WETH9Abi } from "../../abis/WETH9.js";
import { loadArtifact } from "../../contracts/build.js";
import { DEVNET_ACCOUNT_KEYS, DEVNET_DEPLOYER_KEY } from "../../devnet/anvil.js";
import { deployExecutionLayer, type ExecutionLayer } from "../../devnet/execution.js";
import { devnetReceipt } from "../../devnet/receipts.js";

const require = createRequire(import.meta.url);

const NPM_ARTIFACTS = {
  WETH9: "@uniswap/v2-periphery/build/WETH9.json",
  UniswapV2Factory: "@uniswap/v2-core/build/UniswapV2Factory.json",
  UniswapV2Router02: "@uniswap/v2-periphery/build/UniswapV2Router02.json",
  UniswapV3Factory:
    "@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
  NonfungiblePositionManager:
    "@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  SwapRouter: "@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json",
  QuoterV2: "@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json",
} as const;

function npmArtifact(name: keyof typeof NPM_ARTIFACTS): { abi: Abi; bytecode: Hex } {
  const json = JSON.parse(readFileSync(require.resolve(NPM_ARTIFACTS[name]), "utf8")) as {
    abi: Abi;
    bytecode: string;
  };
  const bytecode = json.bytecode.startsWith("0x") ? json.bytecode : `0x${json.bytecode}`;
  return { abi: json.abi, bytecode: bytecode as Hex };
}

export type Wallet = WalletClient<Transport, Chain, Account>;

/** A token of the test world. */
export type TestToken = { address: Address; symbol: string; decimals: number };

export type V2Pair = { address: Address; token0: Address; token1: Address };
export type V3Pool = { address: Address; token0: Address; token1: Address; fee: number };

export type ExecutionWorld = {
  chain: Chain;
  client: PublicClient<Transport, Chain>;
  test: TestClient<"anvil", Transport, Chain>;
  accounts: {
    deployer: Wallet;
    user: Wallet;
    attacker: Wallet;
    victim: Wallet;
    feeReceiver: Wallet;
    receiver: Wallet;
    bystander: Wallet;
    /** An account used only through EIP-7702 delegation. */
    delegator: Wallet;
  };
  weth: Address;
  tokens: { A: TestToken; B: TestToken; C: TestToken };
  reentrantToken: Address;
  uniswapV2: {
    factory: Address;
    router02: Address;
    pairs: Record<"AB" | "BC" | "AW" | "CW", V2Pair>;
  };
  uniswapV3: {
    factory: Address;
    positionManager: Address;
    swapRouter: Address;
    quoterV2: Address;
    pools: Record<"AB" | "BW" | "AC", V3Pool>;
  };
  vaults: { A: Address; B: Address };
  execution: ExecutionLayer;
  testContracts: {
    argProbe: Address;
    vmHarness: Address;
    fakePool: Address;
    smartWallet: Address;
    lens: Address;
  };
};

/**
 * The one Uniswap V3 fork's pool deployer the world's router executor is built to trust:
 * PancakeSwap V3's deployer address and pool init code hash on its chains (no code here; the
 * executor's check is the CREATE2 address they give).
 */
export const TRUSTED_FORK_DEPLOYER = {
  deployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
  initCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
} as const satisfies { deployer: Address; initCodeHash: `0x${string}` };

/** Integer square root (floor). */
export function sqrt(value: bigint): bigint {
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + value / x) / 2n;
  }
  return x;
}

function sortedPair(a: Address, b: Address): [Address, Address] {
  return a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
}

/**
 * Deploys the test world on the anvil at `rpcUrl` (a fresh chain).
 * @example const world = await deployExecutionWorld(anvil.url);
 */
export async function deployExecutionWorld(rpcUrl: string): Promise<ExecutionWorld> {
  const chain: Chain = { ...anvilChain, rpcUrls: { default: { http: [rpcUrl] } } };
  const transport = http(rpcUrl, { batch: false });
  const client = createPublicClient({ chain, transport });
  const test = createTestClient({ chain, transport, mode: "anvil" });
  const wallet = (key: Hex): Wallet =>
    createWalletClient({ account: privateKeyToAccount(key), chain, transport });
  const keys = DEVNET_ACCOUNT_KEYS;
  const accounts = {
    deployer: wallet(DEVNET_DEPLOYER_KEY),
    user: wallet(keys[0]),
    attacker: wallet(keys[1]),
    victim: wallet(keys[2]),
    feeReceiver: wallet(keys[3]),
    receiver: wallet(keys[4]),
    bystander: wallet(keys[5]),
    delegator: wallet(keys[6]),
  };
  const d = accounts.deployer;
  let nonce = await client.getTransactionCount({ address: d.account.address });

  const mined = async (hash: Hex, what: string) => {
    const receipt = await devnetReceipt(client as never, hash);
    if (receipt.status !== "success") throw new Error(`${what} reverted`);
    return receipt;
  };
  const deploy = async (
    artifact: { abi: Abi; bytecode: Hex },
    args: readonly unknown[] = [],
  ): Promise<Address> => {
    const hash = await d.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args,
      nonce: nonce++,
      gas: 16_000_000n,
    });
    const receipt = await mined(hash, "deployment");
    if (!receipt.contractAddress) throw new Error("no contract address");
    return getAddress(receipt.contractAddress);
  };
  const write = async (
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[] = [],
    value?: bigint,
  ): Promise<void> => {
    const hash = await d.writeContract({
      address,
      abi,
      functionName,
      args,
      value,
      nonce: nonce++,
      gas: 8_000_000n,
    });
    await mined(hash, functionName);
  };
  const read = async (
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[] = [],
  ) => await client.readContract({ address, abi, functionName, args });

  // Tokens.
  const weth = await deploy(npmArtifact("WETH9"));
  const devToken = loadArtifact("DevToken");
  const token = async (symbol: string, decimals: number): Promise<TestToken> => ({
    address: await deploy(devToken, [`Token ${symbol}`, symbol, decimals]),
    symbol,
    decimals,
  });
  const tokens = { A: await token("A", 18), B: await token("B", 6), C: await token("C", 18) };
  const reentrantToken = await deploy(loadArtifact("ReentrantToken"));
  const mint = async (t: TestToken, to: Address, units: string) =>
    await write(t.address, DevTokenAbi, "mint", [to, parseUnits(units, t.decimals)]);
  await write(weth, WETH9Abi, "deposit", [], parseEther("10000"));
  for (const t of Object.values(tokens)) await mint(t, d.account.address, "100000000");

  // Uniswap V2: prices A = 10 B, C = 2 B, WETH = 3000 B.
  const v2Factory = await deploy(npmArtifact("UniswapV2Factory"), [d.account.address]);
  const router02 = await deploy(npmArtifact("UniswapV2Router02"), [v2Factory, weth]);
  const addPair = async (
    x: Address,
    amountX: bigint,
    y: Address,
    amountY: bigint,
  ): Promise<V2Pair> => {
    await write(v2Factory, UniswapV2FactoryAbi, "createPair", [x, y]);
    const pair = getAddress(
      (await read(v2Factory, UniswapV2FactoryAbi, "getPair", [x, y])) as Address,
    );
    await write(x, DevTokenAbi, "transfer", [pair, amountX]);
    await write(y, DevTokenAbi, "transfer", [pair, amountY]);
    await write(pair, UniswapV2PairAbi, "mint", [d.account.address]);
    const [token0, token1] = sortedPair(x, y);
    return { address: pair, token0: getAddress(token0), token1: getAddress(token1) };
  };
  const pairs = {
    AB: await addPair(
      tokens.A.address,
      parseUnits("100000", 18),
      tokens.B.address,
      parseUnits("1000000", 6),
    ),
    BC: await addPair(
      tokens.B.address,
      parseUnits("400000", 6),
      tokens.C.address,
      parseUnits("200000", 18),
    ),
    AW: await addPair(tokens.A.address, parseUnits("300000", 18), weth, parseUnits("1000", 18)),
    CW: await addPair(tokens.C.address, parseUnits("600000", 18), weth, parseUnits("400", 18)),
  };

  // Uniswap V3 with one full-range position per pool.
  const v3Factory = await deploy(npmArtifact("UniswapV3Factory"));
  const positionManager = await deploy(npmArtifact("NonfungiblePositionManager"), [
    v3Factory,
    weth,
    d.account.address,
  ]);
  const swapRouter = await deploy(npmArtifact("SwapRouter"), [v3Factory, weth]);
  const quoterV2 = await deploy(npmArtifact("QuoterV2"), [v3Factory, weth]);
  for (const t of [tokens.A.address, tokens.B.address, tokens.C.address, weth]) {
    await write(t, DevTokenAbi, "approve", [positionManager, maxUint256]);
  }
  const spacing: Record<number, number> = { 500: 10, 3000: 60 };
  const addPool = async (
    x: Address,
    amountX: bigint,
    y: Address,
    amountY: bigint,
    fee: number,
  ): Promise<V3Pool> => {
    const [token0, token1] = sortedPair(x, y);
    const [amount0, amount1] = token0 === x ? [amountX, amountY] : [amountY, amountX];
    const sqrtPriceX96 = sqrt((amount1 << 192n) / amount0);
    await write(
      positionManager,
      NonfungiblePositionManagerAbi,
      "createAndInitializePoolIfNecessary",
      [token0, token1, fee, sqrtPriceX96],
    );
    const tickSpacing = spacing[fee] ?? 60;
    const maxTick = Math.floor(887272 / tickSpacing) * tickSpacing;
    await write(positionManager, NonfungiblePositionManagerAbi, "mint", [
      {
        token0,
        token1,
        fee,
        tickLower: -maxTick,
        tickUpper: maxTick,
        amount0Desired: amount0,
        amount1Desired: amount1,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: d.account.address,
        deadline: maxUint256,
      },
    ]);
    const pool = getAddress(
      (await read(v3Factory, UniswapV3FactoryAbi, "getPool", [token0, token1, fee])) as Address,
    );
    return { address: pool, token0: getAddress(token0), token1: getAddress(token1), fee };
  };
  const pools = {
    AB: await addPool(
      tokens.A.address,
      parseUnits("50000", 18),
      tokens.B.address,
      parseUnits("500000", 6),
      3000,
    ),
    BW: await addPool(tokens.B.address, parseUnits("900000", 6), weth, parseUnits("300", 18), 500),
    AC: await addPool(
      tokens.A.address,
      parseUnits("20000", 18),
      tokens.C.address,
      parseUnits("100000", 18),
      3000,
    ),
  };

  // ERC4626 vaults with an initial deposit each.
  const devVault = loadArtifact("DevVault");
  const vaults = {
    A: await deploy(devVault, [tokens.A.address, "Vault A", "vA"]),
    B: await deploy(devVault, [tokens.B.address, "Vault B", "vB"]),
  };
  for (const [vault, t, units] of [
    [vaults.A, tokens.A, "1000"],
    [vaults.B, tokens.B, "50000"],
  ] as const) {
    await write(t.address, DevTokenAbi, "approve", [vault, maxUint256]);
    await write(vault, DevVaultAbi, "deposit", [parseUnits(units, t.decimals), d.account.address]);
  }
  // Simulated yield on vault B, so shares and assets differ.
  await write(tokens.B.address, DevTokenAbi, "transfer", [vaults.B, parseUnits("1234.567891", 6)]);

  const execution = await deployExecutionLayer({
    walletClient: d,
    publicClient: client as PublicClient,
    v3Factory,
    weth,
    swapRouter,
    v3ForkDeployers: [TRUSTED_FORK_DEPLOYER],
  });
  nonce = await client.getTransactionCount({ address: d.account.address });

  const testContracts = {
    argProbe: await deploy(loadArtifact("ArgProbe")),
    vmHarness: await deploy(loadArtifact("CommandVMHarness")),
    fakePool: await deploy(loadArtifact("FakeUniswapV3Pool")),
    smartWallet: await deploy(loadArtifact("TestSmartWallet"), [accounts.user.account.address]),
    lens: await deploy(loadArtifact("BalanceLens")),
  };

  // Fund the users: tokens from the deployer, WETH by wrapping their own ETH.
  for (const who of [accounts.user, accounts.attacker, accounts.victim, accounts.delegator]) {
    const to = who.account.address;
    await mint(tokens.A, to, "1000000");
    await mint(tokens.B, to, "10000000");
    await mint(tokens.C, to, "1000000");
    await write(reentrantToken, DevTokenAbi, "mint", [to, parseUnits("1000000", 18)]);
    const hash = await who.writeContract({
      address: weth,
      abi: WETH9Abi,
      functionName: "deposit",
      value: parseEther("1000"),
    });
    await mined(hash, "wrap");
  }
  await write(tokens.A.address, DevTokenAbi, "transfer", [
    testContracts.smartWallet,
    parseUnits("1000", 18),
  ]);

  return {
    chain,
    client: client as PublicClient<Transport, Chain>,
    test: test as TestClient<"anvil", Transport, Chain>,
    accounts,
    weth,
    tokens,
    reentrantToken,
    uniswapV2: { factory: v2Factory, router02, pairs },
    uniswapV3: { factory: v3Factory, positionManager, swapRouter, quoterV2, pools },
    vaults,
    execution,
    testContracts,
  };
}
