/**
 * The bundle builder: bundle actions, the chain's routing graph and its execution contracts in;
 * the compiled program and the strategy's unsigned transaction out, at any output checks and
 * deadline. No I/O: the service simulates what this builds, twice (to learn what arrives where,
 * then as returned), in src/api/shortcuts/plan-bundle.ts.
 */
import { type Address, erc20Abi, getAddress, type Hex, parseEventLogs } from "viem";
import type { ChainSetup } from "../core/chain-setup.js";
import { InvalidArgumentError, UnsupportedByStrategyError } from "../core/errors.js";
import { displayAddress, NATIVE_TOKEN_ADDRESS } from "../core/native.js";
import {
  type EncodedTx,
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterBundleTx,
} from "../program/encode.js";
import { executingAccount, inputHolder } from "../program/executing-account.js";
import {
  type ExecutionContracts,
  minimumOf,
  type RoutingStrategy,
} from "../program/hop-context.js";
import type { HopStepsTable } from "../program/hop-steps.js";
import { type BeforeSending, beforeSending, PROVISIONAL_DEADLINE } from "../program/sending.js";
import type { RoutingGraph } from "../routing/graph.js";
import type { BundleProtocols } from "./actions/registry.js";
import { type CompiledBundle, compileBundle } from "./compile.js";

/** Default slippage of a bundle's output checks, relative to the simulated amounts (bps). */
export const BUNDLE_SLIPPAGE_BPS = 300;

/** A bundle request, validated (the API parses it from `POST /v1/shortcuts/bundle`). */
export type BundleRequest = {
  fromAddress: Address;
  receiver: Address | undefined;
  spender: Address;
  routingStrategy: RoutingStrategy;
  /** The actions as sent; the compiler checks each. */
  actions: readonly unknown[];
  /** Slippage of the output checks (bps); default BUNDLE_SLIPPAGE_BPS. */
  slippage?: number;
  /** Last acceptable block timestamp; default the simulated block's + 20 minutes. */
  deadline?: bigint;
};

/** A minimum the transaction enforces: `account` receives at least `min` of `token`. */
export type OutputCheck = { token: Address; account: Address; min: bigint };

/** A balance the simulation reads before and after, and what it changed by. */
export type Received = { token: Address; account: Address; delta: bigint };

/** What `compile` may add to the program beyond the actions. */
export type CompileOptions = {
  deadline: bigint;
  /** Outputs the program checks itself (outside the router). */
  checks?: OutputCheck[];
  /** Tokens the program hands over to the receiver though no action named them. */
  extraTokens?: Address[];
  /** Allowances the program resets to zero at its end. */
  approvalResets?: { token: Address; spender: Address }[];
};

export type BuildBundleParameters = {
  chain: ChainSetup;
  contracts: ExecutionContracts;
  /** The routing graph, built with the pool models of the engine's protocols. */
  graph: RoutingGraph;
  /** The protocols whose actions the bundle may name, and their pool kinds' program steps. */
  protocols: BundleProtocols;
  steps: HopStepsTable;
  gasPriceWei: bigint;
  request: BundleRequest;
};

export type BundleBuild = {
  strategy: RoutingStrategy;
  from: Address;
  /** Where the program runs: the caller, its core wallet, or the router's executor. */
  account: Address;
  receiver: Address;
  slippageBps: number;
  /** The actions compiled at a provisional deadline: what the bundle spends and touches. */
  compiled: CompiledBundle;
  /** The one input token the caller pays in and its amount (router and corewallet). */
  input: readonly [Address, bigint] | undefined;
  /** The account that must hold the inputs for the transaction to run, and who may spend them. */
  funded: { holder: Address; spender: Address | undefined };
  /** The actions compiled again with `options` (the same routes: they are cached). */
  compile(options: CompileOptions): CompiledBundle;
  /** The balances worth reading around a run of `compiled`: deliveries and what reaches the receiver. */
  watchList(compiled: CompiledBundle): { token: Address; account: Address }[];
  /** The strategy's transaction for `compiled`, enforcing `checks` (router) and `deadline`. */
  encode(compiled: CompiledBundle, checks: OutputCheck[], deadline: bigint): EncodedTx;
  /**
   * The outputs to check, from what a first run of `compiled` delivered: every watched
   * `(token, account)` that received something — the receiver and each transfer's target alike
   * (a merchant paid by a `transfer` is checked like the receiver) — each at its amount less the
   * slippage.
   * @throws UnsupportedByStrategyError under the router when nothing reaches anyone.
   */
  checks(compiled: CompiledBundle, received: Received[]): OutputCheck[];
  /** What the client must do before sending (approval or delegation). */
  beforeSending(): BeforeSending[];
};

const lower = (a: string) => a.toLowerCase() as Address;
const display = (t: Address) => displayAddress(t) as Address;

/**
 * Checks the request, compiles its actions and returns the bundle's encoder.
 * @throws InvalidArgumentError (and the compiler's errors, with the action's path).
 * @example const b = buildBundle({ chain, contracts, graph, gasPriceWei, request });
 * b.encode(b.compiled, [], deadline)
 */
export function buildBundle(params: BuildBundleParameters): BundleBuild {
  const { chain, contracts, graph, request: req } = params;
  const strategy = req.routingStrategy;
  const from = getAddress(req.fromAddress);
  // Under corewallet a spender other than the caller is its wallet, spending what it holds.
  const walletSpendsOwn = req.spender !== lower(from);
  if (walletSpendsOwn && strategy !== "corewallet") {
    throw new InvalidArgumentError(
      `Query parameter \`spender\` must equal \`fromAddress\` with routingStrategy=${strategy}.`,
    );
  }
  const { account, wallet } = executingAccount({ strategy, contracts, from });
  const receiver = getAddress(req.receiver ?? from);
  const slippageBps = req.slippage ?? BUNDLE_SLIPPAGE_BPS;
  const routeCache = new Map();
  const compile = (options: CompileOptions) =>
    compileBundle({
      protocols: params.protocols,
      steps: params.steps,
      actions: req.actions,
      strategy,
      contracts,
      chain,
      graph,
      gasPriceWei: params.gasPriceWei,
      account,
      receiver,
      from,
      slippageBps,
      routeCache,
      ...options,
    });
  const compiled = compile({ deadline: req.deadline ?? PROVISIONAL_DEADLINE });
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
  // What a core wallet pulls from its owner: the input, unless the wallet spends its own.
  const pulled = input && !walletSpendsOwn ? input : undefined;

  return {
    strategy,
    from,
    account,
    receiver,
    slippageBps,
    compiled,
    input,
    funded: inputHolder({
      strategy,
      contracts,
      from,
      wallet,
      walletSpendsOwn,
    }),
    compile,
    watchList: (c) => {
      // What to report, and what is checked: explicit transfers, and tokens left with the receiver.
      const watched = new Map<string, { token: Address; account: Address }>();
      for (const d of c.deliveries)
        watched.set(`${d.token}:${lower(d.to)}`, { token: d.token, account: getAddress(d.to) });
      for (const t of c.touched) {
        if (!c.inputs.has(t))
          watched.set(`${t}:${lower(receiver)}`, { token: t, account: receiver });
      }
      return [...watched.values()].map((w) => ({ token: display(w.token), account: w.account }));
    },
    encode: (c, checks, deadline) => {
      if (strategy === "router") {
        const [tokenIn, amountIn] = input as readonly [Address, bigint];
        return encodeRouterBundleTx({
          router: contracts.router,
          from,
          tokenIn: display(tokenIn),
          amountIn,
          outputs: checks.map((o) => ({ token: o.token, account: o.account, minAmountOut: o.min })),
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
    },
    checks: (_compiled, received) => {
      // Checking only some payees would leave the others' share to whoever moves a price
      // between the simulation and the transaction: every one that received is checked.
      const delivered = received.filter((r) => r.delta > 0n);
      if (strategy === "router" && delivered.length === 0) {
        throw new UnsupportedByStrategyError(
          "The bundle delivers nothing the router could check: no token reaches the receiver or a transfer target.",
        );
      }
      return delivered.map((c) => ({
        token: c.token,
        account: c.account,
        min: minimumOf(c.delta, slippageBps),
      }));
    },
    beforeSending: () =>
      beforeSending({
        strategy,
        contracts,
        from,
        input: pulled ? { token: pulled[0], amount: pulled[1] } : undefined,
      }),
  };
}

/**
 * What the logs of a program run show beyond what its actions named: ERC20s transferred to the
 * executing account that no action touched (a `call`'s output, to be handed over too), and
 * allowances the account left standing (the last `Approval` of each spender not zero).
 * ERC-721 events share the ERC20 signatures but not their shape, so they are not decoded.
 */
export function seenInLogs(
  logs: readonly { address: Address; topics: Hex[]; data: Hex }[],
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
