/**
 * The execution layer of a chain: the contracts `EXECUTION_<id>` (or the devnet's deployment
 * file) names, once their code is found to be this service's build, or the deterministic
 * addresses `npm run deploy` uses once code is found at every one of them.
 */
import type { Address, Hex, PublicClient } from "viem";
import { RouterExecutorAbi } from "../../../abis/generated/RouterExecutor.js";
import { buildContracts, type ContractArtifact, loadArtifact } from "../../../contracts/build.js";
import type {
  ChainSetup,
  ExecutionContracts,
  UniswapV3ForkDeployment,
} from "../../../engine/index.js";
import {
  ChainUnavailableError,
  EXECUTION_ADDRESS_NAMES,
  EXECUTION_CONTRACT_NAMES,
  type ExecutionAddresses,
  ExecutionNotDeployedError,
} from "../../../engine/index.js";

const CONTRACT_OF = EXECUTION_CONTRACT_NAMES;

/**
 * The compiled artifact of `name`: the build the service runs with (`build/contracts`, made by
 * `npm start`, `npm run deploy` and the tests), compiled now when there is none.
 */
function artifactOf(name: string): ContractArtifact {
  try {
    return loadArtifact(name);
  } catch {
    buildContracts();
    return loadArtifact(name);
  }
}

/**
 * Addresses each contract's immutables must include: what the configuration links it to (the
 * router and its executor to each other, a contract to itself, the wallet factory and its
 * implementation, the chain's Uniswap V3 factory and V4 pool manager where it has them). The
 * immutables are compared as a set, so that a change of their order in the sources needs no
 * change here.
 */
function linkedAddresses(
  a: ExecutionContracts,
  chain: ChainSetup,
): Record<keyof ExecutionAddresses, Address[]> {
  const v3 = chain.uniswapV3 ? [chain.uniswapV3.factory] : [];
  const v4 = chain.uniswapV4 ? [chain.uniswapV4.poolManager] : [];
  return {
    router: [a.executor],
    executor: [a.router, ...v3, ...v4],
    delegateExecutor: [a.delegateExecutor],
    walletFactory: [a.walletImplementation],
    walletImplementation: [a.walletFactory, a.walletImplementation],
    minAmountOutCheck: [],
    programValues: [],
    uniswapV4Router: v4,
  };
}

/**
 * Whether `code` is `artifact`'s runtime code: byte for byte outside the immutables' ranges,
 * with every address of `linked` among the immutables' values.
 */
export function isRuntimeCodeOf(params: {
  artifact: ContractArtifact;
  code: Hex;
  linked: readonly Address[];
}): boolean {
  const expected = Buffer.from(params.artifact.deployedBytecode.slice(2), "hex");
  const found = Buffer.from(params.code.slice(2), "hex");
  if (found.length !== expected.length) return false;
  const values = new Set<string>();
  for (const ranges of Object.values(params.artifact.immutableReferences)) {
    for (const { start, length } of ranges) {
      // The build leaves zeros where the constructor writes each value: take the chain's.
      found.copy(expected, start, start, start + length);
      values.add(`0x${found.subarray(start + length - 20, start + length).toString("hex")}`);
    }
  }
  return (
    found.equals(expected) && params.linked.every((address) => values.has(address.toLowerCase()))
  );
}

/**
 * The chain's Uniswap V3 forks whose pool deployer (with the fork's pool init code hash) the
 * router executor at `executor` was not built to trust.
 */
async function untrustedForks(
  chain: ChainSetup,
  client: PublicClient,
  executor: Address,
): Promise<UniswapV3ForkDeployment[]> {
  const forks = chain.uniswapV3Forks ?? [];
  const hashes = await Promise.all(
    forks.map((f) =>
      client.readContract({
        address: executor,
        abi: RouterExecutorAbi,
        functionName: "v3ForkInitCodeHash",
        args: [f.poolDeployer],
      }),
    ),
  ).catch((cause: unknown) => {
    throw new ChainUnavailableError(
      `The RPC node of chain ${chain.id} is unreachable; try again shortly.`,
      { chainId: chain.id, cause },
    );
  });
  return forks.filter((f, i) => hashes[i]?.toLowerCase() !== f.poolInitCodeHash.toLowerCase());
}

/**
 * Chains whose configured execution layer was verified, by its addresses, with the slugs of the
 * chain's V3 forks its executor does not pay.
 */
const verifiedLayers = new Map<number, { addresses: string; check: Promise<string[]> }>();

/**
 * Verifies once per chain that every configured execution contract holds this service's
 * compiled runtime code (immutables included, as `npm run deploy` verifies what it deploys):
 * an address holding other code would be called with users' approvals and funds. A contract
 * without code is looked at again on the next request (it may be deployed meanwhile); other
 * code cannot change, so that answer stays.
 *
 * An executor of this service's build that was not built to trust some of the chain's Uniswap V3
 * forks (a layer deployed before they were known to the chain) is accepted: their slugs are
 * answered, and routes under the router leave those forks' pools out. The operator is told once.
 */
async function verifyExecutionLayer(
  chain: ChainSetup,
  client: PublicClient,
  addresses: ExecutionContracts,
): Promise<string[]> {
  const key = JSON.stringify(addresses);
  const known = verifiedLayers.get(chain.id);
  if (known?.addresses === key) return known.check;
  const check = (async () => {
    const codes = await Promise.all(
      EXECUTION_ADDRESS_NAMES.map((n) => client.getCode({ address: addresses[n] })),
    ).catch((cause: unknown) => {
      throw new ChainUnavailableError(
        `The RPC node of chain ${chain.id} is unreachable; try again shortly.`,
        { chainId: chain.id, cause },
      );
    });
    const linked = linkedAddresses(addresses, chain);
    const source = chain.devnet ? "the devnet deployment" : `EXECUTION_${chain.id}`;
    type Wrong = {
      name: keyof ExecutionAddresses;
      contract: string;
      /** `none`: no code at the address; `other`: code that is not this service's build. */
      code: "none" | "other";
    };
    const wrong: Wrong[] = [];
    for (const [i, name] of EXECUTION_ADDRESS_NAMES.entries()) {
      const code = codes[i];
      const contract = CONTRACT_OF[name];
      if (code === undefined || code === "0x") wrong.push({ name, contract, code: "none" });
      else if (!isRuntimeCodeOf({ artifact: artifactOf(contract), code, linked: linked[name] }))
        wrong.push({ name, contract, code: "other" });
    }
    if (wrong.length === 0) {
      // The executor's trust in the forks' pool deployers is storage its constructor wrote, not
      // code: read it. A route through a fork it does not trust would revert in its callback.
      const untrusted = await untrustedForks(chain, client, addresses.executor);
      if (untrusted.length > 0) {
        console.warn(
          `chain ${chain.id}: the router executor at ${addresses.executor} was not built to pay the pools of ${untrusted.map((f) => `${f.slug} (pool deployer ${f.poolDeployer})`).join(", ")}; routes under the router leave them out. Deploy the execution layer again with \`npm run deploy\` and set EXECUTION_${chain.id} to the addresses it prints, or set UNISWAP_V3_FORKS_${chain.id}=none.`,
        );
      }
      return untrusted.map((f) => f.slug);
    }
    const listed = wrong
      .map(
        (w) =>
          `${w.name} (${w.contract}) at ${addresses[w.name]} holds ${w.code === "none" ? "no code" : "other code"}`,
      )
      .join(", ");
    throw new ExecutionNotDeployedError(
      `The execution contracts ${source} names on chain ${chain.id} are not this service's: ${listed}; routes cannot be executed there. Deploy them with \`npm run deploy\` and set EXECUTION_${chain.id} to the addresses it prints.`,
      {
        chainId: chain.id,
        missing: wrong.filter((w) => w.code === "none").map((w) => w.name),
        details: {
          chainId: chain.id,
          contracts: wrong.map((w) => ({
            name: w.name,
            contract: w.contract,
            address: addresses[w.name],
            code: w.code,
          })),
        },
      },
    );
  })();
  verifiedLayers.set(chain.id, { addresses: key, check });
  check.catch((error: unknown) => {
    const cached = verifiedLayers.get(chain.id);
    const settled = error instanceof ExecutionNotDeployedError && error.missing.length === 0;
    // Only other code is final; an unreachable node or a missing contract is asked again.
    if (cached?.check === check && !settled) verifiedLayers.delete(chain.id);
  });
  return check;
}

/** Chains whose deterministic execution layer was found: it stays found. */
const deterministicLayerChains = new Set<number>();

/**
 * Whether every deterministic address holds code. Read at first use; a chain without it is
 * read again on each request (each one answers 503 meanwhile), so a deployment made while the
 * service runs is picked up without a restart.
 */
async function deterministicLayerFound(
  chainId: number,
  client: PublicClient,
  addresses: ExecutionContracts,
): Promise<boolean> {
  if (deterministicLayerChains.has(chainId)) return true;
  const codes = await Promise.all(
    EXECUTION_ADDRESS_NAMES.map((n) => client.getCode({ address: addresses[n] })),
  ).catch((cause: unknown) => {
    throw new ChainUnavailableError(
      `The RPC node of chain ${chainId} is unreachable; try again shortly.`,
      { chainId, cause },
    );
  });
  const found = codes.every((code) => code !== undefined && code !== "0x");
  if (found) deterministicLayerChains.add(chainId);
  return found;
}

/**
 * The chain's execution contracts: those `EXECUTION_<id>` names once they are found to hold
 * this service's code, or, without it, the deterministic addresses of `npm run deploy` once
 * code is found at every one of them (read from the chain at first use, not at configuration
 * time). The deterministic addresses need no comparison: a CREATE2 address commits to the init
 * code, so whatever code is there is what that init code deploys.
 * @throws ExecutionNotDeployedError when they are not deployed there, or other code is;
 * ChainUnavailableError when the node does not answer.
 */
export async function executionContracts(
  chain: ChainSetup,
  client: PublicClient,
): Promise<ExecutionContracts> {
  const deterministic = chain.deterministicExecution;
  if (
    deterministic !== undefined &&
    (await deterministicLayerFound(chain.id, client, deterministic))
  ) {
    return { ...deterministic };
  }
  const missing = EXECUTION_ADDRESS_NAMES.filter((n) => chain.execution[n] === undefined);
  if (missing.length > 0) {
    throw new ExecutionNotDeployedError(
      deterministic !== undefined
        ? `The execution contracts are not deployed on chain ${chain.id}: EXECUTION_${chain.id} is not set and the deterministic addresses (router ${deterministic.router}) hold no code; routes cannot be executed there.`
        : `The execution contracts are not deployed on chain ${chain.id} (missing: ${missing.join(", ")}); routes cannot be executed there.`,
      { chainId: chain.id, missing },
    );
  }
  const configured = Object.fromEntries(
    EXECUTION_ADDRESS_NAMES.map((n) => [n, chain.execution[n]]),
  ) as ExecutionAddresses;
  const untrustedV3Forks = await verifyExecutionLayer(chain, client, configured);
  return untrustedV3Forks.length > 0 ? { ...configured, untrustedV3Forks } : configured;
}
