/**
 * A long devnet history with the event mix of a real chain, quickly: one HistoryBurst
 * transaction per block (V3 swaps, a V3 position minted and the previous one burned, V2 swaps,
 * a V2 liquidity add and remove, an ERC4626 deposit and withdrawal, in random measure), plus two
 * V2 pairs created along the way. Only pools, pairs and vaults of DevTokens take part (mintable,
 * so the burst contract can be funded). Needs an anvil with base fee 0.
 */
import {
  type Address,
  createPublicClient,
  createWalletClient,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { HistoryBurstAbi } from "../abis/generated/HistoryBurst.js";
import { UniswapV2FactoryAbi } from "../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { UniswapV3PoolAbi } from "../abis/UniswapV3Pool.js";
import { loadArtifact } from "../contracts/build.js";
import { DEVNET_DEPLOYER_KEY } from "./anvil.js";
import type { DeployedToken, Deployment } from "./deployment.js";
import { mulberry32 } from "./random.js";
import { devnetReceipt } from "./receipts.js";
import { amountForUsd, chainOf } from "./world.js";

/** Largest number of V3 or V2 swaps in one block (the count is uniform in 1..this). */
const MAX_SWAPS_PER_KIND = 12;
/** Each burst holds this much of every token it trades (USD). */
const FUNDING_USD = 50_000_000;

export type MineHistoryParameters = {
  rpcUrl: string;
  deployment: Deployment;
  /** Stop once at least this many indexed events (see `eventsOf`) have been mined. */
  events: number;
  seed?: number;
};

export type MineHistoryReturnType = { blocks: number; events: number };

/** Mines the history; returns how many blocks it took and how many indexed events they hold. */
export async function mineHistoryBursts(
  params: MineHistoryParameters,
): Promise<MineHistoryReturnType> {
  const d = params.deployment;
  const chain = await chainOf(params.rpcUrl);
  const client = createPublicClient({ chain, transport: http(params.rpcUrl) }) as PublicClient;
  const account = privateKeyToAccount(DEVNET_DEPLOYER_KEY);
  const wallet = createWalletClient({ chain, transport: http(params.rpcUrl), account });
  const random = mulberry32(params.seed ?? 7);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const mined = async (hash: `0x${string}`) => {
    const receipt = await devnetReceipt(client, hash);
    if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const weth = d.weth.toLowerCase();
  const byAddress = new Map(
    d.tokens
      .filter((t) => t.address.toLowerCase() !== weth)
      .map((t) => [t.address.toLowerCase(), t]),
  );
  const devTokens = async (abi: typeof UniswapV2PairAbi | typeof UniswapV3PoolAbi, at: Address) => {
    const [t0, t1] = await Promise.all([
      client.readContract({ address: at, abi, functionName: "token0" }),
      client.readContract({ address: at, abi, functionName: "token1" }),
    ]);
    const spec0 = byAddress.get(t0.toLowerCase());
    const spec1 = byAddress.get(t1.toLowerCase());
    return spec0 && spec1 ? { at, spec0, spec1 } : undefined;
  };
  const pools = (
    await Promise.all(d.uniswapV3.pools.map((p) => devTokens(UniswapV3PoolAbi, p)))
  ).filter((p) => p !== undefined);
  const pairs = (
    await Promise.all(d.uniswapV2.pairs.map((p) => devTokens(UniswapV2PairAbi, p)))
  ).filter((p) => p !== undefined);
  const vaults = d.vaults.flatMap((v) => {
    const spec = byAddress.get(v.asset.toLowerCase());
    return spec ? [{ at: v.address, spec }] : [];
  });
  if (pools.length === 0 || pairs.length === 0 || vaults.length === 0)
    throw new Error("no V3 pool, V2 pair or vault of DevTokens");

  const burst = (
    await mined(
      await wallet.deployContract({
        abi: HistoryBurstAbi,
        bytecode: loadArtifact("HistoryBurst").bytecode,
        args: [],
      }),
    )
  ).contractAddress;
  if (!burst) throw new Error("HistoryBurst not deployed");
  let nonce = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
  // Fixed fees and gas, so that each transaction is one request (base fee is 0).
  const fees = { maxFeePerGas: 1_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
  const mintTo = async (token: DeployedToken, to: Address, usd: number) =>
    mined(
      await wallet.writeContract({
        address: token.address,
        abi: DevTokenAbi,
        functionName: "mint",
        args: [to, amountForUsd(token, usd)],
        nonce: nonce++,
        gas: 200_000n,
        ...fees,
      }),
    );
  for (const spec of byAddress.values()) await mintTo(spec, burst, FUNDING_USD);

  // Two new pairs among tokens that have none yet, seeded with liquidity: `PairCreated`, and
  // from then on swapped like the others.
  const existing = new Set(pairs.map((p) => [p.spec0.symbol, p.spec1.symbol].sort().join("/")));
  const candidates = [...byAddress.values()];
  const newPairs: [DeployedToken, DeployedToken][] = [];
  for (const a of candidates) {
    for (const b of candidates) {
      if (newPairs.length < 2 && a.symbol < b.symbol && !existing.has(`${a.symbol}/${b.symbol}`))
        newPairs.push([a, b]);
    }
  }
  const createPair = async ([a, b]: [DeployedToken, DeployedToken]) => {
    await mined(
      await wallet.writeContract({
        address: d.uniswapV2.factory,
        abi: UniswapV2FactoryAbi,
        functionName: "createPair",
        args: [a.address, b.address],
        nonce: nonce++,
        gas: 5_000_000n,
        ...fees,
      }),
    );
    const pair = await client.readContract({
      address: d.uniswapV2.factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [a.address, b.address],
    });
    await mintTo(a, pair, 1_000_000);
    await mintTo(b, pair, 1_000_000);
    await mined(
      await wallet.writeContract({
        address: pair,
        abi: UniswapV2PairAbi,
        functionName: "mint",
        args: [account.address],
        nonce: nonce++,
        gas: 500_000n,
        ...fees,
      }),
    );
    const added = await devTokens(UniswapV2PairAbi, pair);
    if (added) pairs.push(added);
    // PairCreated, and the seeding's Transfer (mint) and Sync.
    return 3;
  };

  let events = 0;
  let blocks = 0;
  while (events < params.events) {
    // The new pairs appear a third and two thirds of the way through the history.
    const next = newPairs[0];
    if (next && events >= (params.events * (3 - newPairs.length)) / 3) {
      newPairs.shift();
      events += await createPair(next);
      blocks += 4;
    }
    const pool = pools[between(0, pools.length - 1)];
    const pair = pairs[between(0, pairs.length - 1)];
    const vault = vaults[between(0, vaults.length - 1)];
    if (!pool || !pair || !vault) throw new Error("no pool, pair or vault");
    const v3Swaps = between(1, MAX_SWAPS_PER_KIND);
    const v2Swaps = between(1, MAX_SWAPS_PER_KIND);
    const v2Liquidity = random() < 0.5;
    const withVault = random() < 0.7;
    const usd = between(100, 5_000);
    await mined(
      await wallet.writeContract({
        address: burst,
        abi: HistoryBurstAbi,
        functionName: "play",
        args: [
          {
            pool: pool.at,
            v3Swaps: BigInt(v3Swaps),
            v3Amount0In: amountForUsd(pool.spec0, usd),
            v3Amount1In: amountForUsd(pool.spec1, usd),
            halfWidth: between(1, 40),
            pair: pair.at,
            v2Swaps: BigInt(v2Swaps),
            v2Amount0In: amountForUsd(pair.spec0, usd),
            v2Amount1In: amountForUsd(pair.spec1, usd),
            v2Liquidity,
            vault: withVault ? vault.at : "0x0000000000000000000000000000000000000000",
            vaultAssets: amountForUsd(vault.spec, usd),
          },
        ],
        nonce: nonce++,
        gas: 20_000_000n,
        ...fees,
      }),
    );
    blocks++;
    // V3: a Mint, the swaps, and (after each pool's first round) a Burn. V2: a Sync per swap;
    // add and remove: Transfer + Sync, then two Transfers + Sync. Vault: Deposit and Withdraw.
    events += 2 + v3Swaps + v2Swaps + (v2Liquidity ? 5 : 0) + (withVault ? 2 : 0);
  }
  return { blocks, events };
}
