/**
 * From a validated bundle request to the answer: the engine compiles the actions into one
 * program and encodes the strategy's transaction (engine/bundle/build.ts); here it is simulated on the
 * latest block with the caller given its inputs, and the answer reports gas and what each
 * address received.
 */
import { type Address, encodeFunctionData, getAddress, type Hex, type PublicClient } from "viem";
import { RouterExecutorAbi } from "../../../abis/generated/RouterExecutor.js";
import type {
  AccountCheck,
  ChainSetup,
  CompiledBundle,
  ExecutionContracts,
  OpStackFeeParameters,
  RouteStep,
  RoutingGraph,
} from "../../../engine/index.js";
import {
  type BeforeSending,
  type BundleBuild,
  type BundleRequest,
  buildBundle,
  DEFAULT_DEADLINE_SECONDS,
  describeRevert,
  displayAddress,
  gasLimit,
  isNativeToken,
  type OutputCheck,
  PROVISIONAL_DEADLINE,
  protocols,
  SimulationRevertedError,
  seenInLogs,
  UnsafePositionError,
} from "../../../engine/index.js";
import { executionContracts } from "../chain/execution-contracts.js";
import { l1FeeCall, l1FeeOf } from "../chain/l1-fee.js";
import type { AccountOverride, SimulationCall } from "../chain/simulate.js";
import {
  balanceCall,
  decodeBalance,
  fundingOverrides,
  runSimulation,
  type SimulationTarget,
  simulationTarget,
  withDelegation,
} from "../chain/simulation-inputs.js";
import type { TokenSlotFinder } from "../chain/slots.js";

export type BundleContext = {
  chain: ChainSetup;
  client: PublicClient;
  graph: RoutingGraph;
  slots: TokenSlotFinder;
  gasPriceWei: bigint;
  /** The chain's L1 fee parameters, on a chain whose transactions pay for their L1 data. */
  l1Fee?: OpStackFeeParameters;
};

export type BundleAnswer = {
  bundle: CompiledBundle["bundle"];
  tx: { data: Hex; to: string; from: string; value: string };
  gas: string;
  gasUsed: string;
  createdAt: number;
  blockNumber: number;
  deadline: number;
  amountsOut: Record<string, string>;
  beforeSending: BeforeSending[];
  route?: RouteStep[];
  /** On a chain with an L1 data fee: the oracle's `getL1Fee(tx.data)` in the simulated block. */
  l1Fee?: string;
};

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000" as Address;

/** The reads each protocol asks for after the bundle's transaction, for its own actions. */
function accountChecks(c: CompiledBundle, account: Address): AccountCheck[] {
  return protocols.flatMap((p) => {
    const own = c.bundle.filter((a) => a.protocol === p.slug);
    return own.length > 0 && p.accountChecks ? p.accountChecks(own, account) : [];
  });
}

/** The inputs given for the simulation, as state overrides. */
function inputOverrides(
  target: SimulationTarget,
  inputs: Iterable<readonly [Address, bigint]>,
  holder: Address,
  spender: Address | undefined,
): Promise<Record<Address, AccountOverride>> {
  return fundingOverrides(target, {
    inputs,
    holder,
    spender,
    message: (error, token) =>
      `Cannot simulate with ${displayAddress(token)} as an input: its ${error.what} storage could not be located.${error.remedy}`,
  });
}

/**
 * Runs `call` (the program of `c`) between balance reads of what `c` watches.
 * @throws SimulationRevertedError naming the action whose call reverted.
 */
async function run(
  target: SimulationTarget,
  build: BundleBuild,
  contracts: ExecutionContracts,
  c: CompiledBundle,
  call: SimulationCall,
  overrides: Record<Address, AccountOverride>,
  checks: readonly AccountCheck[] = [],
  /** Calls read after the checks (the L1 fee oracle's price of the transaction). */
  extra: readonly SimulationCall[] = [],
) {
  const watchList = build.watchList(c);
  const reads = watchList.map((w) => balanceCall(contracts, w.token, w.account));
  const simulation = await runSimulation(target, {
    calls: [
      ...reads,
      call,
      ...reads,
      ...checks.map((k) => ({ from: ZERO_ADDRESS, to: k.to, data: k.data })),
      ...extra,
    ],
    overrides,
    sentIndex: reads.length,
  });
  const sent = simulation.results[reads.length] as NonNullable<(typeof simulation.results)[number]>;
  if (!sent.ok) {
    const reason = describeRevert({ data: sent.revertData, calls: c.program.calls });
    const stepIndex = reason.step?.index;
    const actionIndex =
      stepIndex === undefined
        ? undefined
        : c.firstCall.reduce((found, first, i) => (first <= stepIndex ? i : found), 0);
    const action = actionIndex === undefined ? undefined : c.bundle[actionIndex];
    throw new SimulationRevertedError(
      action
        ? `Action ${actionIndex} (${action.protocol} ${action.action}) failed in simulation: ${reason.message}.`
        : `The bundle's transaction reverted in simulation: ${reason.message}.`,
      {
        actionIndex,
        blockNumber: simulation.blockNumber,
        revertData: sent.revertData,
        details: {
          blockNumber: Number(simulation.blockNumber),
          ...(actionIndex !== undefined ? { actionIndex } : {}),
        },
      },
    );
  }
  // What each watched account received of each watched token.
  const received = watchList.map((w, i) => {
    const before = simulation.results[i];
    const after = simulation.results[reads.length + 1 + i];
    if (!before?.ok || !after?.ok) return { ...w, delta: 0n };
    return { ...w, delta: decodeBalance(after.returnData) - decodeBalance(before.returnData) };
  });
  // What the protocols say of the accounts after the transaction: a refusal is a 422.
  checks.forEach((check, i) => {
    const answer = simulation.results[2 * reads.length + 1 + i];
    const refusal = answer?.ok ? check.refuse(answer.returnData) : undefined;
    if (refusal) {
      throw new UnsafePositionError(refusal, {
        account: build.account,
        details: { blockNumber: Number(simulation.blockNumber) },
      });
    }
  });
  const extraResults = simulation.results.slice(2 * reads.length + 1 + checks.length);
  return { simulation, sent, received, extraResults };
}

/**
 * Compiles, encodes and simulates a bundle: a first run of the program shows what it delivers
 * where (and what its logs reveal), and fixes the default deadline (its block's timestamp + 20
 * minutes); the final program checks those outputs at the simulated amounts less the slippage
 * (the router checks them itself), and the final transaction is simulated as returned.
 * @throws InvalidArgumentError (and the compiler's errors) for malformed actions,
 * SimulationRevertedError naming the action when the simulation reverts, ChainUnavailableError.
 */
export async function planBundle(ctx: BundleContext, req: BundleRequest): Promise<BundleAnswer> {
  const contracts = await executionContracts(ctx.chain, ctx.client);
  const build = buildBundle({ ...ctx, contracts, request: req });
  const { strategy, from, account, input } = build;
  const target = simulationTarget(ctx, contracts);
  const simulatedDeadline = req.deadline ?? PROVISIONAL_DEADLINE;
  let compiled = build.compiled;

  let overrides = await inputOverrides(
    target,
    compiled.inputs,
    build.funded.holder,
    build.funded.spender,
  );
  if (strategy === "delegate") overrides = withDelegation(overrides, from, contracts);

  // First run: the program alone, to learn what arrives where. Under the router it runs as the
  // router would run it (the executor holding the input), before the router's own checks exist.
  const probe = async (c: CompiledBundle) => {
    if (strategy !== "router") {
      const tx = build.encode(c, [], simulatedDeadline);
      return await run(target, build, contracts, c, tx, overrides);
    }
    const [tokenIn, amountIn] = input as readonly [Address, bigint];
    const probeOverrides = isNativeToken(tokenIn)
      ? { [contracts.router]: { balance: amountIn } }
      : await inputOverrides(target, [[tokenIn, amountIn]], contracts.executor, undefined);
    return await run(
      target,
      build,
      contracts,
      c,
      {
        from: contracts.router,
        to: contracts.executor,
        data: encodeFunctionData({
          abi: RouterExecutorAbi,
          functionName: "execute",
          args: [c.program.commands, c.program.state],
        }),
        value: isNativeToken(tokenIn) ? amountIn : 0n,
      },
      probeOverrides,
    );
  };
  let first = await probe(compiled);
  const sent = first.sent as Extract<typeof first.sent, { ok: true }>;
  const seen = seenInLogs(sent.logs, account, new Set([...compiled.touched, ...compiled.kept]));
  const extraTokens = seen.tokens;
  const approvalResets = strategy === "router" ? seen.allowances : [];
  if (extraTokens.length > 0 || approvalResets.length > 0) {
    compiled = build.compile({ deadline: simulatedDeadline, extraTokens, approvalResets });
    first = await probe(compiled);
  }
  const checks: OutputCheck[] = build.checks(compiled, first.received);
  const deadline = req.deadline ?? first.simulation.timestamp + DEFAULT_DEADLINE_SECONDS;
  // The final program: outside the router it checks the deadline and those outputs itself.
  const final =
    strategy === "router"
      ? compiled
      : build.compile({ deadline, checks, extraTokens, approvalResets: [] });
  const tx = build.encode(final, checks, deadline);
  // On a chain with an L1 data fee, the chain's own price of the calldata, in the same block.
  const feeCall = l1FeeCall(ctx.chain, tx.data);
  const result = await run(
    target,
    build,
    contracts,
    final,
    { from: tx.from, to: tx.to, data: tx.data, value: tx.value },
    overrides,
    accountChecks(final, build.account),
    feeCall ? [feeCall] : [],
  );
  const l1Fee = feeCall ? l1FeeOf(ctx.chain, result.extraResults[0]) : undefined;
  const gasUsed = result.sent.gasUsed;
  // What the answer lists is what the transaction enforces: the checked payees' amounts only.
  const checked = new Set(checks.map((k) => `${k.token.toLowerCase()}:${k.account.toLowerCase()}`));
  const amountsOut: Record<string, string> = {};
  for (const r of result.received) {
    if (r.delta <= 0n || !checked.has(`${r.token.toLowerCase()}:${r.account.toLowerCase()}`)) {
      continue;
    }
    const key = displayAddress(r.token);
    amountsOut[key] = (BigInt(amountsOut[key] ?? "0") + r.delta).toString();
  }
  const simulation = result.simulation;
  return {
    bundle: compiled.bundle,
    tx: {
      data: tx.data,
      to: getAddress(tx.to),
      from: getAddress(tx.from),
      value: tx.value.toString(),
    },
    gas: gasLimit({ gasUsed, strategy }).toString(),
    gasUsed: gasUsed.toString(),
    createdAt: Number(simulation.blockNumber),
    blockNumber: Number(simulation.blockNumber),
    deadline: Number(deadline),
    amountsOut,
    beforeSending: build.beforeSending(),
    ...(compiled.routeSteps.length > 0 ? { route: compiled.routeSteps } : {}),
    ...(l1Fee !== undefined ? { l1Fee: l1Fee.toString() } : {}),
  };
}
