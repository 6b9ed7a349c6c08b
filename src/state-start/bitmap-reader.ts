/**
 * Tick bitmaps read through `contracts/lens/TickBitmapReader.sol`, deployless: a request reads a
 * run of pools' bitmap words and answers only the words that are not zero, where a Multicall3
 * batch answers every word (a tick-spacing-1 pool's 6,932 of them, nearly all zero).
 */
import {
  type Address,
  decodeDeployData,
  encodeDeployData,
  type Hex,
  hexToBigInt,
  hexToNumber,
  size,
  slice,
} from "viem";
import { indexerInitCode } from "../../abis/generated/IndexerInitCode.js";
import { TickBitmapReaderAbi } from "../../abis/generated/TickBitmapReader.js";
import { readConfig } from "../../config.js";
import type { StateReader } from "./reads.js";

/**
 * Bitmap words one reader request holds per call of `STATE_READ_BATCH`: a word costs the reader
 * ≈ 3.0 k gas (a cold `SLOAD` of 2.1 k and the call around it; measured 20.75 M gas for a
 * tick-spacing-1 pool's 6,932 words on anvil), so the default batch's 7,000 words are ≈ 21 M,
 * and with the largest answer's code deposit (24,576 bytes at 200 gas) ≈ 26 M: under anvil's
 * 30 M and geth's 50 M a call. A node that caps a call lower refuses it, as it refuses a
 * Multicall3 batch, with the error naming `STATE_READ_BATCH` to lower.
 */
export const BITMAP_WORDS_PER_CALL = 7;

/** Consecutive bitmap words of one pool (`TickBitmapReader.Range`). */
export type BitmapRange = {
  /** The V3 pool, or the V4 pool manager. */
  target: Address;
  /** Zero for a V3 pool (`tickBitmap(int16)`); a V4 pool's bitmap mapping slot (`extsload`). */
  bitmapSlot: Hex;
  firstWord: number;
  words: number;
};

/** A bitmap word that is not zero. */
export type BitmapWord = { word: number; bits: bigint };

/** Bytes of the answer's header (the words read) and of each word in it (position and bits). */
const HEADER = 32;
const ENTRY = 36;

/** Bitmap words a reader request holds at the configured `STATE_READ_BATCH`. */
export function bitmapWordsPerRequest(): number {
  return BITMAP_WORDS_PER_CALL * readConfig().stateReadBatch;
}

/** A range, or a request's length of it, and which of the ranges asked for it is part of. */
type Piece = BitmapRange & { of: number };

/**
 * `ranges` in requests of at most `perRequest` words, in order: a range joins the current
 * request if it fits, else begins the next, so a pool whose bitmap fits in one request is read by
 * exactly one (a tick-spacing-1 pool's 6,932 words at the default batch); a range longer than a
 * request is cut in requests' lengths.
 */
export function bitmapRequests(ranges: readonly BitmapRange[], perRequest: number): Piece[][] {
  const requests: Piece[][] = [];
  let request: Piece[] = [];
  let words = 0;
  for (const [of, range] of ranges.entries()) {
    for (let from = 0; from < range.words; from += perRequest) {
      const length = Math.min(perRequest, range.words - from);
      if (words + length > perRequest && request.length > 0) {
        requests.push(request);
        request = [];
        words = 0;
      }
      request.push({ ...range, firstWord: range.firstWord + from, words: length, of });
      words += length;
    }
  }
  if (request.length > 0) requests.push(request);
  return requests;
}

/** The data of an `eth_call` without `to` that reads `ranges` through the reader. */
export function bitmapReaderCall(ranges: readonly BitmapRange[]): Hex {
  const encoded = ranges.map(({ target, bitmapSlot, firstWord, words }) => ({
    target,
    bitmapSlot,
    firstWord,
    words,
  }));
  return encodeDeployData({
    abi: TickBitmapReaderAbi,
    bytecode: indexerInitCode.TickBitmapReader,
    args: [encoded],
  });
}

/**
 * The ranges a reader request (the data of an `eth_call` without `to`) asks for, or undefined
 * for any other call: what a test or a benchmark that meters the requests reads of them.
 */
export function bitmapReaderRanges(data: Hex): BitmapRange[] | undefined {
  const bytecode = indexerInitCode.TickBitmapReader;
  if (!data.toLowerCase().startsWith(bytecode.toLowerCase())) return undefined;
  const { args } = decodeDeployData({ abi: TickBitmapReaderAbi, bytecode, data });
  return args[0].map((r) => ({ ...r, target: r.target.toLowerCase() as Address }));
}

/**
 * Decodes the reader's answer for `ranges`: how many of their words it read (all unless its
 * answer filled up) and, per range, its non-zero words among them.
 */
export function decodeBitmapAnswer(
  ranges: readonly BitmapRange[],
  answer: Hex,
): { read: number; words: BitmapWord[][] } {
  const read = hexToNumber(slice(answer, 0, HEADER));
  const words: BitmapWord[][] = ranges.map(() => []);
  let range = 0;
  let before = 0;
  for (let at = HEADER; at < size(answer); at += ENTRY) {
    const position = hexToNumber(slice(answer, at, at + 4));
    while (position >= before + (ranges[range]?.words ?? Number.POSITIVE_INFINITY)) {
      before += ranges[range]?.words ?? 0;
      range++;
    }
    const of = ranges[range];
    if (!of) throw new Error(`the tick bitmap reader answered word ${position} of fewer`);
    words[range]?.push({
      word: of.firstWord + position - before,
      bits: hexToBigInt(slice(answer, at + 4, at + ENTRY)),
    });
  }
  return { read, words };
}

/** `ranges` without their first `read` words. */
function rest(ranges: readonly BitmapRange[], read: number): BitmapRange[] {
  const left: BitmapRange[] = [];
  let skip = read;
  for (const range of ranges) {
    if (skip >= range.words) {
      skip -= range.words;
      continue;
    }
    left.push({ ...range, firstWord: range.firstWord + skip, words: range.words - skip });
    skip = 0;
  }
  return left;
}

/**
 * One request's ranges: the reader asked again from where its answer filled up (24,576 bytes,
 * 681 non-zero words) until every word is read.
 */
async function readRequest(reader: StateReader, ranges: BitmapRange[]): Promise<BitmapWord[][]> {
  const found: BitmapWord[][] = ranges.map(() => []);
  let left = ranges;
  let done = 0;
  const total = ranges.reduce((sum, r) => sum + r.words, 0);
  while (done < total) {
    const { read, words } = decodeBitmapAnswer(
      left,
      await reader.deployless(bitmapReaderCall(left)),
    );
    if (read === 0) throw new Error("the tick bitmap reader read no word");
    // The ranges still to read are the last ones of `ranges`, the first of them begun.
    const offset = ranges.length - left.length;
    for (const [i, w] of words.entries()) found[offset + i]?.push(...w);
    left = rest(left, read);
    done += read;
  }
  return found;
}

/**
 * The non-zero words of each of `ranges`, lowest first, read at the reader's block in requests
 * of {@link bitmapWordsPerRequest} words that go out together (`bitmapRequests`).
 */
export async function readBitmapWords(
  reader: StateReader,
  ranges: readonly BitmapRange[],
): Promise<BitmapWord[][]> {
  const requests = bitmapRequests(ranges, bitmapWordsPerRequest());
  const answers = await Promise.all(requests.map((request) => readRequest(reader, request)));
  // A range cut in pieces across requests gathers its pieces' words, in order.
  const words: BitmapWord[][] = ranges.map(() => []);
  for (const [r, request] of requests.entries()) {
    for (const [i, piece] of request.entries()) words[piece.of]?.push(...(answers[r]?.[i] ?? []));
  }
  return words;
}
