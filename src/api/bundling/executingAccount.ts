import type { Address } from "viem";
import type { ExecutionContracts, RoutingStrategy } from "../routing/hop-context.js";
import { predictCoreWalletAddress } from "./coreWalletAddress.js";

/**
 * The account a program runs as under `strategy`: the router's executor, the caller's own
 * account (delegate, EIP-7702) or the caller's CoreWallet, whose address is also returned as
 * `wallet` (deployed or not).
 * @example const { account, wallet } = executingAccount({ strategy, contracts, from })
 */
export function executingAccount(params: {
  strategy: RoutingStrategy;
  contracts: ExecutionContracts;
  from: Address;
}): { account: Address; wallet: Address | undefined } {
  const { strategy, contracts, from } = params;
  if (strategy === "router") return { account: contracts.executor, wallet: undefined };
  if (strategy === "delegate") return { account: from, wallet: undefined };
  const wallet = predictCoreWalletAddress({
    factory: contracts.walletFactory,
    implementation: contracts.walletImplementation,
    owner: from,
  });
  return { account: wallet, wallet };
}
