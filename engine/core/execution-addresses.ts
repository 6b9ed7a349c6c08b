/**
 * The deterministic addresses of the execution layer, computed without a chain.
 *
 * `npm run deploy` (`scripts/deploy.ts`) sends each top-level contract's init code to the
 * deterministic-deployment proxy, which deploys it with CREATE2 under one fixed salt. An
 * address therefore depends only on the proxy, the salt and the init code: the same on every
 * chain. The contracts a constructor deploys (the router's executor, the factory's wallet
 * implementation) are the first CREATE of a fresh contract (nonce 1, EIP-161), so they follow.
 * Two contracts take constructor arguments: the router, the Uniswap V3 factory, V4 pool manager
 * and Uniswap V3 forks' pool deployers its executor trusts, and the Uniswap V4 router, its pool
 * manager. Their addresses (and the executor's) are the same on every chain for a given V3
 * factory, V4 pool manager and list of fork deployers.
 */
import {
  type Address,
  concat,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  keccak256,
  stringToHex,
} from "viem";
import { executionInitCode } from "../../abis/generated/ExecutionInitCode.js";

/**
 * The deterministic-deployment proxy (Arachnid's): `CREATE2(value, salt ‖ init code)` from
 * calldata `salt (32 bytes) ‖ init code`, present on most chains at this address.
 */
export const DETERMINISTIC_DEPLOYMENT_PROXY: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";

/** The one salt of every execution-layer deployment: keccak256 of this project string. */
export const EXECUTION_SALT: Hex = keccak256(stringToHex("defi-shortcuts/execution-layer/v1"));

/** The canonical Uniswap V3 factory (Ethereum mainnet): the router's default configuration. */
export const CANONICAL_UNISWAP_V3_FACTORY: Address = "0x1F98431c8aD98523631AE4a59f267346ea31F984";

/**
 * The canonical Uniswap V4 pool manager (Ethereum mainnet): the default of the router executor
 * and the V4 router. A chain without Uniswap V4 uses the zero address (V4 swaps then revert).
 */
export const CANONICAL_UNISWAP_V4_POOL_MANAGER: Address =
  "0x000000000004444c5dc75cB358380D2e3dE08A90";

/** Addresses of the execution layer, by the names `EXECUTION_<chainId>` uses. */
export type ExecutionAddresses = {
  /** ShortcutRouter: what users approve (`routingStrategy=router`). */
  router: Address;
  /** RouterExecutor: runs the router's programs; deployed by the router. */
  executor: Address;
  /** DelegateExecutor: the VM wallets DELEGATECALL (`routingStrategy=delegate`). */
  delegateExecutor: Address;
  /** CoreWalletFactory: per-user wallets (`routingStrategy=corewallet`). */
  walletFactory: Address;
  /** The CoreWallet implementation every wallet clone delegates to; deployed by the factory. */
  walletImplementation: Address;
  /** MinAmountOutCheck: minimum-output check called by delegate and wallet programs. */
  minAmountOutCheck: Address;
  /** ProgramValues: value helpers programs call (tuple words, pool outputs). */
  programValues: Address;
  /** UniswapV4Router: V4 swaps for delegate and wallet programs (no unlock callback of their own). */
  uniswapV4Router: Address;
};

/** The order of `EXECUTION_<chainId>` entries and of the deploy script's report. */
export const EXECUTION_ADDRESS_NAMES = [
  "router",
  "executor",
  "delegateExecutor",
  "walletFactory",
  "walletImplementation",
  "minAmountOutCheck",
  "programValues",
  "uniswapV4Router",
] as const satisfies readonly (keyof ExecutionAddresses)[];

/** The compiled contract at each execution-layer address, by artifact name. */
export const EXECUTION_CONTRACT_NAMES: Readonly<Record<keyof ExecutionAddresses, string>> = {
  router: "ShortcutRouter",
  executor: "RouterExecutor",
  delegateExecutor: "DelegateExecutor",
  walletFactory: "CoreWalletFactory",
  walletImplementation: "CoreWallet",
  minAmountOutCheck: "MinAmountOutCheck",
  programValues: "ProgramValues",
  uniswapV4Router: "UniswapV4Router",
};

/** Creation bytecode (no constructor arguments) of the six top-level contracts. */
export type ExecutionCreationCode = {
  ShortcutRouter: Hex;
  DelegateExecutor: Hex;
  CoreWalletFactory: Hex;
  MinAmountOutCheck: Hex;
  ProgramValues: Hex;
  UniswapV4Router: Hex;
};

/** A Uniswap V3 fork's pool deployer and pool init code hash, as the router executor trusts it. */
export type V3PoolDeployer = { deployer: Address; initCodeHash: Hex };

export type ExecutionInitCodesParameters = {
  /** Uniswap V3 factory of the router. Default {@link CANONICAL_UNISWAP_V3_FACTORY}. */
  v3Factory?: Address;
  /**
   * Uniswap V4 pool manager of the router's executor and of the V4 router (the zero address
   * where the chain has none). Default {@link CANONICAL_UNISWAP_V4_POOL_MANAGER}.
   */
  v4PoolManager?: Address;
  /**
   * The Uniswap V3 forks' pool deployers whose pools the router's executor pays from its swap
   * callback (chain-setup.ts `v3ForkPoolDeployers`). Default none.
   */
  v3ForkDeployers?: readonly V3PoolDeployer[];
  /** Creation bytecode; default the committed build (`abis/generated/ExecutionInitCode.ts`). */
  creationCode?: ExecutionCreationCode;
};

/** The ShortcutRouter constructor's parameters. */
const routerConstructor = [
  { type: "address", name: "uniswapV3Factory" },
  { type: "address", name: "uniswapV4PoolManager" },
  {
    type: "tuple[]",
    name: "v3ForkDeployers",
    components: [
      { type: "address", name: "deployer" },
      { type: "bytes32", name: "initCodeHash" },
    ],
  },
] as const;

/** The init code (creation bytecode ‖ constructor arguments) of each top-level contract. */
export function executionInitCodes(
  params: ExecutionInitCodesParameters = {},
): ExecutionCreationCode {
  const code = params.creationCode ?? executionInitCode;
  const v3Factory = params.v3Factory ?? CANONICAL_UNISWAP_V3_FACTORY;
  const v4PoolManager = params.v4PoolManager ?? CANONICAL_UNISWAP_V4_POOL_MANAGER;
  return {
    ShortcutRouter: concat([
      code.ShortcutRouter,
      encodeAbiParameters(routerConstructor, [
        v3Factory,
        v4PoolManager,
        [...(params.v3ForkDeployers ?? [])],
      ]),
    ]),
    DelegateExecutor: code.DelegateExecutor,
    CoreWalletFactory: code.CoreWalletFactory,
    MinAmountOutCheck: code.MinAmountOutCheck,
    ProgramValues: code.ProgramValues,
    UniswapV4Router: concat([
      code.UniswapV4Router,
      encodeAbiParameters([{ type: "address" }], [v4PoolManager]),
    ]),
  };
}

export type DeterministicExecutionAddressesParameters = ExecutionInitCodesParameters & {
  /** Default {@link EXECUTION_SALT}. */
  salt?: Hex;
};

/**
 * Where `npm run deploy` puts the execution layer for this configuration, on any chain.
 * @example const { router } = deterministicExecutionAddresses({ v3Factory: "0x1F98…F984", v4PoolManager: "0x0000…8A90" });
 */
export function deterministicExecutionAddresses(
  params: DeterministicExecutionAddressesParameters = {},
): ExecutionAddresses {
  const salt = params.salt ?? EXECUTION_SALT;
  const initCode = executionInitCodes(params);
  const create2 = (bytecode: Hex): Address =>
    getContractAddress({
      opcode: "CREATE2",
      from: DETERMINISTIC_DEPLOYMENT_PROXY,
      salt,
      bytecode,
    });
  // A contract's own nonce starts at 1 (EIP-161): its first CREATE uses nonce 1.
  const firstChild = (from: Address): Address => getContractAddress({ from, nonce: 1n });
  const router = create2(initCode.ShortcutRouter);
  const walletFactory = create2(initCode.CoreWalletFactory);
  return {
    router,
    executor: firstChild(router),
    delegateExecutor: create2(initCode.DelegateExecutor),
    walletFactory,
    walletImplementation: firstChild(walletFactory),
    minAmountOutCheck: create2(initCode.MinAmountOutCheck),
    programValues: create2(initCode.ProgramValues),
    uniswapV4Router: create2(initCode.UniswapV4Router),
  };
}

/** The `EXECUTION_<chainId>` value naming these addresses (`router:0x…,executor:0x…,…`). */
export function executionVariable(addresses: ExecutionAddresses): string {
  return EXECUTION_ADDRESS_NAMES.map((name) => `${name}:${addresses[name]}`).join(",");
}
