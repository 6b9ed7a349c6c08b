/**
 * Dividing an amount between paths. Every path's output is a concave function of its input
 * (each pool's is, and so is a chain of them), so the best division is where no transfer of
 * input from one path to another raises the total: the search moves a step of input from the
 * path that loses least by giving it to the one that gains most, while that gains, then halves
 * the step, down to a last step (2^-18 of the amount in the route search). Near the optimum the
 * total is flat in the allocation (second order), so stopping there costs a few parts per
 * billion of the total — far inside the 0.01% the split search must reach. The same search runs
 * on the float shadows of the paths (`splitApprox`, what the route search divides with) and on
 * exact quotes (`splitExact`).
 */

/** The exact output of a path for an input; undefined when the path cannot take it. */
export type ExactLegOutput = (amountIn: bigint) => bigint | undefined;

export type SplitExactParameters = {
  amountIn: bigint;
  legs: readonly ExactLegOutput[];
  /** A feasible starting division (summing to amountIn). */
  start: readonly bigint[];
  /** The first step, as a fraction 2^-k of amountIn (default k = 10). */
  firstStepShift?: number;
  /** The last step, as a fraction 2^-k of amountIn (default k = 20). */
  lastStepShift?: number;
};

export type SplitResult<T> = { amounts: T[]; outputs: T[]; total: T };

/** The best division of `amountIn` between `legs` near `start`, by exact quotes. */
export function splitExact(params: SplitExactParameters): SplitResult<bigint> | undefined {
  const { amountIn, legs } = params;
  const n = legs.length;
  const memo = legs.map(() => new Map<bigint, bigint | undefined>());
  const output = (i: number, x: bigint): bigint | undefined => {
    if (x === 0n) return 0n;
    const cache = memo[i] as Map<bigint, bigint | undefined>;
    if (cache.has(x)) return cache.get(x);
    const y = (legs[i] as ExactLegOutput)(x);
    cache.set(x, y);
    return y;
  };
  const amounts = [...params.start];
  const outputs: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const y = output(i, amounts[i] as bigint);
    if (y === undefined) return undefined;
    outputs.push(y);
  }
  const lastStep = amountIn >> BigInt(params.lastStepShift ?? 20);
  let step = amountIn >> BigInt(params.firstStepShift ?? 10);
  if (step < 1n) step = 1n;
  while (n > 1) {
    // Gain of giving each leg one more step, loss of taking one from it.
    let gainLeg = -1;
    let gain = 0n;
    let lossLeg = -1;
    let loss = 0n;
    let secondGainLeg = -1;
    let secondGain = 0n;
    let secondLossLeg = -1;
    let secondLoss = 0n;
    for (let i = 0; i < n; i++) {
      const x = amounts[i] as bigint;
      const y = outputs[i] as bigint;
      const up = output(i, x + step);
      if (up !== undefined) {
        const g = up - y;
        if (gainLeg < 0 || g > gain) {
          secondGainLeg = gainLeg;
          secondGain = gain;
          gainLeg = i;
          gain = g;
        } else if (secondGainLeg < 0 || g > secondGain) {
          secondGainLeg = i;
          secondGain = g;
        }
      }
      if (x >= step) {
        const down = output(i, x - step);
        const l = down === undefined ? y : y - down;
        if (lossLeg < 0 || l < loss) {
          secondLossLeg = lossLeg;
          secondLoss = loss;
          lossLeg = i;
          loss = l;
        } else if (secondLossLeg < 0 || l < secondLoss) {
          secondLossLeg = i;
          secondLoss = l;
        }
      }
    }
    let to = gainLeg;
    let from = lossLeg;
    if (to >= 0 && to === from) {
      // The same leg cannot give to itself: the better of the two runner-up pairings.
      const viaSecondLoss = secondLossLeg >= 0 ? gain - secondLoss : undefined;
      const viaSecondGain = secondGainLeg >= 0 ? secondGain - loss : undefined;
      if (
        viaSecondLoss !== undefined &&
        (viaSecondGain === undefined || viaSecondLoss >= viaSecondGain)
      ) {
        from = secondLossLeg;
      } else if (viaSecondGain !== undefined) {
        to = secondGainLeg;
      } else {
        to = -1;
      }
    }
    if (to >= 0 && from >= 0 && to !== from) {
      const gained =
        (output(to, (amounts[to] as bigint) + step) as bigint) - (outputs[to] as bigint);
      const lostOutput = output(from, (amounts[from] as bigint) - step) ?? 0n;
      const lost = (outputs[from] as bigint) - lostOutput;
      if (gained > lost) {
        amounts[to] = (amounts[to] as bigint) + step;
        outputs[to] = (outputs[to] as bigint) + gained;
        amounts[from] = (amounts[from] as bigint) - step;
        outputs[from] = lostOutput;
        continue;
      }
    }
    if (step <= lastStep || step === 1n) break;
    step >>= 1n;
  }
  let total = 0n;
  for (const y of outputs) total += y;
  return { amounts, outputs, total };
}

/** The float output of a path for an input; NaN when the path cannot take it. */
export type ApproxLegOutput = (amountIn: number) => number;

/**
 * The same search over the float shadows of the legs: cheap enough to try many partners, and a
 * starting point for {@link splitExact} so close that the exact search only confirms it.
 */
export function splitApprox(params: {
  amountIn: number;
  legs: readonly ApproxLegOutput[];
  /** Starting division (default: everything in the first leg). */
  start?: readonly number[];
  /** The first step, as a fraction 2^-k of amountIn (default k = 1). */
  firstStepShift?: number;
  /** The last step, as a fraction 2^-k of amountIn (default k = 14). */
  lastStepShift?: number;
}): SplitResult<number> {
  const { amountIn, legs } = params;
  const n = legs.length;
  const out = (i: number, x: number): number => {
    if (x <= 0) return 0;
    const y = (legs[i] as ApproxLegOutput)(x);
    return Number.isNaN(y) ? Number.NEGATIVE_INFINITY : y;
  };
  const amounts = params.start ? [...params.start] : legs.map((_, i) => (i === 0 ? amountIn : 0));
  const outputs = amounts.map((x, i) => out(i, x));
  const ups = new Array<number>(n).fill(0);
  const downs = new Array<number>(n).fill(0);
  // Each leg's output one step up and one step down; after a move only the two legs that
  // moved are quoted again.
  const probe = (i: number) => {
    const x = amounts[i] as number;
    ups[i] = out(i, x + step);
    downs[i] = x >= step ? out(i, x - step) : Number.NaN;
  };
  let step = amountIn / 2 ** (params.firstStepShift ?? 1);
  const lastStep = amountIn / 2 ** (params.lastStepShift ?? 14);
  for (let i = 0; i < n; i++) probe(i);
  while (n > 1 && step >= lastStep) {
    let to = -1;
    let from = -1;
    let best = 0;
    for (let j = 0; j < n; j++) {
      const gain = (ups[j] as number) - (outputs[j] as number);
      if (!(gain > 0)) continue;
      for (let i = 0; i < n; i++) {
        if (i === j || Number.isNaN(downs[i] as number)) continue;
        const before = outputs[i] as number;
        const after = downs[i] as number;
        // A leg that cannot take its input loses nothing by giving some up, even if it still
        // cannot take the rest: that is progress towards a division every leg can take.
        const loss =
          before === Number.NEGATIVE_INFINITY ? (after === before ? 0 : -Infinity) : before - after;
        const net = gain - loss;
        if (net > best) {
          best = net;
          to = j;
          from = i;
        }
      }
    }
    if (to >= 0) {
      amounts[to] = (amounts[to] as number) + step;
      outputs[to] = ups[to] as number;
      amounts[from] = (amounts[from] as number) - step;
      outputs[from] = downs[from] as number;
      probe(to);
      probe(from);
    } else {
      step /= 2;
      for (let i = 0; i < n; i++) probe(i);
    }
  }
  let total = 0;
  for (const y of outputs) total += y;
  return { amounts, outputs, total };
}
