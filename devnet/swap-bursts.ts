/**
 * A long devnet history quickly: Uniswap V2 swaps in bursts of many per transaction (the
 * SwapBurst devnet contract), each a `Sync` event the indexer handles: the history of the
 * indexing benchmark and of the crash-recovery test. Needs an anvil with base fee 0 (full
 * blocks would otherwise compound the EIP-1559 base fee past what any account can pay).
 */
import { createPublicClient, createWalletClient, http, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { SwapBurstAbi } from "../abis/generated/SwapBurst.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { loadArtifact } from "../contracts/build.js";
import { DEVNET_DEPLOYER_KEY } from "./anvil.js";
import type { Deployment } from "./deployment.js";
import { devnetReceipt } from "./receipts.js";
import { amountForUsd, chainOf } from "./world.js";

/**
 * Mines at least `swaps` V2 swaps, `swapsPerTx` per transaction, round-robin over the pairs
 * of two DevTokens (mintable, so the burst contract can be funded). Returns how many it mined.
 */
export async function mineSwapBursts(params: {
  rpcUrl: string;
  deployment: Deployment;
  swaps: number;
  swapsPerTx?: number;
}): Promise<number> {
  const perTx = params.swapsPerTx ?? 300;
  const chain = await chainOf(params.rpcUrl);
  const client = createPublicClient({ chain, transport: http(params.rpcUrl) }) as PublicClient;
  const wallet = createWalletClient({
    chain,
    transport: http(params.rpcUrl),
    account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
  });
  const mined = async (hash: `0x${string}`) => {
    const receipt = await devnetReceipt(client, hash);
    if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const d = params.deployment;
  const byAddress = new Map(d.tokens.map((t) => [t.address.toLowerCase(), t]));
  const pairs = [];
  for (const pair of d.uniswapV2.pairs) {
    const [t0, t1] = await Promise.all([
      client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token0" }),
      client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token1" }),
    ]);
    const spec0 = byAddress.get(t0.toLowerCase());
    const spec1 = byAddress.get(t1.toLowerCase());
    const weth = d.weth.toLowerCase();
    if (spec0 && spec1 && t0.toLowerCase() !== weth && t1.toLowerCase() !== weth) {
      pairs.push({ pair, t0, t1, spec0, spec1 });
    }
  }
  if (pairs.length === 0) throw new Error("no V2 pair of two DevTokens");
  const burst = (
    await mined(
      await wallet.deployContract({
        abi: SwapBurstAbi,
        bytecode: loadArtifact("SwapBurst").bytecode,
        args: [],
      }),
    )
  ).contractAddress;
  if (!burst) throw new Error("SwapBurst not deployed");
  for (const { t0, t1, spec0, spec1 } of pairs) {
    for (const [token, spec] of [
      [t0, spec0],
      [t1, spec1],
    ] as const) {
      await mined(
        await wallet.writeContract({
          address: token,
          abi: DevTokenAbi,
          functionName: "mint",
          args: [burst, amountForUsd(spec, 10_000_000)],
        }),
      );
    }
  }
  let swaps = 0;
  for (let i = 0; swaps < params.swaps; i++) {
    const p = pairs[i % pairs.length];
    if (!p) throw new Error("no pair");
    await mined(
      await wallet.writeContract({
        address: burst,
        abi: SwapBurstAbi,
        functionName: "burst",
        args: [p.pair, amountForUsd(p.spec0, 100), amountForUsd(p.spec1, 100), BigInt(perTx)],
        gas: 29_000_000n,
      }),
    );
    swaps += perTx;
  }
  return swaps;
}
