/**
 * The built-in `core` actions: route, call, transfer, approve, balance, split, minamountout.
 */
import {
  type AbiFunction,
  type AbiParameter,
  type Address,
  erc20Abi,
  getAbiItem,
  parseAbiItem,
  toFunctionSignature,
} from "viem";
import { z } from "zod";
import { MinAmountOutCheckAbi } from "../../../abis/generated/MinAmountOutCheck.js";
import { ProgramValuesAbi } from "../../../abis/generated/ProgramValues.js";
import { addressArg, amountArg, bpsArg, slippageArg } from "../../bundle/actions/args.js";
import { hopContext, literalInput } from "../../bundle/actions/pool-action.js";
import type { ActionSpec, CompileContext, OutputValue } from "../../bundle/actions/types.js";
import {
  InsufficientLiquidityError,
  InvalidArgumentError,
  NoRouteError,
  UnknownTokenError,
} from "../../core/errors.js";
import { displayAddress, isNativeToken } from "../../core/native.js";
import {
  addArrayElement,
  addBalanceSnapshot,
  addMinAmountOutCheck,
  addTupleWord,
} from "../../program/execution-steps.js";
import { minimumOf, programValuesContract } from "../../program/hop-context.js";
import type { ProgramValue } from "../../program/planner.js";
import { addApprove, addTransfer } from "../../program/protocol-steps.js";

const DEFAULT_SLIPPAGE_BPS = 300;
const balanceOfFn = getAbiItem({ abi: erc20Abi, name: "balanceOf" });
const splitFn = getAbiItem({ abi: ProgramValuesAbi, name: "splitAmount" });
const setArrayElementFn = getAbiItem({ abi: ProgramValuesAbi, name: "setArrayElement" });
const checkMinFn = getAbiItem({ abi: MinAmountOutCheckAbi, name: "checkMinAmountOut" });

const routeArgs = z.object({
  tokenIn: addressArg,
  tokenOut: addressArg,
  amountIn: amountArg,
  slippage: slippageArg.default(DEFAULT_SLIPPAGE_BPS),
});

/** `route`: the route calculator's best path, inlined; its output is checked against slippage. */
const route: ActionSpec<typeof routeArgs> = {
  args: routeArgs,
  amountFields: ["amountIn"],
  input: (args) => literalInput(args.tokenIn, args.amountIn),
  compile: (ctx, args) => {
    if (args.tokenIn === args.tokenOut) {
      throw new InvalidArgumentError("the same token as tokenIn; there is nothing to route.", {
        path: "args.tokenOut",
      });
    }
    for (const [field, t] of [
      ["tokenIn", args.tokenIn],
      ["tokenOut", args.tokenOut],
    ] as const) {
      if (!ctx.graph.holds(t)) {
        throw new UnknownTokenError(
          `unknown token ${displayAddress(t)}: no indexed pool or vault holds it.`,
          { path: `args.${field}`, token: t },
        );
      }
    }
    const amount = ctx.amount(args.amountIn, "amountIn");
    if (amount.estimate === undefined) {
      throw new NoRouteError(
        "the referenced output is only known on chain (a call's return value), so no route can be planned for it.",
        { path: "args.amountIn", tokenIn: args.tokenIn, tokenOut: args.tokenOut },
      );
    }
    // A literal amount may be split across paths; a referenced one is a single program value.
    const literal = typeof amount.value === "bigint";
    if (amount.estimate === 0n) {
      throw literal
        ? new InvalidArgumentError("expected an amount greater than 0.", { path: "args.amountIn" })
        : new NoRouteError(
            "the referenced output is estimated at 0, so there is nothing to route.",
            { path: "args.amountIn", tokenIn: args.tokenIn, tokenOut: args.tokenOut },
          );
    }
    const cacheKey = `${args.tokenIn}:${args.tokenOut}:${amount.estimate}:${literal}`;
    // Only pools the bundle's account can swap.
    const scope = hopContext(ctx);
    const found =
      ctx.routeCache.get(cacheKey) ??
      ctx.routing.findRoute({
        graph: ctx.graph,
        tokenIn: args.tokenIn,
        tokenOut: args.tokenOut,
        amountIn: amount.estimate,
        maxSplits: literal ? 4 : 1,
        gasPriceWei: ctx.gasPriceWei,
        weth: (ctx.chain.weth?.toLowerCase() ?? args.tokenIn) as Address,
        admits: (edge) => ctx.routing.executable(edge.pool, scope),
      });
    ctx.routeCache.set(cacheKey, found);
    if (!found.ok) {
      throw found.reason === "no-path"
        ? new NoRouteError(
            `No route from ${displayAddress(args.tokenIn)} to ${displayAddress(args.tokenOut)}.`,
            { tokenIn: args.tokenIn, tokenOut: args.tokenOut },
          )
        : new InsufficientLiquidityError(
            `The liquidity cannot fill ${amount.estimate} wei of ${displayAddress(args.tokenIn)}.`,
            { tokenIn: args.tokenIn, tokenOut: args.tokenOut, amountIn: amount.estimate },
          );
    }
    const quote = found.quote;
    const slippage = args.slippage;
    const hop = hopContext(ctx, slippage);
    const before = addBalanceSnapshot(ctx.planner, {
      minAmountOutCheck: ctx.contracts.minAmountOutCheck,
      token: args.tokenOut,
      account: ctx.account,
    });
    if (quote.flow) {
      // A flow's input is divided as quoted: only a literal amount is split (see maxSplits).
      ctx.routing.addFlowHops(ctx.planner, hop, quote, { recipient: () => ctx.account });
    }
    for (const leg of quote.legs) {
      let value: bigint | ProgramValue = literal ? leg.amountIn : amount.value;
      for (const step of leg.hops) {
        value = ctx.routing.addRouteHop(ctx.planner, hop, step, value, ctx.account);
      }
    }
    const received = addMinAmountOutCheck(ctx.planner, {
      minAmountOutCheck: ctx.contracts.minAmountOutCheck,
      token: args.tokenOut,
      account: ctx.account,
      balanceBefore: before,
      minAmountOut: minimumOf(quote.amountOut, slippage),
    });
    ctx.routeSteps.push(...ctx.routing.routeSteps(ctx.chain.id, quote));
    ctx.touched.add(args.tokenIn);
    ctx.touched.add(args.tokenOut);
    // What a hop leaves unused goes to the receiver with the bundle's outputs.
    for (const token of ctx.routing.leftoverTokens(quote)) ctx.touched.add(token);
    return [{ kind: "amount", value: received, estimate: quote.amountOut, token: args.tokenOut }];
  },
};

const callArgs = z.object({
  address: addressArg,
  method: z.string().min(1),
  abi: z.string().min(1),
  args: z.array(z.unknown()).default([]),
  value: amountArg.optional(),
});

function parseSignature(abi: string): AbiFunction {
  const text = abi.trim().startsWith("function ") ? abi.trim() : `function ${abi.trim()}`;
  try {
    const item = parseAbiItem(text);
    if (item.type !== "function") throw new Error("not a function");
    return item as AbiFunction;
  } catch {
    throw new InvalidArgumentError(
      `"${abi}" is not a one-line function signature such as "function deposit(uint256 assets, address receiver) returns (uint256)".`,
      { path: "args.abi" },
    );
  }
}

function isReference(v: unknown): v is { useOutputOfCallAt: unknown } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && "useOutputOfCallAt" in v;
}

/** Turns a JSON argument into what the planner encodes, resolving references where allowed. */
function coerce(ctx: CompileContext, param: AbiParameter, value: unknown, path: string): unknown {
  const numeric = /^u?int\d*$/.test(param.type);
  if (isReference(value)) {
    if (!numeric) {
      throw new InvalidArgumentError(
        `an output reference can only stand for a uint or int argument, not ${param.type}.`,
        { path },
      );
    }
    const parsed = amountArg.safeParse(value);
    if (!parsed.success) throw new InvalidArgumentError("malformed output reference.", { path });
    // `path` starts at the action (`args.args[0]`); amounts are named within its args.
    return ctx.amount(parsed.data, path.replace(/^args\./, "")).value;
  }
  const dynamicArray = /^(.*)\[\]$/.exec(param.type);
  if (dynamicArray?.[1] !== undefined) {
    if (!Array.isArray(value))
      throw new InvalidArgumentError(`expected an array for ${param.type}.`, { path });
    const element = { ...param, type: dynamicArray[1] } as AbiParameter;
    const items = value.map((v, i) => coerce(ctx, element, v, `${path}[${i}]`));
    const refs = items.flatMap((v, i) =>
      typeof v === "object" && v !== null && !Array.isArray(v) && "planner" in v ? [i] : [],
    );
    if (refs.length === 0) return items;
    if (dynamicArray[1] !== "uint256") {
      throw new InvalidArgumentError(
        `output references inside arrays are supported in uint256[] arguments.`,
        { path },
      );
    }
    // The VM passes dynamic values whole: build the array on chain, one reference at a time.
    let array: ProgramValue | bigint[] = items.map((v) => (typeof v === "bigint" ? v : 0n));
    for (const i of refs) {
      array = ctx.planner.add({
        target: programValuesContract(hopContext(ctx)),
        fn: setArrayElementFn,
        args: [array, BigInt(i), items[i] as ProgramValue],
        label: "place output in array",
      });
    }
    return array;
  }
  if (numeric) {
    if (typeof value === "string" && /^-?[0-9]+$/.test(value)) return BigInt(value);
    if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
    throw new InvalidArgumentError(`expected an integer (decimal string) for ${param.type}.`, {
      path,
    });
  }
  if (param.type === "tuple" && Array.isArray(value)) {
    const components = (param as { components: readonly AbiParameter[] }).components;
    return components.map((c, i) => coerce(ctx, c, value[i], `${path}[${i}]`));
  }
  checkBytesOrString(param.type, value, path);
  return value;
}

/**
 * The encoder accepts more than it should for these types (an array for `bytes`, a number for
 * `string`), so the literal is checked here: bytes as 0x-prefixed hex of whole bytes (exactly
 * N of them for bytesN), strings as JSON strings.
 */
function checkBytesOrString(type: string, value: unknown, path: string): void {
  if (type === "string") {
    if (typeof value !== "string") throw new InvalidArgumentError("expected a string.", { path });
    return;
  }
  const sized = /^bytes(\d*)$/.exec(type);
  if (!sized) return;
  const size = sized[1] ? Number(sized[1]) : undefined;
  const hex = typeof value === "string" && /^0x([0-9a-fA-F]{2})*$/.test(value);
  if (!hex || (size !== undefined && (value as string).length !== 2 + 2 * size)) {
    throw new InvalidArgumentError(
      `expected ${size === undefined ? "bytes" : `${size} bytes`} as 0x-prefixed hex for ${type}.`,
      { path },
    );
  }
}

/** `call`: any contract function, arguments literal or referenced (also inside uint256[]). */
const call: ActionSpec<typeof callArgs> = {
  args: callArgs,
  amountFields: ["value"],
  input: (args) =>
    args.value !== undefined
      ? literalInput("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", args.value)
      : undefined,
  compile: (ctx, args) => {
    const fn = parseSignature(args.abi);
    if (fn.name !== args.method) {
      throw new InvalidArgumentError(
        `"${args.method}" is not the function in args.abi (which declares ${fn.name}).`,
        { path: "args.method" },
      );
    }
    if (args.args.length !== fn.inputs.length) {
      throw new InvalidArgumentError(
        `${fn.name} takes ${fn.inputs.length} argument${fn.inputs.length === 1 ? "" : "s"}, ${args.args.length} given.`,
        { path: "args.args" },
      );
    }
    const values = fn.inputs.map((param, i) => coerce(ctx, param, args.args[i], `args.args[${i}]`));
    const value = args.value !== undefined ? ctx.amount(args.value, "value").value : undefined;
    if (value !== undefined && fn.stateMutability !== "payable") {
      throw new InvalidArgumentError(`${fn.name} is not payable.`, { path: "args.value" });
    }
    // An ERC20 transfer made through `call` delivers like a `transfer` action (checked there).
    const [to] = values;
    if (
      toFunctionSignature(fn) === "transfer(address,uint256)" &&
      typeof to === "string" &&
      /^0x[0-9a-fA-F]{40}$/.test(to)
    ) {
      ctx.deliveries.push({ token: args.address, to: to.toLowerCase() as Address });
      ctx.touched.add(args.address);
    }
    const many = fn.outputs.length > 1;
    const result = ctx.planner.add({
      target: args.address,
      fn: fn as never,
      args: values as never,
      value,
      returnRaw: many,
      label: `call ${fn.name}`,
    });
    if (fn.outputs.length === 0) return [];
    if (!many) {
      const only = fn.outputs[0] as AbiParameter;
      const amountLike = /^u?int\d*$/.test(only.type);
      return [
        {
          kind: amountLike ? "amount" : "value",
          value: result,
          estimate: undefined,
          token: undefined,
        },
      ];
    }
    // Several return values: each static word, readable by index.
    return fn.outputs.map((out, i): OutputValue => {
      const word = addTupleWord(ctx.planner, {
        programValues: programValuesContract(hopContext(ctx)),
        tuple: result,
        index: BigInt(i),
      });
      return {
        kind: /^u?int\d*$/.test(out.type) ? "amount" : "value",
        value: word,
        estimate: undefined,
        token: undefined,
      };
    });
  },
};

const transferArgs = z.object({ token: addressArg, receiver: addressArg, amount: amountArg });

/** `transfer`: an ERC20 amount from the executing account to an address. */
const transfer: ActionSpec<typeof transferArgs> = {
  args: transferArgs,
  amountFields: ["amount"],
  input: (args) => literalInput(args.token, args.amount),
  compile: (ctx, args) => {
    if (isNativeToken(args.token)) {
      throw new InvalidArgumentError(
        "native currency cannot be transferred by a program step; set the bundle's receiver instead.",
        { path: "args.token" },
      );
    }
    const amount = ctx.amount(args.amount, "amount");
    addTransfer(ctx.planner, { token: args.token, to: args.receiver, amount: amount.value });
    ctx.deliveries.push({ token: args.token, to: args.receiver });
    return [{ kind: "amount", value: amount.value, estimate: amount.estimate, token: args.token }];
  },
};

const approveArgs = z.object({ token: addressArg, spender: addressArg, amount: amountArg });

/** `approve`: an allowance from the executing account. */
const approve: ActionSpec<typeof approveArgs> = {
  args: approveArgs,
  amountFields: ["amount"],
  compile: (ctx, args) => {
    addApprove(ctx.planner, {
      token: args.token,
      spender: args.spender,
      amount: ctx.amount(args.amount, "amount").value,
    });
    return [];
  },
};

const balanceArgs = z.object({ token: addressArg });

/** `balance`: the executing account's balance of a token (native included), as an amount. */
const balance: ActionSpec<typeof balanceArgs> = {
  args: balanceArgs,
  amountFields: [],
  compile: (ctx, args) => {
    const value = isNativeToken(args.token)
      ? addBalanceSnapshot(ctx.planner, {
          minAmountOutCheck: ctx.contracts.minAmountOutCheck,
          token: args.token,
          account: ctx.account,
        })
      : ctx.planner.add({
          target: args.token,
          fn: balanceOfFn,
          args: [ctx.account],
          label: "balance",
        });
    ctx.touched.add(args.token);
    return [{ kind: "amount", value, estimate: undefined, token: args.token }];
  },
};

const splitArgs = z.object({
  amount: amountArg,
  bps: z
    .array(bpsArg, { error: "expected an array of basis points" })
    .min(2)
    .max(16)
    .refine((b) => b.reduce((s, x) => s + x, 0) === 10_000, {
      message: "the shares must sum to 10000",
    }),
});

/** `split`: an amount divided by basis points; output `index` i is part i (the last takes the remainder). */
const split: ActionSpec<typeof splitArgs> = {
  args: splitArgs,
  amountFields: ["amount"],
  compile: (ctx, args) => {
    const amount = ctx.amount(args.amount, "amount");
    const parts = ctx.planner.add({
      target: programValuesContract(hopContext(ctx)),
      fn: splitFn,
      args: [amount.value, args.bps.map(BigInt)],
      label: "split",
    });
    let assigned = 0n;
    return args.bps.map((bps, i): OutputValue => {
      const last = i === args.bps.length - 1;
      const estimate =
        amount.estimate === undefined
          ? undefined
          : last
            ? amount.estimate - assigned
            : (amount.estimate * BigInt(bps)) / 10_000n;
      if (estimate !== undefined) assigned += estimate;
      const value = addArrayElement(ctx.planner, {
        programValues: programValuesContract(hopContext(ctx)),
        array: parts,
        index: BigInt(i),
      });
      return { kind: "amount", value, estimate, token: undefined };
    });
  },
};

const minArgs = z.object({
  token: addressArg,
  amount: z
    .string()
    .regex(/^[0-9]+$/, "expected an amount in wei (a decimal string)")
    .transform(BigInt),
});

/**
 * `minamountout`: reverts unless the executing account's balance of `token` grew by at least
 * `amount` since the start of the transaction (what it held before does not count).
 */
const minamountout: ActionSpec<typeof minArgs> = {
  args: minArgs,
  amountFields: [],
  compile: (ctx, args) => {
    ctx.planner.add({
      target: ctx.contracts.minAmountOutCheck,
      fn: checkMinFn,
      args: [
        args.token,
        ctx.account,
        ctx.balanceAtStart(args.token, ctx.account) ?? 0n,
        args.amount > 0n ? args.amount : 1n,
      ],
      label: "check minimum output",
    });
    return [];
  },
};

/** The `core` actions, by method. */
export const coreActions: Record<string, ActionSpec> = {
  route,
  call,
  transfer,
  approve,
  balance,
  split,
  minamountout,
};
