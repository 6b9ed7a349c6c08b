/**
 * What both planners give a simulation and read back from it: the caller funded with the inputs
 * it may not hold yet, the EIP-7702 delegation of a `delegate` account, balance reads around the
 * transaction, and one way to run it that turns a silent node into a 503.
 */
import {
  type Address,
  decodeFunctionData,
  decodeFunctionResult,
  encodeFunctionData,
  encodeFunctionResult,
  getAbiItem,
  type Hex,
  type PublicClient,
  toFunctionSelector,
} from "viem";
import { MinAmountOutCheckAbi } from "../../../abis/generated/MinAmountOutCheck.js";
import type { ExecutionContracts, OpStackFeeParameters } from "../../../engine/index.js";
import {
  ChainUnavailableError,
  InputNotSimulatableError,
  isNativeToken,
  NATIVE_TOKEN_ADDRESS,
  OP_STACK_L1_FEE_VAULT,
} from "../../../engine/index.js";
import { recordSimulation } from "../ops/metrics.js";
import {
  type AccountOverride,
  type NextBlock,
  nextBlockOf,
  type SimulationCall,
  type SimulationResult,
  SimulationUnavailableError,
  simulateCalls,
  simulationUnavailable,
} from "./simulate.js";
import { fundingStateDiff, SlotNotFoundError, type TokenSlotFinder } from "./slots.js";

/**
 * The chain a simulation runs on. `l1Fee`: on a chain whose transactions pay for their L1 data,
 * its fee parameters and the execution contracts whose lens reads what the fee took.
 */
export type SimulationTarget = {
  chainId: number;
  client: PublicClient;
  slots: TokenSlotFinder;
  l1Fee?: { params: OpStackFeeParameters; contracts: ExecutionContracts };
};

/** The simulation target of a planner's chain (`l1Fee`: its L1 fee parameters, if it has any). */
export function simulationTarget(
  ctx: {
    chain: { id: number };
    client: PublicClient;
    slots: TokenSlotFinder;
    l1Fee?: OpStackFeeParameters;
  },
  contracts: ExecutionContracts,
): SimulationTarget {
  return {
    chainId: ctx.chain.id,
    client: ctx.client,
    slots: ctx.slots,
    ...(ctx.l1Fee ? { l1Fee: { params: ctx.l1Fee, contracts } } : {}),
  };
}

const ZERO = "0x0000000000000000000000000000000000000000" as const;

/** A read of `account`'s balance of `token` (native included) through the lens contract. */
export function balanceCall(
  contracts: ExecutionContracts,
  token: Address,
  account: Address,
): SimulationCall {
  return {
    from: ZERO,
    to: contracts.minAmountOutCheck,
    data: encodeFunctionData({
      abi: MinAmountOutCheckAbi,
      functionName: "balanceOf",
      args: [token, account],
    }),
  };
}

export function decodeBalance(data: Hex): bigint {
  return decodeFunctionResult({ abi: MinAmountOutCheckAbi, functionName: "balanceOf", data });
}

/**
 * State overrides that give `holder` each input (and, for ERC20s, `spender` its allowance):
 * a native balance, or the token's balance and allowance storage words.
 * @throws InputNotSimulatableError (`message(error)`) when a token's storage cannot be located.
 */
export async function fundingOverrides(
  target: SimulationTarget,
  params: {
    inputs: Iterable<readonly [Address, bigint]>;
    holder: Address;
    spender: Address | undefined;
    message: (error: SlotNotFoundError, token: Address) => string;
  },
): Promise<Record<Address, AccountOverride>> {
  const { holder, spender } = params;
  const out: Record<Address, AccountOverride> = {};
  for (const [token, amount] of params.inputs) {
    if (isNativeToken(token)) {
      // Enough for the value sent; the simulation adds what gas costs (simulateCalls).
      out[holder] = { ...out[holder], balance: amount };
      continue;
    }
    try {
      out[token] = {
        stateDiff: await fundingStateDiff(target.slots, target.client, {
          token,
          holder,
          amount,
          spender,
        }),
      };
    } catch (error) {
      if (error instanceof SimulationUnavailableError) {
        throw simulationUnavailable(target.chainId, error);
      }
      if (error instanceof SlotNotFoundError) {
        throw new InputNotSimulatableError(params.message(error, token), { token, cause: error });
      }
      throw error;
    }
  }
  return out;
}

/** `overrides` with `account` delegating (EIP-7702) to the delegate executor. */
export function withDelegation(
  overrides: Record<Address, AccountOverride>,
  account: Address,
  contracts: ExecutionContracts,
): Record<Address, AccountOverride> {
  const code = `0xef0100${contracts.delegateExecutor.slice(2).toLowerCase()}` as Hex;
  return { ...overrides, [account]: { ...overrides[account], code } };
}

/**
 * The block the next simulation on `target` runs in (on top of the latest block, or of
 * `blockNumber`): what a transaction must be encoded against before it is simulated, so that the
 * transaction returned is the one simulated (its deadline counts from this block's timestamp).
 * Read once per base block and shared with the simulation itself.
 * @throws ChainUnavailableError when the node does not answer.
 */
export async function simulatedBlock(
  target: SimulationTarget,
  blockNumber?: bigint,
): Promise<NextBlock> {
  try {
    return await nextBlockOf(target.client, { blockNumber });
  } catch (error) {
    if (error instanceof SimulationUnavailableError) {
      throw simulationUnavailable(target.chainId, error);
    }
    throw error;
  }
}

/**
 * Runs `calls` with `overrides` and records the simulation's duration and whether the call at
 * `sentIndex` (the transaction) succeeded.
 * @throws ChainUnavailableError when the node cannot simulate or answers without that call.
 */
export async function runSimulation(
  target: SimulationTarget,
  params: {
    calls: SimulationCall[];
    overrides: Record<Address, AccountOverride>;
    sentIndex: number;
    /** The block to run on top of; default the latest. */
    blockNumber?: bigint;
  },
): Promise<SimulationResult> {
  const started = performance.now();
  const meter = target.l1Fee && l1FeeMeter(target.l1Fee.contracts, params.sentIndex);
  const calls = meter ? meter.calls(params.calls) : params.calls;
  let simulation: SimulationResult;
  try {
    simulation = await simulateCalls(target.client, {
      blockNumber: params.blockNumber,
      calls,
      overrides: meter
        ? { ...params.overrides, [L1_FEE_METER]: { balance: 0n } }
        : params.overrides,
      l1Fee: target.l1Fee?.params,
    });
  } catch (error) {
    if (error instanceof SimulationUnavailableError) {
      throw simulationUnavailable(target.chainId, error);
    }
    throw error;
  }
  let l1FeePaid = 0n;
  if (meter) {
    const measured = meter.read(simulation);
    if (measured === undefined) {
      throw new ChainUnavailableError("The chain node returned an incomplete simulation.", {
        chainId: target.chainId,
      });
    }
    l1FeePaid = measured.l1FeePaid;
    simulation = measured.simulation;
  }
  simulation = withoutGasPaid(simulation, params.calls, params.sentIndex, l1FeePaid);
  recordSimulation(performance.now() - started, simulation.results[params.sentIndex]?.ok === true);
  if (!simulation.results[params.sentIndex]) {
    throw new ChainUnavailableError("The chain node returned an incomplete simulation.", {
      chainId: target.chainId,
    });
  }
  return simulation;
}

/**
 * The account whose one call measures what the L1 fee meter's own read paid (no key holds it:
 * it only ever sends in simulations, with the balance they give it).
 */
const L1_FEE_METER: Address = "0x00000000000000000000000000000000000011fe";

/**
 * Measures the L1 fee the node charged the transaction at `sentIndex`: every call's fee is
 * credited to the `L1FeeVault` once the call has run, so the vault's balance read just before the
 * transaction and just after it differs by the transaction's fee and the first read's. That read
 * is sent by the meter account, whose balance before and after it tells its fee (what it lost
 * beyond its gas). A node that charges nothing in a simulation measures 0.
 */
function l1FeeMeter(contracts: ExecutionContracts, sentIndex: number) {
  const native = NATIVE_TOKEN_ADDRESS;
  const meterBalance = balanceCall(contracts, native, L1_FEE_METER);
  const vaultBalance = balanceCall(contracts, native, OP_STACK_L1_FEE_VAULT);
  const before = [meterBalance, { ...vaultBalance, from: L1_FEE_METER }];
  const after = [vaultBalance, meterBalance];
  return {
    /** `calls` with the meter's four reads around the transaction. */
    calls: (calls: SimulationCall[]): SimulationCall[] => [
      ...calls.slice(0, sentIndex),
      ...before,
      ...calls.slice(sentIndex, sentIndex + 1),
      ...after,
      ...calls.slice(sentIndex + 1),
    ],
    /** The fee and the simulation without the meter's reads (undefined: a read is missing). */
    read: (simulation: SimulationResult) => {
      const r = simulation.results;
      const [meter0, vault0] = [r[sentIndex], r[sentIndex + 1]];
      const [vault1, meter1] = [r[sentIndex + 3], r[sentIndex + 4]];
      if (!meter0?.ok || !vault0?.ok || !vault1?.ok || !meter1?.ok) return undefined;
      const readPaid =
        decodeBalance(meter0.returnData) -
        decodeBalance(meter1.returnData) -
        vault0.gasUsed * simulation.gasPrice;
      const l1FeePaid =
        decodeBalance(vault1.returnData) - decodeBalance(vault0.returnData) - readPaid;
      const results = [
        ...r.slice(0, sentIndex),
        ...r.slice(sentIndex + 2, sentIndex + 3),
        ...r.slice(sentIndex + 5),
      ];
      return { l1FeePaid, simulation: { ...simulation, results } };
    },
  };
}

/**
 * `simulation` with each native-currency balance read (the lens's `balanceOf(0xeeee…, account)`)
 * raised by the gas that `account` paid in the calls before it (and the transaction's L1 fee,
 * `l1FeePaid`, on a chain that charges one). The simulation charges gas as the real transaction
 * does, so a sender that is also the receiver would otherwise see its output net of gas; what a
 * transaction delivers is counted before gas, as a client counts it.
 */
function withoutGasPaid(
  simulation: SimulationResult,
  calls: SimulationCall[],
  sentIndex: number,
  l1FeePaid: bigint,
): SimulationResult {
  const paid = new Map<string, bigint>();
  const results = simulation.results.map((result, i) => {
    const call = calls[i];
    if (!call) return result;
    let out = result;
    const read = nativeBalanceRead(call);
    const owed = read && paid.get(read.toLowerCase());
    if (owed && result.ok) {
      const balance = decodeBalance(result.returnData) + owed;
      out = {
        ...result,
        returnData: encodeFunctionResult({
          abi: MinAmountOutCheckAbi,
          functionName: "balanceOf",
          result: balance,
        }),
      };
    }
    const sender = call.from.toLowerCase();
    const fee = result.gasUsed * simulation.gasPrice + (i === sentIndex ? l1FeePaid : 0n);
    paid.set(sender, (paid.get(sender) ?? 0n) + fee);
    return out;
  });
  return { ...simulation, results };
}

/** The account whose native balance `call` reads through the lens, or undefined. */
function nativeBalanceRead(call: SimulationCall): Address | undefined {
  if (!call.data.startsWith(BALANCE_OF_SELECTOR)) return undefined;
  try {
    const { functionName, args } = decodeFunctionData({
      abi: MinAmountOutCheckAbi,
      data: call.data,
    });
    if (functionName !== "balanceOf") return undefined;
    const [token, account] = args as readonly [Address, Address];
    return isNativeToken(token.toLowerCase() as Address) ? account : undefined;
  } catch {
    return undefined;
  }
}

const BALANCE_OF_SELECTOR = toFunctionSelector(
  getAbiItem({ abi: MinAmountOutCheckAbi, name: "balanceOf" }),
);
