/** Response and body schemas of `/v1/shortcuts/*`, for the OpenAPI document. */
import { z } from "zod";

const amount = z
  .string()
  .regex(/^[0-9]+$/)
  .meta({ description: "An amount in wei, as a decimal string." });
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const txSchema = z
  .object({
    data: z.string().regex(/^0x[0-9a-f]*$/),
    to: address,
    from: address,
    value: amount,
  })
  .meta({ description: "The unsigned transaction: sign and send it as is." });

export const routeStepSchema = z.object({
  tokenIn: z.array(address),
  positionInId: z.array(z.string()).meta({ description: "`<chainId>:<token>` per input." }),
  tokenOut: z.array(address),
  positionOutId: z
    .array(z.string())
    .meta({ description: "`<chainId>:<token>:<input token>` per output." }),
  protocol: z.string(),
  action: z.enum(["swap", "deposit", "redeem", "wrap", "unwrap"]),
  primaryAddress: address.meta({
    description: "The pool, vault or wrapper the step goes through.",
  }),
  amountIn: amount,
  amountOut: amount.meta({ description: "The step's quoted output." }),
});

export const routeAnswerSchema = z.object({
  route: z.array(routeStepSchema).meta({ description: "Every hop of every leg, legs in turn." }),
  gas: amount.meta({ description: "Gas the simulated transaction used." }),
  amountOut: amount.meta({ description: "What the simulation delivered to the receiver." }),
  minAmountOut: amount.meta({ description: "amountOut less the slippage; enforced on chain." }),
  priceImpact: z
    .number()
    .int()
    .nullable()
    .meta({ description: "Basis points; null without USD prices." }),
  createdAt: z.number().int().meta({ description: "The block the transaction was simulated on." }),
  blockNumber: z.number().int().meta({ description: "Same as createdAt." }),
  tx: txSchema,
  feeAmount: z.array(amount).optional().meta({ description: "Present when `fee` was given." }),
});

export const bundleBodySchema = z
  .array(
    z.object({
      protocol: z.string().meta({ description: "Protocol slug; `core` for the built-in actions." }),
      action: z.string(),
      args: z.record(z.string(), z.unknown()).meta({
        description:
          "Action arguments (see `GET /v1/standards`); an amount may be `{ useOutputOfCallAt: i, index?: n }`.",
      }),
    }),
  )
  .meta({ description: "The actions, run in order (at most 32)." });

export const bundleAnswerSchema = z.object({
  bundle: bundleBodySchema.meta({ description: "The actions as understood, defaults filled." }),
  tx: txSchema,
  gas: amount,
  createdAt: z.number().int(),
  blockNumber: z.number().int(),
  amountsOut: z
    .record(z.string(), amount)
    .meta({ description: "Token → amount the simulation delivered." }),
  route: z.array(routeStepSchema).optional(),
});
