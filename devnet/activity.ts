/**
 * Activity generator for demos and freshness tests: keeps making V2, V3 and V4 swaps, V3 position
 * mints and burns, V4 liquidity additions and removals, vault deposits and redeems, vault yield,
 * and Aave V3 supplies, variable-rate borrows, repayments and withdrawals on the devnet world.
 * Every Aave action first accrues its reserve's indexes to the block's timestamp, which anvil
 * takes from the wall clock: the indexes move as the generator runs (no time is skipped, so the
 * chain's clock stays the real one).
 *
 * `npm run devnet:activity` (reads the deployment file; `RPC_URL`, `ACTIVITY_INTERVAL_MS`)
 * or `npm start -- --activity`.
 */

import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
  padHex,
  parseEventLogs,
  toHex,
  type WalletClient,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { AaveV3PoolAbi } from "../abis/AaveV3Pool.js";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { DevVaultAbi } from "../abis/generated/DevVault.js";
import { V4LiquidityHelperAbi } from "../abis/generated/V4LiquidityHelper.js";
import { V4SwapHelperAbi } from "../abis/generated/V4SwapHelper.js";
import { NonfungiblePositionManagerAbi } from "../abis/NonfungiblePositionManager.js";
import { StateViewAbi } from "../abis/StateView.js";
import { SwapRouterAbi } from "../abis/SwapRouter.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { UniswapV2Router02Abi } from "../abis/UniswapV2Router02.js";
import { UniswapV3PoolAbi } from "../abis/UniswapV3Pool.js";
import { readConfig } from "../config.js";
import { getSqrtRatioAtTick } from "../engine/index.js";
import { AAVE_VARIABLE_RATE_MODE } from "./aave-v3.js";
import { DEVNET_DEPLOYER_KEY } from "./anvil.js";
import { type Deployment, readDeployment } from "./deployment.js";
import { mulberry32 } from "./random.js";
import { devnetReceipt } from "./receipts.js";
import { liquidityForAmounts } from "./uniswap-v4.js";
import { amountForUsd, chainOf, YIELD_VAULT_SYMBOL } from "./world.js";

export type ActivityKind =
  | "v2Swap"
  | "v3Swap"
  | "v3Mint"
  | "v3Burn"
  | "v4Swap"
  | "v4AddLiquidity"
  | "v4RemoveLiquidity"
  | "vaultDeposit"
  | "vaultRedeem"
  | "vaultYield"
  | "aaveSupply"
  | "aaveBorrow"
  | "aaveRepay"
  | "aaveWithdraw";
// New kinds go last: the first steps of a run cycle through this list in order, so that the
// actions an existing seed starts with stay the same.
const KINDS: ActivityKind[] = [
  "v2Swap",
  "v3Swap",
  "v3Mint",
  "v3Burn",
  "v4Swap",
  "v4AddLiquidity",
  "v4RemoveLiquidity",
  "vaultDeposit",
  "vaultRedeem",
  "vaultYield",
  "aaveSupply",
  "aaveBorrow",
  "aaveRepay",
  "aaveWithdraw",
];

export type ActivityParameters = {
  rpcUrl: string;
  deployment: Deployment;
  /** Number of actions; unbounded when omitted (until `signal` aborts). */
  steps?: number;
  intervalMs?: number;
  seed?: number;
  signal?: AbortSignal;
  onAction?: (kind: ActivityKind, blockNumber: bigint) => void;
};

/** Runs the generator; each action is one mined transaction from the deployer account. */
export async function runActivity(
  params: ActivityParameters,
): Promise<Record<ActivityKind, number>> {
  const d = params.deployment;
  const chain = await chainOf(params.rpcUrl);
  const client = createPublicClient({ chain, transport: http(params.rpcUrl) }) as PublicClient;
  const wallet: WalletClient = createWalletClient({
    chain,
    transport: http(params.rpcUrl),
    account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
  });
  const me = wallet.account?.address as Address;
  const random = mulberry32(params.seed ?? 42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const priced = (address: Address) => {
    // Native ether (a V4 currency) at WETH's price.
    const lookup = address === zeroAddress ? d.weth : address;
    const t = d.tokens.find((x) => x.address.toLowerCase() === lookup.toLowerCase());
    if (!t) throw new Error(`unknown token ${address}`);
    return t;
  };
  // eth_estimateGas can come out a little short of what the mined transaction needs (V3
  // burns and mints ran out of gas with gasUsed equal to the estimate): send with headroom.
  const gasFor = async (call: {
    address: Address;
    abi: readonly unknown[];
    functionName: string;
    args: unknown[];
    value?: bigint;
  }) => {
    const estimate = await client.estimateContractGas({ ...call, account: me } as never);
    return estimate + estimate / 4n;
  };
  const send = async (
    address: Address,
    abi: readonly unknown[],
    functionName: string,
    args: unknown[],
    value?: bigint,
  ) => {
    const hash = await wallet.writeContract({
      address,
      abi,
      functionName,
      args,
      value,
      gas: await gasFor({ address, abi, functionName, args, value }),
      account: wallet.account ?? null,
      chain,
    } as never);
    const receipt = await devnetReceipt(client as never, hash);
    if (receipt.status !== "success") throw new Error(`${functionName} reverted (tx ${hash})`);
    return receipt.blockNumber;
  };

  // One-time allowances from the deployer's inventory.
  const v4 = d.uniswapV4;
  for (const t of d.tokens) {
    for (const spender of [
      d.uniswapV2.router02,
      d.uniswapV3.swapRouter,
      d.uniswapV3.positionManager,
      ...(v4 ? [v4.swapHelper, v4.liquidityHelper] : []),
    ]) {
      await send(t.address, DevTokenAbi, "approve", [spender, maxUint256]);
    }
  }
  for (const v of d.vaults) {
    await send(v.asset, DevTokenAbi, "approve", [v.address, maxUint256]);
  }
  // Aave's pool pulls supplies and repayments.
  const aave = d.aaveV3;
  if (aave) {
    for (const r of aave.reserves) {
      await send(r.asset, DevTokenAbi, "approve", [aave.pool, maxUint256]);
    }
  }

  const minted: bigint[] = [];
  /** V4 positions this run added (the helper keys them by this account and the salt). */
  const added: {
    pool: V4Pool;
    tickLower: number;
    tickUpper: number;
    liquidity: bigint;
    salt: Hex;
  }[] = [];
  let salts = 0;
  const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<ActivityKind, number>;
  const usd = () => 100 + Math.floor(random() * 20_000);

  const actions: Record<ActivityKind, () => Promise<bigint | undefined>> = {
    v2Swap: async () => {
      const pair = pick(d.uniswapV2.pairs);
      const [t0, t1] = await Promise.all([
        client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token0" }),
        client.readContract({ address: pair, abi: UniswapV2PairAbi, functionName: "token1" }),
      ]);
      const [tokenIn, tokenOut] = random() < 0.5 ? [t0, t1] : [t1, t0];
      return await send(d.uniswapV2.router02, UniswapV2Router02Abi, "swapExactTokensForTokens", [
        amountForUsd(priced(tokenIn), usd()),
        0n,
        [tokenIn, tokenOut],
        me,
        maxUint256,
      ]);
    },
    v3Swap: async () => {
      const pool = pick(d.uniswapV3.pools);
      const [t0, t1, fee] = await Promise.all([
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token0" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token1" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "fee" }),
      ]);
      const [tokenIn, tokenOut] = random() < 0.5 ? [t0, t1] : [t1, t0];
      return await send(d.uniswapV3.swapRouter, SwapRouterAbi, "exactInputSingle", [
        {
          tokenIn,
          tokenOut,
          fee,
          recipient: me,
          deadline: maxUint256,
          amountIn: amountForUsd(priced(tokenIn), usd()),
          amountOutMinimum: 0n,
          sqrtPriceLimitX96: 0n,
        },
      ]);
    },
    v3Mint: async () => {
      const pool = pick(d.uniswapV3.pools);
      const [t0, t1, fee, spacing, slot0] = await Promise.all([
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token0" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "token1" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "fee" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "tickSpacing" }),
        client.readContract({ address: pool, abi: UniswapV3PoolAbi, functionName: "slot0" }),
      ]);
      const center = Math.floor(slot0[1] / spacing) * spacing;
      const lower = center - (1 + Math.floor(random() * 40)) * spacing;
      const upper = center + (1 + Math.floor(random() * 40)) * spacing;
      const value = usd();
      const args = [
        {
          token0: t0,
          token1: t1,
          fee,
          tickLower: lower,
          tickUpper: upper,
          amount0Desired: amountForUsd(priced(t0), value),
          amount1Desired: amountForUsd(priced(t1), value),
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: me,
          deadline: maxUint256,
        },
      ];
      const call = {
        address: d.uniswapV3.positionManager,
        abi: NonfungiblePositionManagerAbi,
        functionName: "mint",
        args,
      };
      const hash = await wallet.writeContract({
        ...call,
        gas: await gasFor(call),
        account: wallet.account ?? null,
        chain,
      } as never);
      const receipt = await devnetReceipt(client as never, hash);
      if (receipt.status !== "success") throw new Error(`mint reverted (tx ${hash})`);
      // The position's id, from the mint's own event.
      const [event] = parseEventLogs({
        abi: NonfungiblePositionManagerAbi,
        eventName: "IncreaseLiquidity",
        logs: receipt.logs,
      });
      if (event) minted.push(event.args.tokenId);
      return receipt.blockNumber;
    },
    v3Burn: async () => {
      const tokenId = minted.shift();
      if (tokenId === undefined) return undefined;
      const position = await client.readContract({
        address: d.uniswapV3.positionManager,
        abi: NonfungiblePositionManagerAbi,
        functionName: "positions",
        args: [tokenId],
      });
      return await send(
        d.uniswapV3.positionManager,
        NonfungiblePositionManagerAbi,
        "decreaseLiquidity",
        [{ tokenId, liquidity: position[7], amount0Min: 0n, amount1Min: 0n, deadline: maxUint256 }],
      );
    },
    v4Swap: async () => {
      if (!v4) return undefined;
      const pool = pick(v4.pools);
      const zeroForOne = random() < 0.5;
      const amountIn = amountForUsd(priced(zeroForOne ? pool.currency0 : pool.currency1), usd());
      const native = zeroForOne && pool.currency0 === zeroAddress;
      // Exact input: a negative amount specified.
      return await send(
        v4.swapHelper,
        V4SwapHelperAbi,
        "swap",
        [keyOf(pool), zeroForOne, -amountIn, 0n],
        native ? amountIn : undefined,
      );
    },
    v4AddLiquidity: async () => {
      if (!v4) return undefined;
      const pool = pick(v4.pools);
      const [sqrtPriceX96, tick] = await client.readContract({
        address: v4.stateView,
        abi: StateViewAbi,
        functionName: "getSlot0",
        args: [pool.id],
      });
      const spacing = pool.tickSpacing;
      const center = Math.floor(tick / spacing) * spacing;
      const tickLower = center - (1 + Math.floor(random() * 40)) * spacing;
      const tickUpper = center + (1 + Math.floor(random() * 40)) * spacing;
      const value = usd();
      const amount0 = amountForUsd(priced(pool.currency0), value);
      const liquidity = liquidityForAmounts(
        sqrtPriceX96,
        getSqrtRatioAtTick(tickLower),
        getSqrtRatioAtTick(tickUpper),
        amount0,
        amountForUsd(priced(pool.currency1), value),
      );
      const salt = padHex(toHex(++salts), { size: 32 });
      // Native ether is paid from the value sent: twice the amount the liquidity was sized on,
      // in case the price moves before the transaction is mined; the helper refunds the rest.
      const block = await send(
        v4.liquidityHelper,
        V4LiquidityHelperAbi,
        "modifyLiquidity",
        [keyOf(pool), tickLower, tickUpper, liquidity, salt],
        pool.currency0 === zeroAddress ? 2n * amount0 : undefined,
      );
      added.push({ pool, tickLower, tickUpper, liquidity, salt });
      return block;
    },
    v4RemoveLiquidity: async () => {
      if (!v4) return undefined;
      const position = added.shift();
      if (position === undefined) return undefined;
      return await send(v4.liquidityHelper, V4LiquidityHelperAbi, "modifyLiquidity", [
        keyOf(position.pool),
        position.tickLower,
        position.tickUpper,
        -position.liquidity,
        position.salt,
      ]);
    },
    vaultDeposit: async () => {
      const v = pick(d.vaults);
      return await send(v.address, DevVaultAbi, "deposit", [
        amountForUsd(priced(v.asset), usd()),
        me,
      ]);
    },
    vaultRedeem: async () => {
      const v = pick(d.vaults);
      const shares = await client.readContract({
        address: v.address,
        abi: DevVaultAbi,
        functionName: "balanceOf",
        args: [me],
      });
      return await send(v.address, DevVaultAbi, "redeem", [shares / 1000n, me, me]);
    },
    vaultYield: async () => {
      const v = d.vaults.find((x) => x.symbol === YIELD_VAULT_SYMBOL) ?? pick(d.vaults);
      return await send(v.asset, DevTokenAbi, "transfer", [
        v.address,
        amountForUsd(priced(v.asset), usd() / 10),
      ]);
    },
    // The deployer seeded every reserve with millions supplied and borrowed: a few thousand
    // dollars either way keep its position far from its limits.
    aaveSupply: async () => {
      if (!aave) return undefined;
      const r = pick(aave.reserves);
      return await send(aave.pool, AaveV3PoolAbi, "supply", [
        r.asset,
        amountForUsd(priced(r.asset), usd()),
        me,
        0,
      ]);
    },
    aaveBorrow: async () => {
      if (!aave) return undefined;
      const r = pick(aave.reserves);
      return await send(aave.pool, AaveV3PoolAbi, "borrow", [
        r.asset,
        amountForUsd(priced(r.asset), usd()),
        AAVE_VARIABLE_RATE_MODE,
        0,
        me,
      ]);
    },
    // Aave repays at most the debt, whatever the amount asked.
    aaveRepay: async () => {
      if (!aave) return undefined;
      const r = pick(aave.reserves);
      return await send(aave.pool, AaveV3PoolAbi, "repay", [
        r.asset,
        amountForUsd(priced(r.asset), usd()),
        AAVE_VARIABLE_RATE_MODE,
        me,
      ]);
    },
    aaveWithdraw: async () => {
      if (!aave) return undefined;
      const r = pick(aave.reserves);
      return await send(aave.pool, AaveV3PoolAbi, "withdraw", [
        r.asset,
        amountForUsd(priced(r.asset), usd()),
        me,
      ]);
    },
  };

  for (let i = 0; params.steps === undefined || i < params.steps; i++) {
    if (params.signal?.aborted) break;
    // Cycle through every kind first so a short run covers them all, then pick at random.
    const kind = i < KINDS.length ? (KINDS[i] as ActivityKind) : pick(KINDS);
    const block = await actions[kind]();
    if (block !== undefined) {
      counts[kind]++;
      params.onAction?.(kind, block);
    }
    if (params.intervalMs) await new Promise((r) => setTimeout(r, params.intervalMs));
  }
  return counts;
}

type V4Pool = NonNullable<Deployment["uniswapV4"]>["pools"][number];

function keyOf(pool: V4Pool) {
  return {
    currency0: pool.currency0,
    currency1: pool.currency1,
    fee: pool.fee,
    tickSpacing: pool.tickSpacing,
    hooks: pool.hooks,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const deployment = readDeployment();
  if (!deployment) {
    console.error(
      `No devnet deployment found; start the service first (npm start). Looked in ${resolve(dirname(fileURLToPath(import.meta.url)), "..")}`,
    );
    process.exit(1);
  }
  const controller = new AbortController();
  process.on("SIGINT", () => controller.abort());
  process.on("SIGTERM", () => controller.abort());
  const { devnet } = readConfig();
  await runActivity({
    rpcUrl: devnet.rpcUrl ?? "http://127.0.0.1:8545",
    deployment,
    intervalMs: devnet.activityIntervalMs,
    signal: controller.signal,
    onAction: (kind, block) => console.log(`[activity] ${kind} in block ${block}`),
  });
}
