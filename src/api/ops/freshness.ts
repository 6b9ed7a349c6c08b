/**
 * Freshness: how far the data routes are computed from is behind the chain, in time (the head's
 * timestamp minus the data's block's) and in blocks. The data is the routing snapshot's block
 * once the routing code reports it (`setSnapshotBlock`, with the timestamp Ponder's checkpoint
 * carries), and Ponder's checkpoint until then. Chain heads are read from the RPC and reused for
 * `headCacheMs`, so a burst of requests costs one `eth_getBlockByNumber("latest")`, which gives
 * the head's number and timestamp at once.
 *
 * The limit is time because block times differ a hundredfold between chains: five blocks are a
 * minute on Ethereum and 1.25 s on Arbitrum.
 */
import { createMiddleware } from "hono/factory";
import { errorBody } from "../errors.js";
import type { ChainProgress } from "../readiness.js";
import type { OpsEnv } from "./context.js";
import type { ChainLag, SnapshotAt } from "./metrics.js";

/** A chain's head block: its number and timestamp (seconds). */
export type ChainHead = { number: bigint; timestamp: bigint };

/** How far behind the head a chain's routing data may be before `/v1/shortcuts/*` answer 503. */
export type LagLimits = {
  /** Seconds of chain time (`MAX_LAG_SECONDS`, `MAX_LAG_SECONDS_<id>`). */
  maxLagSeconds: number;
  /** Blocks (`MAX_LAG_BLOCKS`), a further limit when set. */
  maxLagBlocks: number | undefined;
};

export type FreshnessParameters = {
  /** The limits of a chain; a larger lag answers 503. */
  limits: (chainId: number) => LagLimits;
  /** How long a head (and the checkpoints) read once are reused. */
  headCacheMs: number;
  /** Ponder's checkpoint per chain (`indexedBlocks()` of readiness.ts). */
  indexedBlocks: () => Promise<ChainProgress[]>;
  /** The chain's current head block and its timestamp, from its RPC. */
  head: (chainName: string) => Promise<ChainHead>;
  /** The routing snapshot's block of a chain and its timestamp, once it has one. */
  snapshot: (chainId: number) => SnapshotAt | undefined;
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
  const heads = new Map<string, Cached<ChainHead>>();
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
      () => withTimeout(params.head(chainName), params.headTimeoutMs ?? 2_000),
      (e) => heads.set(chainName, e),
      () => heads.delete(chainName),
    );

  async function lagOf(chain: ChainProgress): Promise<ChainLag> {
    let latest: ChainHead;
    try {
      latest = await head(chain.chainName);
    } catch (error) {
      throw new ChainUnreachableError(chain.chainId, error);
    }
    const snapshot = params.snapshot(chain.chainId);
    const block = snapshot?.block ?? chain.indexedBlock;
    const timestamp = snapshot?.timestamp ?? chain.indexedTimestamp;
    return {
      chainId: chain.chainId,
      // The snapshot was read from the index at its block, so the index is at least there even
      // when the checkpoint reused for headCacheMs was read before the snapshot was taken.
      indexedBlock:
        snapshot !== undefined && snapshot.block > chain.indexedBlock
          ? snapshot.block
          : chain.indexedBlock,
      snapshotBlock: snapshot?.block,
      headBlock: latest.number,
      lagBlocks: latest.number > block ? latest.number - block : 0n,
      lagSeconds: latest.timestamp > timestamp ? latest.timestamp - timestamp : 0n,
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
   * parameter; every indexed chain when absent or unknown) lags the head by more than the
   * chain's `maxLagSeconds` (or, when set, `maxLagBlocks`), or when the chain's RPC does not
   * answer.
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
      const { maxLagSeconds, maxLagBlocks } = params.limits(lag.chainId);
      const exceeded =
        lag.lagSeconds > maxLagSeconds
          ? `${maxLagSeconds} seconds`
          : maxLagBlocks !== undefined && lag.lagBlocks > BigInt(maxLagBlocks)
            ? `${maxLagBlocks} blocks`
            : undefined;
      if (exceeded === undefined) continue;
      const block = lag.snapshotBlock ?? lag.indexedBlock;
      const what = lag.snapshotBlock === undefined ? "index" : "routing snapshot";
      return c.json(
        errorBody(
          503,
          `The ${what} of chain ${lag.chainId} is at block ${block}, ${lag.lagBlocks} blocks and ${lag.lagSeconds} seconds behind the chain head ${lag.headBlock} (at most ${exceeded} are allowed). Retry shortly.`,
          {
            chainId: lag.chainId,
            block: Number(block),
            headBlock: Number(lag.headBlock),
            lagBlocks: Number(lag.lagBlocks),
            lagSeconds: Number(lag.lagSeconds),
            maxLagSeconds,
            maxLagBlocks: maxLagBlocks ?? null,
          },
        ),
        503,
      );
    }
    return next();
  });

  return {
    chainLags,
    guard,
    limits: params.limits,
    headBlock: async (chainName: string) => (await head(chainName)).number,
  };
}
