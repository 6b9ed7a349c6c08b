/**
 * A concentrated-liquidity tick (Uniswap V3's `v3_tick`, V4's `v4_tick`) after a position's
 * liquidity change, as the pool applies it: both boundary ticks gain `liquidityDelta` of gross
 * liquidity, the lower one adds it to `liquidityNet` and the upper one subtracts it.
 */
export type TickLiquidity = { liquidityGross: bigint; liquidityNet: bigint };

/**
 * The tick's liquidity after a change of `liquidityDelta` that moves its net by `netDelta`, or
 * undefined when there is nothing to write (a tick without a row that the change leaves empty).
 * A tick no position references any more is cleared, as the pool clears it: its row stays, at
 * zero (readers skip it), because Ponder's delete is a database round trip each time where an
 * update is buffered (bench/results/indexing.md).
 */
export function tickAfterChange(
  row: TickLiquidity | undefined,
  liquidityDelta: bigint,
  netDelta: bigint,
): TickLiquidity | undefined {
  const liquidityGross = (row?.liquidityGross ?? 0n) + liquidityDelta;
  if (liquidityGross === 0n && !row) return undefined;
  const liquidityNet = liquidityGross === 0n ? 0n : (row?.liquidityNet ?? 0n) + netDelta;
  return { liquidityGross, liquidityNet };
}
