/**
 * Token metadata as the indexer reads it: many tokens a request through the deployless batch
 * reader, each request one `eth_call` (one answer, one row of Ponder's cache).
 */
import { type Address, BaseError, decodeErrorResult, getAddress, type Hex } from "viem";
import { TokenMetadataBatchReaderAbi } from "../../abis/generated/TokenMetadataBatchReader.js";
import {
  decodeTokenMetadata,
  decodeTokenMetadataBatch,
  TOKEN_METADATA_BATCH,
  type TokenMetadata,
  tokenMetadataBatchCall,
  tokenMetadataCall,
} from "../../engine/index.js";

/**
 * What sends the reads: Ponder's `context.client` (which caches an `immutable` answer), or any
 * viem client.
 */
export type TokenMetadataClient = {
  call(parameters: { data: Hex; cache: "immutable" }): Promise<{ data?: Hex | undefined }>;
};

export type ReadTokenMetadataParameters = {
  client: TokenMetadataClient;
  /** For the log. */
  chainId: number;
  tokens: readonly Address[];
};

/** What is stored of a token that gave no readable answer at all. */
export const UNREADABLE_METADATA: TokenMetadata = {
  name: undefined,
  symbol: undefined,
  decimals: undefined,
};

function firstLine(error: unknown): string {
  return (error as Error).message?.split("\n")[0] ?? String(error);
}

/**
 * Why a batch was refused: the reader's own `GasBelowBudget` named (the node gives an `eth_call`
 * less gas than a batch of the worst tokens needs), else the error's first line.
 */
function batchFailure(error: unknown): string {
  const revert = error instanceof BaseError ? error.walk((e) => hasRevertData(e)) : null;
  if (hasRevertData(revert)) {
    try {
      const { errorName, args } = decodeErrorResult({
        abi: TokenMetadataBatchReaderAbi,
        data: revert.data,
      });
      if (errorName === "GasBelowBudget") {
        return `the node's eth_call gas ran out before token ${getAddress(args[0])}, with ${args[1]} gas left`;
      }
    } catch {
      // Not the reader's own error: the node's message says more.
    }
  }
  return firstLine(error);
}

/** An error carrying revert data. */
function hasRevertData(error: unknown): error is { data: Hex } {
  const data = (error as { data?: unknown } | null)?.data;
  return typeof data === "string" && data.startsWith("0x");
}

/** One token alone, through the single-token reader; unreadable if the request fails. */
async function readOne(
  client: TokenMetadataClient,
  chainId: number,
  token: Address,
): Promise<TokenMetadata> {
  try {
    const answer = await client.call({ data: tokenMetadataCall(token), cache: "immutable" });
    return decodeTokenMetadata(answer.data ?? "0x");
  } catch (error) {
    console.warn(
      `Token ${getAddress(token)} on chain ${chainId}: its metadata could not be read (${firstLine(error)}).`,
    );
    return UNREADABLE_METADATA;
  }
}

/**
 * One batch into `read`: a request for its tokens, then, if the answer held only the first of
 * them (kilobyte names), one for the rest, until all are read. A request the node refuses (its gas
 * or size limits below this reader's needs) is not retried as a batch: its tokens are read one by
 * one.
 */
async function readBatch(
  client: TokenMetadataClient,
  chainId: number,
  tokens: readonly Address[],
  read: Map<Address, TokenMetadata>,
): Promise<void> {
  let done = 0;
  while (done < tokens.length) {
    const rest = tokens.slice(done);
    try {
      const answer = await client.call({ data: tokenMetadataBatchCall(rest), cache: "immutable" });
      const answers = decodeTokenMetadataBatch(answer.data ?? "0x");
      if (answers.length === 0) throw new Error("the answer held no token");
      for (const [i, token] of rest.entries()) {
        const metadata = answers[i];
        if (metadata === undefined) break;
        read.set(token, metadata);
        done += 1;
      }
    } catch (error) {
      console.warn(
        `Chain ${chainId}: the metadata of ${rest.length} tokens could not be read in one request (${batchFailure(error)}); reading them one by one.`,
      );
      await Promise.all(
        rest.map(async (token) => read.set(token, await readOne(client, chainId, token))),
      );
      done = tokens.length;
    }
  }
}

/**
 * Reads each token's name, symbol and decimals (each field with a gas budget and a size cap, so a
 * token that reverts, loops or answers megabytes gives "unreadable" for that field) in requests
 * of {@link TOKEN_METADATA_BATCH} tokens that go out together: N tokens cost
 * ceil(N / TOKEN_METADATA_BATCH) requests. A token named twice is read once.
 * @example const metadata = await readTokenMetadata({ client: context.client, chainId, tokens });
 */
export async function readTokenMetadata({
  client,
  chainId,
  tokens,
}: ReadTokenMetadataParameters): Promise<Map<Address, TokenMetadata>> {
  const unique = [...new Set(tokens)];
  const read = new Map<Address, TokenMetadata>();
  const batches: Promise<void>[] = [];
  for (let i = 0; i < unique.length; i += TOKEN_METADATA_BATCH) {
    batches.push(readBatch(client, chainId, unique.slice(i, i + TOKEN_METADATA_BATCH), read));
  }
  await Promise.all(batches);
  return read;
}
