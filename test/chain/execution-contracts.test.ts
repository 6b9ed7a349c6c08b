/**
 * A configured execution layer is used only once its code is found to be this service's build:
 * each address must hold the compiled runtime code, immutables included (the router and its
 * executor naming each other, the executor and the V4 router the chain's Uniswap V3 factory and
 * V4 pool manager), and the executor must trust the pool deployer of each Uniswap V3 fork the
 * chain routes through. Otherwise routes answer 503 naming every contract that differs. On anvil,
 * with the devnet world's real execution layer and a second one deployed beside it.
 */
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { DEVNET_DEPLOYER_KEY } from "../../devnet/anvil.js";
import { readNpmArtifact } from "../../devnet/artifacts.js";
import type { Deployment } from "../../devnet/deployment.js";
import { deployExecutionLayer, type ExecutionLayer } from "../../devnet/execution.js";
import { chainOf, deployWorld } from "../../devnet/world.js";
import type { ChainSetup, UniswapV3ForkDeployment } from "../../engine/core/chain-setup.js";
import { ExecutionNotDeployedError } from "../../engine/core/errors.js";
import { executionContracts } from "../../src/api/chain/execution-contracts.js";
import { engineApiError } from "../../src/api/errors.js";
import { startTestAnvil } from "../harness/anvil.js";

let anvil: AnvilInstance;
let client: PublicClient;
let deployment: Deployment;
/** A second execution layer, trusting the V2 factory as its "V3 factory". */
let other: ExecutionLayer;
let chainIds = 0;

beforeAll(async () => {
  anvil = await startTestAnvil();
  deployment = await deployWorld({ rpcUrl: anvil.url });
  const chain = await chainOf(anvil.url);
  client = createPublicClient({ chain, transport: http(anvil.url) }) as PublicClient;
  other = await deployExecutionLayer({
    walletClient: createWalletClient({
      chain,
      transport: http(anvil.url),
      account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
    }),
    publicClient: client,
    v3Factory: deployment.uniswapV2.factory,
    weth: deployment.weth,
    swapRouter: deployment.uniswapV3.swapRouter,
    v4PoolManager: deployment.uniswapV4?.poolManager,
  });
}, 180_000);

afterAll(async () => {
  await anvil?.stop();
});

/**
 * The devnet world as a real chain configured by `EXECUTION_<id>`, under a chain id of its own
 * per case (the verification is remembered per chain).
 */
function chainWith(execution: Record<string, Address>): ChainSetup {
  return {
    id: 70_000 + chainIds++,
    name: "configured",
    title: "Configured",
    rpc: [anvil.url],
    startBlock: 0,
    uniswapV3: { factory: deployment.uniswapV3.factory, startBlock: 0 },
    uniswapV3Forks: pancakeSwapV3(),
    uniswapV4: deployment.uniswapV4 && {
      poolManager: deployment.uniswapV4.poolManager,
      startBlock: 0,
      allowedHooks: [],
    },
    vaults: [],
    stablecoins: [],
    execution,
    devnet: false,
  };
}

/** The devnet's PancakeSwap V3, whose pool deployer the devnet's router executor trusts. */
function pancakeSwapV3(): UniswapV3ForkDeployment[] {
  return (deployment.uniswapV3Forks ?? []).map((f) => ({
    slug: f.slug,
    factory: f.factory,
    poolDeployer: f.poolDeployer,
    poolInitCodeHash: keccak256(readNpmArtifact("PancakeV3Pool").bytecode),
    swapRouter: f.swapRouter,
    startBlock: 0,
  }));
}

/** The 503 body a route request gets for `chain`, or the contracts when they are accepted. */
async function answer(chain: ChainSetup) {
  try {
    return await executionContracts(chain, client);
  } catch (error) {
    if (!(error instanceof ExecutionNotDeployedError)) throw error;
    return engineApiError(error).toBody();
  }
}

const usdc = () => deployment.tokens.find((t) => t.symbol === "USDC")?.address as Address;

describe("a configured execution layer", () => {
  test("the deployed layer is accepted as configured", async () => {
    expect(await answer(chainWith(deployment.execution))).toEqual(deployment.execution);
  });

  test("a token where the router should be: 503 naming it, and the executor that names another router", async () => {
    const chain = chainWith({ ...deployment.execution, router: usdc() });
    expect(await answer(chain)).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message: `The execution contracts EXECUTION_${chain.id} names on chain ${chain.id} are not this service's: router (ShortcutRouter) at ${usdc()} holds other code, executor (RouterExecutor) at ${deployment.execution.executor} holds other code; routes cannot be executed there. Deploy them with \`npm run deploy\` and set EXECUTION_${chain.id} to the addresses it prints.`,
      details: {
        chainId: chain.id,
        contracts: [
          { name: "router", contract: "ShortcutRouter", address: usdc(), code: "other" },
          {
            name: "executor",
            contract: "RouterExecutor",
            address: deployment.execution.executor,
            code: "other",
          },
        ],
      },
    });
    // The same answer again, without reading the chain: other code does not change.
    expect(await answer(chain)).toMatchObject({ statusCode: 503 });
  });

  test("our own contracts with other immutables: a router whose executor is another, an executor trusting another V3 factory", async () => {
    // Each names the other layer's half.
    const mixed = chainWith({ ...deployment.execution, router: other.router });
    expect(await answer(mixed)).toMatchObject({
      details: {
        contracts: [
          { name: "router", contract: "ShortcutRouter", address: other.router, code: "other" },
          {
            name: "executor",
            contract: "RouterExecutor",
            address: deployment.execution.executor,
            code: "other",
          },
        ],
      },
    });
    const { router, executor } = other;
    const foreign = chainWith({ ...deployment.execution, router, executor });
    expect(await answer(foreign)).toEqual({
      statusCode: 503,
      error: "Service Unavailable",
      message: `The execution contracts EXECUTION_${foreign.id} names on chain ${foreign.id} are not this service's: executor (RouterExecutor) at ${executor} holds other code; routes cannot be executed there. Deploy them with \`npm run deploy\` and set EXECUTION_${foreign.id} to the addresses it prints.`,
      details: {
        chainId: foreign.id,
        contracts: [
          { name: "executor", contract: "RouterExecutor", address: executor, code: "other" },
        ],
      },
    });
  });

  test("our own contracts whose executor was not built to trust a fork's pool deployer: accepted, the fork named as one its routes leave out, the operator told once", async () => {
    // The second layer trusts no fork; its "V3 factory" is the V2 factory, as the chain says.
    const chain = {
      ...chainWith(other),
      uniswapV3: { factory: deployment.uniswapV2.factory, startBlock: 0 },
    };
    const [fork] = pancakeSwapV3();
    expect(fork?.slug).toBe("pancakeswap-v3");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      expect(await answer(chain)).toEqual({ ...other, untrustedV3Forks: ["pancakeswap-v3"] });
      expect(await answer(chain)).toEqual({ ...other, untrustedV3Forks: ["pancakeswap-v3"] });
      expect(warn.mock.calls).toEqual([
        [
          `chain ${chain.id}: the router executor at ${other.executor} was not built to pay the pools of pancakeswap-v3 (pool deployer ${fork?.poolDeployer}); routes under the router leave them out. Deploy the execution layer again with \`npm run deploy\` and set EXECUTION_${chain.id} to the addresses it prints, or set UNISWAP_V3_FORKS_${chain.id}=none.`,
        ],
      ]);
    } finally {
      warn.mockRestore();
    }
    // Without the fork on the chain, the same layer is accepted as it is.
    const withoutForks = { ...chain, id: chain.id + 1_000, uniswapV3Forks: undefined };
    expect(await answer(withoutForks)).toEqual(other);
    // The devnet's own layer trusts the fork.
    expect(await answer(chainWith(deployment.execution))).toEqual(deployment.execution);
  });

  test("several contracts wrong at once are all named; an empty address is asked again and accepted once the code is there", async () => {
    const empty = "0x00000000000000000000000000000000000e0e0e" as Address;
    const chain = chainWith({
      ...deployment.execution,
      minAmountOutCheck: usdc(),
      programValues: empty,
    });
    expect(await answer(chain)).toMatchObject({
      statusCode: 503,
      message: `The execution contracts EXECUTION_${chain.id} names on chain ${chain.id} are not this service's: minAmountOutCheck (MinAmountOutCheck) at ${usdc()} holds other code, programValues (ProgramValues) at ${empty} holds no code; routes cannot be executed there. Deploy them with \`npm run deploy\` and set EXECUTION_${chain.id} to the addresses it prints.`,
    });
    const onlyEmpty = chainWith({ ...deployment.execution, programValues: empty });
    expect(await answer(onlyEmpty)).toMatchObject({
      details: {
        contracts: [
          { name: "programValues", contract: "ProgramValues", address: empty, code: "none" },
        ],
      },
    });
    // ProgramValues has no immutables: its runtime code is the same at any address.
    const programValues = deployment.execution.programValues as Address;
    const code = (await client.getCode({ address: programValues })) as Hex;
    await client.request({ method: "anvil_setCode" as never, params: [empty, code] as never });
    expect(await answer(onlyEmpty)).toEqual({ ...deployment.execution, programValues: empty });
  });
});
