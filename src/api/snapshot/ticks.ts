/** Tick rows of concentrated-liquidity pools (Uniswap V3 and V4), as the routing graph takes them. */
import type { V3Tick } from "../../../engine/index.js";

/** One indexed tick row. */
export type TickRow = { tick: number; liquidityNet: bigint; liquidityGross: bigint };

/** Ticks ascending, without those every position has left (liquidityGross back to 0). */
export function initializedTicks(rows: readonly TickRow[]): V3Tick[] {
  const out: V3Tick[] = [];
  for (const r of rows)
    if (r.liquidityGross !== 0n) out.push({ tick: r.tick, liquidityNet: r.liquidityNet });
  return out.sort((a, b) => a.tick - b.tick);
}
