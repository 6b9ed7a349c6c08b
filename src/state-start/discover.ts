/**
 * The pools that exist before a chain's start, found from their creators' logs alone
 * (`PairCreated`, `PoolCreated`, `Initialize`, read by address from the deployment block): no
 * Ponder event, so no block is fetched for them. On mainnet that is ≈ 470 k blocks (and their
 * transactions) a handled creation event would cost, against a few thousand `eth_getLogs`.
 */
import type { Context } from "ponder:registry";
import { getLogsRetryHelper } from "@ponder/utils";
import {
  type AbiEvent,
  type Address,
  formatLog,
  hexToBigInt,
  numberToHex,
  type ParseEventLogsReturnType,
  parseEventLogs,
  type RpcError,
  type RpcLog,
  toEventSelector,
} from "viem";

/**
 * Blocks asked for in one `eth_getLogs` until the node asks for fewer: most providers serve
 * 10,000 blocks of one contract's logs (some cap the range there, others the count of logs,
 * and say which range to ask for instead: `@ponder/utils`' `getLogsRetryHelper` reads it).
 */
const FIRST_RANGE = 10_000n;

/** An address as the tables hold it (viem decodes logs to checksummed addresses). */
export function lowercase(address: Address): Address {
  return address.toLowerCase() as Address;
}

/** Every `event` of `address` from `fromBlock` to `toBlock`, decoded, in chain order. */
export async function creationLogs<const E extends AbiEvent>(
  context: Context,
  params: { address: Address; event: E; fromBlock: bigint; toBlock: bigint },
): Promise<ParseEventLogsReturnType<readonly [E], undefined, true>> {
  const { address, event } = params;
  const topic = toEventSelector(event);
  const raw: RpcLog[] = [];
  let range = FIRST_RANGE;
  let from = params.fromBlock;
  while (from <= params.toBlock) {
    const to = from + range - 1n < params.toBlock ? from + range - 1n : params.toBlock;
    const filter = {
      address,
      topics: [topic],
      fromBlock: numberToHex(from),
      toBlock: numberToHex(to),
    };
    try {
      raw.push(
        ...((await context.client.request({
          method: "eth_getLogs",
          params: [filter],
        } as never)) as RpcLog[]),
      );
      from = to + 1n;
    } catch (error) {
      const retry = getLogsRetryHelper({ params: [filter], error: error as RpcError });
      const next = retry.shouldRetry ? retry.ranges[0] : undefined;
      const smaller = next && hexToBigInt(next.toBlock) - hexToBigInt(next.fromBlock) + 1n;
      if (smaller === undefined || smaller >= to - from + 1n) {
        throw new Error(
          `Chain ${context.chain.id}: reading ${event.name} logs of ${address} from block ${from} to ${to} for the state start failed (${(error as Error).message?.split("\n")[0]})`,
        );
      }
      range = smaller;
    }
  }
  return parseEventLogs({ abi: [event] as const, logs: raw.map((l) => formatLog(l)) });
}
