/**
 * What a compiled bundle enforces, without a chain: every payee the first run saw receive is
 * checked (under the router each output names its account), a named pool swap carries its own
 * minimum, and under the router each token leaves the shared executor right after the last
 * action that may use it.
 */
import { type Address, decodeFunctionData, encodeAbiParameters, getAddress, type Hex } from "viem";
import { describe, expect, test } from "vitest";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import type { BundleRequest } from "../../engine/bundle/build.js";
import { buildBundle, createRoutingGraph } from "../../engine/index.js";
import { decodeCommandTarget } from "../../engine/program/command-layout.js";
import type { PlannedProgram } from "../../engine/program/planner.js";
import { chain, contracts } from "../engine/fixtures.js";
import { E18, token, v2 } from "../routing/fixtures.js";

const tokenA = token(0xa1);
const tokenB = token(0xb1);
const graph = createRoutingGraph();
const pair = v2(tokenA, tokenB, 1_000n * E18, 2_000n * E18);
graph.upsertPool(pair);

const user = getAddress(token(0x7777));
const merchant = getAddress(token(0x3333));
/** A contract the bundle calls after its swap (a checkout, a hook): code that runs later. */
const checkout = getAddress(token(0x4444));

const bundle = (overrides: Partial<BundleRequest>) =>
  buildBundle({
    chain,
    contracts,
    graph,
    gasPriceWei: 1n,
    request: {
      fromAddress: user,
      receiver: undefined,
      spender: user,
      routingStrategy: "router",
      actions: [],
      ...overrides,
    },
  });

/** Each call as [function, target]; each command word must name the same target. */
function callsOf(program: PlannedProgram) {
  for (const call of program.calls) {
    const word = program.commands[call.commandIndex] as Hex;
    expect(decodeCommandTarget(word).target.toLowerCase()).toBe(call.target.toLowerCase());
  }
  return program.calls.map((c) => [c.functionName, c.target]);
}

const word = (value: bigint | Address): Hex =>
  encodeAbiParameters([{ type: typeof value === "bigint" ? "uint256" : "address" }], [value]);

const swap = {
  protocol: "uniswap-v2",
  action: "swap",
  args: { primaryAddress: pair.address, tokenIn: tokenA, tokenOut: tokenB, amountIn: `${E18}` },
};
const ping = {
  protocol: "core",
  action: "call",
  args: { address: checkout, method: "ping", abi: "function ping()", args: [] },
};

describe("what a bundle checks", () => {
  test("every payee the first run saw receive is checked at its amount less the slippage, the router's outputs each at its account", () => {
    const built = bundle({
      actions: [
        swap,
        {
          protocol: "core",
          action: "transfer",
          args: { token: tokenB, receiver: merchant, amount: { useOutputOfCallAt: 0 } },
        },
        {
          protocol: "core",
          action: "transfer",
          args: { token: tokenA, receiver: user, amount: "1000" },
        },
      ],
    });
    // The receiver's growth no longer hides the merchant's, nor the other way round.
    const checks = built.checks(built.compiled, [
      { token: getAddress(tokenB), account: merchant, delta: 1_994_006_985_000_000_000n },
      { token: getAddress(tokenA), account: user, delta: 1_000n },
      { token: getAddress(tokenB), account: user, delta: 0n },
    ]);
    expect(checks).toEqual([
      { token: getAddress(tokenB), account: merchant, min: 1_934_186_775_450_000_000n },
      { token: getAddress(tokenA), account: user, min: 970n },
    ]);
    const tx = built.encode(built.compiled, checks, 1_700_000_000n);
    const decoded = decodeFunctionData({ abi: ShortcutRouterAbi, data: tx.data });
    expect(decoded.functionName).toBe("bundle");
    expect(decoded.args[0]).toEqual({
      tokenIn: getAddress(tokenA),
      amountIn: E18 + 1_000n,
      outputs: [
        { token: getAddress(tokenB), account: merchant, minAmountOut: 1_934_186_775_450_000_000n },
        { token: getAddress(tokenA), account: user, minAmountOut: 970n },
      ],
      feeBps: 0n,
      feeReceiver: "0x0000000000000000000000000000000000000000",
      deadline: 1_700_000_000n,
    });
  });

  test("a named pool swap carries its own minimum: the pair's quote less the bundle's slippage, on the account it pays", () => {
    // 1 A into the 1,000 A / 2,000 B pair pays 1.994006985… B; 250 bps below it is the minimum.
    const quoted = 1_992_013_962_079_806_432n;
    const minimum = (quoted * 9_750n) / 10_000n;
    expect(minimum).toBe(1_942_213_613_027_811_271n);
    const expected = {
      router: [
        ["balanceOf", contracts.minAmountOutCheck],
        ["uniswapV2Swap", contracts.executor],
        ["checkMinAmountOut", contracts.minAmountOutCheck],
        ["sweep", contracts.executor],
        ["sweep", contracts.executor],
      ],
      delegate: [
        ["checkDeadline", contracts.minAmountOutCheck],
        ["balanceOf", contracts.minAmountOutCheck],
        ["transfer", getAddress(tokenA)],
        ["uniswapV2AmountOut", contracts.programValues],
        ["swap", getAddress(pair.address)],
        ["checkMinAmountOut", contracts.minAmountOutCheck],
      ],
    };
    for (const routingStrategy of ["router", "delegate"] as const) {
      const built = bundle({ routingStrategy, actions: [swap], slippage: 250 });
      expect({ routingStrategy, calls: callsOf(built.compiled.program) }).toEqual({
        routingStrategy,
        calls: expected[routingStrategy],
      });
      // Its literals: the token, the account the pair pays, and the minimum.
      const { state } = built.compiled.program;
      expect(state).toContain(word(minimum));
      expect(state).toContain(word(built.account));
    }
  });
});

describe("when the router pays out", () => {
  test("each token is swept to the receiver right after the last action that may use it, before code that runs later", () => {
    const built = bundle({ actions: [swap, ping] });
    expect(callsOf(built.compiled.program)).toEqual([
      // The swap, measured and held to its own minimum.
      ["balanceOf", contracts.minAmountOutCheck],
      ["uniswapV2Swap", contracts.executor],
      ["checkMinAmountOut", contracts.minAmountOutCheck],
      // A and B are no use to the call that follows: both leave the executor first.
      ["sweep", contracts.executor],
      ["sweep", contracts.executor],
      ["ping", checkout],
    ]);
  });

  test("a token with an allowance still open stays until the end (any later call may use it), and the allowance is reset last", () => {
    const built = bundle({
      actions: [
        swap,
        {
          protocol: "core",
          action: "approve",
          args: { token: tokenB, spender: checkout, amount: "5" },
        },
        ping,
      ],
    });
    expect(callsOf(built.compiled.program)).toEqual([
      ["balanceOf", contracts.minAmountOutCheck],
      ["uniswapV2Swap", contracts.executor],
      ["checkMinAmountOut", contracts.minAmountOutCheck],
      // A is done with; B is approved to the checkout, which the call may use.
      ["sweep", contracts.executor],
      ["approve", getAddress(tokenB)],
      ["ping", checkout],
      ["sweep", contracts.executor],
      // And the allowance is set back to 0: the executor refuses to end with one standing.
      ["approve", getAddress(tokenB)],
    ]);
  });
});
