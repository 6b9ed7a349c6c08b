import { type Address, decodeFunctionResult, encodeFunctionData, getAddress, type Hex } from "viem";
import { AaveV3PoolAbi } from "../../../abis/AaveV3Pool.js";
import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import type { AccountCheck, Protocol } from "../types.js";
import { aaveV3Actions } from "./actions.js";
import { aaveV3Pool } from "./pool.js";

export const aaveV3: Protocol = {
  slug: "aave-v3",
  url: "https://app.aave.com",
  project: {
    title: "Aave V3",
    description:
      "Lending pool: supplied assets earn interest as aTokens (position tokens that grow with the liquidity index) and back variable-rate borrows.",
    url: "https://app.aave.com",
    twitter: "@aave",
    category: "Lending",
  },
  forks: [],
  poolSource: "aaveReserve",
  supports: (chain) => chain.aaveV3 !== undefined,
  poolKind: aaveV3Pool,
  actions: aaveV3Actions,
  accountChecks: (actions, account) => {
    // Aave refuses a borrow or withdrawal that would itself break the position, but not a
    // bundle that leaves an already unsafe one unsafe (after a price move, say).
    const pools = new Set(
      actions.map((a) => String(a.args.primaryAddress).toLowerCase() as Address),
    );
    return [...pools].map((pool) => healthCheck(pool, account));
  },
  methods: [
    {
      method: "deposit",
      name: "Supply",
      functionNames: ["supply"],
      inputs: {
        primaryAddress: "Aave Pool address",
        tokenIn: "Asset to supply",
        tokenOut: "Its aToken (optional)",
        amountIn: AMOUNT_DESCRIPTION,
        receiver: "Who receives the aTokens (optional; default the executing account)",
      },
      outputs: { amountOut: "aTokens received" },
    },
    {
      method: "withdraw",
      name: "Withdraw",
      functionNames: ["withdraw"],
      inputs: {
        primaryAddress: "Aave Pool address",
        tokenIn: "aToken to burn",
        tokenOut: "Its asset",
        amountIn: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "Asset withdrawn" },
    },
    {
      method: "borrow",
      name: "Borrow",
      functionNames: ["borrow"],
      inputs: {
        primaryAddress: "Aave Pool address",
        tokenOut:
          "Asset to borrow (variable rate, against the executing account's collateral; routingStrategy delegate or corewallet)",
        amountOut: AMOUNT_DESCRIPTION,
      },
      outputs: { amountOut: "Amount borrowed" },
    },
    {
      method: "repay",
      name: "Repay",
      functionNames: ["repay"],
      inputs: {
        primaryAddress: "Aave Pool address",
        tokenIn: "Asset to repay",
        amountIn: AMOUNT_DESCRIPTION,
        onBehalfOf: "Whose variable debt (optional; default the caller)",
      },
      outputs: { amountOut: "Amount repaid" },
    },
  ],
};

/** A health factor of 1 (wad): below it, anyone may liquidate the account. */
const ONE = 10n ** 18n;

/**
 * Refuses a bundle that leaves `account` with a health factor below 1 on `pool`
 * (`getUserAccountData`, after the simulated transaction).
 */
function healthCheck(pool: Address, account: Address): AccountCheck {
  return {
    to: pool,
    data: encodeFunctionData({
      abi: AaveV3PoolAbi,
      functionName: "getUserAccountData",
      args: [account],
    }),
    refuse: (returnData: Hex) => {
      const [, totalDebtBase, , , , healthFactor] = decodeFunctionResult({
        abi: AaveV3PoolAbi,
        functionName: "getUserAccountData",
        data: returnData,
      });
      if (totalDebtBase === 0n || healthFactor >= ONE) return undefined;
      const shown = (Number(healthFactor / 10n ** 12n) / 1e6).toFixed(6);
      return `The bundle would leave ${getAddress(account)} with an Aave V3 health factor of ${shown} on pool ${getAddress(pool)} (below 1: the position could be liquidated). Borrow less or supply more collateral.`;
    },
  };
}
