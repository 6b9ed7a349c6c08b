/**
 * How a state start divides its reads: pools (and tokens) in groups, so that a chain of
 * hundreds of thousands of pools is never held in memory at once.
 */
import { readConfig } from "../../config.js";

/**
 * Requests' worth of calls one group of a state read holds: a group's calls and answers are
 * built, read and written before the next group's, so a chain of hundreds of thousands of pools
 * (tens of millions of calls) is never in memory at once, while a group's requests still go out
 * together.
 */
const REQUESTS_PER_GROUP = 64;

/**
 * `items` (pools) in consecutive groups of at most {@link REQUESTS_PER_GROUP} requests' worth of
 * calls (`STATE_READ_BATCH` each), by the calls each item's read makes; an item heavier than
 * that is a group of its own.
 */
export function readGroups<T>(items: readonly T[], callsOf: (item: T) => number): T[][] {
  const limit = REQUESTS_PER_GROUP * readConfig().stateReadBatch;
  const groups: T[][] = [];
  let group: T[] = [];
  let calls = 0;
  for (const item of items) {
    const weight = callsOf(item);
    if (group.length > 0 && calls + weight > limit) {
      groups.push(group);
      group = [];
      calls = 0;
    }
    group.push(item);
    calls += weight;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * `read` of each group of `items` in turn (`readGroups`), its answers gathered in order.
 * @example const seed = await inGroups(pairs, () => 2, (group) => readV2Pairs(context, reader, group));
 */
export async function inGroups<T, R>(
  items: readonly T[],
  callsOf: (item: T) => number,
  read: (group: T[]) => Promise<readonly R[]>,
): Promise<R[]> {
  const answers: R[] = [];
  for (const group of readGroups(items, callsOf)) {
    for (const answer of await read(group)) answers.push(answer);
  }
  return answers;
}
