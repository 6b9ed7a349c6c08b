/**
 * From a validated bundle request to the answer: compile the actions into one program, encode
 * the strategy's transaction, simulate it on the latest block with the caller given its inputs,
 * and report gas and what each address received.
 */
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  type PublicClient,
  parseEventLogs,
} from "viem";
import { MinAmountOutCheckAbi } from "../../../abis/generated/MinAmountOutCheck.js";
import { RouterExecutorAbi } from "../../../abis/generated/RouterExecutor.js";
import {
  ChainUnavailableError,
  InputNotSimulatableError,
  InvalidArgumentError,
  SimulationRevertedError,
  UnsupportedByStrategyError,
} from "../../../engine/errors.js";
import type { ChainSetup } from "../../../protocols/chains.js";
import { isNativeToken, NATIVE_TOKEN_ADDRESS } from "../../../protocols/native.js";
import {
  type AccountOverride,
  type SimulationCall,
  type SimulationLog,
  SimulationUnavailableError,
  simulateCalls,
  simulationUnavailable,
} from "../chain/simulate.js";
import { fundingStateDiff, SlotNotFoundError, type TokenSlotFinder } from "../chain/slots.js";
import { recordSimulation } from "../ops/metrics.js";
import type { RoutingGraph } from "../routing/graph.js";
import {
  type ExecutionContracts,
  minimumOf,
  type RoutingStrategy,
} from "../routing/hop-context.js";
import type { RouteStep } from "../routing/plan-route.js";
import { executionContracts } from "../routing/plan-route.js";
import { displayAddress } from "./actions/args.js";
import { type BundleAction, type CompiledBundle, compileBundle } from "./compile.js";
import {
  type EncodedTx,
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterBundleTx,
} from "./encode.js";
import { executingAccount } from "./executingAccount.js";
import { describeRevert } from "./revert.js";
import {
  type BeforeSending,
  beforeSending,
  DEFAULT_DEADLINE_SECONDS,
  gasLimit,
  PROVISIONAL_DEADLINE,
} from "./sending.js";

/** Default slippage of a bundle's output checks, relative to the simulated amounts (bps). */
export const BUNDLE_SLIPPAGE_BPS = 300;

export type BundleRequest = {
  fromAddress: Address;
  receiver: Address | undefined;
  spender: Address;
  routingStrategy: RoutingStrategy;
  actions: BundleAction[];
  /** Slippage of the output checks (bps); default BUNDLE_SLIPPAGE_BPS. */
  slippage?: number;
  /** Last acceptable block timestamp; default the simulated block's + 20 minutes. */
  deadline?: bigint;
};

export type BundleContext = {
  chain: ChainSetup;
  client: PublicClient;
  graph: RoutingGraph;
  slots: TokenSlotFinder;
  gasPriceWei: bigint;
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
};

const ZERO = "0x0000000000000000000000000000000000000000" as const;
const lower = (a: string) => a.toLowerCase() as Address;

function balanceCall(
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

async function fundOverrides(
  ctx: BundleContext,
  inputs: Map<Address, bigint>,
  holder: Address,
  spender: Address | undefined,
): Promise<Record<Address, AccountOverride>> {
  const out: Record<Address, AccountOverride> = {};
  for (const [token, amount] of inputs) {
    if (isNativeToken(token)) {
      out[holder] = { ...out[holder], balance: amount };
      continue;
    }
    try {
      out[token] = {
        stateDiff: await fundingStateDiff(ctx.slots, ctx.client, {
          token,
          holder,
          amount,
          spender,
        }),
      };
    } catch (error) {
      if (error instanceof SimulationUnavailableError) {
        throw simulationUnavailable(ctx.chain.id, error);
      }
      if (error instanceof SlotNotFoundError) {
        throw new InputNotSimulatableError(
          `Cannot simulate with ${displayAddress(token)} as an input: its ${error.what} storage could not be located.${error.remedy}`,
          { token, cause: error },
        );
      }
      throw error;
    }
  }
  return out;
}

/**
 * What the logs of a program run show beyond what its actions named: ERC20s transferred to the
 * executing account that no action touched (a `call`'s output, to be handed over too), and
 * allowances the account left standing (the last `Approval` of each spender not zero).
 * ERC-721 events share the ERC20 signatures but not their shape, so they are not decoded.
 */
function seenInLogs(
  logs: readonly SimulationLog[],
  account: Address,
  touched: ReadonlySet<Address>,
): { tokens: Address[]; allowances: { token: Address; spender: Address }[] } {
  const me = account.toLowerCase();
  const tokens = new Set<Address>();
  const lastAllowance = new Map<string, { token: Address; spender: Address; value: bigint }>();
  for (const log of parseEventLogs({ abi: erc20Abi, logs: logs as never[] })) {
    const token = log.address.toLowerCase() as Address;
    if (log.eventName === "Transfer" && log.args.to.toLowerCase() === me) {
      if (!touched.has(token)) tokens.add(token);
    } else if (log.eventName === "Approval" && log.args.owner.toLowerCase() === me) {
      const spender = log.args.spender.toLowerCase() as Address;
      lastAllowance.set(`${token}:${spender}`, { token, spender, value: log.args.value });
    }
  }
  return {
    tokens: [...tokens],
    allowances: [...lastAllowance.values()]
      .filter((a) => a.value !== 0n)
      .map(({ token, spender }) => ({ token, spender })),
  };
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
  const strategy = req.routingStrategy;
  const from = getAddress(req.fromAddress);
  if (req.spender !== lower(from) && strategy !== "corewallet") {
    throw new InvalidArgumentError(
      `Query parameter \`spender\` must equal \`fromAddress\` with routingStrategy=${strategy}.`,
    );
  }
  const { account, wallet } = executingAccount({ strategy, contracts, from });
  const receiver = getAddress(req.receiver ?? from);
  const slippageBps = req.slippage ?? BUNDLE_SLIPPAGE_BPS;
  const simulatedDeadline = req.deadline ?? PROVISIONAL_DEADLINE;
  const routeCache = new Map();
  const compile = (options: {
    deadline: bigint;
    checks?: { token: Address; account: Address; min: bigint }[];
    extraTokens?: Address[];
    approvalResets?: { token: Address; spender: Address }[];
  }) =>
    compileBundle({
      actions: req.actions,
      strategy,
      contracts,
      chain: ctx.chain,
      graph: ctx.graph,
      gasPriceWei: ctx.gasPriceWei,
      account,
      receiver,
      from,
      slippageBps,
      routeCache,
      ...options,
    });
  let compiled = compile({ deadline: simulatedDeadline });
  const inputs = [...compiled.inputs.entries()];
  if (strategy !== "delegate" && inputs.length > 1) {
    throw new InvalidArgumentError(
      `With routingStrategy=${strategy} a bundle spends one input token from the caller; this one spends ${inputs.map(([t]) => displayAddress(t)).join(" and ")}.`,
    );
  }
  const [input] = inputs;
  if (strategy === "router" && !input) {
    throw new InvalidArgumentError(
      "With routingStrategy=router a bundle must spend an input token with a literal amount (the router pulls it first).",
    );
  }

  const display = (t: Address) =>
    (isNativeToken(t) ? NATIVE_TOKEN_ADDRESS : getAddress(t)) as Address;
  // What to report, and what is checked: explicit transfers, and tokens left with the receiver.
  const watchListOf = (c: CompiledBundle) => {
    const watched = new Map<string, { token: Address; account: Address }>();
    for (const d of c.deliveries)
      watched.set(`${d.token}:${lower(d.to)}`, { token: d.token, account: getAddress(d.to) });
    for (const t of c.touched) {
      if (!c.inputs.has(t)) watched.set(`${t}:${lower(receiver)}`, { token: t, account: receiver });
    }
    return [...watched.values()].map((w) => ({ token: display(w.token), account: w.account }));
  };
  const pulled = input && req.spender === lower(from) ? input : undefined;
  const encode = (
    c: CompiledBundle,
    checked: { token: Address; account: Address; min: bigint }[],
    deadline: bigint,
  ): EncodedTx => {
    if (strategy === "router") {
      const [tokenIn, amountIn] = input as [Address, bigint];
      return encodeRouterBundleTx({
        router: contracts.router,
        from,
        tokenIn: display(tokenIn),
        amountIn,
        outputs: checked.map((o) => ({ token: o.token, minAmountOut: o.min })),
        receiver: checked[0]?.account ?? receiver,
        deadline,
        program: c.program,
      });
    }
    if (strategy === "delegate") return encodeDelegateTx({ from, program: c.program });
    return encodeCoreWalletTx({
      walletFactory: contracts.walletFactory,
      from,
      tokenIn: display(pulled?.[0] ?? NATIVE_TOKEN_ADDRESS),
      amountIn: pulled?.[1] ?? 0n,
      program: c.program,
    });
  };
  const run = async (
    c: CompiledBundle,
    call: SimulationCall,
    overrides: Record<Address, AccountOverride>,
  ) => {
    const watchList = watchListOf(c);
    const reads = watchList.map((w) => balanceCall(contracts, w.token, w.account));
    let simulation: Awaited<ReturnType<typeof simulateCalls>>;
    const started = performance.now();
    try {
      simulation = await simulateCalls(ctx.client, {
        calls: [...reads, call, ...reads],
        overrides,
      });
      recordSimulation(performance.now() - started, simulation.results[reads.length]?.ok === true);
    } catch (error) {
      if (error instanceof SimulationUnavailableError) {
        throw simulationUnavailable(ctx.chain.id, error);
      }
      throw error;
    }
    const sent = simulation.results[reads.length];
    if (!sent) {
      throw new ChainUnavailableError("The chain node returned an incomplete simulation.", {
        chainId: ctx.chain.id,
      });
    }
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
      const decode = (data: Hex) =>
        decodeFunctionResult({ abi: MinAmountOutCheckAbi, functionName: "balanceOf", data });
      return { ...w, delta: decode(after.returnData) - decode(before.returnData) };
    });
    return { simulation, sent, received };
  };

  const holder =
    strategy === "corewallet" && req.spender !== lower(from) ? (wallet as Address) : from;
  const spenderOfInput =
    strategy === "router"
      ? contracts.router
      : strategy === "corewallet" && holder === from
        ? wallet
        : undefined;
  let overrides = await fundOverrides(ctx, compiled.inputs, holder, spenderOfInput);
  if (strategy === "delegate") {
    overrides = {
      ...overrides,
      [from]: {
        ...overrides[from],
        code: `0xef0100${contracts.delegateExecutor.slice(2).toLowerCase()}` as Hex,
      },
    };
  }

  // First run: the program alone, to learn what arrives where. Under the router it runs as the
  // router would run it (the executor holding the input), before the router's own checks exist.
  const probe = async (c: CompiledBundle) => {
    if (strategy !== "router") return await run(c, encode(c, [], simulatedDeadline), overrides);
    const [tokenIn, amountIn] = input as [Address, bigint];
    const probeOverrides = isNativeToken(tokenIn)
      ? { [contracts.router]: { balance: amountIn } }
      : await fundOverrides(ctx, new Map([[tokenIn, amountIn]]), contracts.executor, undefined);
    return await run(
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
  const seen = seenInLogs(sent.logs, account, compiled.touched);
  const extraTokens = seen.tokens;
  const approvalResets = strategy === "router" ? seen.allowances : [];
  if (extraTokens.length > 0 || approvalResets.length > 0) {
    compiled = compile({ deadline: simulatedDeadline, extraTokens, approvalResets });
    first = await probe(compiled);
  }
  const delivered = first.received.filter((r) => r.delta > 0n);
  const atReceiver = delivered.filter((r) => r.account === receiver);
  const last = compiled.deliveries.at(-1);
  const chosen =
    atReceiver.length > 0
      ? atReceiver
      : delivered.filter((r) => last && r.account === getAddress(last.to));
  if (strategy === "router" && chosen.length === 0) {
    throw new UnsupportedByStrategyError(
      "The bundle delivers nothing the router could check: no token reaches the receiver or a transfer target.",
    );
  }
  const checks = chosen.map((c) => ({
    token: c.token,
    account: c.account,
    min: minimumOf(c.delta, slippageBps),
  }));
  const deadline = req.deadline ?? first.simulation.timestamp + DEFAULT_DEADLINE_SECONDS;
  // The final program: outside the router it checks the deadline and those outputs itself.
  const final =
    strategy === "router"
      ? compiled
      : compile({ deadline, checks, extraTokens, approvalResets: [] });
  const tx = encode(final, checks, deadline);
  const result = await run(
    final,
    { from: tx.from, to: tx.to, data: tx.data, value: tx.value },
    overrides,
  );
  const gasUsed = result.sent.gasUsed;
  const amountsOut: Record<string, string> = {};
  for (const r of result.received) {
    if (r.delta <= 0n) continue;
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
    beforeSending: beforeSending({
      strategy,
      contracts,
      from,
      input: pulled ? { token: pulled[0], amount: pulled[1] } : undefined,
    }),
    ...(compiled.routeSteps.length > 0 ? { route: compiled.routeSteps } : {}),
  };
}
