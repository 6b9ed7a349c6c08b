/** A WETH9-style wrapper as a routing edge: native ↔ wrapped, one for one, no state. */

import { NATIVE_TOKEN_ADDRESS } from "../../core/native.js";
import { outputQuote } from "../../core/quote.js";
import type { WrapperPool } from "../../core/types.js";
import { UnsupportedRouteError } from "../../program/hop-context.js";
import { addTransfer } from "../../program/protocol-steps.js";
import type { PoolKind } from "../pool-kind.js";
import { UNWRAP_GAS, WRAP_GAS } from "./gas.js";
import { addUnwrapNative, addWrapNative } from "./steps.js";

export const wrappedNativePool: PoolKind<WrapperPool> = {
  kind: "wrap",
  edges: (pool) => [
    { pool, tokenIn: NATIVE_TOKEN_ADDRESS, tokenOut: pool.address, action: "wrap" },
    { pool, tokenIn: pool.address, tokenOut: NATIVE_TOKEN_ADDRESS, action: "unwrap" },
  ],
  quote: (_edge, amountIn) => outputQuote(amountIn),
  approx: (_edge, amountIn, result) => {
    result.out = amountIn;
    result.ticksCrossed = 0;
    return result;
  },
  approxQuoter: () => (amountIn, result) => {
    result.out = amountIn;
    result.ticksCrossed = 0;
    return result;
  },
  approxSpot: (_edge, result) => {
    result.rate = 1;
    result.depthIn = Number.POSITIVE_INFINITY;
    return result;
  },
  depth: () => Number.POSITIVE_INFINITY,
  priceAcross: (_edge, price) => price,
  gas: (edge) => (edge.action === "wrap" ? WRAP_GAS : UNWRAP_GAS),
  addHop: (planner, context, hop, amountIn, recipient) => {
    const { edge } = hop;
    const pool = edge.pool;
    if (edge.action === "wrap") {
      addWrapNative(planner, { weth: pool.address, amount: amountIn });
      if (recipient.toLowerCase() !== context.account.toLowerCase()) {
        addTransfer(planner, { token: pool.address, to: recipient, amount: amountIn });
      }
      return amountIn;
    }
    if (recipient.toLowerCase() !== context.account.toLowerCase()) {
      throw new UnsupportedRouteError(
        `routingStrategy=${context.strategy} cannot pay native currency to a receiver other than the executing account; use routingStrategy=router`,
      );
    }
    addUnwrapNative(planner, { weth: pool.address, amount: amountIn });
    return amountIn;
  },
  // The wrapper holds no state a path could use up.
  stateless: true,
  // Unwrapping pays native currency to the executor, which then sweeps it to the receiver.
  paysReceiverUnderRouter: false,
};
