/**
 * `npm run deploy -- --rpc-url URL [--private-key 0x… | --unlocked 0x…] [--v3-factory 0x…]
 *  [--v4-pool-manager 0x…] [--v3-forks …]`
 *
 * `--v3-forks` (default: `UNISWAP_V3_FORKS_<chainId>` from the environment, as the service reads
 * it) names the Uniswap V3 forks whose pool deployers the router's executor is built to trust.
 *
 * Deploys the execution layer to any chain at deterministic addresses
 * (`engine/core/execution-addresses.ts`): each top-level contract through the
 * deterministic-deployment proxy (CREATE2, one fixed salt), the proxy itself first from its
 * public pre-signed transaction where the chain lacks it. Idempotent: a contract already at its
 * address is skipped. Prints the `EXECUTION_<chainId>=…` line naming the addresses.
 *
 * What is at an address is verified byte for byte: the runtime code must equal the compiled
 * `deployedBytecode` with each immutable filled with the value this configuration gives it
 * (the router's executor, the executor's router, V3 factory and V4 pool manager, each contract's
 * own address…).
 * Anything else there is an error naming the contract, before any transaction is sent.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type Account,
  type Address,
  concat,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  isAddress,
  isHex,
  keccak256,
  type PublicClient,
  padHex,
  parseGwei,
  type WalletClient,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { v3ForksOf } from "../chains.js";
import {
  buildContracts,
  type ContractArtifact,
  EXECUTION_LAYER_CONTRACTS,
  loadArtifact,
} from "../contracts/build.js";
import {
  CANONICAL_UNISWAP_V3_FACTORY,
  CANONICAL_UNISWAP_V4_POOL_MANAGER,
  DETERMINISTIC_DEPLOYMENT_PROXY,
  deterministicExecutionAddresses,
  EXECUTION_ADDRESS_NAMES,
  EXECUTION_CONTRACT_NAMES,
  EXECUTION_SALT,
  type ExecutionAddresses,
  type ExecutionCreationCode,
  executionInitCodes,
  executionVariable,
  v3ForkPoolDeployers,
} from "../engine/index.js";
import { KNOWN_CHAINS } from "../known-chains.js";

/**
 * The proxy's deployment: a pre-EIP-155 transaction with a made-up signature (r = s = 0x22…),
 * so nobody holds its sender's key and it deploys the proxy at the same address on any chain
 * that accepts unprotected transactions. Gas 100,000 at 100 gwei.
 */
export const PROXY_DEPLOYMENT_TX: Hex =
  "0xf8a58085174876e800830186a08080b853604580600e600039806000f350fe7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf31ba02222222222222222222222222222222222222222222222222222222222222222a02222222222222222222222222222222222222222222222222222222222222222";
/** The sender that signature recovers to. */
export const PROXY_DEPLOYER: Address = "0x3fAB184622Dc19b6109349B94811493BF2a45362";
/** What the proxy's deployer pays: the transaction's gas limit × gas price. */
export const PROXY_DEPLOYMENT_COST = 100_000n * parseGwei("100");
/** The proxy's runtime code. */
export const PROXY_RUNTIME_CODE: Hex =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

const CONTRACT_OF = EXECUTION_CONTRACT_NAMES;

/** Which top-level contract deploys each address (children come with their parent). */
const DEPLOYED_BY: Record<keyof ExecutionAddresses, keyof ExecutionCreationCode> = {
  router: "ShortcutRouter",
  executor: "ShortcutRouter",
  delegateExecutor: "DelegateExecutor",
  walletFactory: "CoreWalletFactory",
  walletImplementation: "CoreWalletFactory",
  minAmountOutCheck: "MinAmountOutCheck",
  programValues: "ProgramValues",
  uniswapV4Router: "UniswapV4Router",
};

/**
 * Each contract's immutables in declaration order (solc numbers declarations in source order,
 * file by file in the order of the source paths, which is how `immutableReferences` is keyed:
 * RouterExecutor.sol's come before those it inherits from UniswapV4Settlement.sol).
 */
function immutableValues(
  a: ExecutionAddresses,
  v3Factory: Address,
  v4PoolManager: Address,
): Record<string, Address[]> {
  return {
    ShortcutRouter: [a.executor], // executor
    RouterExecutor: [a.router, v3Factory, v4PoolManager], // router, uniswapV3Factory, uniswapV4PoolManager
    DelegateExecutor: [a.delegateExecutor], // self
    CoreWalletFactory: [a.walletImplementation], // implementation
    CoreWallet: [a.walletFactory, a.walletImplementation], // factory, self
    MinAmountOutCheck: [],
    ProgramValues: [],
    UniswapV4Router: [v4PoolManager], // uniswapV4PoolManager
  };
}

/** The runtime code a contract has on chain: its `deployedBytecode` with immutables filled in. */
export function expectedRuntimeCode(artifact: ContractArtifact, values: Address[]): Hex {
  const ids = Object.keys(artifact.immutableReferences).sort((x, y) => Number(x) - Number(y));
  if (ids.length !== values.length) {
    throw new Error(`expected ${values.length} immutables, the artifact has ${ids.length}`);
  }
  const code = Buffer.from(artifact.deployedBytecode.slice(2), "hex");
  ids.forEach((id, i) => {
    const word = Buffer.from(padHex(values[i] as Address, { size: 32 }).slice(2), "hex");
    for (const { start, length } of artifact.immutableReferences[id] ?? []) {
      word.copy(code, start, 32 - length);
    }
  });
  return `0x${code.toString("hex")}`;
}

export type DeployParameters = {
  rpcUrl: string;
  /** Signs locally. */
  privateKey?: Hex;
  /** Sends with `eth_sendTransaction` from an account the node has unlocked. */
  unlocked?: Address;
  /** Default: the chain's own on a known chain (known-chains.ts), else {@link CANONICAL_UNISWAP_V3_FACTORY}. */
  v3Factory?: Address;
  /**
   * Default: the chain's own on a known chain, else {@link CANONICAL_UNISWAP_V4_POOL_MANAGER};
   * the zero address on a chain without Uniswap V4 (V4 swaps then revert).
   */
  v4PoolManager?: Address;
  /**
   * The Uniswap V3 forks whose pools the router's executor pays, in `UNISWAP_V3_FORKS_<chainId>`'s
   * format (chains.ts `parseV3Forks`; `none` for none), beside a known chain's own forks as the
   * service reads them (chains.ts `v3ForksOf`). Default that variable's value, so the addresses
   * are those the service computes.
   */
  v3Forks?: string;
  /** Progress lines; default `console.log`. */
  log?: (line: string) => void;
};

export type DeployResult = {
  chainId: number;
  addresses: ExecutionAddresses;
  /** Whether the proxy was deployed by this run or found. */
  proxy: "deployed" | "already deployed";
  /** Per contract, what this run did. */
  contracts: Record<keyof ExecutionAddresses, "deployed" | "already deployed">;
  /** `EXECUTION_<chainId>=router:0x…,…` */
  executionLine: string;
};

/** A contract's address holds code other than what this configuration deploys there. */
export class UnexpectedCodeError extends Error {
  override name = "UnexpectedCodeError";
}

async function hasCode(client: PublicClient, address: Address): Promise<Hex | undefined> {
  const code = await client.getCode({ address });
  return code === undefined || code === "0x" ? undefined : code;
}

async function send(
  wallet: WalletClient,
  client: PublicClient,
  account: Account | Address,
  tx: { to: Address; data?: Hex; value?: bigint },
  what: string,
): Promise<void> {
  const hash = await wallet.sendTransaction({ ...tx, account, chain: wallet.chain ?? null });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (receipt.status !== "success") throw new Error(`${what} reverted (tx ${hash})`);
}

async function ensureProxy(
  wallet: WalletClient,
  client: PublicClient,
  account: Account | Address,
): Promise<"deployed" | "already deployed"> {
  const present = await hasCode(client, DETERMINISTIC_DEPLOYMENT_PROXY);
  if (present !== undefined) {
    if (present !== PROXY_RUNTIME_CODE) {
      throw new UnexpectedCodeError(
        `the deterministic-deployment proxy's address ${DETERMINISTIC_DEPLOYMENT_PROXY} holds other code`,
      );
    }
    return "already deployed";
  }
  if ((await client.getTransactionCount({ address: PROXY_DEPLOYER })) !== 0) {
    throw new Error(
      `the proxy's deployer ${PROXY_DEPLOYER} has sent transactions, yet the proxy is missing: it cannot be deployed at its address on this chain`,
    );
  }
  const balance = await client.getBalance({ address: PROXY_DEPLOYER });
  if (balance < PROXY_DEPLOYMENT_COST) {
    await send(
      wallet,
      client,
      account,
      { to: PROXY_DEPLOYER, value: PROXY_DEPLOYMENT_COST - balance },
      "funding the proxy's deployer",
    );
  }
  const hash = await client.request({
    method: "eth_sendRawTransaction",
    params: [PROXY_DEPLOYMENT_TX],
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (receipt.status !== "success") throw new Error(`deploying the proxy reverted (tx ${hash})`);
  if ((await hasCode(client, DETERMINISTIC_DEPLOYMENT_PROXY)) !== PROXY_RUNTIME_CODE) {
    throw new Error(`the proxy's transaction ${hash} left other code at its address`);
  }
  return "deployed";
}

/**
 * Deploys the execution layer where it is missing and verifies all of it.
 * @example const { executionLine } = await deployExecutionLayerDeterministically({ rpcUrl, unlocked });
 */
export async function deployExecutionLayerDeterministically(
  params: DeployParameters,
): Promise<DeployResult> {
  const log = params.log ?? console.log;
  if ((params.privateKey === undefined) === (params.unlocked === undefined)) {
    throw new Error("give exactly one of --private-key and --unlocked");
  }
  const transport = http(params.rpcUrl);
  const probe = createPublicClient({ transport });
  const chainId = await probe.getChainId();
  // On a known chain its own Uniswap deployments, as the service computes the addresses with
  // (chains.ts); elsewhere mainnet's canonical ones.
  const known = KNOWN_CHAINS[chainId];
  const v3Factory = getAddress(
    params.v3Factory ?? known?.uniswapV3?.factory ?? CANONICAL_UNISWAP_V3_FACTORY,
  );
  const v4PoolManager = getAddress(
    params.v4PoolManager ?? known?.uniswapV4?.poolManager ?? CANONICAL_UNISWAP_V4_POOL_MANAGER,
  );
  const defaultOf = known
    ? `chain ${chainId}'s own, the default`
    : "the canonical mainnet one, the default";
  buildContracts();
  const artifacts = Object.fromEntries(
    Object.values(CONTRACT_OF).map((name) => [name, loadArtifact(name)]),
  ) as Record<string, ContractArtifact>;
  const creationCode = Object.fromEntries(
    EXECUTION_LAYER_CONTRACTS.map((name) => [name, artifacts[name]?.bytecode]),
  ) as ExecutionCreationCode;
  const forksVariable = `UNISWAP_V3_FORKS_${chainId}`;
  const v3ForkDeployers = v3ForkPoolDeployers(
    v3ForksOf(chainId, {
      ...process.env,
      [forksVariable]: params.v3Forks ?? process.env[forksVariable],
    }),
  );
  const layer = { v3Factory, v4PoolManager, v3ForkDeployers, creationCode };
  const initCode = executionInitCodes(layer);
  const addresses = deterministicExecutionAddresses(layer);
  const values = immutableValues(addresses, v3Factory, v4PoolManager);
  const expected = (name: keyof ExecutionAddresses): Hex => {
    const contract = CONTRACT_OF[name];
    return expectedRuntimeCode(artifacts[contract] as ContractArtifact, values[contract] ?? []);
  };

  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [params.rpcUrl] } },
  });
  const client = createPublicClient({ chain, transport }) as PublicClient;
  const wallet = createWalletClient({ chain, transport });
  const account: Account | Address =
    params.privateKey !== undefined
      ? privateKeyToAccount(params.privateKey)
      : getAddress(params.unlocked as Address);
  const v4Note =
    params.v4PoolManager === undefined
      ? ` (${defaultOf})`
      : v4PoolManager === zeroAddress
        ? " (none: V4 swaps revert)"
        : "";
  log(
    `chain ${chainId}, V3 factory ${v3Factory}${params.v3Factory === undefined ? ` (${defaultOf})` : ""}, V4 pool manager ${v4PoolManager}${v4Note}, V3 fork pool deployers ${v3ForkDeployers.map((f) => f.deployer).join(" ") || "none"}, salt ${EXECUTION_SALT}`,
  );

  // Everything that is there must be what this configuration deploys, before anything is sent.
  const found = {} as Record<keyof ExecutionAddresses, boolean>;
  const wrong: string[] = [];
  for (const name of EXECUTION_ADDRESS_NAMES) {
    const code = await hasCode(client, addresses[name]);
    found[name] = code !== undefined;
    if (code !== undefined && code !== expected(name)) {
      wrong.push(`${name} (${CONTRACT_OF[name]}) at ${addresses[name]}`);
    }
  }
  if (wrong.length > 0) {
    throw new UnexpectedCodeError(
      `other code than this configuration deploys is at the address of ${wrong.join(", ")}`,
    );
  }

  const proxy = await ensureProxy(wallet, client, account);
  log(`proxy ${DETERMINISTIC_DEPLOYMENT_PROXY}: ${proxy}`);
  const contracts = {} as DeployResult["contracts"];
  for (const top of EXECUTION_LAYER_CONTRACTS) {
    const names = EXECUTION_ADDRESS_NAMES.filter((n) => DEPLOYED_BY[n] === top);
    const status = names.some((n) => found[n]) ? "already deployed" : "deployed";
    if (status === "deployed") {
      await send(
        wallet,
        client,
        account,
        { to: DETERMINISTIC_DEPLOYMENT_PROXY, data: concat([EXECUTION_SALT, initCode[top]]) },
        `deploying ${top}`,
      );
    }
    for (const n of names) contracts[n] = status;
  }
  for (const name of EXECUTION_ADDRESS_NAMES) {
    const code = await hasCode(client, addresses[name]);
    if (code !== expected(name)) {
      throw new UnexpectedCodeError(
        `${name} (${CONTRACT_OF[name]}) at ${addresses[name]} does not hold the expected code after deployment (code hash ${code === undefined ? "none" : keccak256(code)})`,
      );
    }
    log(
      `${name.padEnd(21)} ${addresses[name]}  ${CONTRACT_OF[name].padEnd(17)} ${contracts[name]}`,
    );
  }
  const executionLine = `EXECUTION_${chainId}=${executionVariable(addresses)}`;
  const deployed = Object.values(contracts).filter((s) => s === "deployed").length;
  log(
    `${deployed} deployed, ${EXECUTION_ADDRESS_NAMES.length - deployed} already deployed; the addresses are the same on every chain for this V3 factory and V4 pool manager.`,
  );
  log(executionLine);
  return { chainId, addresses, proxy, contracts, executionLine };
}

function usage(message: string): never {
  console.error(
    `${message}\nusage: npm run deploy -- --rpc-url URL (--private-key 0x… | --unlocked 0x…) [--v3-factory 0x…] [--v4-pool-manager 0x…] [--v3-forks <slug>:<factory>:<SwapRouter>[:<pool deployer>],…]`,
  );
  process.exit(2);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "rpc-url": { type: "string" },
      "private-key": { type: "string" },
      unlocked: { type: "string" },
      "v3-factory": { type: "string" },
      "v4-pool-manager": { type: "string" },
      "v3-forks": { type: "string" },
    },
    strict: true,
  });
  const rpcUrl = values["rpc-url"];
  if (!rpcUrl) usage("--rpc-url is required");
  const privateKey = values["private-key"];
  if (privateKey !== undefined && !(isHex(privateKey) && privateKey.length === 66)) {
    usage("--private-key must be 32 bytes of hex (0x + 64 digits)");
  }
  for (const flag of ["unlocked", "v3-factory", "v4-pool-manager"] as const) {
    const value = values[flag];
    if (value !== undefined && !isAddress(value, { strict: false })) {
      usage(`--${flag} must be an address, got "${value}"`);
    }
  }
  if ((privateKey === undefined) === (values.unlocked === undefined)) {
    usage("give exactly one of --private-key and --unlocked");
  }
  await deployExecutionLayerDeterministically({
    rpcUrl,
    privateKey: privateKey as Hex | undefined,
    unlocked: values.unlocked as Address | undefined,
    v3Factory: values["v3-factory"] as Address | undefined,
    v4PoolManager: values["v4-pool-manager"] as Address | undefined,
    v3Forks: values["v3-forks"],
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(`deploy failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
