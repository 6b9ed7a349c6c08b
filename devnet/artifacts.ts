import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Abi, type Address, type Hex, isHex, keccak256, stringToBytes } from "viem";

const require = createRequire(import.meta.url);

/** One artifact of a task of `@balancer-labs/v2-deployments`. */
function balancerTask(task: string, name: string): string {
  return `@balancer-labs/v2-deployments/dist/tasks/${task}/artifact/${name}.json`;
}

/** The release's tasks the devnet deploys Balancer V2 from (their names version the factories). */
export const BALANCER_V2_TASKS = {
  authorizer: "20210418-authorizer",
  vault: "20210418-vault",
  protocolFeePercentagesProvider: "20220725-protocol-fee-percentages-provider",
  weightedPool: "20230206-weighted-pool-v3",
  composableStablePool: "20230206-composable-stable-pool-v3",
} as const;

/** Build artifacts of real, canonical contracts, as shipped in their npm packages. */
export const npmArtifacts = {
  WETH9: "@uniswap/v2-periphery/build/WETH9.json",
  UniswapV2Factory: "@uniswap/v2-core/build/UniswapV2Factory.json",
  UniswapV2Pair: "@uniswap/v2-core/build/UniswapV2Pair.json",
  UniswapV2Router02: "@uniswap/v2-periphery/build/UniswapV2Router02.json",
  UniswapV3Factory:
    "@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
  UniswapV3Pool: "@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json",
  NonfungiblePositionManager:
    "@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  SwapRouter: "@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json",
  QuoterV2: "@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json",
  PoolManager: "@uniswap/v4-core/out/PoolManager.sol/PoolManager.json",
  StateView: "@uniswap/v4-periphery/foundry-out/StateView.sol/StateView.json",
  V4Quoter: "@uniswap/v4-periphery/foundry-out/V4Quoter.sol/V4Quoter.json",
  AaveV3Pool: "@aave/core-v3/artifacts/contracts/protocol/pool/Pool.sol/Pool.json",
  AaveV3PoolConfigurator:
    "@aave/core-v3/artifacts/contracts/protocol/pool/PoolConfigurator.sol/PoolConfigurator.json",
  AaveV3AToken: "@aave/core-v3/artifacts/contracts/protocol/tokenization/AToken.sol/AToken.json",
  AaveV3VariableDebtToken:
    "@aave/core-v3/artifacts/contracts/protocol/tokenization/VariableDebtToken.sol/VariableDebtToken.json",
  AaveV3PoolAddressesProvider:
    "@aave/core-v3/artifacts/contracts/protocol/configuration/PoolAddressesProvider.sol/PoolAddressesProvider.json",
  AaveV3ACLManager:
    "@aave/core-v3/artifacts/contracts/protocol/configuration/ACLManager.sol/ACLManager.json",
  AaveV3Oracle: "@aave/core-v3/artifacts/contracts/misc/AaveOracle.sol/AaveOracle.json",
  AaveV3ProtocolDataProvider:
    "@aave/core-v3/artifacts/contracts/misc/AaveProtocolDataProvider.sol/AaveProtocolDataProvider.json",
  AaveV3DefaultReserveInterestRateStrategy:
    "@aave/core-v3/artifacts/contracts/protocol/pool/DefaultReserveInterestRateStrategy.sol/DefaultReserveInterestRateStrategy.json",
  BalancerV2Vault: balancerTask(BALANCER_V2_TASKS.vault, "Vault"),
  BalancerV2WeightedPoolFactory: balancerTask(
    BALANCER_V2_TASKS.weightedPool,
    "WeightedPoolFactory",
  ),
  BalancerV2WeightedPool: balancerTask(BALANCER_V2_TASKS.weightedPool, "WeightedPool"),
  BalancerV2ComposableStablePool: balancerTask(
    BALANCER_V2_TASKS.composableStablePool,
    "ComposableStablePool",
  ),
  /** PancakeSwap V3's pool: Uniswap V3's, with its own `Swap` event (protocol fees added). */
  PancakeV3Pool: "@pancakeswap/v3-core/artifacts/contracts/PancakeV3Pool.sol/PancakeV3Pool.json",
} as const;

const aaveLogic = "@aave/core-v3/artifacts/contracts/protocol/libraries/logic";

/**
 * Artifacts the devnet deploys but calls through no ABI of its own (so `abis/` has no module for
 * them): Aave V3's logic libraries and its stable debt token; Balancer V2's authorizer, query
 * helpers, fee provider and composable stable pool factory, called through the
 * fragments `devnet/balancer-v2.ts` types.
 */
export const npmDeployOnlyArtifacts = {
  AaveV3BorrowLogic: `${aaveLogic}/BorrowLogic.sol/BorrowLogic.json`,
  AaveV3BridgeLogic: `${aaveLogic}/BridgeLogic.sol/BridgeLogic.json`,
  AaveV3ConfiguratorLogic: `${aaveLogic}/ConfiguratorLogic.sol/ConfiguratorLogic.json`,
  AaveV3EModeLogic: `${aaveLogic}/EModeLogic.sol/EModeLogic.json`,
  AaveV3FlashLoanLogic: `${aaveLogic}/FlashLoanLogic.sol/FlashLoanLogic.json`,
  AaveV3LiquidationLogic: `${aaveLogic}/LiquidationLogic.sol/LiquidationLogic.json`,
  AaveV3PoolLogic: `${aaveLogic}/PoolLogic.sol/PoolLogic.json`,
  AaveV3SupplyLogic: `${aaveLogic}/SupplyLogic.sol/SupplyLogic.json`,
  AaveV3StableDebtToken:
    "@aave/core-v3/artifacts/contracts/protocol/tokenization/StableDebtToken.sol/StableDebtToken.json",
  BalancerV2Authorizer: balancerTask(BALANCER_V2_TASKS.authorizer, "Authorizer"),
  BalancerV2Helpers: balancerTask(BALANCER_V2_TASKS.vault, "BalancerHelpers"),
  BalancerV2ProtocolFeePercentagesProvider: balancerTask(
    BALANCER_V2_TASKS.protocolFeePercentagesProvider,
    "ProtocolFeePercentagesProvider",
  ),
  BalancerV2ComposableStablePoolFactory: balancerTask(
    BALANCER_V2_TASKS.composableStablePool,
    "ComposableStablePoolFactory",
  ),
  /**
   * PancakeSwap's first AMM, a Uniswap V2 fork whose pairs charge 0.2%: its factory (which holds
   * the pair's creation code), called through Uniswap V2's factory ABI (the same interface).
   */
  PancakeFactory: "@pancakeswap-libs/pancake-swap-core/build/PancakeFactory.json",
  /**
   * PancakeSwap V3's factory, which creates pools through a deployer (the package ships none:
   * the devnet's own, contracts/devnet/DevPancakeV3PoolDeployer.sol, holds `PancakeV3Pool`'s
   * creation code), and the periphery, which finds a pool from the deployer's address and the
   * pool's init code hash.
   */
  PancakeV3Factory:
    "@pancakeswap/v3-core/artifacts/contracts/PancakeV3Factory.sol/PancakeV3Factory.json",
  PancakeV3SwapRouter:
    "@pancakeswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json",
  PancakeV3QuoterV2:
    "@pancakeswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json",
  PancakeV3PositionManager:
    "@pancakeswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  /** OP-stack predeploys, placed (not deployed) by the OP-stack test world. */
  OpStackGasPriceOracle:
    "@eth-optimism/contracts-bedrock/forge-artifacts/GasPriceOracle.sol/GasPriceOracle.json",
  OpStackL1Block: "@eth-optimism/contracts-bedrock/forge-artifacts/L1Block.sol/L1Block.json",
} as const;

export type NpmArtifactName = keyof typeof npmArtifacts | keyof typeof npmDeployOnlyArtifacts;

/**
 * Where a Hardhat artifact's creation code calls external libraries: source file, library name,
 * then the byte ranges (20 bytes each) that hold a placeholder for the library's address.
 */
export type LinkReferences = Record<string, Record<string, { start: number; length: number }[]>>;

type ArtifactJson = {
  abi: Abi;
  // Hardhat and Truffle artifacts hold the hex itself; Foundry's wrap it in `object`.
  bytecode: string | { object: string };
  deployedBytecode?: string | { object: string };
  linkReferences?: LinkReferences;
};

const artifactPaths: Record<NpmArtifactName, string> = {
  ...npmArtifacts,
  ...npmDeployOnlyArtifacts,
};

function readArtifactJson(name: NpmArtifactName): ArtifactJson {
  return JSON.parse(readFileSync(require.resolve(artifactPaths[name]), "utf8")) as ArtifactJson;
}

function hexOf(code: string | { object: string }): string {
  const hex = typeof code === "string" ? code : code.object;
  return hex.startsWith("0x") ? hex : `0x${hex}`;
}

function creationCode(json: ArtifactJson): string {
  return hexOf(json.bytecode);
}

/**
 * One npm artifact's ABI and runtime (deployed) bytecode: the code a chain holds at a predeploy's
 * address, placed there by a test world instead of deployed.
 */
export function readNpmDeployedArtifact(name: NpmArtifactName): { abi: Abi; code: Hex } {
  const json = readArtifactJson(name);
  if (!json.deployedBytecode) throw new Error(`${name}: the artifact has no deployed bytecode`);
  return { abi: json.abi, code: hexOf(json.deployedBytecode) as Hex };
}

/**
 * Reads one npm artifact: its ABI and creation bytecode, unchanged. The bytecode of a contract
 * that calls external libraries still holds their placeholders: read it with
 * {@link readLinkedNpmArtifact} to deploy it.
 */
export function readNpmArtifact(name: NpmArtifactName): { abi: Abi; bytecode: Hex } {
  const json = readArtifactJson(name);
  return { abi: json.abi, bytecode: creationCode(json) as Hex };
}

/**
 * Reads one npm artifact with the addresses of the libraries it calls spliced into its creation
 * bytecode (see {@link linkBytecode}); an artifact that links none needs `libraries` empty.
 * @example const pool = readLinkedNpmArtifact("AaveV3Pool", { BorrowLogic: "0x…", … });
 */
export function readLinkedNpmArtifact(
  name: NpmArtifactName,
  libraries: Record<string, Address>,
): { abi: Abi; bytecode: Hex } {
  const json = readArtifactJson(name);
  try {
    const bytecode = linkBytecode({
      bytecode: creationCode(json),
      linkReferences: json.linkReferences ?? {},
      libraries,
    });
    return { abi: json.abi, bytecode };
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}

/**
 * The placeholder solc (0.5 and later) leaves where a library's address goes: `__$`, the first
 * 17 bytes of the keccak256 of the library's fully qualified name in hex, `$__` (40 characters).
 */
export function libraryPlaceholder(fullyQualifiedName: string): string {
  return `__$${keccak256(stringToBytes(fullyQualifiedName)).slice(2, 36)}$__`;
}

/**
 * Splices library addresses into creation bytecode at the places `linkReferences` lists, as a
 * linker does. `libraries` is keyed by library name (`BorrowLogic`) or fully qualified name
 * (`contracts/…/BorrowLogic.sol:BorrowLogic`). Refuses a missing address, an address for a
 * library the code does not call, a reference that does not hold that library's placeholder,
 * and a result that is still not hex (a placeholder no reference listed).
 */
export function linkBytecode(params: {
  bytecode: string;
  linkReferences: LinkReferences;
  libraries: Record<string, Address>;
}): Hex {
  let code = params.bytecode;
  const missing: string[] = [];
  const used = new Set<string>();
  for (const [source, libraries] of Object.entries(params.linkReferences)) {
    for (const [library, references] of Object.entries(libraries)) {
      const fullyQualified = `${source}:${library}`;
      const key = fullyQualified in params.libraries ? fullyQualified : library;
      const address = params.libraries[key];
      if (address === undefined) {
        missing.push(fullyQualified);
        continue;
      }
      used.add(key);
      const placeholder = libraryPlaceholder(fullyQualified);
      for (const { start, length } of references) {
        // Offsets count bytes of the code, after the 0x.
        const from = 2 + start * 2;
        const found = code.slice(from, from + length * 2);
        if (length !== 20 || found !== placeholder) {
          throw new Error(
            `bytes ${start}..${start + length} hold "${found}", not the placeholder of ${fullyQualified}`,
          );
        }
        code = `${code.slice(0, from)}${address.slice(2).toLowerCase()}${code.slice(from + 40)}`;
      }
    }
  }
  if (missing.length > 0) throw new Error(`no address given for ${missing.join(", ")}`);
  const unused = Object.keys(params.libraries).filter((key) => !used.has(key));
  if (unused.length > 0) throw new Error(`the code does not call ${unused.join(", ")}`);
  if (!isHex(code, { strict: true })) {
    throw new Error("the code still holds a placeholder that its link references do not list");
  }
  return code;
}
