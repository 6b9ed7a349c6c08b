/**
 * The bundle actions of every protocol in `engine/protocols/registry.ts`, by method name. The methods a
 * protocol lists in `/v1/standards` and the actions here are the same set (a test holds them to
 * it): an action that is listed works, and one that works is listed.
 */
import { findProtocol } from "../../protocols/registry.js";
import type { Protocol } from "../../protocols/types.js";
import { approve, balance, call, minamountout, route, split, transfer } from "./core.js";
import {
  uniswapV2Deposit,
  uniswapV2Redeem,
  uniswapV2Swap,
  uniswapV3Swap,
  unwrap,
  vaultDeposit,
  vaultRedeem,
  wrap,
} from "./pools.js";
import type { ActionSpec } from "./types.js";

const CORE: Record<string, ActionSpec> = {
  route,
  call,
  transfer,
  approve,
  balance,
  split,
  minamountout,
};
const UNISWAP_V2: Record<string, ActionSpec> = {
  swap: uniswapV2Swap,
  deposit: uniswapV2Deposit,
  redeem: uniswapV2Redeem,
};
const UNISWAP_V3: Record<string, ActionSpec> = { swap: uniswapV3Swap };
const VAULT: Record<string, ActionSpec> = { deposit: vaultDeposit, redeem: vaultRedeem };
const WRAPPED_NATIVE: Record<string, ActionSpec> = { deposit: wrap, withdraw: unwrap };

/** The actions of a protocol, keyed by method. */
export function protocolActions(protocol: Protocol): Record<string, ActionSpec> {
  if (protocol.slug === "core") return CORE;
  switch (protocol.poolSource) {
    case "v2Pair":
      return UNISWAP_V2;
    case "v3Pool":
      return UNISWAP_V3;
    case "vault":
      return VAULT;
    case "wrappedNative":
      return WRAPPED_NATIVE;
    default:
      return {};
  }
}

/** The action for `protocol`/`method`, or undefined when either is unknown. */
export function findAction(slug: string, method: string): ActionSpec | undefined {
  const protocol = findProtocol(slug);
  return protocol ? protocolActions(protocol)[method] : undefined;
}
