import type { Address } from "../../../engine/index.js";

/**
 * One string per distinct address (lowercased), shared by every pool that names it.
 *
 * A mainnet-sized graph holds ~800,000 token references in its pools but only ~150,000 distinct
 * tokens: the interner makes every pool share one string per address instead of holding the
 * copy each row arrived with. (Pool addresses are unique to their pool and are not interned.)
 */
export class AddressInterner {
  private readonly seen = new Map<string, Address>();

  of(address: string): Address {
    const hit = this.seen.get(address);
    if (hit !== undefined) return hit;
    const lower = address.toLowerCase() as Address;
    const known = this.seen.get(lower) ?? lower;
    this.seen.set(lower, known);
    this.seen.set(address, known);
    return known;
  }
}
