/**
 * Per chain, the Balancer V2 pools with rate providers, which every rate refresh reads again:
 * taken from the table by the first refresh that needs them (a query that bypasses Ponder's
 * cache, so it runs once, not every block), then kept by the handler that creates pools. A state
 * start, which writes many pools at once, has the list read again.
 */
import type { Context } from "ponder:registry";
import { balancerV2Pool } from "ponder:schema";
import { eq } from "ponder";
import type { Address } from "viem";
import { hasRateProviders } from "./state.js";

const ratePools = new Map<number, Set<Address>>();

/** The chain's pools with rate providers (a pool a reorg removed may still be among them). */
export async function poolsWithRates(context: Context): Promise<ReadonlySet<Address>> {
  const chainId = context.chain.id;
  let pools = ratePools.get(chainId);
  if (!pools) {
    const rows = await context.db.sql
      .select({ address: balancerV2Pool.address, rateProviders: balancerV2Pool.rateProviders })
      .from(balancerV2Pool)
      .where(eq(balancerV2Pool.chainId, chainId));
    pools = new Set(rows.filter(hasRateProviders).map((row) => row.address));
    ratePools.set(chainId, pools);
  }
  return pools;
}

/** A pool created with rate providers joins the list, once the list has been read. */
export function rememberRatePool(chainId: number, address: Address): void {
  ratePools.get(chainId)?.add(address);
}

/** Pools written outside the handlers (a state start): the next refresh reads the list again. */
export function forgetRatePools(chainId: number): void {
  ratePools.delete(chainId);
}
