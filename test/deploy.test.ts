import { execFile } from "node:child_process";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  getAddress,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  zeroAddress,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CoreWalletAbi } from "../abis/generated/CoreWallet.js";
import { CoreWalletFactoryAbi } from "../abis/generated/CoreWalletFactory.js";
import { executionInitCode } from "../abis/generated/ExecutionInitCode.js";
import { RouterExecutorAbi } from "../abis/generated/RouterExecutor.js";
import { ShortcutRouterAbi } from "../abis/generated/ShortcutRouter.js";
import { UniswapV4RouterAbi } from "../abis/generated/UniswapV4Router.js";
import { indexedChains } from "../chains.js";
import { EXECUTION_LAYER_CONTRACTS, loadArtifact } from "../contracts/build.js";
import type { AnvilInstance } from "../devnet/anvil.js";
import type { ChainSetup } from "../engine/core/chain-setup.js";
import { ExecutionNotDeployedError } from "../engine/core/errors.js";
import {
  CANONICAL_UNISWAP_V3_FACTORY,
  CANONICAL_UNISWAP_V4_POOL_MANAGER,
  DETERMINISTIC_DEPLOYMENT_PROXY,
  deterministicExecutionAddresses,
  EXECUTION_ADDRESS_NAMES,
  type ExecutionAddresses,
  executionVariable,
} from "../engine/core/execution-addresses.js";
import { KNOWN_CHAINS } from "../known-chains.js";
import {
  deployExecutionLayerDeterministically,
  PROXY_DEPLOYER,
  PROXY_DEPLOYMENT_TX,
  PROXY_RUNTIME_CODE,
} from "../scripts/deploy.js";
import { executionContracts } from "../src/api/chain/execution-contracts.js";
import { engineApiError } from "../src/api/errors.js";
import { startTestAnvil } from "./harness/anvil.js";

/** Anvil's first dev account: unlocked on every anvil. */
const UNLOCKED = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const UNLOCKED_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const OTHER_V3_FACTORY = getAddress("0x33128a8fc17869897dce68ed026d694621f6fdfd");
const root = join(import.meta.dirname, "..");

type Run = { code: number; stdout: string; stderr: string };

/** `npm run deploy -- …` as an operator runs it. */
function runDeploy(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      "npm",
      ["run", "--silent", "deploy", "--", ...args],
      { cwd: root, env: { ...process.env, npm_config_loglevel: "silent" } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Mainnet's known V3 forks (known-chains.ts), whose pool deployers the router's executor trusts
 * there by default: PancakeSwap's pool deployer and SushiSwap's factory.
 */
const MAINNET_V3_FORKS = [
  {
    deployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
    initCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
  },
  {
    deployer: "0xbACEB8eC6b9355Dfc0269C18bac9d6E2Bdc29C4F",
    initCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
  },
] as const;
const MAINNET_FORK_DEPLOYERS = MAINNET_V3_FORKS.map((f) => f.deployer).join(" ");

/** The lines the script prints for each contract. */
function contractLines(addresses: ExecutionAddresses, status: Record<string, string>): string[] {
  const contract: Record<string, string> = {
    router: "ShortcutRouter",
    executor: "RouterExecutor",
    delegateExecutor: "DelegateExecutor",
    walletFactory: "CoreWalletFactory",
    walletImplementation: "CoreWallet",
    minAmountOutCheck: "MinAmountOutCheck",
    programValues: "ProgramValues",
    uniswapV4Router: "UniswapV4Router",
  };
  return EXECUTION_ADDRESS_NAMES.map(
    (n) => `${n.padEnd(21)} ${addresses[n]}  ${(contract[n] ?? "").padEnd(17)} ${status[n]}`,
  );
}

function chainWithoutExecution(anvil: AnvilInstance, v3Factory: Address): ChainSetup {
  return {
    id: 1,
    name: "mainnet",
    title: "Ethereum",
    rpc: [anvil.url],
    startBlock: 0,
    vaults: [],
    stablecoins: [],
    execution: {},
    deterministicExecution: deterministicExecutionAddresses({
      v3Factory,
      v3ForkDeployers: MAINNET_V3_FORKS,
    }),
    devnet: false,
  };
}

describe("npm run deploy: the execution layer at deterministic addresses", () => {
  let anvil: AnvilInstance;
  let client: PublicClient;
  const predicted = deterministicExecutionAddresses({
    v3Factory: CANONICAL_UNISWAP_V3_FACTORY,
    v3ForkDeployers: MAINNET_V3_FORKS,
  });
  const expectedLine = `EXECUTION_1=${executionVariable(predicted)}`;

  beforeAll(async () => {
    anvil = await startTestAnvil({ chainId: 1 });
    client = createPublicClient({ transport: http(anvil.url) }) as PublicClient;
    // Anvil ships the proxy in its genesis; a real chain may not have it: start without.
    await client.request({
      method: "anvil_setCode" as never,
      params: [DETERMINISTIC_DEPLOYMENT_PROXY, "0x"] as never,
    });
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  test("the committed init code is the build's, so the API predicts what the script deploys", () => {
    for (const name of EXECUTION_LAYER_CONTRACTS) {
      expect(executionInitCode[name]).toBe(loadArtifact(name).bytecode);
    }
  });

  test("before deployment the API answers 503 for a chain without EXECUTION_1", async () => {
    const error = await executionContracts(
      chainWithoutExecution(anvil, CANONICAL_UNISWAP_V3_FACTORY),
      client,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutionNotDeployedError);
    expect(engineApiError(error as ExecutionNotDeployedError)).toMatchObject({
      statusCode: 503,
      message: `The execution contracts are not deployed on chain 1: EXECUTION_1 is not set and the deterministic addresses (router ${predicted.router}) hold no code; routes cannot be executed there.`,
    });
  });

  test("a first run deploys the proxy from its pre-signed transaction, then every contract at its predicted address", async () => {
    expect(await client.getCode({ address: DETERMINISTIC_DEPLOYMENT_PROXY })).toBeUndefined();
    const run = await runDeploy(["--rpc-url", anvil.url, "--unlocked", UNLOCKED]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      `chain 1, V3 factory ${CANONICAL_UNISWAP_V3_FACTORY} (chain 1's own, the default), V4 pool manager ${CANONICAL_UNISWAP_V4_POOL_MANAGER} (chain 1's own, the default), V3 fork pool deployers ${MAINNET_FORK_DEPLOYERS}, salt ${keccak256(new TextEncoder().encode("defi-shortcuts/execution-layer/v1"))}`,
      `proxy ${DETERMINISTIC_DEPLOYMENT_PROXY}: deployed`,
      ...contractLines(
        predicted,
        Object.fromEntries(EXECUTION_ADDRESS_NAMES.map((n) => [n, "deployed"])),
      ),
      "8 deployed, 0 already deployed; the addresses are the same on every chain for this V3 factory and V4 pool manager.",
      expectedLine,
    ]);

    const proxyTx = await client.getTransactionReceipt({ hash: keccak256(PROXY_DEPLOYMENT_TX) });
    expect(proxyTx.status).toBe("success");
    expect(getAddress(proxyTx.from)).toBe(PROXY_DEPLOYER);
    expect(proxyTx.contractAddress && getAddress(proxyTx.contractAddress)).toBe(
      DETERMINISTIC_DEPLOYMENT_PROXY,
    );
    expect(await client.getCode({ address: DETERMINISTIC_DEPLOYMENT_PROXY })).toBe(
      PROXY_RUNTIME_CODE,
    );
    for (const name of EXECUTION_ADDRESS_NAMES) {
      const code = await client.getCode({ address: predicted[name] });
      expect(code?.length ?? 0, name).toBeGreaterThan(2);
    }
  });

  test("the contracts know each other: the router's executor, the factory's implementation, the V4 pool manager", async () => {
    const read = <T>(address: Address, abi: unknown, functionName: string): Promise<T> =>
      client.readContract({ address, abi: abi as never, functionName } as never) as Promise<T>;
    expect(await read<Address>(predicted.router, ShortcutRouterAbi, "executor")).toBe(
      predicted.executor,
    );
    expect(await read<Address>(predicted.executor, RouterExecutorAbi, "router")).toBe(
      predicted.router,
    );
    expect(await read<Address>(predicted.executor, RouterExecutorAbi, "uniswapV3Factory")).toBe(
      CANONICAL_UNISWAP_V3_FACTORY,
    );
    expect(await read<Address>(predicted.executor, RouterExecutorAbi, "uniswapV4PoolManager")).toBe(
      CANONICAL_UNISWAP_V4_POOL_MANAGER,
    );
    expect(
      await read<Address>(predicted.uniswapV4Router, UniswapV4RouterAbi, "uniswapV4PoolManager"),
    ).toBe(CANONICAL_UNISWAP_V4_POOL_MANAGER);
    expect(
      await read<Address>(predicted.walletFactory, CoreWalletFactoryAbi, "implementation"),
    ).toBe(predicted.walletImplementation);
    expect(await read<Address>(predicted.walletImplementation, CoreWalletAbi, "factory")).toBe(
      predicted.walletFactory,
    );
  });

  test("the API then uses the deterministic addresses without EXECUTION_1", async () => {
    expect(
      await executionContracts(chainWithoutExecution(anvil, CANONICAL_UNISWAP_V3_FACTORY), client),
    ).toEqual(predicted);
  });

  test("a second run sends nothing, reports every contract already deployed and the same line", async () => {
    const blockBefore = await client.getBlockNumber({ cacheTime: 0 });
    const lines: string[] = [];
    const result = await deployExecutionLayerDeterministically({
      rpcUrl: anvil.url,
      privateKey: UNLOCKED_KEY,
      log: (line) => lines.push(line),
    });
    expect(result.proxy).toBe("already deployed");
    expect(result.contracts).toEqual(
      Object.fromEntries(EXECUTION_ADDRESS_NAMES.map((n) => [n, "already deployed"])),
    );
    expect(result.addresses).toEqual(predicted);
    expect(result.executionLine).toBe(expectedLine);
    expect(lines.slice(1)).toEqual([
      `proxy ${DETERMINISTIC_DEPLOYMENT_PROXY}: already deployed`,
      ...contractLines(
        predicted,
        Object.fromEntries(EXECUTION_ADDRESS_NAMES.map((n) => [n, "already deployed"])),
      ),
      "0 deployed, 8 already deployed; the addresses are the same on every chain for this V3 factory and V4 pool manager.",
      expectedLine,
    ]);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(blockBefore);
  });

  test("another V3 factory gives another router and executor; the rest is shared", async () => {
    const other = deterministicExecutionAddresses({
      v3Factory: OTHER_V3_FACTORY,
      v3ForkDeployers: MAINNET_V3_FORKS,
    });
    expect(other.router).not.toBe(predicted.router);
    expect(other.executor).not.toBe(predicted.executor);
    const result = await deployExecutionLayerDeterministically({
      rpcUrl: anvil.url,
      unlocked: UNLOCKED,
      v3Factory: OTHER_V3_FACTORY,
      log: () => {},
    });
    expect(result.addresses).toEqual(other);
    expect({ ...other, router: undefined, executor: undefined }).toEqual({
      ...predicted,
      router: undefined,
      executor: undefined,
    });
    expect(result.contracts).toEqual({
      router: "deployed",
      executor: "deployed",
      delegateExecutor: "already deployed",
      walletFactory: "already deployed",
      walletImplementation: "already deployed",
      minAmountOutCheck: "already deployed",
      programValues: "already deployed",
      uniswapV4Router: "already deployed",
    });
    expect(
      await client.readContract({
        address: other.executor,
        abi: RouterExecutorAbi,
        functionName: "uniswapV3Factory",
      }),
    ).toBe(OTHER_V3_FACTORY);
  });

  test("a chain without Uniswap V4 (--v4-pool-manager 0x0…0) gets another router, executor and V4 router; the rest is shared", async () => {
    const withoutV4 = deterministicExecutionAddresses({
      v4PoolManager: zeroAddress,
      v3ForkDeployers: MAINNET_V3_FORKS,
    });
    const moved = ["router", "executor", "uniswapV4Router"] as const;
    for (const name of moved) expect(withoutV4[name]).not.toBe(predicted[name]);
    expect({ ...withoutV4, router: 0, executor: 0, uniswapV4Router: 0 }).toEqual({
      ...predicted,
      router: 0,
      executor: 0,
      uniswapV4Router: 0,
    });
    const run = await runDeploy([
      "--rpc-url",
      anvil.url,
      "--unlocked",
      UNLOCKED,
      "--v4-pool-manager",
      zeroAddress,
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const status = Object.fromEntries(
      EXECUTION_ADDRESS_NAMES.map((n) => [
        n,
        (moved as readonly string[]).includes(n) ? "deployed" : "already deployed",
      ]),
    );
    expect(run.stdout.trim().split("\n")).toEqual([
      `chain 1, V3 factory ${CANONICAL_UNISWAP_V3_FACTORY} (chain 1's own, the default), V4 pool manager ${zeroAddress} (none: V4 swaps revert), V3 fork pool deployers ${MAINNET_FORK_DEPLOYERS}, salt ${keccak256(new TextEncoder().encode("defi-shortcuts/execution-layer/v1"))}`,
      `proxy ${DETERMINISTIC_DEPLOYMENT_PROXY}: already deployed`,
      ...contractLines(withoutV4, status),
      "3 deployed, 5 already deployed; the addresses are the same on every chain for this V3 factory and V4 pool manager.",
      `EXECUTION_1=${executionVariable(withoutV4)}`,
    ]);
    for (const [address, abi] of [
      [withoutV4.executor, RouterExecutorAbi],
      [withoutV4.uniswapV4Router, UniswapV4RouterAbi],
    ] as const) {
      expect(
        await client.readContract({ address, abi, functionName: "uniswapV4PoolManager" }),
      ).toBe(zeroAddress);
    }
  });

  test("other code at a contract's address fails the run, naming the contract, before sending anything", async () => {
    const third = getAddress("0x0227628f3f023bb0b980b67d528571c95c6dac1c");
    const planted = deterministicExecutionAddresses({
      v3Factory: third,
      v3ForkDeployers: MAINNET_V3_FORKS,
    });
    // Some unrelated code where this configuration's router would go.
    await client.request({
      method: "anvil_setCode" as never,
      params: [planted.router, "0x6000600055"] as never,
    });
    const blockBefore = await client.getBlockNumber({ cacheTime: 0 });
    const run = await runDeploy([
      "--rpc-url",
      anvil.url,
      "--unlocked",
      UNLOCKED,
      "--v3-factory",
      third,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `deploy failed: other code than this configuration deploys is at the address of router (ShortcutRouter) at ${planted.router}`,
    );
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(blockBefore);
    expect(await client.getCode({ address: planted.executor })).toBeUndefined();
  });

  test("a deployed contract replaced by another's code is refused by name", async () => {
    // ProgramValues' address now holds MinAmountOutCheck's runtime code.
    const impostor = (await client.getCode({ address: predicted.minAmountOutCheck })) as Hex;
    await client.request({
      method: "anvil_setCode" as never,
      params: [predicted.programValues, impostor] as never,
    });
    await expect(
      deployExecutionLayerDeterministically({
        rpcUrl: anvil.url,
        unlocked: UNLOCKED,
        log: () => {},
      }),
    ).rejects.toThrow(
      `other code than this configuration deploys is at the address of programValues (ProgramValues) at ${predicted.programValues}`,
    );
  });
});

describe("npm run deploy on a known chain other than mainnet", () => {
  let anvil: AnvilInstance;

  beforeAll(async () => {
    anvil = await startTestAnvil({ chainId: 8453 });
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  test("without flags it builds on the chain's own Uniswap deployments: the addresses the service expects there", async () => {
    const base = KNOWN_CHAINS[8453];
    const v3Factory = base?.uniswapV3?.factory as Address;
    const v4PoolManager = base?.uniswapV4?.poolManager as Address;
    // Base's Uniswap contracts are not mainnet's: mainnet's defaults would deploy elsewhere.
    expect(v3Factory).not.toBe(CANONICAL_UNISWAP_V3_FACTORY);
    expect(v4PoolManager).not.toBe(CANONICAL_UNISWAP_V4_POOL_MANAGER);
    const lines: string[] = [];
    const result = await deployExecutionLayerDeterministically({
      rpcUrl: anvil.url,
      unlocked: UNLOCKED,
      log: (line) => lines.push(line),
    });
    const [chain] = indexedChains({ PONDER_RPC_URL_8453: anvil.url });
    expect(result.chainId).toBe(8453);
    expect(result.addresses).toEqual(chain?.deterministicExecution);
    // Base's own V3 forks too (known-chains.ts): PancakeSwap's pool deployer and SushiSwap's
    // factory, each with its pools' init code hash.
    const forks = [
      {
        deployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
        initCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
      },
      {
        deployer: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4",
        initCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
      },
    ] as const;
    expect(result.addresses).toEqual(
      deterministicExecutionAddresses({ v3Factory, v4PoolManager, v3ForkDeployers: forks }),
    );
    expect(lines[0]).toBe(
      `chain 8453, V3 factory ${v3Factory} (chain 8453's own, the default), V4 pool manager ${v4PoolManager} (chain 8453's own, the default), V3 fork pool deployers 0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9 0xc35DADB65012eC5796536bD9864eD8773aBc74C4, salt ${keccak256(new TextEncoder().encode("defi-shortcuts/execution-layer/v1"))}`,
    );
    expect(
      await createPublicClient({ transport: http(anvil.url) }).readContract({
        address: result.addresses.executor,
        abi: RouterExecutorAbi,
        functionName: "uniswapV3Factory",
      }),
    ).toBe(v3Factory);
  });

  test("with the chain's Uniswap V3 forks (its known ones, and UNISWAP_V3_FORKS_<id>'s value or --v3-forks) the executor trusts their pool deployers: the addresses the service computes with that setting", async () => {
    // SushiSwap V3 on Base with a SwapRouter: it replaces the known entry of its slug (the same
    // factory, which CREATE2s Uniswap's pool), PancakeSwap V3's known entry stays.
    const sushi =
      "sushiswap-v3:0xc35DADB65012eC5796536bD9864eD8773aBc74C4:0xFB7eF66a7e61224DD6FcD0D7d9C3be5C8B049b9f";
    const deploy = async (v3Forks: string) => {
      const lines: string[] = [];
      const result = await deployExecutionLayerDeterministically({
        rpcUrl: anvil.url,
        unlocked: UNLOCKED,
        v3Forks,
        log: (line) => lines.push(line),
      });
      const [chain] = indexedChains({
        PONDER_RPC_URL_8453: anvil.url,
        UNISWAP_V3_FORKS_8453: v3Forks,
      });
      expect(result.addresses).toEqual(chain?.deterministicExecution);
      return { result, line: lines[0] };
    };
    const trusted = (executor: Address, deployer: Address) =>
      createPublicClient({ transport: http(anvil.url) }).readContract({
        address: executor,
        abi: RouterExecutorAbi,
        functionName: "v3ForkInitCodeHash",
        args: [deployer],
      });
    const pancakeDeployer = "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9";
    const sushiFactory = "0xc35DADB65012eC5796536bD9864eD8773aBc74C4";
    const withRouter = await deploy(sushi);
    const [plain] = indexedChains({ PONDER_RPC_URL_8453: anvil.url });
    // A SwapRouter changes nothing the executor trusts.
    expect(withRouter.result.addresses).toEqual(plain?.deterministicExecution);
    expect(withRouter.line).toContain(
      `V3 fork pool deployers ${pancakeDeployer} ${sushiFactory}, salt`,
    );
    const executor = withRouter.result.addresses.executor;
    expect(await trusted(executor, pancakeDeployer)).toBe(
      "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
    );
    expect(await trusted(executor, sushiFactory)).toBe(
      "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
    );
    expect(await trusted(executor, KNOWN_CHAINS[8453]?.uniswapV3?.factory as Address)).toBe(
      `0x${"0".repeat(64)}`,
    );
    // `none`: no fork, an executor elsewhere that trusts neither.
    const none = await deploy("none");
    expect(none.result.addresses.executor).not.toBe(executor);
    expect(none.line).toContain("V3 fork pool deployers none, salt");
    expect(await trusted(none.result.addresses.executor, sushiFactory)).toBe(`0x${"0".repeat(64)}`);
  });
});
