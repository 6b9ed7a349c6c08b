/**
 * `GET /v1/wallet/balances`: what an address holds, read from the chain at one block with the
 * USD prices of `/v1/prices`. Not the whole catalogue (150,000 tokens on mainnet): the tokens the
 * caller lists, or else the native currency, WETH, the stablecoins and the tokens the index saw
 * paid to the account. All of them are read in one `eth_call` (`contracts/lens/BalanceReader.sol`,
 * deployless) that gives each `balanceOf` the same gas budget, so a token that burns gas or
 * reverts is listed as failed without costing the others their balances. Answers are kept per
 * account and block.
 */
import { Hono } from "hono";
import { and, desc, eq, inArray, sql } from "ponder";
import { type Address, decodeAbiParameters, encodeDeployData, formatUnits, getAddress } from "viem";
import { z } from "zod";
import { apiReaderInitCode } from "../../../abis/generated/ApiReaderInitCode.js";
import { BalanceReaderAbi } from "../../../abis/generated/BalanceReader.js";
import type { ChainSetup } from "../../../engine/index.js";
import {
  displayAddress,
  inputSpender,
  isNativeToken,
  NATIVE_TOKEN_ADDRESS,
} from "../../../engine/index.js";
import { swap, vaultEvent } from "../../analytics/tables.js";
import { token } from "../../tokens/tables.js";
import { executionContracts } from "../chain/execution-contracts.js";
import type { ApiSources } from "../database.js";
import { ApiError } from "../errors.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { parseQuery } from "../query.js";
import { addressParam, positiveIntParam } from "../schemas.js";
import { usdPriceBook } from "./prices.js";
import { chainClient, resolveChain } from "./route.js";

/** Tokens read per request, listed or known: one call of bounded gas. */
export const MAX_BALANCE_TOKENS = 100;
/** Gas each token's `balanceOf` may use: a real token's (a proxy, a rebasing share) many times. */
export const BALANCE_GAS_PER_TOKEN = 100_000n;
/**
 * The reader's own gas per token (the call to a cold address, the loop, and the 64 bytes of its
 * answer, which an `eth_call` creation pays 200 gas a byte for) and for the rest of the call.
 */
const READER_GAS_PER_TOKEN = 20_000n;
const READER_BASE_GAS = 300_000n;
/** Newest history rows (per table) read for the tokens paid to an account: an index range. */
const HISTORY_ROWS = 1_000;
/** Answers kept (per account, block and token list); the oldest go first. */
const CACHED_ANSWERS = 1_000;

/** Why a `balanceOf` failed, by BalanceReader's code. */
const FAILURES: Record<number, string> = {
  1: "balanceOf reverted.",
  2: `balanceOf used all of its ${BALANCE_GAS_PER_TOKEN} gas.`,
  3: "balanceOf answered with no 32-byte value.",
  4: "balanceOf was not called: the reader ran out of gas before it.",
};

const balancesQuery = z.object({
  chainId: positiveIntParam("a chain id")
    .optional()
    .meta({ description: "The chain (default: chain 1 when indexed, else the only one)." }),
  eoaAddress: addressParam.meta({ description: "The account whose balances to read." }),
  useEoa: z
    .enum(["true", "false"], { error: "expected true or false" })
    .default("true")
    .transform((v) => v === "true")
    .meta({
      description:
        "`false`: the balances of the account's CoreWallet (deployed or not) instead of the account's own.",
    }),
  tokens: z
    .array(addressParam)
    .max(MAX_BALANCE_TOKENS, { error: `at most ${MAX_BALANCE_TOKENS} tokens` })
    .optional()
    .meta({
      description: `Catalogue tokens to read (at most ${MAX_BALANCE_TOKENS}; \`0xeeee…eeee\` for the native currency). Without it: the native currency, WETH, the stablecoins and the tokens the indexed swaps and vault withdrawals paid to the account (and vault shares deposited for it).`,
    }),
});

export const walletBalanceSchema = z.object({
  token: z.string(),
  chainId: z.number().int(),
  amount: z.string().nullable().meta({
    description:
      "The balance in the token's smallest unit; null when `balanceOf` failed (see `error`).",
  }),
  decimals: z.number().int(),
  name: z.string(),
  symbol: z.string(),
  logoUri: z.null().meta({ description: "No logos are indexed." }),
  price: z
    .number()
    .nullable()
    .meta({ description: "USD per whole token, as `/v1/prices` gives it." }),
  value: z.number().nullable().meta({ description: "The balance in USD; null when unpriced." }),
  type: z.enum(["base", "defi"]),
  underlyingTokens: z
    .array(z.string())
    .meta({ description: "For a position token (`defi`), the tokens it holds." }),
  blockNumber: z.number().int().meta({ description: "The block the balance was read at." }),
  error: z
    .string()
    .optional()
    .meta({
      description: `Only on a token whose \`balanceOf\` failed (reverted, used all of its ${BALANCE_GAS_PER_TOKEN} gas, or answered no number): why. Its \`amount\` is null.`,
    }),
});

describeEndpoint({
  method: "get",
  path: "/v1/wallet/balances",
  operationId: "getWalletBalances",
  tag: "wallet",
  summary: "An account's balances of the catalogue's tokens, with USD values",
  description: `The tokens listed in \`tokens\` (or else the native currency, WETH, the stablecoins and the tokens the index saw paid to the account) that the account (or its CoreWallet) holds, read at one block in one call that gives each \`balanceOf\` ${BALANCE_GAS_PER_TOKEN} gas; largest USD value first, unpriced tokens next, tokens whose \`balanceOf\` failed last (with \`error\`).`,
  query: balancesQuery,
  responses: {
    200: {
      description: "The non-zero balances, and the tokens whose balance could not be read.",
      schema: z.array(walletBalanceSchema),
    },
    400: errorResponse(
      `A query parameter is invalid or unknown, the chain is not indexed, \`tokens\` lists more than ${MAX_BALANCE_TOKENS} tokens or one the catalogue does not.`,
    ),
    503: errorResponse(
      "The chain's RPC does not answer, its routing graph is not loaded, or (useEoa=false) the execution contracts are not deployed.",
    ),
  },
});

type CatalogueToken = {
  address: string;
  name: string;
  symbol: string;
  decimals: number;
  type: "base" | "defi";
  underlyingTokens: string[];
};

/** A token read: its balance, or why `balanceOf` failed. */
type Read = { row: CatalogueToken; amount: bigint } | { row: CatalogueToken; error: string };

const catalogueColumns = {
  address: token.address,
  name: token.name,
  symbol: token.symbol,
  decimals: token.decimals,
  type: token.type,
  underlyingTokens: token.underlyingTokens,
};

/**
 * The tokens (lowercase) the index saw paid to `holder`: what its newest swaps paid it (a pool's
 * amount out is negative), the vault shares deposited for it and the assets withdrawn to it.
 */
async function paidTokens(
  sources: Pick<ApiSources, "db">,
  chain: ChainSetup,
  holder: Address,
): Promise<string[]> {
  const account = holder.toLowerCase() as Address;
  const [swaps, deposits, withdrawals] = await Promise.all([
    sources.db
      .select({
        address: sql<string>`case when ${swap.amount0} < 0 then ${swap.token0} else ${swap.token1} end`,
      })
      .from(swap)
      .where(and(eq(swap.chainId, chain.id), eq(swap.recipient, account)))
      .orderBy(desc(swap.blockNumber))
      .limit(HISTORY_ROWS),
    sources.db
      .select({ address: vaultEvent.vault })
      .from(vaultEvent)
      .where(and(eq(vaultEvent.chainId, chain.id), eq(vaultEvent.owner, account)))
      .orderBy(desc(vaultEvent.blockNumber))
      .limit(HISTORY_ROWS),
    sources.db
      .select({ address: vaultEvent.asset })
      .from(vaultEvent)
      .where(and(eq(vaultEvent.chainId, chain.id), eq(vaultEvent.receiver, account)))
      .orderBy(desc(vaultEvent.blockNumber))
      .limit(HISTORY_ROWS),
  ]);
  return [...swaps, ...deposits, ...withdrawals].map((r) => r.address.toLowerCase());
}

/**
 * The catalogue rows of the tokens to read: `listed` (each must be in the catalogue), or else the
 * native currency, WETH, the stablecoins and the tokens paid to `holder`, at most
 * MAX_BALANCE_TOKENS of them.
 * @throws ApiError 400 naming a listed token the catalogue does not hold.
 */
async function tokensToRead(
  sources: Pick<ApiSources, "db">,
  chain: ChainSetup,
  holder: Address,
  listed: readonly string[] | undefined,
): Promise<CatalogueToken[]> {
  const wanted = [
    ...new Set(
      listed ?? [
        NATIVE_TOKEN_ADDRESS,
        ...(chain.weth ? [chain.weth.toLowerCase()] : []),
        ...chain.stablecoins.map((a) => a.toLowerCase()),
        ...(await paidTokens(sources, chain, holder)),
      ],
    ),
  ];
  const rows =
    wanted.length === 0
      ? []
      : await sources.db
          .select(catalogueColumns)
          .from(token)
          .where(and(eq(token.chainId, chain.id), inArray(token.address, wanted as Address[])));
  const byAddress = new Map(rows.map((r) => [r.address.toLowerCase(), r]));
  if (listed) {
    const unknown = wanted.find((a) => !byAddress.has(a));
    if (unknown)
      throw new ApiError(
        400,
        `Query parameter \`tokens\`: ${unknown} is not in chain ${chain.id}'s catalogue.`,
      );
  }
  return wanted.flatMap((a) => byAddress.get(a) ?? []).slice(0, MAX_BALANCE_TOKENS);
}

/** The creation call that reads `holder`'s native balance and its balance of each of `tokens`. */
function balanceReaderCall(holder: Address, tokens: readonly Address[]) {
  return {
    data: encodeDeployData({
      abi: BalanceReaderAbi,
      bytecode: apiReaderInitCode.BalanceReader,
      args: [holder, [...tokens], BALANCE_GAS_PER_TOKEN],
    }),
    gas: READER_BASE_GAS + BigInt(tokens.length) * (BALANCE_GAS_PER_TOKEN + READER_GAS_PER_TOKEN),
  };
}

/** `holder`'s balance of each of `rows` at `blockNumber` (native included), in one call. */
async function readBalances(
  chain: ChainSetup,
  holder: Address,
  rows: readonly CatalogueToken[],
  blockNumber: bigint,
): Promise<Read[]> {
  if (rows.length === 0) return [];
  const erc20s = rows.filter((r) => !isNativeToken(r.address));
  const { data, gas } = balanceReaderCall(
    holder,
    erc20s.map((r) => r.address as Address),
  );
  const { data: answer } = await chainClient(chain).call({ data, gas, blockNumber });
  const [native, amounts, failures] = decodeAbiParameters(
    [{ type: "uint256" }, { type: "uint256[]" }, { type: "uint256[]" }],
    answer ?? "0x",
  );
  const reads: Read[] = erc20s.map((row, i) => {
    const failure = Number(failures[i] ?? 0n);
    return failure === 0
      ? { row, amount: amounts[i] ?? 0n }
      : { row, error: FAILURES[failure] ?? "balanceOf failed." };
  });
  const nativeRow = rows.find((r) => isNativeToken(r.address));
  if (nativeRow) reads.push({ row: nativeRow, amount: native });
  return reads;
}

/** Answers already given, per chain, account, block and token list (insertion order: oldest first). */
const answered = new Map<string, Promise<Read[]>>();

/** `readBalances` of the tokens to read, once per chain, account, block and list. */
function cachedReads(
  sources: Pick<ApiSources, "db">,
  chain: ChainSetup,
  holder: Address,
  listed: readonly string[] | undefined,
  blockNumber: bigint,
): Promise<Read[]> {
  const key = `${chain.id}:${holder.toLowerCase()}:${blockNumber}:${listed?.join(",") ?? "known"}`;
  let reads = answered.get(key);
  if (!reads) {
    reads = tokensToRead(sources, chain, holder, listed).then((rows) =>
      readBalances(chain, holder, rows, blockNumber),
    );
    answered.set(key, reads);
    // A failure (the node, the database) is not kept: the next request tries again.
    reads.catch(() => answered.delete(key));
    if (answered.size > CACHED_ANSWERS) {
      const oldest = answered.keys().next().value;
      if (oldest !== undefined) answered.delete(oldest);
    }
  }
  return reads;
}

/** `GET /v1/wallet/balances` over the catalogue in `db` and the chain's RPC. */
export function balancesRoutes(sources: Pick<ApiSources, "db" | "chains" | "snapshots">) {
  return new Hono().get("/balances", async (c) => {
    const q = parseQuery(c.req.url, balancesQuery);
    const chain = resolveChain(sources.chains, q.chainId);
    const client = chainClient(chain);
    const unreachable = () =>
      new ApiError(503, `The RPC node of chain ${chain.id} is unreachable; try again shortly.`);
    const owner = getAddress(q.eoaAddress);
    const holder = q.useEoa
      ? owner
      : (inputSpender({
          strategy: "corewallet",
          contracts: await executionContracts(chain, client),
          from: owner,
        }) as Address);
    const blockNumber = await client.getBlockNumber({ cacheTime: 0 }).catch(() => {
      throw unreachable();
    });
    const reads = await cachedReads(sources, chain, holder, q.tokens, blockNumber).catch(
      (error) => {
        throw error instanceof ApiError ? error : unreachable();
      },
    );
    const held = reads.filter((r) => !("amount" in r) || r.amount > 0n);
    const book = held.length === 0 ? undefined : await usdPriceBook(sources, chain);
    const common = (row: CatalogueToken) => ({
      token: displayAddress(row.address),
      chainId: chain.id,
      decimals: row.decimals,
      name: row.name,
      symbol: row.symbol,
      logoUri: null,
      type: row.type,
      underlyingTokens: row.underlyingTokens.map((u) => displayAddress(u)),
      blockNumber: Number(blockNumber),
    });
    const answers = held.map((read) => {
      const { row } = read;
      const price = book?.priceOf(row.address.toLowerCase() as Address, row.decimals).price ?? null;
      if (!("amount" in read))
        return { ...common(row), amount: null, price, value: null, error: read.error };
      return {
        ...common(row),
        amount: read.amount.toString(),
        price,
        value: price === null ? null : price * Number(formatUnits(read.amount, row.decimals)),
      };
    });
    // Largest value first, unpriced next, failed last; by address among equals.
    const rank = (a: (typeof answers)[number]) => ("error" in a ? -2 : (a.value ?? -1));
    answers.sort(
      (x, y) => rank(y) - rank(x) || (x.token.toLowerCase() < y.token.toLowerCase() ? -1 : 1),
    );
    return c.json(answers);
  });
}
