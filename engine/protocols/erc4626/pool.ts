/**
 * An ERC4626 vault as a routing edge: deposit asset → shares, redeem shares → asset, with
 * OpenZeppelin's virtual shares and assets (`_decimalsOffset`), exact and as floats.
 */

import { EXCEEDS_LIQUIDITY, outputQuote } from "../../core/quote.js";
import type { VaultPool } from "../../core/types.js";
import type { PoolKind } from "../pool-kind.js";
import { DEPOSIT_GAS, REDEEM_GAS } from "./gas.js";
import { previewDeposit, previewRedeem } from "./math.js";
import { addErc4626Deposit, addErc4626Redeem } from "./steps.js";

type VaultModel = { sharesPerAsset: number; assetsPerShare: number; totalSupply: number };
const models = new WeakMap<VaultPool, VaultModel>();

function model(pool: VaultPool): VaultModel {
  let m = models.get(pool);
  if (!m) {
    const virtualShares = Number(pool.totalSupply) + 10 ** pool.decimalsOffset;
    const virtualAssets = Number(pool.totalAssets) + 1;
    m = {
      sharesPerAsset: virtualShares / virtualAssets,
      assetsPerShare: virtualAssets / virtualShares,
      totalSupply: Number(pool.totalSupply),
    };
    models.set(pool, m);
  }
  return m;
}

export const erc4626Pool: PoolKind<VaultPool> = {
  kind: "erc4626",
  // Deposit turns the asset into shares (the vault is the share token); redeem turns back.
  edges: (pool) => [
    { pool, tokenIn: pool.asset, tokenOut: pool.address, action: "deposit" },
    { pool, tokenIn: pool.address, tokenOut: pool.asset, action: "redeem" },
  ],
  quote: (edge, amountIn) => {
    const pool = edge.pool;
    if (edge.action === "deposit") return outputQuote(previewDeposit(pool, amountIn));
    // Nobody holds more shares than exist; what exists is all the vault pays out.
    if (amountIn > pool.totalSupply) return EXCEEDS_LIQUIDITY;
    return outputQuote(previewRedeem(pool, amountIn));
  },
  approx: (edge, amountIn, result) => {
    const m = model(edge.pool);
    if (edge.action === "deposit") result.out = amountIn * m.sharesPerAsset;
    else result.out = amountIn > m.totalSupply ? Number.NaN : amountIn * m.assetsPerShare;
    result.ticksCrossed = 0;
    return result;
  },
  approxQuoter: (edge) => (amountIn, result) => erc4626Pool.approx(edge, amountIn, result),
  approxSpot: (edge, result) => {
    const m = model(edge.pool);
    if (edge.action === "deposit") {
      result.rate = m.sharesPerAsset;
      result.depthIn = Number(edge.pool.totalAssets);
    } else {
      result.rate = m.assetsPerShare;
      result.depthIn = m.totalSupply;
    }
    return result;
  },
  depth: (edge, side) => {
    const token = side === "in" ? edge.tokenIn : edge.tokenOut;
    return Number(token === edge.pool.asset ? edge.pool.totalAssets : edge.pool.totalSupply);
  },
  priceAcross: (edge, price) => {
    const pool = edge.pool;
    const virtualShares = pool.totalSupply + 10n ** BigInt(pool.decimalsOffset);
    const virtualAssets = pool.totalAssets + 1n;
    return edge.action === "deposit"
      ? (price * virtualAssets) / virtualShares
      : (price * virtualShares) / virtualAssets;
  },
  gas: (edge) => (edge.action === "deposit" ? DEPOSIT_GAS : REDEEM_GAS),
  addHop: (planner, context, hop, amountIn, recipient) => {
    const { edge } = hop;
    return edge.action === "deposit"
      ? addErc4626Deposit(planner, {
          vault: edge.pool.address,
          asset: edge.pool.asset,
          assets: amountIn,
          receiver: recipient,
        })
      : addErc4626Redeem(planner, {
          vault: edge.pool.address,
          shares: amountIn,
          receiver: recipient,
          owner: context.account,
        });
  },
  stateless: false,
  paysReceiverUnderRouter: true,
};
