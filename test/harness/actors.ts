import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { DEVNET_ACCOUNT_KEYS, DEVNET_DEPLOYER_KEY } from "../../devnet/anvil.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { amountForUsd, chainOf } from "../../devnet/world.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import type { ServiceInstance } from "./service.js";

/** Chain-side helpers for end-to-end suites: accounts, funding, balances, sending. */
export async function devnetActors(service: ServiceInstance) {
  const chain = await chainOf(service.anvil.url);
  const transport = http(service.anvil.url);
  const client = createPublicClient({ chain, transport }) as PublicClient;
  const deployer = createWalletClient({
    chain,
    transport,
    account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
  });
  const d = service.deployment;

  const token = (symbol: string): Address => {
    if (symbol === "WETH") return d.weth;
    const t = d.tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`no token ${symbol}`);
    return t.address;
  };
  const vault = (symbol: string): Address => {
    const v = d.vaults.find((x) => x.symbol === symbol);
    if (!v) throw new Error(`no vault ${symbol}`);
    return v.address;
  };
  const usd = (symbol: string, value: number): bigint => {
    const t = d.tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`no token ${symbol}`);
    return amountForUsd(t, value);
  };
  /** Anvil dev account `i` (1-based keys after the deployer). */
  const user = (i: number): WalletClient & { account: { address: Address } } => {
    const key = DEVNET_ACCOUNT_KEYS[i];
    if (!key) throw new Error(`no account ${i}`);
    return createWalletClient({ chain, transport, account: privateKeyToAccount(key) }) as never;
  };
  const balanceOf = async (t: Address, who: Address): Promise<bigint> =>
    t.toLowerCase() === NATIVE_TOKEN_ADDRESS
      ? await client.getBalance({ address: who })
      : await client.readContract({
          address: t,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [who],
        });
  /**
   * Sends a transaction and waits for its receipt. Without an explicit `gas`, the limit is the
   * node's estimate plus a quarter, as wallets send it: an exact estimate can fall short of
   * what the mined transaction needs (anvil's estimate has been seen to leave no room for the
   * 2,300 gas an SSTORE requires to remain).
   */
  const send = async (
    wallet: WalletClient,
    request: { to: Address; data?: Hex; value?: bigint; [k: string]: unknown },
  ) => {
    const account = wallet.account ?? null;
    const gas =
      request.gas ??
      (await client
        .estimateGas({ ...request, account } as never)
        .then((estimate) => estimate + estimate / 4n));
    const hash = await wallet.sendTransaction({
      ...request,
      gas,
      account,
      chain,
    } as never);
    const receipt = await devnetReceipt(client as never, hash);
    await expectNoStandingAllowance(receipt.logs);
    return receipt;
  };
  /**
   * No allowance of the router's shared executor outlives a transaction: for every spender an
   * `Approval` log of the transaction names with the executor as owner, the allowance left is 0.
   */
  const expectNoStandingAllowance = async (logs: TransactionReceipt["logs"]) => {
    const executor = d.execution.executor?.toLowerCase();
    if (!executor) return;
    const seen = new Map<string, { token: Address; spender: Address }>();
    for (const log of parseEventLogs({ abi: erc20Abi, eventName: "Approval", logs })) {
      if (log.args.owner.toLowerCase() !== executor) continue;
      const spender = log.args.spender;
      seen.set(`${log.address}:${spender}`, { token: log.address, spender });
    }
    for (const { token, spender } of seen.values()) {
      const left = await client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "allowance",
        args: [executor as Address, spender],
      });
      if (left !== 0n) {
        throw new Error(
          `the executor's allowance of ${token} to ${spender} outlived the transaction: ${left}`,
        );
      }
    }
  };
  /** Gives `to` an amount of a devnet token (minted; WETH from the deployer's inventory). */
  const fund = async (to: Address, t: Address, amount: bigint) => {
    const isWeth = t.toLowerCase() === d.weth.toLowerCase();
    await send(deployer, {
      to: t,
      data: encodeFunctionData({
        abi: DevTokenAbi,
        functionName: isWeth ? "transfer" : "mint",
        args: [to, amount],
      }),
    });
  };
  const approve = async (wallet: WalletClient, t: Address, spender: Address, amount: bigint) =>
    await send(wallet, {
      to: t,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, amount] }),
    });

  /**
   * User 1 swaps 10^15 wei of the first V2 pair's token0 for token1 through Router02 (funded and
   * approved first); resolves with the pair and the mined receipt.
   */
  const swapOnFirstV2Pair = async () => {
    const pair = d.uniswapV2.pairs[0];
    if (!pair) throw new Error("no V2 pair");
    const [token0, token1] = await Promise.all([
      client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token0" }),
      client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token1" }),
    ]);
    const trader = user(1);
    const amountIn = 10n ** 15n;
    await fund(trader.account.address, token0, amountIn);
    await approve(trader, token0, d.uniswapV2.router02, amountIn);
    const receipt = await send(trader, {
      to: d.uniswapV2.router02,
      data: encodeFunctionData({
        abi: UniswapV2Router02Abi,
        functionName: "swapExactTokensForTokens",
        args: [amountIn, 0n, [token0, token1], trader.account.address, maxUint256],
      }),
    });
    return { pair, receipt };
  };

  return {
    client,
    deployer,
    token,
    vault,
    usd,
    user,
    balanceOf,
    send,
    fund,
    approve,
    swapOnFirstV2Pair,
  };
}
