/**
 * Uniswap V4's bundle action: `swap` on a named pool. A V4 pool has no address of its own, so
 * the action names the pool manager (`primaryAddress`) and the pool's 32-byte id (`poolId`).
 */
import { z } from "zod";
import { addressArg, amountArg } from "../../bundle/actions/args.js";
import { hopAction, literalInput } from "../../bundle/actions/pool-action.js";
import type { ActionSpec } from "../../bundle/actions/types.js";
import { UnknownPoolError } from "../../core/errors.js";
import { displayAddress } from "../../core/native.js";
import type { Address } from "../../core/types.js";

/** A PoolId: 0x and 64 hex digits, lowercase inside. */
const poolIdArg = z
  .string({ error: "expected a pool id string" })
  .refine((v) => /^0x[0-9a-fA-F]{64}$/.test(v), {
    message: "expected a pool id (0x followed by 64 hex digits)",
  })
  .transform((v) => v.toLowerCase() as Address);

const swapArgs = z.object({
  primaryAddress: addressArg,
  poolId: poolIdArg,
  tokenIn: addressArg,
  tokenOut: addressArg,
  amountIn: amountArg,
});

const swap: ActionSpec<typeof swapArgs> = {
  args: swapArgs,
  amountFields: ["amountIn"],
  input: (a) => literalInput(a.tokenIn, a.amountIn),
  compile: (ctx, a) => {
    const pool = ctx.graph.pool(a.poolId);
    if (pool?.kind !== "v4" || pool.poolManager !== a.primaryAddress) {
      throw new UnknownPoolError(
        `${a.poolId} is not a routable pool of the Uniswap V4 pool manager ${displayAddress(a.primaryAddress)} on chain ${ctx.chain.id}: no such pool is indexed, or its hook runs during swaps (where it could trade against them or change their amounts) and is not in UNISWAP_V4_HOOKS_${ctx.chain.id}.`,
        { path: "args.poolId", pool: a.primaryAddress },
      );
    }
    const edge = ctx.graph
      .edgesFromVia(a.tokenIn, pool.address)
      .find((e) => e.tokenOut === a.tokenOut && e.action === "swap");
    if (!edge) {
      throw new UnknownPoolError(
        `Uniswap V4 pool ${a.poolId} does not swap ${displayAddress(a.tokenIn)} for ${displayAddress(a.tokenOut)}.`,
        { path: "args.tokenIn/tokenOut", pool: a.primaryAddress },
      );
    }
    return hopAction(ctx, edge, a.amountIn, ctx.account);
  },
};

/** Uniswap V4's actions, by method. */
export const uniswapV4Actions: Record<string, ActionSpec> = { swap };
