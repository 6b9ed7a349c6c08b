/**
 * `GET /v1/wallet/balances`: what an address holds of the catalogue's tokens, read from the
 * chain at one block — one deployless multicall per page of the catalogue, the native balance
 * beside it — with the USD prices of `/v1/prices`.
 */
import { Hono } from "hono";
import { and, asc, eq, gt } from "ponder";
import { type Address, erc20Abi, formatUnits, getAddress } from "viem";
import { z } from "zod";
import type { ChainSetup } from "../../../engine/chain-setup.js";
import { inputSpender } from "../../../engine/program/sending.js";
import { displayAddress, isNativeToken } from "../../../engine/protocols/native.js";
import { token } from "../../tokens/tables.js";
import { executionContracts } from "../chain/execution-contracts.js";
import type { ApiSources } from "../database.js";
import { ApiError } from "../errors.js";
import { describeEndpoint, errorResponse } from "../openapi/registry.js";
import { parseQuery } from "../query.js";
import { addressParam, positiveIntParam } from "../schemas.js";
import { usdPriceBook } from "./prices.js";
import { chainClient, resolveChain } from "./route.js";

/** Catalogue tokens read per multicall. */
const BALANCE_PAGE = 1_000;

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
});

export const walletBalanceSchema = z.object({
  token: z.string(),
  chainId: z.number().int(),
  amount: z.string().meta({ description: "The balance in the token's smallest unit." }),
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
});

describeEndpoint({
  method: "get",
  path: "/v1/wallet/balances",
  operationId: "getWalletBalances",
  tag: "wallet",
  summary: "An account's balances of the catalogue's tokens, with USD values",
  description:
    "Every token of the chain's catalogue the account (or its CoreWallet) holds, read at one block, largest USD value first (unpriced tokens last).",
  query: balancesQuery,
  responses: {
    200: { description: "The non-zero balances.", schema: z.array(walletBalanceSchema) },
    400: errorResponse("A query parameter is invalid or unknown, or the chain is not indexed."),
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

/** Every non-zero balance of `holder` among the catalogue's tokens, at `blockNumber`. */
async function readBalances(
  sources: Pick<ApiSources, "db">,
  chain: ChainSetup,
  holder: Address,
  blockNumber: bigint,
): Promise<{ row: CatalogueToken; amount: bigint }[]> {
  const client = chainClient(chain);
  const held: { row: CatalogueToken; amount: bigint }[] = [];
  let after = "";
  for (;;) {
    const page = await sources.db
      .select({
        address: token.address,
        name: token.name,
        symbol: token.symbol,
        decimals: token.decimals,
        type: token.type,
        underlyingTokens: token.underlyingTokens,
      })
      .from(token)
      .where(and(eq(token.chainId, chain.id), gt(token.address, after as Address)))
      .orderBy(asc(token.address))
      .limit(BALANCE_PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1]?.address ?? after;
    const erc20s = page.filter((r) => !isNativeToken(r.address));
    const [balances, native] = await Promise.all([
      client.multicall({
        contracts: erc20s.map(
          (r) =>
            ({
              address: r.address as Address,
              abi: erc20Abi,
              functionName: "balanceOf",
              args: [holder],
            }) as const,
        ),
        blockNumber,
        deployless: true,
      }),
      page.length > erc20s.length ? client.getBalance({ address: holder, blockNumber }) : 0n,
    ]);
    // A token whose balanceOf fails at this block (not a token after all) is left out.
    erc20s.forEach((row, i) => {
      const answer = balances[i];
      if (answer?.status === "success" && answer.result > 0n)
        held.push({ row, amount: answer.result });
    });
    const nativeRow = page.find((r) => isNativeToken(r.address));
    if (nativeRow && native > 0n) held.push({ row: nativeRow, amount: native });
    if (page.length < BALANCE_PAGE) break;
  }
  return held;
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
    const held = await readBalances(sources, chain, holder, blockNumber).catch((error) => {
      throw error instanceof ApiError ? error : unreachable();
    });
    const book = held.length === 0 ? undefined : await usdPriceBook(sources, chain);
    const answers = held.map(({ row, amount }) => {
      const price = book?.priceOf(row.address.toLowerCase() as Address, row.decimals).price ?? null;
      return {
        token: displayAddress(row.address),
        chainId: chain.id,
        amount: amount.toString(),
        decimals: row.decimals,
        name: row.name,
        symbol: row.symbol,
        logoUri: null,
        price,
        value: price === null ? null : price * Number(formatUnits(amount, row.decimals)),
        type: row.type,
        underlyingTokens: row.underlyingTokens.map((u) => displayAddress(u)),
        blockNumber: Number(blockNumber),
      };
    });
    answers.sort(
      (x, y) =>
        (y.value ?? -1) - (x.value ?? -1) ||
        (x.token.toLowerCase() < y.token.toLowerCase() ? -1 : 1),
    );
    return c.json(answers);
  });
}
