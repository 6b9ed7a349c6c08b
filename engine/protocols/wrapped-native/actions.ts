/** The wrapped native token's bundle actions: `deposit` (wrap) and `withdraw` (unwrap). */
import type { Address } from "viem";
import { z } from "zod";
import { addressArg, amountArg } from "../../bundle/actions/args.js";
import { hopAction, literalInput, namedEdge } from "../../bundle/actions/pool-action.js";
import type { ActionSpec, CompileContext, OutputValue } from "../../bundle/actions/types.js";
import { InvalidArgumentError, UnsupportedOnChainError } from "../../core/errors.js";
import { displayAddress, NATIVE_TOKEN_ADDRESS } from "../../core/native.js";

const wrapArgs = z.object({ primaryAddress: addressArg.optional(), amountIn: amountArg });

function wethOf(ctx: CompileContext, given: Address | undefined): Address {
  const weth = ctx.chain.weth?.toLowerCase() as Address | undefined;
  if (!weth)
    throw new UnsupportedOnChainError(
      `No wrapped native token is configured on chain ${ctx.chain.id}.`,
    );
  if (given && given !== weth) {
    throw new InvalidArgumentError(
      `the wrapped native token of chain ${ctx.chain.id} is ${displayAddress(weth)}.`,
      { path: "args.primaryAddress" },
    );
  }
  return weth;
}

/** One hop across the wrapper: native → WETH (`wrap`) or WETH → native (`unwrap`). */
function wrapHop(
  ctx: CompileContext,
  args: z.infer<typeof wrapArgs>,
  action: "wrap" | "unwrap",
): OutputValue[] {
  const weth = wethOf(ctx, args.primaryAddress);
  const [from, to] =
    action === "wrap" ? [NATIVE_TOKEN_ADDRESS, weth] : [weth, NATIVE_TOKEN_ADDRESS];
  return hopAction(
    ctx,
    namedEdge(ctx, weth, from, to, ["wrap"], action),
    args.amountIn,
    ctx.account,
  );
}

const wrap: ActionSpec<typeof wrapArgs> = {
  args: wrapArgs,
  amountFields: ["amountIn"],
  input: (args) => literalInput(NATIVE_TOKEN_ADDRESS, args.amountIn),
  compile: (ctx, args) => wrapHop(ctx, args, "wrap"),
};

const unwrap: ActionSpec<typeof wrapArgs> = {
  args: wrapArgs,
  amountFields: ["amountIn"],
  input: (args, { chain }) =>
    chain.weth ? literalInput(chain.weth.toLowerCase() as Address, args.amountIn) : undefined,
  compile: (ctx, args) => wrapHop(ctx, args, "unwrap"),
};

/** The wrapped native token's actions, by method. */
export const wrappedNativeActions: Record<string, ActionSpec> = { deposit: wrap, withdraw: unwrap };
