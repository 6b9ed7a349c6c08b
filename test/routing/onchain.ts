/** The chain's own answers, for comparing the engine with: Router02, QuoterV2, vault previews. */
import { type Address, encodePacked, erc20Abi, type PublicClient } from "viem";
import { AaveV3PoolAbi } from "../../abis/AaveV3Pool.js";
import { DevVaultAbi } from "../../abis/generated/DevVault.js";
import { QuoterV2Abi } from "../../abis/QuoterV2.js";
import { UniswapV2Router02Abi } from "../../abis/UniswapV2Router02.js";
import { V4QuoterAbi } from "../../abis/V4Quoter.js";
import type { Deployment } from "../../devnet/deployment.js";
import type { Edge, QuotedHop, V4Pool } from "../../engine/core/types.js";
import { MAX_SQRT_RATIO, MIN_SQRT_RATIO } from "../../engine/math/tick-math.js";
import { rayDiv, rayMul } from "../../engine/protocols/aave-v3/math.js";
import { uniswapV4PoolKey } from "../../engine/protocols/uniswap-v4/pool.js";
import { queryVaultExactIn, queryWeightedJoinExit } from "../protocols/balancer-v2-chain.js";

/** `account`'s balance of the ERC-20 `token`. */
export async function erc20Balance(
  client: PublicClient,
  token: Address,
  account: Address,
): Promise<bigint> {
  return await client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [account],
  });
}

/** Router02.getAmountsOut's last amount along `path` (token addresses). */
export async function router02AmountOut(
  client: PublicClient,
  deployment: Deployment,
  amountIn: bigint,
  path: readonly Address[],
): Promise<bigint> {
  const amounts = await client.readContract({
    address: deployment.uniswapV2.router02,
    abi: UniswapV2Router02Abi,
    functionName: "getAmountsOut",
    args: [amountIn, [...path]],
  });
  return amounts[amounts.length - 1] as bigint;
}

/** QuoterV2.quoteExactInputSingle with no price limit. */
export async function quoterV2Single(
  client: PublicClient,
  deployment: Deployment,
  params: { tokenIn: Address; tokenOut: Address; fee: number; amountIn: bigint },
  protocol = "uniswap-v3",
): Promise<{ amountOut: bigint; sqrtPriceX96After: bigint; ticksCrossed: number }> {
  const { result } = await client.simulateContract({
    address: v3QuoterOf(deployment, protocol),
    abi: QuoterV2Abi,
    functionName: "quoteExactInputSingle",
    args: [{ ...params, sqrtPriceLimitX96: 0n }],
  });
  return { amountOut: result[0], sqrtPriceX96After: result[1], ticksCrossed: result[2] };
}

/**
 * Whether a QuoterV2 quote stopped at the swap's price limit: the pool ran out of liquidity with
 * input left, and the quote is of a partial fill, which no exact-input swap of the whole amount
 * delivers (the router's swap reverts unless the pool took all of it).
 */
function stoppedAtLimit(sqrtPriceX96After: bigint): boolean {
  return sqrtPriceX96After === MIN_SQRT_RATIO + 1n || sqrtPriceX96After === MAX_SQRT_RATIO - 1n;
}

/** The QuoterV2 of Uniswap V3 (`uniswap-v3`) or of one of the devnet's forks of it. */
export function v3QuoterOf(deployment: Deployment, protocol: string): Address {
  if (protocol === "uniswap-v3") return deployment.uniswapV3.quoterV2;
  const fork = deployment.uniswapV3Forks?.find((f) => f.slug === protocol);
  if (!fork) throw new Error(`no ${protocol} QuoterV2 on the devnet`);
  return fork.quoterV2;
}

/**
 * QuoterV2.quoteExactInput along V3 `edges` (a multi-pool path), all of one protocol (Uniswap's
 * or one fork's: its own quoter).
 */
export async function quoterV2Path(
  client: PublicClient,
  deployment: Deployment,
  edges: readonly Edge[],
  amountIn: bigint,
): Promise<bigint> {
  const types: ("address" | "uint24")[] = ["address"];
  const values: (Address | number)[] = [(edges[0] as Edge).tokenIn];
  const protocol = (edges[0] as Edge).pool.protocol;
  for (const edge of edges) {
    if (edge.pool.kind !== "v3") throw new Error("not a V3 path");
    if (edge.pool.protocol !== protocol) throw new Error("a V3 path of several protocols");
    types.push("uint24", "address");
    values.push(edge.pool.feePpm, edge.tokenOut);
  }
  const { result } = await client.simulateContract({
    address: v3QuoterOf(deployment, protocol),
    abi: QuoterV2Abi,
    functionName: "quoteExactInput",
    args: [encodePacked(types, values), amountIn],
  });
  // A hop that ran out of liquidity passed on a partial fill: the path cannot take the amount.
  if (result[1].some(stoppedAtLimit)) throw new Error("a pool of the path cannot fill the amount");
  return result[0];
}

export async function vaultPreview(
  client: PublicClient,
  vault: Address,
  action: "deposit" | "redeem",
  amount: bigint,
): Promise<bigint> {
  return await client.readContract({
    address: vault,
    abi: DevVaultAbi,
    functionName: action === "deposit" ? "previewDeposit" : "previewRedeem",
    args: [amount],
  });
}

/**
 * What the chain says one quoted hop yields for the hop's own input. A weighted Balancer pool's
 * join or exit is quoted by Balancer's helpers (`queryJoin`, `queryExit`), which the devnet world
 * does not deploy: `balancerHelpers` names one on the vault.
 */
export async function chainHopOut(
  client: PublicClient,
  deployment: Deployment,
  hop: QuotedHop,
  balancerHelpers?: Address,
): Promise<bigint> {
  const { edge, amountIn } = hop;
  switch (edge.pool.kind) {
    case "v2":
      return await router02AmountOut(client, deployment, amountIn, [edge.tokenIn, edge.tokenOut]);
    case "v3": {
      const quote = await quoterV2Single(
        client,
        deployment,
        { tokenIn: edge.tokenIn, tokenOut: edge.tokenOut, fee: edge.pool.feePpm, amountIn },
        edge.pool.protocol,
      );
      if (stoppedAtLimit(quote.sqrtPriceX96After)) {
        throw new Error("the pool cannot fill the amount");
      }
      return quote.amountOut;
    }
    case "erc4626":
      return await vaultPreview(
        client,
        edge.pool.address,
        edge.action === "deposit" ? "deposit" : "redeem",
        amountIn,
      );
    case "v4":
      return await v4QuoterSingle(client, deployment, edge.pool, edge.tokenIn, amountIn);
    case "aave-v3": {
      // Aave has no preview: the pool's own normalized income at the head block, Aave's rounding
      // of a fresh holder's aTokens; a withdrawal pays what it burns.
      if (edge.action === "redeem") return amountIn;
      const index = await client.readContract({
        address: edge.pool.pool,
        abi: AaveV3PoolAbi,
        functionName: "getReserveNormalizedIncome",
        args: [edge.pool.asset],
      });
      return rayMul(rayDiv(amountIn, index), index);
    }
    case "wrap":
      return amountIn;
    case "balancer-v2":
      if (edge.pool.type === "weighted" && edge.action !== "swap") {
        if (!balancerHelpers)
          throw new Error("a weighted pool's join or exit needs balancerHelpers");
        const { address, poolId, state } = edge.pool;
        const pool = { address, poolId, tokens: [...state.tokens] };
        const step = { pool, tokenIn: edge.tokenIn, tokenOut: edge.tokenOut, amountIn };
        return (await queryWeightedJoinExit(client, balancerHelpers, step)).amountOut;
      }
      // The vault's own quote: queryBatchSwap of the one GIVEN_IN step.
      return (
        await queryVaultExactIn(client, edge.pool.vault, {
          pool: edge.pool,
          tokenIn: edge.tokenIn,
          tokenOut: edge.tokenOut,
          amountIn,
        })
      ).amountOut;
    default:
      throw new Error(`no chain quote for pools of kind ${edge.pool.kind}`);
  }
}

/** V4Quoter.quoteExactInputSingle of the pool (through eth_call: the quoter reverts to answer). */
export async function v4QuoterSingle(
  client: PublicClient,
  deployment: Deployment,
  pool: V4Pool,
  tokenIn: Address,
  amountIn: bigint,
): Promise<bigint> {
  const v4 = deployment.uniswapV4;
  if (!v4) throw new Error("the devnet has no Uniswap V4");
  const { result } = await client.simulateContract({
    address: v4.quoter,
    abi: V4QuoterAbi,
    functionName: "quoteExactInputSingle",
    args: [
      {
        poolKey: uniswapV4PoolKey(pool),
        zeroForOne: tokenIn === pool.token0,
        exactAmount: amountIn,
        hookData: "0x",
      },
    ],
  });
  return result[0];
}
