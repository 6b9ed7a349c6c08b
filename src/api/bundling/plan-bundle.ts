/**
 * From a validated bundle request to the answer: compile the actions into one program, encode
 * the strategy's transaction, simulate it on the latest block with the caller given its inputs,
 * and report gas and what each address received.
 */
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  type PublicClient,
} from "viem";
import { MinAmountOutCheckAbi } from "../../../abis/generated/MinAmountOutCheck.js";
import { RouterExecutorAbi } from "../../../abis/generated/RouterExecutor.js";
import type { ChainSetup } from "../../../protocols/chains";
import { isNativeToken, NATIVE_TOKEN_ADDRESS } from "../../../protocols/native";
import {
  type AccountOverride,
  type SimulationCall,
  SimulationUnavailableError,
  simulateCalls,
  simulationUnavailable,
} from "../chain/simulate";
import { SlotNotFoundError, storageWord, type TokenSlotFinder } from "../chain/slots";
import { ApiError } from "../errors";
import { recordSimulation } from "../ops/metrics";
import type { RoutingGraph } from "../routing/graph";
import type { RouteStep } from "../routing/plan-route";
import { executionContracts } from "../routing/plan-route";
import type { ExecutionContracts, RoutingStrategy } from "../routing/route-program";
import { displayAddress } from "./actions/args";
import { type BundleAction, type CompiledBundle, compileBundle } from "./compile";
import {
  type EncodedTx,
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterBundleTx,
} from "./encode";
import { executingAccount } from "./executingAccount";
import { describeRevert } from "./revert";

/** Minimum kept on the router's checked outputs, relative to the simulated amounts. */
const BUNDLE_SLIPPAGE_BPS = 300n;

export type BundleRequest = {
  fromAddress: Address;
  receiver: Address | undefined;
  spender: Address;
  routingStrategy: RoutingStrategy;
  actions: BundleAction[];
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
  createdAt: number;
  blockNumber: number;
  amountsOut: Record<string, string>;
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
      const stateDiff: Record<Hex, Hex> = {
        [await ctx.slots.balanceKey(token, holder)]: storageWord(amount),
      };
      if (spender)
        stateDiff[await ctx.slots.allowanceKey(token, holder, spender)] = storageWord(amount);
      out[token] = { stateDiff };
    } catch (error) {
      if (error instanceof SimulationUnavailableError) throw simulationUnavailable(ctx.chain.id);
      if (error instanceof SlotNotFoundError) {
        throw new ApiError(
          422,
          `Cannot simulate with ${displayAddress(token)} as an input: its ${error.what} storage could not be located.`,
        );
      }
      throw error;
    }
  }
  return out;
}

/**
 * Compiles, encodes and simulates a bundle.
 * @throws ApiError 400 for malformed actions, 422 when the simulation reverts (naming the action).
 */
export async function planBundle(ctx: BundleContext, req: BundleRequest): Promise<BundleAnswer> {
  const contracts = executionContracts(ctx.chain);
  const strategy = req.routingStrategy;
  const from = getAddress(req.fromAddress);
  if (req.spender !== lower(from) && strategy !== "corewallet") {
    throw new ApiError(
      400,
      `Query parameter \`spender\` must equal \`fromAddress\` with routingStrategy=${strategy}.`,
    );
  }
  const { account, wallet } = executingAccount({ strategy, contracts, from });
  const receiver = getAddress(req.receiver ?? from);
  const compiled = compileBundle({
    actions: req.actions,
    strategy,
    contracts,
    chain: ctx.chain,
    graph: ctx.graph,
    gasPriceWei: ctx.gasPriceWei,
    account,
    receiver,
    from,
  });
  const inputs = [...compiled.inputs.entries()];
  if (strategy !== "delegate" && inputs.length > 1) {
    throw new ApiError(
      400,
      `With routingStrategy=${strategy} a bundle spends one input token from the caller; this one spends ${inputs.map(([t]) => displayAddress(t)).join(" and ")}.`,
    );
  }
  const [input] = inputs;
  if (strategy === "router" && !input) {
    throw new ApiError(
      400,
      "With routingStrategy=router a bundle must spend an input token with a literal amount (the router pulls it first).",
    );
  }

  // What to report, and what the router checks: explicit transfers, and tokens left with the receiver.
  const watched = new Map<string, { token: Address; account: Address }>();
  for (const d of compiled.deliveries)
    watched.set(`${d.token}:${lower(d.to)}`, { token: d.token, account: getAddress(d.to) });
  for (const t of compiled.touched) {
    if (!compiled.inputs.has(t))
      watched.set(`${t}:${lower(receiver)}`, { token: t, account: receiver });
  }
  const watchList = [...watched.values()].map((w) => ({
    token: (isNativeToken(w.token) ? NATIVE_TOKEN_ADDRESS : getAddress(w.token)) as Address,
    account: w.account,
  }));

  const display = (t: Address) =>
    (isNativeToken(t) ? NATIVE_TOKEN_ADDRESS : getAddress(t)) as Address;
  const encode = (checked: { token: Address; account: Address; min: bigint }[]): EncodedTx => {
    if (strategy === "router") {
      const [tokenIn, amountIn] = input as [Address, bigint];
      return encodeRouterBundleTx({
        router: contracts.router,
        from,
        tokenIn: display(tokenIn),
        amountIn,
        outputs: checked.map((c) => ({ token: c.token, minAmountOut: c.min })),
        receiver: checked[0]?.account ?? receiver,
        program: compiled.program,
      });
    }
    if (strategy === "delegate") return encodeDelegateTx({ from, program: compiled.program });
    const pulled = input && req.spender === lower(from) ? input : undefined;
    return encodeCoreWalletTx({
      walletFactory: contracts.walletFactory,
      from,
      tokenIn: display(pulled?.[0] ?? NATIVE_TOKEN_ADDRESS),
      amountIn: pulled?.[1] ?? 0n,
      program: compiled.program,
    });
  };
  const reads = watchList.map((w) => balanceCall(contracts, w.token, w.account));
  const run = async (call: SimulationCall, overrides: Record<Address, AccountOverride>) => {
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
        throw simulationUnavailable(ctx.chain.id);
      }
      throw error;
    }
    const sent = simulation.results[reads.length];
    if (!sent) throw new ApiError(503, "The chain node returned an incomplete simulation.");
    if (!sent.ok) {
      const reason = describeRevert({ data: sent.revertData, calls: compiled.program.calls });
      const stepIndex = reason.step?.index;
      const actionIndex =
        stepIndex === undefined
          ? undefined
          : compiled.firstCall.reduce((found, first, i) => (first <= stepIndex ? i : found), 0);
      const action = actionIndex === undefined ? undefined : compiled.bundle[actionIndex];
      throw new ApiError(
        422,
        action
          ? `Action ${actionIndex} (${action.protocol} ${action.action}) failed in simulation: ${reason.message}.`
          : `The bundle's transaction reverted in simulation: ${reason.message}.`,
        {
          blockNumber: Number(simulation.blockNumber),
          ...(actionIndex !== undefined ? { actionIndex } : {}),
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
  let tx: EncodedTx;
  if (strategy !== "router") {
    tx = encode([]);
  } else {
    // The router checks outputs it must be told: run the program first as the router would
    // (the executor holding the input), learn what arrives where, then check that.
    const [tokenIn, amountIn] = input as [Address, bigint];
    const probeOverrides = isNativeToken(tokenIn)
      ? { [contracts.router]: { balance: amountIn } }
      : await fundOverrides(ctx, new Map([[tokenIn, amountIn]]), contracts.executor, undefined);
    const probe = await run(
      {
        from: contracts.router,
        to: contracts.executor,
        data: encodeFunctionData({
          abi: RouterExecutorAbi,
          functionName: "execute",
          args: [compiled.program.commands, compiled.program.state],
        }),
        value: isNativeToken(tokenIn) ? amountIn : 0n,
      },
      probeOverrides,
    );
    const delivered = probe.received.filter((r) => r.delta > 0n);
    const atReceiver = delivered.filter((r) => r.account === receiver);
    const last = compiled.deliveries.at(-1);
    const chosen =
      atReceiver.length > 0
        ? atReceiver
        : delivered.filter((r) => last && r.account === getAddress(last.to));
    if (chosen.length === 0) {
      throw new ApiError(
        422,
        "The bundle delivers nothing the router could check: no token reaches the receiver or a transfer target.",
      );
    }
    tx = encode(
      chosen.map((c) => {
        const min = (c.delta * (10_000n - BUNDLE_SLIPPAGE_BPS)) / 10_000n;
        return { token: c.token, account: c.account, min: min > 0n ? min : 1n };
      }),
    );
  }
  const final = await run({ from: tx.from, to: tx.to, data: tx.data, value: tx.value }, overrides);
  const amountsOut: Record<string, string> = {};
  for (const r of final.received) {
    if (r.delta <= 0n) continue;
    const key = displayAddress(r.token);
    amountsOut[key] = (BigInt(amountsOut[key] ?? "0") + r.delta).toString();
  }
  const simulation = final.simulation;
  const sent = final.sent;
  return {
    bundle: compiled.bundle,
    tx: {
      data: tx.data,
      to: getAddress(tx.to),
      from: getAddress(tx.from),
      value: tx.value.toString(),
    },
    gas: sent.gasUsed.toString(),
    createdAt: Number(simulation.blockNumber),
    blockNumber: Number(simulation.blockNumber),
    amountsOut,
    ...(compiled.routeSteps.length > 0 ? { route: compiled.routeSteps } : {}),
  };
}
