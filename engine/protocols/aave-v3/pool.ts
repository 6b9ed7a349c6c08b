/**
 * An Aave V3 reserve as a routing edge: `deposit` supplies the asset and mints aTokens,
 * `redeem` burns aTokens and withdraws the asset. The aToken amount is exact (the liquidity
 * index accrued to the indexed head's timestamp, Aave's ray rounding) for an account holding
 * none of it yet; the withdrawal pays what it burns, one for one.
 */

import { EXCEEDS_LIQUIDITY, outputQuote, ZERO_OUTPUT } from "../../core/quote.js";
import type { AaveReservePool } from "../../core/types.js";
import type { PoolKind } from "../pool-kind.js";
import { AAVE_SUPPLY_GAS, AAVE_WITHDRAW_GAS } from "./gas.js";
import { aaveNormalizedIncome, aaveSupplyOut, rayMul } from "./math.js";
import { addAaveSupply, addAaveWithdraw } from "./steps.js";

/** Whether the reserve takes a supply of `amount` now (active, not frozen or paused, under its cap). */
function acceptsSupply(pool: AaveReservePool, amount: bigint): boolean {
  if (!pool.active || pool.frozen || pool.paused) return false;
  if (pool.supplyCap === 0n) return true;
  const index = aaveNormalizedIncome(pool, pool.accrueTo);
  // ValidationLogic.validateSupply: (scaled supply + treasury).rayMul(index) + amount <= cap.
  return rayMul(pool.scaledSupplied, index) + amount <= pool.supplyCap;
}

export const aaveV3Pool: PoolKind<AaveReservePool> = {
  kind: "aave-v3",
  edges: (pool) => [
    { pool, tokenIn: pool.asset, tokenOut: pool.address, action: "deposit" },
    { pool, tokenIn: pool.address, tokenOut: pool.asset, action: "redeem" },
  ],
  quote: (edge, amountIn) => {
    const pool = edge.pool;
    if (edge.action === "deposit") {
      if (!acceptsSupply(pool, amountIn)) return EXCEEDS_LIQUIDITY;
      const out = aaveSupplyOut(pool, amountIn, pool.accrueTo);
      return out === undefined ? ZERO_OUTPUT : outputQuote(out);
    }
    // What the aToken holds of the asset is all a withdrawal can pay.
    if (!pool.active || pool.paused || amountIn > pool.availableLiquidity) return EXCEEDS_LIQUIDITY;
    return outputQuote(amountIn);
  },
  approx: (edge, amountIn, result) => {
    const pool = edge.pool;
    result.out =
      edge.action === "redeem" && amountIn > Number(pool.availableLiquidity)
        ? Number.NaN
        : amountIn;
    result.ticksCrossed = 0;
    return result;
  },
  approxQuoter: (edge) => (amountIn, result) => aaveV3Pool.approx(edge, amountIn, result),
  approxSpot: (edge, result) => {
    result.rate = 1;
    result.depthIn = Number(edge.pool.availableLiquidity);
    return result;
  },
  depth: (edge) => Number(edge.pool.availableLiquidity),
  // An aToken is worth its asset, one for one.
  priceAcross: (_edge, price) => price,
  gas: (edge) => (edge.action === "deposit" ? AAVE_SUPPLY_GAS : AAVE_WITHDRAW_GAS),
  addHop: (planner, context, hop, amountIn, recipient) => {
    const { edge } = hop;
    const pool = edge.pool;
    if (edge.action === "deposit") {
      return addAaveSupply(planner, {
        pool: pool.pool,
        asset: pool.asset,
        aToken: pool.address,
        amount: amountIn,
        onBehalfOf: recipient,
        minAmountOutCheck: context.execution.minAmountOutCheck,
      });
    }
    // The router's executor holds nothing but this hop's aTokens, which a transfer may have
    // rounded to one wei less than amountIn: it withdraws them all. An account elsewhere may
    // hold more, and withdraws exactly its input.
    return addAaveWithdraw(planner, {
      pool: pool.pool,
      asset: pool.asset,
      amount: context.strategy === "router" ? "all" : amountIn,
      to: recipient,
    });
  },
  stateless: false,
  paysReceiverUnderRouter: true,
};
