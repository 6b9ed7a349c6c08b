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
    description:
      "The pool, vault or wrapper the step goes through; for a `uniswap-v4` step, which has no address of its own, the pool manager holding the pool (`poolId` names the pool in it).",
  }),
  poolId: z
    .string()
    .regex(/^0x[0-9a-f]{64}$/)
    .optional()
    .meta({
      description:
        "Only on a `uniswap-v4` step: the pool's PoolId (keccak256 of its pool key: currencies, fee, tick spacing, hooks), lowercase, in the pool manager `primaryAddress`.",
    }),
  amountIn: amount,
  amountOut: amount.meta({ description: "The step's quoted output." }),
  leftovers: z
    .array(z.object({ token: address, amount }))
    .optional()
    .meta({
      description:
        "Only on a `uniswap-v2` `deposit` step (a single-sided add: part of the input is sold on the pair, then both tokens are added in its ratio): what the ratio's rounding leaves unused of each of the pair's tokens at the quoted state, to the wei. A route returns it to `fromAddress` (`router`: swept there at the end; `delegate`: it stays there; `corewallet`: it stays in the caller's wallet); in a bundle it goes to the receiver with the bundle's other outputs.",
    }),
});

/** What the client must do before sending the transaction. */
export const beforeSendingSchema = z
  .array(
    z.union([
      z
        .object({
          type: z.literal("approve"),
          token: address,
          spender: address.meta({
            description:
              "The router (`router`), or the caller's own CoreWallet, deployed or not (`corewallet`).",
          }),
          amount,
        })
        .meta({
          description:
            "Approve `spender` to take `amount` of `token` from the caller (skip it when the allowance already covers it; `GET /v1/wallet/approve` builds the transaction).",
        }),
      z
        .object({
          type: z.literal("delegate"),
          account: address,
          delegateTo: address.meta({ description: "The delegate executor." }),
        })
        .meta({
          description:
            "The caller's account must delegate to `delegateTo` by EIP-7702 (an authorization in this transaction, or an earlier one); `gas` includes the first authorization's cost.",
        }),
    ]),
  )
  .meta({ description: "What must happen before sending `tx`, in order; empty when nothing." });

const gasLimit = amount.meta({
  description:
    "A gas limit the transaction succeeds with, from the simulation's gas used: × 5/4 (refunds), × 1.09 (EIP-150's 63/64 over nested calls), + 25,000 (storage first written in a later block), + 25,000 for the first EIP-7702 authorization with `delegate`. Send it as the limit.",
});
const gasUsed = amount.meta({ description: "Gas the simulated transaction used." });
const deadline = z.number().int().meta({
  description:
    "Unix time (seconds) after which the transaction reverts with DeadlineExpired: the `deadline` given, or the simulated block's timestamp + 1200.",
});

export const routeAnswerSchema = z.object({
  route: z.array(routeStepSchema).meta({
    description:
      "Every hop of every leg, legs in turn; for a route split and merged at intermediate tokens (a flow), its hops in the order they run, each step's amountIn the part of its input token the hop takes.",
  }),
  gas: gasLimit,
  gasUsed,
  amountOut: amount.meta({ description: "What the simulation delivered to the receiver." }),
  minAmountOut: amount.meta({ description: "amountOut less the slippage; enforced on chain." }),
  priceImpact: z
    .number()
    .int()
    .nullable()
    .meta({ description: "Basis points; null without USD prices." }),
  createdAt: z.number().int().meta({ description: "The block the transaction was simulated on." }),
  blockNumber: z.number().int().meta({ description: "Same as createdAt." }),
  deadline,
  tx: txSchema,
  beforeSending: beforeSendingSchema,
  feeAmount: z.array(amount).optional().meta({ description: "Present when `fee` was given." }),
  l1Fee: amount.optional().meta({
    description:
      "Beyond SPEC. On a chain that charges for L1 data (an OP-stack chain: `L1_FEE_<id>=op-stack`), the L1 data fee of `tx.data` in wei, besides `gas` × the gas price: its `GasPriceOracle.getL1Fee(tx.data)` in the simulated block. The route was chosen net of both. Absent on other chains.",
  }),
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
  gas: gasLimit,
  gasUsed,
  createdAt: z.number().int(),
  blockNumber: z.number().int(),
  deadline,
  amountsOut: z.record(z.string(), amount).meta({
    description:
      "Token → amount the simulation delivered to the receiver and to transfer targets; each is checked on chain at its account, `slippage` below it.",
  }),
  beforeSending: beforeSendingSchema,
  route: z.array(routeStepSchema).optional(),
  l1Fee: amount.optional().meta({
    description:
      "Beyond SPEC. On a chain that charges for L1 data (an OP-stack chain: `L1_FEE_<id>=op-stack`), the L1 data fee of `tx.data` in wei, besides `gas` × the gas price: its `GasPriceOracle.getL1Fee(tx.data)` in the simulated block. Absent on other chains.",
  }),
});
