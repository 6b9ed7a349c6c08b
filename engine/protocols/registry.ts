import type { Pool } from "../routing/types.js";
import { aaveV3 } from "./aave-v3/protocol.js";
import { core } from "./core/protocol.js";
import type { PoolKind } from "./pool-kind.js";
import { savingsVaults } from "./savings-vaults/protocol.js";
import type { Protocol } from "./types.js";
import { uniswapV2 } from "./uniswap-v2/protocol.js";
import { uniswapV3 } from "./uniswap-v3/protocol.js";
import { uniswapV4 } from "./uniswap-v4/protocol.js";
import { wrappedNative } from "./wrapped-native/protocol.js";
import { yieldVaults } from "./yield-vaults/protocol.js";

/**
 * Every protocol the service knows. Adding a protocol is adding its folder and a line here
 * (docs/adding-a-protocol.md).
 */
export const protocols: readonly Protocol[] = [
  core,
  uniswapV2,
  uniswapV3,
  uniswapV4,
  savingsVaults,
  yieldVaults,
  aaveV3,
  wrappedNative,
];

export function findProtocol(slug: string): Protocol | undefined {
  return protocols.find((p) => p.slug === slug);
}

/** Each pool kind's implementation, from the protocols that route through it. */
const poolKinds: Partial<Record<Pool["kind"], PoolKind<Pool>>> = {};
for (const p of protocols) {
  if (!p.poolKind) continue;
  const known = poolKinds[p.poolKind.kind];
  if (known && known !== (p.poolKind as unknown))
    throw new Error(`two protocols implement the pool kind ${p.poolKind.kind} differently`);
  // Each kind's implementation only ever receives pools of its own kind (dispatch by `kind`).
  poolKinds[p.poolKind.kind] = p.poolKind as unknown as PoolKind<Pool>;
}

/** The implementation of `pool`'s kind. */
export function poolKindOf(pool: Pool): PoolKind<Pool> {
  const kind = poolKinds[pool.kind];
  if (!kind) throw new Error(`no protocol implements the pool kind ${pool.kind}`);
  return kind;
}
