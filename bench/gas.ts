/**
 * Gas of the execution layer next to the same actions done directly with Uniswap's own
 * periphery and the vault, on a fresh anvil with the test world. Every measurement starts from
 * the same snapshot, with approvals already in place and non-zero balances on both sides, so
 * the numbers differ only by the path taken. Writes bench/results/gas.md.
 *
 * Run: npx tsx bench/gas.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Address, encodeFunctionData, type Hex, maxUint256, parseUnits } from "viem";
import { DevVaultAbi } from "../abis/generated/DevVault.js";
import { SwapRouterAbi } from "../abis/SwapRouter.js";
import { UniswapV2Router02Abi } from "../abis/UniswapV2Router02.js";
import { buildContracts } from "../contracts/build.js";
import { predictCoreWalletAddress } from "../src/api/bundling/coreWalletAddress.js";
import {
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterSwapTx,
} from "../src/api/bundling/encode.js";
import { addBalanceSnapshot, addMinAmountOutCheck } from "../src/api/bundling/executionSteps.js";
import { type PlannedProgram, ProgramPlanner } from "../src/api/bundling/planner.js";
import {
  addErc4626Deposit,
  addExecutorUniswapV2Swap,
  addUniswapV3PoolSwap,
  addUniswapV3RouterSwap,
} from "../src/api/bundling/protocolSteps.js";
import { previewDeposit, quoteV2, quoteV3 } from "../test/execution/quotes.js";
import { deployExecutionWorld, type ExecutionWorld, type Wallet } from "../test/execution/world.js";
import { startTestAnvil } from "../test/harness/anvil.js";

/** The overhead the router path may add to the direct path. */
const OVERHEAD_BAR = 35_000n;

type Tx = {
  to: Address;
  data: Hex;
  authorizationList?: Awaited<ReturnType<Wallet["signAuthorization"]>>[];
};

async function gasOf(world: ExecutionWorld, from: Wallet, txs: Tx[]): Promise<bigint> {
  const snapshot = await world.test.snapshot();
  let total = 0n;
  for (const tx of txs) {
    // Each transaction in a new block 12 s later, so pool oracles update as they would on a
    // live chain (and not depending on whether the wall clock ticked between blocks).
    const { timestamp } = await world.client.getBlock();
    await world.test.setNextBlockTimestamp({ timestamp: timestamp + 12n });
    const hash = await from.sendTransaction({ ...tx, gas: 3_000_000n });
    const receipt = await world.client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (receipt.status !== "success") throw new Error(`benchmark transaction to ${tx.to} reverted`);
    total += receipt.gasUsed;
  }
  await world.test.revert({ id: snapshot });
  return total;
}

async function setUp(world: ExecutionWorld): Promise<void> {
  const { user } = world.accounts;
  const approvals: [Address, Address][] = [
    [world.tokens.A.address, world.execution.router],
    [world.tokens.A.address, world.uniswapV2.router02],
    [world.tokens.A.address, world.uniswapV3.swapRouter],
    [world.tokens.B.address, world.vaults.B],
  ];
  for (const [token, spender] of approvals) {
    const hash = await user.writeContract({
      address: token,
      abi: DevVaultAbi,
      functionName: "approve",
      args: [spender, maxUint256],
    });
    await world.client.waitForTransactionReceipt({ hash });
  }
  // The user holds vault shares already, like the token balances, and the pools have traded
  // before (oracle slots written), so no path pays for a first-time storage slot.
  const warmUps = [
    {
      to: world.vaults.B,
      data: encodeFunctionData({
        abi: DevVaultAbi,
        functionName: "deposit",
        args: [parseUnits("10", 6), user.account.address],
      }),
    },
    {
      to: world.uniswapV2.router02,
      data: encodeFunctionData({
        abi: UniswapV2Router02Abi,
        functionName: "swapExactTokensForTokens",
        args: [
          parseUnits("1", 18),
          0n,
          [world.tokens.A.address, world.tokens.B.address],
          user.account.address,
          maxUint256,
        ],
      }),
    },
    {
      to: world.uniswapV3.swapRouter,
      data: encodeFunctionData({
        abi: SwapRouterAbi,
        functionName: "exactInputSingle",
        args: [
          {
            tokenIn: world.tokens.A.address,
            tokenOut: world.tokens.B.address,
            fee: 3000,
            recipient: user.account.address,
            deadline: maxUint256,
            amountIn: parseUnits("1", 18),
            amountOutMinimum: 0n,
            sqrtPriceLimitX96: 0n,
          },
        ],
      }),
    },
  ];
  for (const tx of warmUps) {
    const { timestamp } = await world.client.getBlock();
    await world.test.setNextBlockTimestamp({ timestamp: timestamp + 12n });
    const hash = await user.sendTransaction({ ...tx, gas: 3_000_000n });
    const receipt = await world.client.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error("warm-up transaction reverted");
  }
}

async function main(): Promise<void> {
  buildContracts();
  const anvil = await startTestAnvil();
  try {
    const world = await deployExecutionWorld(anvil.url);
    await setUp(world);
    const { user, delegator } = world.accounts;
    const me = user.account.address;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("100", 18);
    const deadline = maxUint256;
    const router = (tokenOut: Address, minAmountOut: bigint, program: PlannedProgram): Tx =>
      encodeRouterSwapTx({
        router: world.execution.router,
        from: me,
        tokenIn: A.address,
        amountIn,
        tokenOut,
        minAmountOut,
        receiver: me,
        program,
      });

    // 1. One Uniswap V2 swap.
    const v2Out = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, amountIn);
    const v2Direct: Tx = {
      to: world.uniswapV2.router02,
      data: encodeFunctionData({
        abi: UniswapV2Router02Abi,
        functionName: "swapExactTokensForTokens",
        args: [amountIn, v2Out, [A.address, B.address], me, deadline],
      }),
    };
    const v2Program = new ProgramPlanner();
    addExecutorUniswapV2Swap(v2Program, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn,
      recipient: me,
      executor: world.execution.executor,
    });

    // 2. One Uniswap V3 swap.
    const v3Out = await quoteV3(world, world.uniswapV3.pools.AB, A.address, amountIn);
    const v3Direct = (amountOutMinimum: bigint): Tx => ({
      to: world.uniswapV3.swapRouter,
      data: encodeFunctionData({
        abi: SwapRouterAbi,
        functionName: "exactInputSingle",
        args: [
          {
            tokenIn: A.address,
            tokenOut: B.address,
            fee: 3000,
            recipient: me,
            deadline,
            amountIn,
            amountOutMinimum,
            sqrtPriceLimitX96: 0n,
          },
        ],
      }),
    });
    const v3Program = new ProgramPlanner();
    addUniswapV3PoolSwap(v3Program, {
      pool: world.uniswapV3.pools.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      fee: 3000,
      amountIn,
      recipient: me,
      executor: world.execution.executor,
      amountOut: false,
    });

    // 3. V2 swap, then deposit of the output into an ERC4626 vault.
    const shares = await previewDeposit(world, world.vaults.B, v2Out);
    const depositDirect: Tx = {
      to: world.vaults.B,
      data: encodeFunctionData({ abi: DevVaultAbi, functionName: "deposit", args: [v2Out, me] }),
    };
    const swapDepositProgram = new ProgramPlanner();
    const swapped = addExecutorUniswapV2Swap(swapDepositProgram, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn,
      recipient: world.execution.executor,
      executor: world.execution.executor,
    });
    addErc4626Deposit(swapDepositProgram, {
      vault: world.vaults.B,
      asset: B.address,
      assets: swapped,
      receiver: me,
    });

    const rows: { action: string; direct: bigint; ours: bigint; path: string; checked: boolean }[] =
      [
        {
          action: "Uniswap V2 swap",
          direct: await gasOf(world, user, [v2Direct]),
          ours: await gasOf(world, user, [router(B.address, v2Out, v2Program.plan())]),
          path: "router",
          checked: true,
        },
        {
          action: "Uniswap V3 swap",
          direct: await gasOf(world, user, [v3Direct(v3Out)]),
          ours: await gasOf(world, user, [router(B.address, v3Out, v3Program.plan())]),
          path: "router",
          checked: true,
        },
        {
          action: "V2 swap + ERC4626 deposit",
          direct: await gasOf(world, user, [v2Direct, depositDirect]),
          ours: await gasOf(world, user, [
            router(world.vaults.B, shares, swapDepositProgram.plan()),
          ]),
          path: "router",
          checked: true,
        },
      ];

    // For information: the same V3 swap as a corewallet and as an EIP-7702 delegate program
    // (SwapRouter with exact approval and reset, plus the in-program minimum check).
    const guarded = (account: Address, minAmountOut: bigint): PlannedProgram => {
      const planner = new ProgramPlanner();
      const minAmountOutCheck = world.execution.minAmountOutCheck;
      const before = addBalanceSnapshot(planner, { minAmountOutCheck, token: B.address, account });
      addUniswapV3RouterSwap(planner, {
        swapRouter: world.uniswapV3.swapRouter,
        tokenIn: A.address,
        tokenOut: B.address,
        fee: 3000,
        amountIn,
        recipient: account,
      });
      addMinAmountOutCheck(planner, {
        minAmountOutCheck,
        token: B.address,
        account,
        balanceBefore: before,
        minAmountOut,
      });
      return planner.plan();
    };
    const wallet = predictCoreWalletAddress({
      factory: world.execution.walletFactory,
      implementation: world.execution.walletImplementation,
      owner: me,
    });
    const approveWallet = await user.writeContract({
      address: A.address,
      abi: DevVaultAbi,
      functionName: "approve",
      args: [wallet, maxUint256],
    });
    await world.client.waitForTransactionReceipt({ hash: approveWallet });
    const walletTx = (minAmountOut: bigint, deployedWallet?: Address): Tx =>
      encodeCoreWalletTx({
        walletFactory: world.execution.walletFactory,
        from: me,
        tokenIn: A.address,
        amountIn,
        program: guarded(me, minAmountOut),
        deployedWallet,
      });
    const firstWalletGas = await gasOf(world, user, [walletTx(v3Out)]);
    const firstDirectGas = await gasOf(world, user, [v3Direct(v3Out)]);
    // Keep the wallet deployed (and its balances warm) for the steady-state measurement.
    const deployHash = await user.sendTransaction({ ...walletTx(v3Out), gas: 3_000_000n });
    await world.client.waitForTransactionReceipt({ hash: deployHash });
    const authorization = await delegator.signAuthorization({
      contractAddress: world.execution.delegateExecutor,
      executor: "self",
    });
    const install = encodeDelegateTx({
      from: delegator.account.address,
      program: { commands: [], state: [] },
    });
    const installHash = await delegator.sendTransaction({
      ...install,
      authorizationList: [authorization],
      gas: 3_000_000n,
    });
    await world.client.waitForTransactionReceipt({ hash: installHash });
    // The wallet deployment above swapped on the pool: quote again.
    const v3Later = await quoteV3(world, world.uniswapV3.pools.AB, A.address, amountIn);
    const delegateTx = encodeDelegateTx({
      from: delegator.account.address,
      program: guarded(delegator.account.address, v3Later),
    });
    rows.push(
      {
        action: "Uniswap V3 swap",
        direct: await gasOf(world, user, [v3Direct(v3Later)]),
        ours: await gasOf(world, user, [walletTx(v3Later, wallet)]),
        path: "corewallet (deployed)",
        checked: false,
      },
      {
        action: "Uniswap V3 swap",
        direct: firstDirectGas,
        ours: firstWalletGas,
        path: "corewallet (deploy + execute)",
        checked: false,
      },
      {
        action: "Uniswap V3 swap (approve + swap)",
        direct: await gasOf(world, delegator, [
          {
            to: world.tokens.A.address,
            data: encodeFunctionData({
              abi: DevVaultAbi,
              functionName: "approve",
              args: [world.uniswapV3.swapRouter, amountIn],
            }),
          },
          v3Direct(v3Later),
        ]),
        ours: await gasOf(world, delegator, [delegateTx]),
        path: "delegate (EIP-7702)",
        checked: false,
      },
    );

    const lines = [
      "# Gas: execution layer vs direct calls",
      "",
      "Reproduce with `npx tsx bench/gas.ts` (fresh anvil, prague hardfork; contracts compiled",
      "with solc 0.8.28, optimizer 1,000 runs, evm cancun). Gas is `gasUsed` of the mined",
      "transactions (refunds applied). Each row starts from the same state: approvals in place,",
      "non-zero balances for every account touched, pools that traded before; every transaction",
      "is mined 12 s after the previous block (pool oracles update). 100 A in.",
      "",
      "- Direct V2: `UniswapV2Router02.swapExactTokensForTokens`; direct V3:",
      "  `SwapRouter.exactInputSingle`; direct swap + deposit: that V2 swap and `vault.deposit` as",
      "  two transactions (two 21,000 intrinsic costs).",
      "- Router: `ShortcutRouter.swap` with the program run by its executor (V2: the executor's",
      "  one-command `uniswapV2Swap` — transfer to the pair, output from its reserves, `pair.swap`;",
      "  V3: `pool.swap` paid from the executor's callback; deposit: exact `approve` + `deposit`),",
      "  including the fee logic, the receiver balance check and the executor-empty checks.",
      "- Wallet rows (information, not under the bar): SwapRouter with exact approval and reset,",
      "  plus the in-program minimum-output check; the delegate row's direct column is an",
      "  approve transaction plus the swap transaction.",
      "",
      `Bar: router overhead ≤ ${OVERHEAD_BAR.toLocaleString("en-US")} gas.`,
      "",
      "| action | path | direct | ours | overhead | within bar |",
      "|---|---|---:|---:|---:|---|",
      ...rows.map((r) => {
        const overhead = r.ours - r.direct;
        const verdict = r.checked ? (overhead <= OVERHEAD_BAR ? "yes" : "**no**") : "n/a";
        return `| ${r.action} | ${r.path} | ${fmt(r.direct)} | ${fmt(r.ours)} | ${overhead >= 0n ? "+" : ""}${fmt(overhead)} | ${verdict} |`;
      }),
      "",
    ];
    const text = lines.join("\n");
    const out = join(dirname(fileURLToPath(import.meta.url)), "results", "gas.md");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
    console.log(text);
    const failed = rows.filter((r) => r.checked && r.ours - r.direct > OVERHEAD_BAR);
    if (failed.length > 0) process.exitCode = 1;
  } finally {
    await anvil.stop();
  }
}

function fmt(n: bigint): string {
  return n.toLocaleString("en-US");
}

await main();
