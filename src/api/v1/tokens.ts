import { arrayContains, type SQL, sql } from "drizzle-orm";
import { Hono } from "hono";
import { LRUCache } from "lru-cache";
import { and, asc, eq, gte } from "ponder";
import { z } from "zod";
import { token } from "../../../ponder.schema.js";
import type { ApiDatabase, ApiSources } from "../database.js";
import { ApiError } from "../errors.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { pageMeta } from "../pagination.js";
import { parseQuery } from "../query.js";
import { addressParam, formatAddress, positiveIntParam } from "../schemas.js";

/** SPEC 2.2: the token list is served in pages of 1000. */
export const TOKENS_PER_PAGE = 1000;

/** Chain ids are stored as 4-byte integers: a larger id matches no token and must not reach SQL. */
const MAX_STORED_CHAIN_ID = 2_147_483_647;

/** The query of `GET /v1/tokens` (SPEC 4.1); also the source of its OpenAPI parameters. */
export const tokensQuery = z.object({
  chainId: positiveIntParam("a chain id")
    .optional()
    .meta({ description: "Only tokens of this chain." }),
  address: addressParam.optional().meta({ description: "Only the token with this address." }),
  protocolSlug: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, {
      error: "expected a protocol slug (lowercase letters, digits and dashes)",
    })
    .optional()
    .meta({ description: "Only position tokens of this protocol." }),
  type: z
    .enum(["baseToken", "defiToken", "base", "defi"], {
      error: "expected one of baseToken, defiToken, base, defi",
    })
    .optional()
    .meta({
      description:
        "Only base tokens (`baseToken`, `base`) or position tokens (`defiToken`, `defi`).",
    }),
  primayAddress: addressParam.optional().meta({
    description: "Only tokens with this contract entrypoint (SPEC's spelling of `primaryAddress`).",
  }),
  primaryAddress: addressParam
    .optional()
    .meta({ description: "Only tokens with this contract entrypoint, usable in bundle actions." }),
  underlyingTokens: z
    .array(addressParam)
    .optional()
    .meta({ description: "Only position tokens holding all of these underlying tokens." }),
  page: positiveIntParam("a page number")
    .optional()
    .meta({ description: `Page number; pages hold ${TOKENS_PER_PAGE} tokens. Default 1.` }),
});

/** A token as the API returns it (SPEC 2.1 plus name, symbol, decimals, primaryAddress). */
export const tokenSchema = z.object({
  chainId: z.number().int(),
  address: z.string().meta({ description: "Checksummed; the native token in lowercase." }),
  type: z.enum(["base", "defi"]),
  protocolSlug: z.string().nullable(),
  underlyingTokens: z.array(z.string()),
  name: z.string(),
  symbol: z.string(),
  decimals: z.number().int(),
  primaryAddress: z.string().nullable(),
});

/** SPEC 2.2 pagination metadata. */
export const pageMetaSchema = z.object({
  total: z.number().int(),
  lastPage: z.number().int(),
  currentPage: z.number().int(),
  perPage: z.number().int(),
  prev: z.number().int().nullable(),
  next: z.number().int().nullable(),
});

export const tokenListSchema = z.object({ meta: pageMetaSchema, data: z.array(tokenSchema) });

/** The columns a served token is made of (the block columns stay in the database). */
const served = {
  chainId: token.chainId,
  address: token.address,
  type: token.type,
  protocolSlug: token.protocolSlug,
  underlyingTokens: token.underlyingTokens,
  name: token.name,
  symbol: token.symbol,
  decimals: token.decimals,
  primaryAddress: token.primaryAddress,
};

type TokenRow = Pick<typeof token.$inferSelect, keyof typeof served>;

/**
 * `formatAddress` remembering what it formatted: within a page the same addresses recur (an LP
 * token's pair is its own primary address; hub tokens underlie many positions), and each
 * checksum is a Keccak hash.
 */
function pageFormatter(): (address: string) => string {
  const done = new Map<string, string>();
  return (address) => {
    let formatted = done.get(address);
    if (formatted === undefined) {
      formatted = formatAddress(address);
      done.set(address, formatted);
    }
    return formatted;
  };
}

/** A token as the API returns it: SPEC 2.1 fields plus name, symbol, decimals, primaryAddress. */
export function serializeToken(
  row: TokenRow,
  format: (address: string) => string = formatAddress,
): z.output<typeof tokenSchema> {
  return {
    chainId: row.chainId,
    address: format(row.address),
    type: row.type,
    protocolSlug: row.protocolSlug,
    underlyingTokens: row.underlyingTokens.map(format),
    name: row.name,
    symbol: row.symbol,
    decimals: row.decimals,
    primaryAddress: row.primaryAddress === null ? null : format(row.primaryAddress),
  };
}

describeEndpoint({
  method: "get",
  path: "/v1/tokens",
  operationId: "listTokens",
  tag: "catalogue",
  summary: "List base tokens and position tokens",
  description:
    "Base tokens and position tokens (LP tokens, vault shares) of the indexed chains, filtered by the query and ordered by chain and address, in pages of 1000.",
  query: tokensQuery,
  responses: {
    200: { description: "One page of matching tokens.", schema: tokenListSchema },
    400: errorResponse(
      "A query parameter is malformed, repeated or unknown; the message names it.",
    ),
  },
});

type TokenList = { meta: ReturnType<typeof pageMeta>; data: ReturnType<typeof serializeToken>[] };

/** A page's answer as sent: serialising 1,000 tokens costs more than the rest of a cached hit. */
type TokenListJson = string;

/** Where each page of one filter starts, and how many tokens match it. */
type PageIndex = { total: number; starts: { chainId: number; address: `0x${string}` }[] };

/**
 * The catalogue's state: the newest undo-log entry of the token table (every write within the
 * finality window adds one, a reorg removes the newest) and the highest `updated_block` (every
 * write sets it). Either moves when a token row changes; neither moves when none does, however
 * many blocks pass. Two index lookups.
 */
async function catalogueState(db: ApiDatabase): Promise<string> {
  const result = await db.execute(
    sql`select (select max(operation_id) from ${sql.raw('"_reorg__token"')}) as operation, (select max(${token.updatedBlock}) from ${token}) as block`,
  );
  const row = (result as unknown as { rows: { operation: unknown; block: unknown }[] }).rows[0];
  return `${row?.operation ?? "-"}:${row?.block ?? "-"}`;
}

/**
 * Pages are served by seeking to their first key, not by skipping rows: an `OFFSET` walks and
 * drops every row before the page (on 550,000 tokens a deep page took ~0.8 s, its count ~0.2 s).
 * One pass per filter and catalogue state numbers the matching keys and keeps every 1,000th and
 * the count; each page is then an index range scan of 1,000 rows.
 */
class TokenPages {
  constructor(
    private readonly db: ApiDatabase,
    private readonly snapshotVersion: () => string | undefined,
  ) {}

  private state: string | undefined;
  private readonly indexes = new Map<string, Promise<PageIndex>>();
  private readonly answers = tokenAnswerCache();
  /** The catalogue's state as read at a routing snapshot version (one read per version). */
  private stateAt: { version: string; state: Promise<string> } | undefined;

  /**
   * The catalogue's state, read once per routing snapshot version: the snapshot advances when
   * the index does (every block it indexes), so between two advances no token can have changed
   * that the snapshot has not seen, and a burst of requests costs no query.
   */
  private currentState(): Promise<string> {
    const version = this.snapshotVersion();
    if (version === undefined) return catalogueState(this.db);
    if (this.stateAt?.version !== version) {
      const entry = { version, state: catalogueState(this.db) };
      this.stateAt = entry;
      entry.state.catch(() => {
        if (this.stateAt === entry) this.stateAt = undefined;
      });
    }
    return this.stateAt.state;
  }

  /**
   * One page of `filter`'s tokens. `oneChain`: the filter holds one chain only, so that a page
   * starts at an address of that chain.
   */
  async page(
    filter: SQL | undefined,
    filterKey: string,
    page: number,
    oneChain: boolean,
  ): Promise<TokenListJson> {
    const state = await this.currentState();
    if (state !== this.state) {
      this.state = state;
      this.indexes.clear();
      this.answers.clear();
    }
    const answerKey = `${filterKey}#${page}`;
    const cached = this.answers.get(answerKey);
    if (cached) return cached;
    let index = this.indexes.get(filterKey);
    if (!index) {
      if (this.indexes.size >= MAX_CACHED) this.indexes.clear();
      index = pageIndex(this.db, filter);
      this.indexes.set(filterKey, index);
      index.catch(() => this.indexes.delete(filterKey));
    }
    const { total, starts } = await index;
    const start = starts[page - 1];
    const rows = start
      ? await this.db
          .select(served)
          .from(token)
          .where(
            and(
              filter,
              // With the chain pinned, the address alone is the seek: Postgres starts a scan
              // at a row comparison beside an equality on its first column only at that
              // column's first row (on 550,000 tokens of one chain, ~100 ms a page).
              oneChain
                ? gte(token.address, start.address)
                : sql`(${token.chainId}, ${token.address}) >= (${start.chainId}, ${start.address})`,
            ),
          )
          .orderBy(asc(token.chainId), asc(token.address))
          .limit(TOKENS_PER_PAGE)
      : [];
    const format = pageFormatter();
    const list: TokenList = {
      meta: pageMeta(total, page, TOKENS_PER_PAGE),
      data: rows.map((row) => serializeToken(row, format)),
    };
    const answer = JSON.stringify(list);
    // Kept only if no token changed while it was read.
    if (this.state === state) this.answers.set(answerKey, answer);
    return answer;
  }
}

/** Cached filters (cleared when full). */
const MAX_CACHED = 1_000;

/**
 * What the cached answers may hold in all, in characters of JSON (a byte each in memory, two
 * for a page with a character beyond Latin-1): a page of 1,000 tokens is ~0.3 M characters, so a
 * bound by count alone let 1,000 pages hold ~300 MB, beside a mainnet-sized routing graph in a
 * process capped at 1,536 MiB of heap (bench/results/scale.md).
 */
export const TOKEN_ANSWER_CACHE_CHARS = 32 * 1024 * 1024;

/** The token list answers cached by filter and page, least recently used out first. */
export function tokenAnswerCache(): LRUCache<string, TokenListJson> {
  return new LRUCache<string, TokenListJson>({
    max: MAX_CACHED,
    maxSize: TOKEN_ANSWER_CACHE_CHARS,
    sizeCalculation: (answer) => Math.max(1, answer.length),
  });
}

/** The first key of every page of `filter`'s tokens, in the catalogue's order, and their count. */
async function pageIndex(db: ApiDatabase, filter: SQL | undefined): Promise<PageIndex> {
  const numbered = db
    .select({
      chainId: token.chainId,
      address: token.address,
      position: sql<number>`row_number() over (order by ${token.chainId}, ${token.address})`.as(
        "position",
      ),
      total: sql<number>`count(*) over ()`.as("total"),
    })
    .from(token)
    .where(filter)
    .as("numbered");
  const starts = await db
    .select()
    .from(numbered)
    .where(sql`${numbered.position} % ${TOKENS_PER_PAGE} = 1`)
    .orderBy(numbered.position);
  return {
    total: Number(starts[0]?.total ?? 0),
    starts: starts.map((s) => ({ chainId: s.chainId, address: s.address })),
  };
}

/** `GET /v1/tokens` over `db`'s token table. */
export function tokensRoutes(sources: Pick<ApiSources, "db" | "snapshots">) {
  const pages = new TokenPages(sources.db, () => sources.snapshots.snapshotVersion());
  return new Hono().get("/", async (c) => {
    const q = parseQuery(c.req.url, tokensQuery);
    if (q.primayAddress && q.primaryAddress && q.primayAddress !== q.primaryAddress) {
      throw new ApiError(
        400,
        "Query parameters `primayAddress` and `primaryAddress` name the same filter but were given different addresses.",
      );
    }
    const primary = q.primaryAddress ?? q.primayAddress;
    const conditions: SQL[] = [];
    if (q.chainId !== undefined)
      conditions.push(q.chainId > MAX_STORED_CHAIN_ID ? sql`false` : eq(token.chainId, q.chainId));
    if (q.address) conditions.push(eq(token.address, q.address));
    if (q.protocolSlug) conditions.push(eq(token.protocolSlug, q.protocolSlug));
    if (q.type)
      conditions.push(
        eq(token.type, q.type === "baseToken" || q.type === "base" ? "base" : "defi"),
      );
    if (primary) conditions.push(eq(token.primaryAddress, primary));
    if (q.underlyingTokens?.length)
      conditions.push(arrayContains(token.underlyingTokens, q.underlyingTokens));
    const where = conditions.length > 0 ? and(...conditions) : undefined;

    const page = q.page ?? 1;
    const filterKey = JSON.stringify({ ...q, page: undefined, primayAddress: undefined, primary });
    const body = await pages.page(where, filterKey, page, q.chainId !== undefined);
    return c.body(body, 200, { "Content-Type": "application/json" });
  });
}
