/**
 * The devnet world for the routing suites and benchmarks: a fresh anvil with `deployWorld`,
 * plus many narrow positions in two V3 pools so that large swaps cross dozens of initialized
 * ticks, as swaps on busy mainnet pools do.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  http,
  maxUint256,
  type PublicClient,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { NonfungiblePositionManagerAbi } from "../../abis/NonfungiblePositionManager.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import { indexedChains } from "../../chains.js";
import { type AnvilInstance, DEVNET_DEPLOYER_KEY } from "../../devnet/anvil.js";
import type { DeployedToken, Deployment } from "../../devnet/deployment.js";
import { writeDeployment } from "../../devnet/deployment.js";
import { mulberry32 } from "../../devnet/random.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { amountForUsd, chainOf, deployWorld } from "../../devnet/world.js";
import {
  EXECUTION_ADDRESS_NAMES,
  type ExecutionAddresses,
} from "../../engine/core/execution-addresses.js";
import type { RoutingGraph } from "../../engine/index.js";
import { TokenSlotFinder } from "../../src/api/chain/slots.js";
import type { PlanRouteContext } from "../../src/api/shortcuts/plan-route.js";
import { startTestAnvil } from "../harness/anvil.js";

export type RoutingDevnet = {
  anvil: AnvilInstance;
  client: PublicClient;
  wallet: WalletClient;
  deployment: Deployment;
  token: (symbol: string) => DeployedToken;
  /** The V3 pools given many extra positions. */
  manyTickPools: Address[];
  /**
   * Sends a transaction from the deployer and waits for it to succeed (3M gas unless `gas` says
   * otherwise: creating a V3 pool takes more).
   */
  send: (tx: {
    address: Address;
    abi: readonly unknown[];
    functionName: string;
    args: readonly unknown[];
    gas?: bigint;
  }) => Promise<void>;
  stop: () => Promise<void>;
};

/** Symbols and fee of the pools that get `positions` narrow positions each. */
const MANY_TICK_POOLS: [string, string, number][] = [
  ["WETH", "USDC", 3000],
  ["USDC", "USDT", 500],
];

export async function startRoutingDevnet(
  params: { positions?: number } = {},
): Promise<RoutingDevnet> {
  const anvil = await startTestAnvil();
  try {
    const deployment = await deployWorld({ rpcUrl: anvil.url });
    const chain = await chainOf(anvil.url);
    const transport = http(anvil.url, { batch: false });
    const client = createPublicClient({ chain, transport }) as PublicClient;
    const wallet = createWalletClient({
      chain,
      transport,
      account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
    });
    const send: RoutingDevnet["send"] = async (tx) => {
      const hash = await wallet.writeContract({
        ...tx,
        account: wallet.account ?? null,
        chain,
        gas: tx.gas ?? 3_000_000n,
      } as never);
      // Anvil under load can leave an automined transaction pending: devnetReceipt nudges it.
      const receipt = await devnetReceipt(client, hash);
      if (receipt.status !== "success") throw new Error(`${tx.functionName} reverted`);
    };
    const token = (symbol: string): DeployedToken => {
      const t = deployment.tokens.find((x) => x.symbol === symbol);
      if (!t) throw new Error(`no devnet token ${symbol}`);
      return t;
    };
    const random = mulberry32(2024);
    const manyTickPools: Address[] = [];
    for (const [a, b, fee] of MANY_TICK_POOLS) {
      const pool = await findPool(client, deployment, token(a).address, token(b).address, fee);
      manyTickPools.push(pool);
      const [t0, t1, spacing, slot0] = await Promise.all([
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token0" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token1" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "tickSpacing" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "slot0" }),
      ]);
      const priced = (address: Address) =>
        deployment.tokens.find(
          (t) => t.address.toLowerCase() === address.toLowerCase(),
        ) as DeployedToken;
      const center = Math.floor(slot0[1] / spacing) * spacing;
      for (let i = 0; i < (params.positions ?? 40); i++) {
        const lower = center - (1 + Math.floor(random() * 80)) * spacing;
        const upper = center + (1 + Math.floor(random() * 80)) * spacing;
        const usd = 20_000 + Math.floor(random() * 200_000);
        await send({
          address: deployment.uniswapV3.positionManager,
          abi: NonfungiblePositionManagerAbi,
          functionName: "mint",
          args: [
            {
              token0: t0,
              token1: t1,
              fee,
              tickLower: lower,
              tickUpper: upper,
              amount0Desired: amountForUsd(priced(t0), usd),
              amount1Desired: amountForUsd(priced(t1), usd),
              amount0Min: 0n,
              amount1Min: 0n,
              recipient: deployment.deployer,
              deadline: maxUint256,
            },
          ],
        });
      }
    }
    // The deployer trades and deposits in the suites: allow every vault and router.
    for (const v of deployment.vaults) {
      await send({
        address: v.asset,
        abi: DevTokenAbi,
        functionName: "approve",
        args: [v.address, maxUint256],
      });
    }
    return {
      anvil,
      client,
      wallet,
      deployment,
      token,
      manyTickPools,
      send,
      stop: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

async function findPool(
  client: PublicClient,
  deployment: Deployment,
  a: Address,
  b: Address,
  fee: number,
): Promise<Address> {
  for (const pool of deployment.uniswapV3.pools) {
    const [t0, t1, f] = await Promise.all([
      client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token0" }),
      client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token1" }),
      client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "fee" }),
    ]);
    const tokens = [t0.toLowerCase(), t1.toLowerCase()];
    if (f === fee && tokens.includes(a.toLowerCase()) && tokens.includes(b.toLowerCase()))
      return pool;
  }
  throw new Error(`no V3 pool ${a}/${b} at fee ${fee}`);
}

/** The deployment's execution layer as the engine names it. */
export function executionOf(deployed: Record<string, Address>): ExecutionAddresses {
  const entries = EXECUTION_ADDRESS_NAMES.map((name) => {
    const address = deployed[name];
    if (address === undefined) throw new Error(`the devnet deployment has no ${name}`);
    return [name, address] as const;
  });
  return Object.fromEntries(entries) as ExecutionAddresses;
}

/**
 * The API's planRoute context on `net` over `graph`: the chain as the service reads it from the
 * deployment file (written to `dir`), its node at `rpcUrl` (default the devnet's own, through
 * `client`), gas at 1 wei, no stablecoins.
 */
export function devnetPlanContext(
  net: RoutingDevnet,
  params: { dir: string; graph: RoutingGraph; client?: PublicClient; rpcUrl?: string },
): PlanRouteContext {
  const file = join(params.dir, "deployment.json");
  if (!existsSync(file)) writeDeployment(net.deployment, file);
  const [chain] = indexedChains({
    DEVNET_DEPLOYMENT: file,
    RPC_URL: params.rpcUrl ?? net.anvil.url,
  });
  if (!chain) throw new Error("the devnet deployment did not give a chain");
  const client = params.client ?? net.client;
  return {
    chain,
    client,
    graph: params.graph,
    slots: new TokenSlotFinder(client),
    gasPriceWei: 1n,
    stablecoins: [],
  };
}
