/** The ERC4626 bundle actions: `deposit` assets for shares, `redeem` shares for assets. */
import { z } from "zod";
import { addressArg, amountArg } from "../../bundle/actions/args.js";
import { hopAction, literalInput, namedEdge } from "../../bundle/actions/pool-action.js";
import type { ActionSpec } from "../../bundle/actions/types.js";

const depositArgs = z.object({
  primaryAddress: addressArg,
  tokenIn: addressArg,
  tokenOut: addressArg,
  amountIn: amountArg,
  receiver: addressArg.optional(),
});

const vaultDeposit: ActionSpec<typeof depositArgs> = {
  args: depositArgs,
  amountFields: ["amountIn"],
  input: (args) => literalInput(args.tokenIn, args.amountIn),
  compile: (ctx, args) =>
    hopAction(
      ctx,
      namedEdge(ctx, args.primaryAddress, args.tokenIn, args.tokenOut, ["erc4626"], "deposit"),
      args.amountIn,
      args.receiver ?? ctx.account,
    ),
};

const redeemArgs = z.object({
  primaryAddress: addressArg,
  tokenIn: addressArg,
  tokenOut: addressArg,
  amountIn: amountArg,
});

const vaultRedeem: ActionSpec<typeof redeemArgs> = {
  args: redeemArgs,
  amountFields: ["amountIn"],
  input: (args) => literalInput(args.tokenIn, args.amountIn),
  compile: (ctx, args) =>
    hopAction(
      ctx,
      namedEdge(ctx, args.primaryAddress, args.tokenIn, args.tokenOut, ["erc4626"], "redeem"),
      args.amountIn,
      ctx.account,
    ),
};

/** The actions of every ERC4626 vault protocol, by method. */
export const erc4626Actions: Record<string, ActionSpec> = {
  deposit: vaultDeposit,
  redeem: vaultRedeem,
};
