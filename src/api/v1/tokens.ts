import { db } from "ponder:api";
import { token } from "ponder:schema";
import { arrayContains, type SQL, sql } from "drizzle-orm";
import { Hono } from "hono";
import { and, asc, count, eq } from "ponder";
import { z } from "zod";
import { AnswerCache } from "../answer-cache";
import { ApiError } from "../errors";
import { describeEndpoint, errorResponse } from "../openapi/registry";
import { pageMeta } from "../pagination";
import { parseQuery } from "../query";
import { addressParam, formatAddress, positiveIntParam } from "../schemas";

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

type TokenRow = typeof token.$inferSelect;

/** A token as the API returns it: SPEC 2.1 fields plus name, symbol, decimals, primaryAddress. */
export function serializeToken(row: TokenRow): z.output<typeof tokenSchema> {
  return {
    chainId: row.chainId,
    address: formatAddress(row.address),
    type: row.type,
    protocolSlug: row.protocolSlug,
    underlyingTokens: row.underlyingTokens.map(formatAddress),
    name: row.name,
    symbol: row.symbol,
    decimals: row.decimals,
    primaryAddress: row.primaryAddress === null ? null : formatAddress(row.primaryAddress),
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

const answers = new AnswerCache<{
  meta: ReturnType<typeof pageMeta>;
  data: ReturnType<typeof serializeToken>[];
}>();

export const tokens = new Hono().get("/", async (c) => {
  const q = parseQuery(
    c.req.url,
    {
      scalars: [
        "chainId",
        "address",
        "protocolSlug",
        "type",
        "primayAddress",
        "primaryAddress",
        "page",
      ],
      arrays: ["underlyingTokens"],
    },
    tokensQuery,
  );
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
    conditions.push(eq(token.type, q.type === "baseToken" || q.type === "base" ? "base" : "defi"));
  if (primary) conditions.push(eq(token.primaryAddress, primary));
  if (q.underlyingTokens?.length)
    conditions.push(arrayContains(token.underlyingTokens, q.underlyingTokens));
  const where = conditions.length > 0 ? and(...conditions) : undefined;

  const page = q.page ?? 1;
  const body = await answers.get(
    JSON.stringify({ ...q, primary, page, underlyingTokens: q.underlyingTokens }),
    async () => {
      const [totals, rows] = await Promise.all([
        db.select({ total: count() }).from(token).where(where),
        db
          .select()
          .from(token)
          .where(where)
          .orderBy(asc(token.chainId), asc(token.address))
          .limit(TOKENS_PER_PAGE)
          .offset((page - 1) * TOKENS_PER_PAGE),
      ]);
      return {
        meta: pageMeta(totals[0]?.total ?? 0, page, TOKENS_PER_PAGE),
        data: rows.map(serializeToken),
      };
    },
  );
  return c.json(body);
});
