/**
 * Freshness: how far the data routes are computed from is behind the chain. That is the
 * routing snapshot's block once the routing code reports it (`setSnapshotBlock`), and Ponder's
 * checkpoint until then. Chain heads are read from the RPC and reused for `headCacheMs`, so a
 * burst of requests costs one `eth_blockNumber`.
 */
import { createMiddleware } from "hono/factory";
import { errorBody } from "../errors.js";
import type { ChainProgress } from "../readiness.js";
import type { OpsEnv } from "./context.js";
import type { ChainLag } from "./metrics.js";

export type FreshnessParameters = {
  /** Largest accepted lag; more answers 503. */
  maxLagBlocks: number;
  /** How long a head (and the checkpoints) read once are reused. */
  headCacheMs: number;
  /** Ponder's checkpoint per chain (`indexedBlocks()` of readiness.ts). */
  indexedBlocks: () => Promise<ChainProgress[]>;
  /** The chain's current head block, from its RPC. */
  headBlock: (chainName: string) => Promise<bigint>;
  /** The routing snapshot's block of a chain, once it has one. */
  snapshotBlock: (chainId: number) => bigint | undefined;
  /** A head that takes longer counts as an unreachable RPC (default 2000 ms). */
  headTimeoutMs?: number;
  now?: () => number;
};

type Cached<T> = { at: number; value: Promise<T> };

export class ChainUnreachableError extends Error {
  override readonly name = "ChainUnreachableError";
  constructor(
    readonly chainId: number,
    override readonly cause: unknown,
  ) {
    super(`The RPC of chain ${chainId} did not answer.`);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One chain's lag and head, never rejecting: a chain whose RPC does not answer has neither, one
 * the indexer has not recorded a block of yet only a head (`/v1/networks`, the front page).
 */
export async function chainState(
  freshness: {
    chainLags: (chainId: number) => Promise<ChainLag[]>;
    headBlock: (chainName: string) => Promise<bigint>;
  },
  chain: { id: number; name: string },
): Promise<{ lag: ChainLag | undefined; head: bigint | undefined }> {
  const lag = await freshness.chainLags(chain.id).then(
    (lags) => lags.find((l) => l.chainId === chain.id),
    () => undefined,
  );
  const head = lag?.headBlock ?? (await freshness.headBlock(chain.name).catch(() => undefined));
  return { lag, head };
}

export function createFreshness(params: FreshnessParameters) {
  const now = params.now ?? Date.now;
  const heads = new Map<string, Cached<bigint>>();
  let checkpoints: Cached<ChainProgress[]> | undefined;

  /** Reuses a promise for `headCacheMs`; a failed one is forgotten at once. */
  function reuse<T>(
    entry: Cached<T> | undefined,
    load: () => Promise<T>,
    store: (e: Cached<T>) => void,
    forget: () => void,
  ): Promise<T> {
    if (entry && now() - entry.at < params.headCacheMs) return entry.value;
    const value = load();
    store({ at: now(), value });
    value.catch(forget);
    return value;
  }

  const indexed = () =>
    reuse(
      checkpoints,
      params.indexedBlocks,
      (e) => {
        checkpoints = e;
      },
      () => {
        checkpoints = undefined;
      },
    );

  const head = (chainName: string) =>
    reuse(
      heads.get(chainName),
      () => withTimeout(params.headBlock(chainName), params.headTimeoutMs ?? 2_000),
      (e) => heads.set(chainName, e),
      () => heads.delete(chainName),
    );

  async function lagOf(chain: ChainProgress): Promise<ChainLag> {
    let headBlock: bigint;
    try {
      headBlock = await head(chain.chainName);
    } catch (error) {
      throw new ChainUnreachableError(chain.chainId, error);
    }
    const snapshotBlock = params.snapshotBlock(chain.chainId);
    const block = snapshotBlock ?? chain.indexedBlock;
    return {
      chainId: chain.chainId,
      indexedBlock: chain.indexedBlock,
      snapshotBlock,
      headBlock,
      lagBlocks: headBlock > block ? headBlock - block : 0n,
    };
  }

  /** The lag of every indexed chain (or of `chainId` alone when it is one of them). */
  async function chainLags(chainId?: number): Promise<ChainLag[]> {
    const chains = await indexed();
    const selected = chains.filter((c) => c.chainId === chainId);
    return Promise.all((selected.length > 0 ? selected : chains).map(lagOf));
  }

  /**
   * For `/v1/shortcuts/*`: 503 when the data of the requested chain (`chainId` query
   * parameter; every indexed chain when absent or unknown) lags the head by more than
   * `maxLagBlocks`, or when the chain's RPC does not answer.
   */
  const guard = createMiddleware<OpsEnv>(async (c, next) => {
    const requested = Number(new URL(c.req.url).searchParams.get("chainId") ?? Number.NaN);
    let lags: ChainLag[];
    try {
      lags = await chainLags(requested);
    } catch (error) {
      if (error instanceof ChainUnreachableError) {
        return c.json(
          errorBody(
            503,
            `The RPC of chain ${error.chainId} did not answer, so the freshness of routing data cannot be checked. Retry shortly.`,
            { chainId: error.chainId },
          ),
          503,
        );
      }
      throw error;
    }
    for (const lag of lags) {
      if (lag.lagBlocks <= BigInt(params.maxLagBlocks)) continue;
      const block = lag.snapshotBlock ?? lag.indexedBlock;
      const what = lag.snapshotBlock === undefined ? "index" : "routing snapshot";
      return c.json(
        errorBody(
          503,
          `The ${what} of chain ${lag.chainId} is at block ${block}, ${lag.lagBlocks} blocks behind the chain head ${lag.headBlock} (at most ${params.maxLagBlocks} are allowed). Retry shortly.`,
          {
            chainId: lag.chainId,
            block: Number(block),
            headBlock: Number(lag.headBlock),
            lagBlocks: Number(lag.lagBlocks),
            maxLagBlocks: params.maxLagBlocks,
          },
        ),
        503,
      );
    }
    return next();
  });

  return { chainLags, guard, headBlock: head };
}
