/**
 * An OP-stack chain's L1 fee parameters, read from its `GasPriceOracle` predeploy once per block of
 * the routing graph (every route searched on that block prices calldata with them), and the
 * predeploy's own `getL1Fee` of a transaction's calldata as a simulation call.
 */
import {
  type Address,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  type PublicClient,
  parseAbi,
  zeroAddress,
} from "viem";
import type { ChainSetup, OpStackFeeParameters } from "../../../engine/index.js";
import { ChainUnavailableError } from "../../../engine/index.js";
import type { CallResult, SimulationCall } from "./simulate.js";

const gasPriceOracleAbi = parseAbi([
  "function getL1Fee(bytes data) view returns (uint256)",
  "function isEcotone() view returns (bool)",
  "function isFjord() view returns (bool)",
  "function l1BaseFee() view returns (uint256)",
  "function blobBaseFee() view returns (uint256)",
  "function baseFeeScalar() view returns (uint32)",
  "function blobBaseFeeScalar() view returns (uint32)",
  "function overhead() view returns (uint256)",
  "function scalar() view returns (uint256)",
]);

/**
 * The oracle's parameters at `blockNumber` (default the latest). `overhead` and `scalar` are read
 * only before Ecotone (the oracle refuses them after), `isFjord` only after it.
 */
export async function readOpStackFeeParameters(
  client: PublicClient,
  oracle: Address,
  blockNumber?: bigint,
): Promise<OpStackFeeParameters> {
  const at = { address: oracle, abi: gasPriceOracleAbi, blockNumber } as const;
  const isEcotone = await client.readContract({ ...at, functionName: "isEcotone" });
  const [isFjord, l1BaseFee, blobBaseFee, baseFeeScalar, blobBaseFeeScalar, overhead, scalar] =
    await Promise.all([
      isEcotone ? client.readContract({ ...at, functionName: "isFjord" }) : false,
      client.readContract({ ...at, functionName: "l1BaseFee" }),
      isEcotone ? client.readContract({ ...at, functionName: "blobBaseFee" }) : 0n,
      isEcotone ? client.readContract({ ...at, functionName: "baseFeeScalar" }) : 0,
      isEcotone ? client.readContract({ ...at, functionName: "blobBaseFeeScalar" }) : 0,
      isEcotone ? 0n : client.readContract({ ...at, functionName: "overhead" }),
      isEcotone ? 0n : client.readContract({ ...at, functionName: "scalar" }),
    ]);
  return {
    isEcotone,
    isFjord,
    l1BaseFee,
    blobBaseFee,
    baseFeeScalar: BigInt(baseFeeScalar),
    blobBaseFeeScalar: BigInt(blobBaseFeeScalar),
    overhead,
    scalar,
  };
}

const parametersOf = new Map<number, { block: bigint; params: Promise<OpStackFeeParameters> }>();

/**
 * The chain's L1 fee parameters for routes searched on the graph's `block`, or undefined on a chain
 * without an L1 fee. Read once per block and shared by the requests on it.
 * @throws ChainUnavailableError when the node does not answer.
 */
export async function l1FeeParameters(
  chain: ChainSetup,
  client: PublicClient,
  block: bigint,
): Promise<OpStackFeeParameters | undefined> {
  if (!chain.l1Fee) return undefined;
  let cached = parametersOf.get(chain.id);
  if (!cached || cached.block !== block) {
    const params = readOpStackFeeParameters(client, chain.l1Fee.gasPriceOracle);
    cached = { block, params };
    parametersOf.set(chain.id, cached);
    // A failed read is not kept: the next request reads again.
    params.catch(() => {
      if (parametersOf.get(chain.id) === cached) parametersOf.delete(chain.id);
    });
  }
  try {
    return await cached.params;
  } catch (error) {
    throw new ChainUnavailableError(
      `The L1 fee parameters of chain ${chain.id} could not be read from its GasPriceOracle (${chain.l1Fee.gasPriceOracle}).`,
      { chainId: chain.id, cause: error },
    );
  }
}

/** The simulation call that asks the oracle for `getL1Fee(data)` in the simulated block. */
export function l1FeeCall(chain: ChainSetup, data: Hex): SimulationCall | undefined {
  if (!chain.l1Fee) return undefined;
  return {
    from: zeroAddress,
    to: chain.l1Fee.gasPriceOracle,
    data: encodeFunctionData({ abi: gasPriceOracleAbi, functionName: "getL1Fee", args: [data] }),
  };
}

/**
 * The oracle's `getL1Fee` answer from the simulation.
 * @throws ChainUnavailableError when the call failed (the chain's oracle did not answer it).
 */
export function l1FeeOf(chain: ChainSetup, result: CallResult | undefined): bigint {
  if (!result?.ok || result.returnData.length !== 66) {
    throw new ChainUnavailableError(
      `The L1 fee oracle of chain ${chain.id} (${chain.l1Fee?.gasPriceOracle}) did not answer getL1Fee in the simulation.`,
      { chainId: chain.id },
    );
  }
  return hexToBigInt(result.returnData);
}
