/** Tick-bitmap arithmetic shared by the V3 and V4 state reads (pure). */

/** `TickMath.MAX_TICK`. */
const MAX_TICK = 887_272;

/** Every bitmap word that can hold a tick of a pool of `tickSpacing`, lowest first. */
export function bitmapWords(tickSpacing: number): number[] {
  const lowest = Math.floor(-MAX_TICK / tickSpacing) >> 8;
  const highest = Math.floor(MAX_TICK / tickSpacing) >> 8;
  const words: number[] = [];
  for (let w = lowest; w <= highest; w++) words.push(w);
  return words;
}

/** The initialized ticks a bitmap word marks, lowest first. */
export function ticksOfWord(word: number, bits: bigint, tickSpacing: number): number[] {
  const ticks: number[] = [];
  for (let bit = 0; bits !== 0n; bit++, bits >>= 1n) {
    if (bits & 1n) ticks.push((word * 256 + bit) * tickSpacing);
  }
  return ticks;
}
