/**
 * `GET /v1/wallet/approve`: the unsigned ERC20 `approve(spender, amount)` transaction a caller
 * sends before a route or bundle of the given routing strategy, with a gas limit the node
 * estimated for it. The spender is the one the strategy's transaction pulls the input with
 * (DESIGN.md §5b).
 */
import { Hono } from "hono";
import {
  type Address,
  BaseError,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  isHex,
  RpcRequestError,
} from "viem";
import { z } from "zod";
import type { ChainSetup } from "../../../engine/index.js";
import {
  describeRevert,
  inputSpender,
  isNativeToken,
  NATIVE_TOKEN_ADDRESS,
} from "../../../engine/index.js";
import { executionContracts } from "../chain/execution-contracts.js";
import { ApiError } from "../errors.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { parseQuery } from "../query.js";
import { addressParam, positiveIntParam } from "../schemas.js";
import { chainClient, resolveChain } from "./route.js";
import { amountOrZeroParam } from "./route-query.js";
import { txSchema } from "./shortcuts-schemas.js";

/** The query of `GET /v1/wallet/approve` (the client SDK's `getApprovalData` sends it). */
export const approveQuerySchema = z.object({
  chainId: positiveIntParam("a chain id")
    .optional()
    .meta({ description: "Network id; default 1 when indexed, else the only indexed chain." }),
  fromAddress: addressParam.meta({ description: "The token holder, who sends the approval." }),
  tokenAddress: addressParam.meta({
    description: "The ERC20 token to approve (the native currency needs no approval).",
  }),
  amount: amountOrZeroParam.meta({
    description: "The allowance to set, in wei; 0 revokes it.",
    examples: ["1000000000"],
  }),
  routingStrategy: z
    .enum(["router", "delegate", "corewallet"], {
      error: "expected one of router, delegate, corewallet",
    })
    .default("router")
    .meta({
      description:
        "The strategy of the transactions the approval is for: `router` approves the chain's router, `corewallet` the caller's own wallet (deployed or not); `delegate` needs no approval (400).",
    }),
});

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const amount = z.string().regex(/^[0-9]+$/);

/** The answer, in the shape of the client SDK's `ApproveData`. */
export const approveAnswerSchema = z.object({
  tx: txSchema.meta({ description: "The unsigned `approve(spender, amount)` call on the token." }),
  gas: amount.meta({
    description:
      "The node's gas estimate for `tx` from `fromAddress`: a gas limit it succeeds with.",
  }),
  token: address.meta({ description: "The token approved, checksummed." }),
  amount: amount.meta({ description: "The allowance `tx` sets, in wei." }),
  spender: address.meta({ description: "Who may spend the token after `tx`, checksummed." }),
});

export type ApproveAnswer = z.infer<typeof approveAnswerSchema>;

/**
 * Why the node's gas estimate failed, when the node answered with an error (the call reverts,
 * or cannot succeed with any gas limit); undefined when the node did not answer at all.
 */
function estimateFailure(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const answered = error.walk((e) => e instanceof RpcRequestError);
  if (!(answered instanceof RpcRequestError)) return undefined;
  const data: unknown = answered.data;
  if (isHex(data)) return describeRevert({ data }).message;
  if (/revert/i.test(answered.details)) return "reverted without a reason";
  return `the node could not estimate it (${answered.details})`;
}

describeEndpoint({
  method: "get",
  path: "/v1/wallet/approve",
  operationId: "getApprovalData",
  tag: "wallet",
  summary: "The ERC20 approval a route or bundle of a routing strategy needs",
  description:
    "Builds the unsigned `approve(spender, amount)` transaction on `tokenAddress` for the spender of the routing strategy (the router, or the caller's CoreWallet) and estimates its gas on the chain's node.",
  query: approveQuerySchema,
  responses: {
    200: {
      description: "The approval transaction and its gas limit.",
      schema: approveAnswerSchema,
    },
    400: errorResponse(
      "A query parameter is malformed, missing, repeated or unknown; the token is the native currency or an address without code; or the strategy is `delegate`, which needs no approval.",
    ),
    422: errorResponse("The token refuses the approval (the node's estimate reverts, decoded)."),
    503: errorResponse(
      "The chain's execution contracts are not deployed, or its RPC node does not answer.",
    ),
  },
});

/** `GET /v1/wallet/approve` on the served chains. */
export function walletRoutes(sources: { chains: readonly ChainSetup[] }) {
  return new Hono().get("/approve", async (c) => {
    const q = parseQuery(c.req.url, approveQuerySchema);
    if (isNativeToken(q.tokenAddress)) {
      throw new ApiError(
        400,
        `Query parameter \`tokenAddress\`: ${NATIVE_TOKEN_ADDRESS} is the native currency, which needs no approval.`,
      );
    }
    if (q.routingStrategy === "delegate") {
      throw new ApiError(
        400,
        "Query parameter `routingStrategy`: with `delegate`, the caller's delegated (EIP-7702) account spends its own balance, so no approval is needed.",
      );
    }
    const chain = resolveChain(sources.chains, q.chainId);
    const client = chainClient(chain);
    const contracts = await executionContracts(chain, client);
    const from = getAddress(q.fromAddress);
    const token = getAddress(q.tokenAddress);
    const spender = inputSpender({ strategy: q.routingStrategy, contracts, from }) as Address;
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: "approve",
      args: [spender, q.amount],
    });

    const unreachable = () =>
      new ApiError(503, `The RPC node of chain ${chain.id} is unreachable; try again shortly.`);
    // A call to an address without code succeeds (and estimates) like a plain transfer, so the
    // code is read beside the estimate: no code, no token.
    const [code, estimate] = await Promise.all([
      client.getCode({ address: token }).catch(() => {
        throw unreachable();
      }),
      client.request({ method: "eth_estimateGas", params: [{ from, to: token, data }] }).then(
        (gas) => ({ ok: true, gas: BigInt(gas) }) as const,
        (error: unknown) => ({ ok: false, error }) as const,
      ),
    ]);
    if (code === undefined || code === "0x") {
      throw new ApiError(
        400,
        `Query parameter \`tokenAddress\`: ${token} has no contract code on chain ${chain.id}, so it is not a token.`,
      );
    }
    if (!estimate.ok) {
      const reason = estimateFailure(estimate.error);
      if (reason === undefined) throw unreachable();
      throw new ApiError(
        422,
        `Approving ${spender} on token ${token} fails on chain ${chain.id}: ${reason}.`,
      );
    }
    const answer: ApproveAnswer = {
      tx: { data, to: token, from, value: "0" },
      gas: estimate.gas.toString(),
      token,
      amount: q.amount.toString(),
      spender,
    };
    return c.json(answer);
  });
}
