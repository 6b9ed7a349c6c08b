import type { Address, Hex } from "viem";
import { CoreWalletFactoryAbi } from "../../abis/generated/CoreWalletFactory.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import type { devnetActors } from "./actors.js";
import type { ServiceInstance } from "./service.js";

/** The strategies a route or bundle can run under. */
export const ROUTING_STRATEGIES = ["router", "corewallet", "delegate"] as const;
export type RoutingStrategyName = (typeof ROUTING_STRATEGIES)[number];

type Actors = Awaited<ReturnType<typeof devnetActors>>;

/** An answer's transaction, as `/v1/shortcuts/route` and `/bundle` return it. */
export type AnswerTx = { tx: { to: Address; data: Hex; value: string } };

/** The CoreWallet of `owner` (where its `corewallet` programs run). */
export async function coreWalletOf(
  service: ServiceInstance,
  a: Actors,
  owner: Address,
): Promise<Address> {
  return await a.client.readContract({
    address: service.deployment.execution.walletFactory as Address,
    abi: CoreWalletFactoryAbi,
    functionName: "walletOf",
    args: [owner],
  });
}

/**
 * Sends an answer's transaction as its strategy needs: an EIP-7702 authorization to the delegate
 * executor (delegate), or an approval of exactly the input's amount to the router or to the
 * caller's wallet (none for native currency or without an input).
 */
export async function sendAnswerAs(
  service: ServiceInstance,
  a: Actors,
  strategy: RoutingStrategyName,
  u: ReturnType<Actors["user"]>,
  answer: AnswerTx,
  input: { token: Address; amount: bigint } | undefined,
) {
  const execution = service.deployment.execution;
  if (strategy === "delegate") {
    const authorization = await u.signAuthorization({
      account: u.account as never,
      contractAddress: execution.delegateExecutor as Address,
      executor: "self",
    });
    return await a.send(u, {
      to: answer.tx.to,
      data: answer.tx.data,
      value: BigInt(answer.tx.value),
      authorizationList: [authorization],
    });
  }
  if (input && input.token !== NATIVE_TOKEN_ADDRESS) {
    const spender =
      strategy === "router" ? answer.tx.to : await coreWalletOf(service, a, u.account.address);
    await a.approve(u, input.token, spender, input.amount);
  }
  return await a.send(u, {
    to: answer.tx.to,
    data: answer.tx.data,
    value: BigInt(answer.tx.value),
  });
}
