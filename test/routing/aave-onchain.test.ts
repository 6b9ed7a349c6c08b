/**
 * The engine's Aave V3 amounts against the real Pool and AToken on a fresh devnet, to the wei:
 * supplies of random amounts at random times after the reserve's last update (the liquidity
 * index accrued by Aave's linear interest, its ray rounding) mint exactly the aTokens
 * `aaveSupplyOut` says to a fresh holder, and withdrawals pay exactly what they burn.
 */
import fc from "fast-check";
import { type Address, createTestClient, erc20Abi, http, maxUint256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AaveV3PoolAbi } from "../../abis/AaveV3Pool.js";
import type { AaveV3Deployment } from "../../devnet/deployment.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { aaveNormalizedIncome, aaveSupplyOut } from "../../engine/protocols/aave-v3/math.js";
import { type RoutingDevnet, startRoutingDevnet } from "./devnet.js";

let net: RoutingDevnet;
let aave: AaveV3Deployment;

async function balanceOf(token: Address, account: Address): Promise<bigint> {
  return await net.client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [account],
  });
}

/** Sends a pool call from the deployer in a block `seconds` after the head's, and waits for it. */
async function poolCall(
  seconds: bigint,
  functionName: "supply" | "withdraw",
  args: readonly unknown[],
): Promise<bigint> {
  const test = createTestClient({ mode: "anvil", transport: http(net.anvil.url) });
  const { timestamp } = await net.client.getBlock();
  const at = timestamp + seconds;
  await test.setNextBlockTimestamp({ timestamp: at });
  const hash = await net.wallet.writeContract({
    address: aave.pool,
    abi: AaveV3PoolAbi,
    functionName,
    args,
    account: net.wallet.account ?? null,
    chain: net.wallet.chain,
    gas: 1_000_000n,
  } as never);
  const receipt = await devnetReceipt(net.client, hash);
  if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
  return at;
}

beforeAll(async () => {
  net = await startRoutingDevnet({ positions: 0 });
  if (!net.deployment.aaveV3) throw new Error("the devnet has no Aave V3");
  aave = net.deployment.aaveV3;
  for (const r of aave.reserves) {
    await net.send({
      address: r.asset,
      abi: erc20Abi,
      functionName: "approve",
      args: [aave.pool, maxUint256],
    });
  }
}, 240_000);

afterAll(async () => {
  await net?.stop();
});

describe("Aave V3 amounts against the chain", () => {
  it("a supply mints exactly aaveSupplyOut's aTokens to a fresh holder, at any time since the last update (seed 51)", async () => {
    let holder = 0x5000;
    let accrued = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 400 * 24 * 3600 }),
        async (i, size, seconds) => {
          const reserve = aave.reserves[
            i % aave.reserves.length
          ] as AaveV3Deployment["reserves"][number];
          const data = await net.client.readContract({
            address: aave.pool,
            abi: AaveV3PoolAbi,
            functionName: "getReserveData",
            args: [reserve.asset],
          });
          const held = await balanceOf(reserve.asset, net.deployment.deployer);
          // From 1 unit to a thousandth of what the deployer holds, log-uniform.
          const amount =
            BigInt(Math.floor(10 ** ((size / 1_000_000) * Math.log10(Number(held / 1000n))))) + 1n;
          const onBehalfOf = `0x${(++holder).toString(16).padStart(40, "0")}` as Address;
          const at = await poolCall(BigInt(seconds), "supply", [
            reserve.asset,
            amount,
            onBehalfOf,
            0,
          ]);
          const state = {
            liquidityIndex: data.liquidityIndex,
            liquidityRate: data.currentLiquidityRate,
            lastUpdateTimestamp: BigInt(data.lastUpdateTimestamp),
          };
          if (aaveNormalizedIncome(state, at) !== state.liquidityIndex) accrued++;
          expect(await balanceOf(reserve.aToken, onBehalfOf)).toBe(
            aaveSupplyOut(state, amount, at),
          );
        },
      ),
      { numRuns: 40, seed: 51 },
    );
    // Most supplies came after interest accrued on a reserve with a positive rate.
    expect(accrued).toBeGreaterThan(30);
  }, 240_000);

  it("a withdrawal pays exactly the amount asked (seed 52)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.integer({ min: 1, max: 1_000_000 }), async (i, share) => {
        const reserve = aave.reserves[
          i % aave.reserves.length
        ] as AaveV3Deployment["reserves"][number];
        const deployer = net.deployment.deployer;
        const aTokens = await balanceOf(reserve.aToken, deployer);
        const amount = (aTokens * BigInt(share)) / 10_000_000n + 1n;
        const to = "0x0000000000000000000000000000000000005eed" as Address;
        const before = await balanceOf(reserve.asset, to);
        await poolCall(12n, "withdraw", [reserve.asset, amount, to]);
        expect((await balanceOf(reserve.asset, to)) - before).toBe(amount);
      }),
      { numRuns: 20, seed: 52 },
    );
  }, 240_000);
});
