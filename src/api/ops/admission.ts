/**
 * Admission of the routing endpoints (`/v1/shortcuts/*`): at most `concurrency` requests run
 * at once, the next ones wait in arrival order, and a request that would wait beyond
 * `maxWaiting` others or longer than `maxWaitMs` is refused with a 503 and `Retry-After`.
 *
 * While the index falls behind the chain (`yieldTo(true)`), only `concurrencyWhileBehind` run:
 * the indexer and the API share one event loop, and with many requests in flight each of the
 * indexer's steps (a block's logs, its handlers, its database writes) waits behind every
 * callback of every request, so under load the index would fall further and further behind and
 * routes would be refused for lag. A waiting request costs no CPU; the indexer catches up, and
 * the gate opens again (bench/results/load.md).
 */
import type { MiddlewareHandler } from "hono";
import { errorBody } from "../errors.js";
import { type ChainLag, metrics } from "./metrics.js";

export type AdmissionParameters = {
  /** Requests that run at once (at least 1). */
  concurrency: number;
  /** Requests that run at once while the index falls behind (at least 1). */
  concurrencyWhileBehind: number;
  /** Requests that may wait for a slot; one more is refused at once. */
  maxWaiting: number;
  /** Longest a request waits for a slot before it is refused. */
  maxWaitMs: number;
  /** What the requests are, for the 503's message (e.g. "routes and bundles"). */
  what: string;
};

export type Admission = {
  /** Runs a request through the next handlers once it has a slot, or answers 503. */
  gate: MiddlewareHandler;
  /** Whether the index is behind the chain: the gate then admits `concurrencyWhileBehind`. */
  yieldTo: (behind: boolean) => void;
  /** Requests running or waiting now. */
  active: () => number;
};

type Waiter = { admit: () => void; timer: NodeJS.Timeout };

export function admission(params: AdmissionParameters): Admission {
  const { concurrency, concurrencyWhileBehind, maxWaiting, maxWaitMs, what } = params;
  for (const [name, value] of Object.entries({ concurrency, concurrencyWhileBehind })) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`${name} must be at least 1, got ${value}`);
  }
  let limit = concurrency;
  let running = 0;
  const waiting: Waiter[] = [];

  /** Hands free slots to the longest waiting requests. */
  const admitWaiting = () => {
    while (running < limit && waiting.length > 0) {
      const next = waiting.shift() as Waiter;
      clearTimeout(next.timer);
      running += 1;
      next.admit();
    }
    metrics.admissionWaiting.set(waiting.length);
  };

  /**
   * Resolves true once admitted (the slot is then the caller's), false when the wait is full or
   * was too long.
   */
  const admit = (): Promise<boolean> => {
    if (running < limit && waiting.length === 0) {
      running += 1;
      return Promise.resolve(true);
    }
    if (waiting.length >= maxWaiting) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        admit: () => resolve(true),
        timer: setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          metrics.admissionWaiting.set(waiting.length);
          resolve(false);
        }, maxWaitMs),
      };
      waiting.push(waiter);
      metrics.admissionWaiting.set(waiting.length);
    });
  };

  const gate: MiddlewareHandler = async (c, next) => {
    if (!(await admit())) {
      metrics.admissionRefused.inc();
      const behind = limit < concurrency ? " while the index catches up with the chain" : "";
      c.header("Retry-After", "1");
      return c.json(
        errorBody(
          503,
          `The service is at capacity for ${what}: ${limit} run at once${behind} and ${waiting.length} wait (at most ${maxWaiting}, each at most ${maxWaitMs} ms). Retry shortly.`,
          { concurrency: limit, waiting: waiting.length, maxWaiting, maxWaitMs },
        ),
        503,
      );
    }
    try {
      await next();
    } finally {
      running -= 1;
      admitWaiting();
    }
  };

  const yieldTo = (behind: boolean) => {
    limit = behind ? Math.min(concurrencyWhileBehind, concurrency) : concurrency;
    metrics.admissionYielding.set(behind ? 1 : 0);
    admitWaiting();
  };
  return { gate, yieldTo, active: () => running + waiting.length };
}

/**
 * Every `everyMs`, tells the gate whether the routing data of any served chain is `lagBlocks`
 * or more blocks behind its head; a chain whose head cannot be read counts as not behind (the
 * freshness check answers for it). While no request runs or waits there is nothing to hold
 * back: the gate is told it is not behind, and no head is read. Returns the function that stops
 * watching.
 */
export function yieldWhileBehind(params: {
  admission: Admission;
  chainLags: () => Promise<ChainLag[]>;
  lagBlocks: number;
  everyMs: number;
}): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    const behind =
      params.admission.active() > 0 &&
      (await params.chainLags().then(
        (lags) => lags.some((lag) => lag.lagBlocks >= BigInt(params.lagBlocks)),
        () => false,
      ));
    if (stopped) return;
    params.admission.yieldTo(behind);
    if (stopped) return;
    timer = setTimeout(check, params.everyMs);
    timer.unref();
  };
  void check();
  return () => {
    stopped = true;
    clearTimeout(timer);
    params.admission.yieldTo(false);
  };
}
