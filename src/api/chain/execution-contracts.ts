/**
 * The execution layer of a chain: the contracts `EXECUTION_<id>` names, or the deterministic
 * addresses `npm run deploy` uses once code is found at every one of them.
 */
import type { PublicClient } from "viem";
import type { ChainSetup } from "../../../engine/chain-setup.js";
import { ChainUnavailableError, ExecutionNotDeployedError } from "../../../engine/errors.js";
import type { ExecutionContracts } from "../../../engine/program/hop-context.js";
import { EXECUTION_ADDRESS_NAMES } from "../../../engine/protocols/execution-addresses.js";

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
 * The chain's execution contracts: those `EXECUTION_<id>` names, or, without it, the
 * deterministic addresses of `npm run deploy` once code is found at every one of them (read
 * from the chain at first use, not at configuration time).
 * @throws ExecutionNotDeployedError when they are not deployed there; ChainUnavailableError
 * when the node does not answer.
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
  return Object.fromEntries(
    EXECUTION_ADDRESS_NAMES.map((n) => [n, chain.execution[n]]),
  ) as ExecutionContracts;
}
