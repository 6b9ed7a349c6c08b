/**
 * Route programs without a chain, a database or a server: a quoted route in, the program's
 * calls out, for each routing strategy, each pool kind's steps as `engine/protocols/<slug>/pool.ts`
 * writes them.
 */
import type { Address, Hex } from "viem";
import { describe, expect, test } from "vitest";
import type {
  Edge,
  RouteQuote,
  V2Pool,
  V3Pool,
  V4Pool,
  VaultPool,
  WrapperPool,
} from "../../engine/core/types.js";
import { planRouteProgram } from "../../engine/index.js";
import { CALL_TYPE_VALUE_CALL, decodeCommandTarget } from "../../engine/program/command-layout.js";
import { UnsupportedRouteError } from "../../engine/program/hop-context.js";
import type { PlannedProgram } from "../../engine/program/planner.js";
import type { RouteProgramParameters } from "../../engine/program/route-program.js";

const address = (n: number): Address => `0x${n.toString(16).padStart(40, "0")}`;
const usdc = address(0x1001);
const weth = address(0x1002);
const dai = address(0x1003);
const native = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
const execution = {
  router: address(0x9001),
  executor: address(0x9002),
  delegateExecutor: address(0x9003),
  walletFactory: address(0x9004),
  walletImplementation: address(0x9005),
  minAmountOutCheck: address(0x9006),
  programValues: address(0x9007),
  uniswapV4Router: address(0x9008),
};
const swapRouter = address(0x3001);
const user = address(0x7777);
const receiver = address(0x8888);

const pair: V2Pool = {
  kind: "v2",
  protocol: "uniswap-v2",
  address: address(0x2001),
  token0: usdc,
  token1: weth,
  reserve0: 10n ** 12n,
  reserve1: 10n ** 21n,
  feePpm: 3000,
  totalSupply: 10n ** 16n,
};
const pool: V3Pool = {
  kind: "v3",
  protocol: "uniswap-v3",
  address: address(0x2002),
  token0: usdc,
  token1: dai,
  feePpm: 500,
  tickSpacing: 10,
  sqrtPriceX96: 2n ** 96n,
  tick: 0,
  liquidity: 10n ** 18n,
  ticks: [],
};
const vault: VaultPool = {
  kind: "erc4626",
  protocol: "savings-vaults",
  address: address(0x2003),
  asset: dai,
  totalAssets: 10n ** 21n,
  totalSupply: 10n ** 21n,
  decimalsOffset: 0,
};
const wrapper: WrapperPool = { kind: "wrap", protocol: "wrapped-native", address: weth };
const poolManager = address(0x4444);
/** A Uniswap V4 pool of native ether and USDC (no hooks). */
const v4Pool: V4Pool = {
  kind: "v4",
  protocol: "uniswap-v4",
  address: `0x${"ab".repeat(32)}`,
  poolManager,
  token0: native,
  token1: usdc,
  feePpm: 100,
  keyFee: 100,
  protocolFee: 0,
  tickSpacing: 10,
  hooks: address(0),
  admission: "exact",
  sqrtPriceX96: 2n ** 96n,
  tick: 0,
  liquidity: 10n ** 18n,
  ticks: [],
};
const hop = (edge: Edge, amountIn: bigint, amountOut: bigint) => ({ edge, amountIn, amountOut });
const route = (tokenIn: Address, tokenOut: Address, hops: ReturnType<typeof hop>[]) => {
  const first = hops[0];
  const last = hops.at(-1);
  if (!first || !last) throw new Error("a route has hops");
  const quote: RouteQuote = {
    tokenIn,
    tokenOut,
    amountIn: first.amountIn,
    amountOut: last.amountOut,
    legs: [{ amountIn: first.amountIn, amountOut: last.amountOut, hops }],
    gasUnits: 0n,
    gasCostInTokenOut: 0n,
  };
  return quote;
};

/** Native ether → USDC on the V4 pool, then USDC → DAI on the V3 pool. */
const nativeToDai = route(native, dai, [
  hop({ pool: v4Pool, tokenIn: native, tokenOut: usdc, action: "swap" }, 2_000n, 1_990n),
  hop({ pool, tokenIn: usdc, tokenOut: dai, action: "swap" }, 1_990n, 1_980n),
]);
/** USDC → native ether on the V4 pool. */
const usdcToNative = route(usdc, native, [
  hop({ pool: v4Pool, tokenIn: usdc, tokenOut: native, action: "swap" }, 3_000n, 2_990n),
]);

/** USDC → WETH on the pair, then WETH → native through the wrapper. */
const toNative = route(usdc, native, [
  hop({ pool: pair, tokenIn: usdc, tokenOut: weth, action: "swap" }, 1_000n, 900n),
  hop({ pool: wrapper, tokenIn: weth, tokenOut: native, action: "unwrap" }, 900n, 900n),
]);
/** USDC → DAI on the V3 pool, then DAI into the vault. */
const toShares = route(usdc, vault.address, [
  hop({ pool, tokenIn: usdc, tokenOut: dai, action: "swap" }, 5_000n, 4_990n),
  hop({ pool: vault, tokenIn: dai, tokenOut: vault.address, action: "deposit" }, 4_990n, 4_980n),
]);

const plan = (quote: RouteQuote, p: Partial<RouteProgramParameters>): PlannedProgram =>
  planRouteProgram({
    strategy: "router",
    execution,
    swapRouter,
    account: execution.executor,
    weth,
    receiver,
    quote,
    ...p,
  });

/** Each call as [label, function, target]; each command word must name the same target. */
function callsOf(program: PlannedProgram): [string, string, Address][] {
  for (const call of program.calls) {
    const word = program.commands[call.commandIndex] as Hex;
    expect(decodeCommandTarget(word).target.toLowerCase()).toBe(call.target.toLowerCase());
  }
  return program.calls.map((c) => [c.label, c.functionName, c.target]);
}

describe("route programs", () => {
  test("router: the executor swaps on the pair, unwraps, and sweeps native currency to the receiver", () => {
    expect(callsOf(plan(toNative, {}))).toEqual([
      ["swap on uniswap v2", "uniswapV2Swap", execution.executor],
      ["unwrap", "withdraw", weth],
      ["sweep", "sweep", execution.executor],
    ]);
  });

  test("delegate: deadline, balance before, the pair paid and swapped, unwrap, minimum checked", () => {
    const program = plan(toNative, {
      strategy: "delegate",
      account: user,
      receiver: user,
      bounds: { deadline: 1_000n, slippageBps: 100 },
      minAmountOut: 891n,
    });
    expect(callsOf(program)).toEqual([
      ["check deadline", "checkDeadline", execution.minAmountOutCheck],
      ["read balance", "balanceOf", execution.minAmountOutCheck],
      ["transfer", "transfer", usdc],
      ["quote uniswap v2", "uniswapV2AmountOut", execution.programValues],
      ["swap on uniswap v2", "swap", pair.address],
      ["unwrap", "withdraw", weth],
      ["check minimum output", "checkMinAmountOut", execution.minAmountOutCheck],
    ]);
  });

  test("delegate: a V3 hop goes through SwapRouter with the hop's own minimum and the deadline", () => {
    const program = plan(toShares, {
      strategy: "delegate",
      account: user,
      receiver,
      bounds: { deadline: 1_000n, slippageBps: 100 },
      minAmountOut: 4_930n,
    });
    expect(callsOf(program)).toEqual([
      ["check deadline", "checkDeadline", execution.minAmountOutCheck],
      ["read balance", "balanceOf", execution.minAmountOutCheck],
      // SwapRouter pulls the input: approved for the swap, the approval reset after it.
      ["approve", "approve", usdc],
      ["swap on uniswap v3 router", "exactInputSingle", swapRouter],
      ["approve", "approve", usdc],
      ["approve", "approve", dai],
      ["deposit", "deposit", vault.address],
      ["check minimum output", "checkMinAmountOut", execution.minAmountOutCheck],
    ]);
    // The SwapRouter call carries the hop's 4,990 less 1% (4,940) and the deadline.
    const state = program.state.join("");
    expect(state).toContain(4_940n.toString(16).padStart(64, "0"));
    expect(state).toContain(1_000n.toString(16).padStart(64, "0"));
  });

  test("router: a V4 hop is the executor's own uniswapV4Swap, with the pool key (native ether as the zero address), paying the next hop's holder", () => {
    const program = plan(nativeToDai, {});
    expect(callsOf(program)).toEqual([
      ["swap on uniswap v4", "uniswapV4Swap", execution.executor],
      ["swap on uniswap v3", "swap", pool.address],
      ["read uniswap v3 output", "uniswapV3ExactInputAmountOut", execution.executor],
    ]);
    const state = program.state.join("");
    // currency0 is the zero address, currency1 USDC, fee 100, tick spacing 10.
    expect(state).toContain(usdc.slice(2).padStart(64, "0"));
    expect(state).toContain((100).toString(16).padStart(64, "0"));
    expect(state).toContain((10).toString(16).padStart(64, "0"));
    expect(state).not.toContain(native.slice(2).padStart(64, "0"));
  });

  test("delegate: a V4 hop of an ERC20 approves the V4 router exactly and swaps with the hop's minimum; a native input is the call's value", () => {
    const bounds = { deadline: 1_000n, slippageBps: 100 };
    const erc20In = plan(usdcToNative, {
      strategy: "delegate",
      account: user,
      receiver: user,
      bounds,
      minAmountOut: 2_960n,
    });
    expect(callsOf(erc20In)).toEqual([
      ["check deadline", "checkDeadline", execution.minAmountOutCheck],
      ["read balance", "balanceOf", execution.minAmountOutCheck],
      // transferFrom spends the whole approval: no allowance is left to reset.
      ["approve", "approve", usdc],
      ["swap on uniswap v4 router", "swapExactIn", execution.uniswapV4Router],
      ["check minimum output", "checkMinAmountOut", execution.minAmountOutCheck],
    ]);
    // The hop's 2,990 less 1%: 2,960.
    expect(erc20In.state.join("")).toContain(2_960n.toString(16).padStart(64, "0"));
    const nativeIn = plan(nativeToDai, {
      strategy: "delegate",
      account: user,
      receiver: user,
      bounds,
      minAmountOut: 1_960n,
    });
    // No approval before the swap: native ether is not an ERC20.
    expect(callsOf(nativeIn).slice(0, 3)).toEqual([
      ["check deadline", "checkDeadline", execution.minAmountOutCheck],
      ["read balance", "balanceOf", execution.minAmountOutCheck],
      ["swap on uniswap v4 router", "swapExactIn", execution.uniswapV4Router],
    ]);
    // A value call (its flags byte, after the selector, names the call type) sending 2,000 wei.
    const word = nativeIn.commands[nativeIn.calls[2]?.commandIndex as number] as Hex;
    expect(Number.parseInt(word.slice(10, 12), 16) & 0x03).toBe(CALL_TYPE_VALUE_CALL);
    expect(nativeIn.state.join("")).toContain(2_000n.toString(16).padStart(64, "0"));
  });

  test("delegate: a V4 hop through an allow-listed hook's pool gets no minimum of its own (the simulation quotes it)", () => {
    const hooked: V4Pool = { ...v4Pool, hooks: address(0x408), admission: "simulated" };
    const quote = route(usdc, native, [
      hop({ pool: hooked, tokenIn: usdc, tokenOut: native, action: "swap" }, 3_000n, 2_990n),
    ]);
    const program = plan(quote, {
      strategy: "delegate",
      account: user,
      receiver: user,
      bounds: { deadline: 1_000n, slippageBps: 100 },
      minAmountOut: 2_900n,
    });
    // The hop's 2,990 less 1% (2,960) is nowhere: the swap's minimum is 0; the program's own
    // final check carries its 2,900.
    const state = program.state.join("");
    expect(state).not.toContain(2_960n.toString(16).padStart(64, "0"));
    expect(state).toContain(2_900n.toString(16).padStart(64, "0"));
    expect(callsOf(program).map(([label]) => label)).toEqual([
      "check deadline",
      "read balance",
      "approve",
      "swap on uniswap v4 router",
      "check minimum output",
    ]);
  });

  test("a strategy that cannot execute a hop says why", () => {
    // Outside the router, unwrapping pays the executing account only.
    expect(() =>
      plan(toNative, {
        strategy: "delegate",
        account: user,
        receiver,
        bounds: { deadline: 1_000n, slippageBps: 100 },
      }),
    ).toThrow(
      new UnsupportedRouteError(
        "routingStrategy=delegate cannot pay native currency to a receiver other than the executing account; use routingStrategy=router",
      ),
    );
    expect(() =>
      plan(toShares, { strategy: "corewallet", account: user, swapRouter: undefined }),
    ).toThrow(new UnsupportedRouteError("no Uniswap V3 SwapRouter is configured on this chain"));
  });
});
