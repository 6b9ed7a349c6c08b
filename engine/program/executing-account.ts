import type { Address } from "viem";
import { predictCoreWalletAddress } from "./core-wallet-address.js";
import type { ExecutionContracts, RoutingStrategy } from "./hop-context.js";

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

/**
 * Who must hold a program's input for its transaction to run, and who spends it from there:
 * under the router the caller, spent by the router; under corewallet the caller, spent by its
 * wallet, or the wallet itself when it spends its own (`walletSpendsOwn`); under delegate the
 * caller's own account, which needs no allowance.
 */
export function inputHolder(params: {
  strategy: RoutingStrategy;
  contracts: ExecutionContracts;
  from: Address;
  wallet: Address | undefined;
  walletSpendsOwn: boolean;
}): { holder: Address; spender: Address | undefined } {
  const { strategy, contracts, from, wallet } = params;
  const holder = strategy === "corewallet" && params.walletSpendsOwn ? (wallet as Address) : from;
  const spender =
    strategy === "router"
      ? contracts.router
      : strategy === "corewallet" && holder === from
        ? wallet
        : undefined;
  return { holder, spender };
}
