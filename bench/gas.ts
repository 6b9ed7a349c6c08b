/**
 * Gas of the execution layer next to the same actions done directly with Uniswap's own
 * periphery and the vault, on a fresh anvil with the test world. Our side is the transaction
 * the API returns: a route found by `findRoute` over the row's pools read from the chain,
 * planned by `planRouteProgram` and encoded as `planRoute` does. Every measurement starts from
 * the same snapshot, with approvals already in place and non-zero balances on both sides, so
 * the numbers differ only by the path taken. Writes bench/results/gas.md.
 *
 * Run: npx tsx bench/gas.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  maxUint256,
  parseUnits,
} from "viem";
import { DevVaultAbi } from "../abis/generated/DevVault.js";
import { SwapRouterAbi } from "../abis/SwapRouter.js";
import { UniswapV2Router02Abi } from "../abis/UniswapV2Router02.js";
import { buildContracts } from "../contracts/build.js";
import type { Pool } from "../engine/index.js";
import {
  createRoutingGraph,
  DEFAULT_DEADLINE_SECONDS,
  type ExecutionContracts,
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterSwapTx,
  executingAccount,
  findRoute,
  minimumOf,
  planRouteProgram,
  predictCoreWalletAddress,
  type RoutingStrategy,
} from "../engine/index.js";
import { quoteV2, quoteV3 } from "../test/execution/quotes.js";
import { deployExecutionWorld, type ExecutionWorld, type Wallet } from "../test/execution/world.js";
import { startTestAnvil } from "../test/harness/anvil.js";
import { readV2Pool, readV3Pool, readVault } from "../test/routing/chain-graph.js";

/** The overhead the router path may add to the direct path. */
const OVERHEAD_BAR = 35_000n;
/** The slippage the API's programs are planned with (`slippage=300`). */
const SLIPPAGE_BPS = 300;

const lower = (a: Address) => a.toLowerCase() as Address;

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

/**
 * The transaction the API's route planner returns for `amountIn` of A into `tokenOut` when the
 * graph holds exactly `pools` (read from the chain now): `findRoute`, then `planRouteProgram`
 * and the strategy's encoder with the parameters `planRoute` passes (a deadline 20 minutes
 * after the latest block, slippage 3%, no fee, the receiver the caller).
 */
async function apiTx(
  world: ExecutionWorld,
  params: {
    strategy: RoutingStrategy;
    from: Address;
    pools: () => Promise<Pool>[];
    tokenOut: Address;
    amountIn: bigint;
  },
): Promise<Tx> {
  const { strategy, from, tokenOut, amountIn } = params;
  const pools = await Promise.all(params.pools());
  const graph = createRoutingGraph();
  for (const pool of pools) graph.upsertPool(pool);
  const [block, gasPriceWei] = await Promise.all([
    world.client.getBlock(),
    world.client.getGasPrice(),
  ]);
  graph.blockNumber = block.number;
  const tokenIn = world.tokens.A.address;
  const found = findRoute({
    graph,
    tokenIn: lower(tokenIn),
    tokenOut: lower(tokenOut),
    amountIn,
    gasPriceWei,
    weth: lower(world.weth),
  });
  if (!found.ok) throw new Error(`no route to ${tokenOut}: ${found.reason}`);
  const quote = found.quote;
  // The row compares one path: every pool of the graph, in order, in a single leg.
  const hops = quote.legs.map((leg) => leg.hops.map((h) => h.edge.pool.address));
  const expected = pools.map((p) => p.address);
  if (hops.length !== 1 || hops[0]?.join() !== expected.join()) {
    throw new Error(`unexpected route ${JSON.stringify(hops)} (expected ${expected.join(" → ")})`);
  }

  const contracts: ExecutionContracts = world.execution;
  const { account } = executingAccount({ strategy, contracts, from });
  const receiver = from;
  const deadline = block.timestamp + DEFAULT_DEADLINE_SECONDS;
  const minAmountOut = minimumOf(quote.amountOut, SLIPPAGE_BPS);
  const program = planRouteProgram({
    strategy,
    execution: contracts,
    swapRouter: world.uniswapV3.swapRouter,
    weth: world.weth,
    account,
    receiver,
    quote,
    bounds: { deadline, slippageBps: SLIPPAGE_BPS },
    fee: strategy === "router" ? undefined : { amount: 0n, receiver: from },
    minAmountOut,
  });
  if (strategy === "router") {
    return encodeRouterSwapTx({
      router: contracts.router,
      from,
      tokenIn,
      amountIn,
      tokenOut: getAddress(tokenOut),
      minAmountOut,
      receiver,
      deadline,
      program,
    });
  }
  if (strategy === "delegate") return encodeDelegateTx({ from, program });
  return encodeCoreWalletTx({
    walletFactory: contracts.walletFactory,
    from,
    tokenIn,
    amountIn,
    program,
  });
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
    const v2Pair = () => readV2Pool(world.client, world.uniswapV2.pairs.AB.address);
    const v3Pool = () => readV3Pool(world.client, world.uniswapV3.pools.AB.address);
    const vaultB = () => readVault(world.client, world.vaults.B, "savings-vaults");
    /** Gas of the API's transaction, planned on the state the measurement starts from. */
    const ours = async (
      wallet: Wallet,
      strategy: RoutingStrategy,
      tokenOut: Address,
      pools: () => Promise<Pool>[],
    ): Promise<bigint> => {
      const from = wallet.account.address;
      const tx = await apiTx(world, { strategy, from, pools, tokenOut, amountIn });
      return await gasOf(world, wallet, [tx]);
    };

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

    // 3. V2 swap, then deposit of the output into an ERC4626 vault.
    const depositDirect: Tx = {
      to: world.vaults.B,
      data: encodeFunctionData({ abi: DevVaultAbi, functionName: "deposit", args: [v2Out, me] }),
    };

    const rows: { action: string; direct: bigint; ours: bigint; path: string; checked: boolean }[] =
      [
        {
          action: "Uniswap V2 swap",
          direct: await gasOf(world, user, [v2Direct]),
          ours: await ours(user, "router", B.address, () => [v2Pair()]),
          path: "router",
          checked: true,
        },
        {
          action: "Uniswap V3 swap",
          direct: await gasOf(world, user, [v3Direct(v3Out)]),
          ours: await ours(user, "router", B.address, () => [v3Pool()]),
          path: "router",
          checked: true,
        },
        {
          action: "V2 swap + ERC4626 deposit",
          direct: await gasOf(world, user, [v2Direct, depositDirect]),
          ours: await ours(user, "router", world.vaults.B, () => [v2Pair(), vaultB()]),
          path: "router",
          checked: true,
        },
      ];

    // For information: the same V3 swap as a corewallet and as an EIP-7702 delegate program
    // (deadline check, balance snapshot, SwapRouter with exact approval, its own minimum and
    // deadline, allowance reset, minimum-output check).
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
    const firstWalletGas = await ours(user, "corewallet", B.address, () => [v3Pool()]);
    const firstDirectGas = await gasOf(world, user, [v3Direct(v3Out)]);
    // Keep the wallet deployed (and its balances warm) for the steady-state measurement.
    const deployTx = await apiTx(world, {
      strategy: "corewallet",
      from: me,
      pools: () => [v3Pool()],
      tokenOut: B.address,
      amountIn,
    });
    const deployHash = await user.sendTransaction({ ...deployTx, gas: 3_000_000n });
    const deployed = await world.client.waitForTransactionReceipt({ hash: deployHash });
    if (deployed.status !== "success") throw new Error("wallet deployment reverted");
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
    rows.push(
      {
        action: "Uniswap V3 swap",
        direct: await gasOf(world, user, [v3Direct(v3Later)]),
        ours: await ours(user, "corewallet", B.address, () => [v3Pool()]),
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
        ours: await ours(delegator, "delegate", B.address, () => [v3Pool()]),
        path: "delegate (EIP-7702)",
        checked: false,
      },
    );

    // Load while the benchmark ran, as `uptime` reports it (gas does not depend on it).
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(", ");
    const lines = [
      "# Gas: execution layer vs direct calls",
      "",
      "Reproduce with `npx tsx bench/gas.ts` (fresh anvil, prague hardfork; contracts compiled",
      "with solc 0.8.28, optimizer 1,000 runs, evm cancun). Gas is `gasUsed` of the mined",
      "transactions (refunds applied, at most a fifth of the gas as EIP-3529 caps them). Each row",
      "starts from the same state: approvals in place, non-zero balances for every account",
      "touched, pools that traded before; every transaction is mined 12 s after the previous",
      "block (pool oracles update). 100 A in.",
      `Load average at the end of the run (as \`uptime\` shows it): ${load} on ${cpus().length} cores;`,
      "gas does not depend on it.",
      "",
      "- Ours: the transaction the API's route planner returns. `findRoute` over a `RoutingGraph`",
      "  holding only the row's pools, read from the chain just before the measurement (the V2",
      "  pair; the V3 pool; the V2 pair and the vault), then `planRouteProgram` and the strategy's",
      "  encoder (`engine/program/encode.ts`) with the parameters `planRoute` passes: receiver",
      "  the sender, no fee, deadline the latest block's time + 1,200 s, slippage 300 bps,",
      "  minimum the quote less 3%.",
      "- Router rows: `ShortcutRouter.swap` checks the deadline, reads the receiver's balance of",
      "  the output and the executor's balances of the output, the input and native currency,",
      "  pulls the input into the executor, runs the program, then requires the receiver's",
      "  balance to have grown by the minimum and none of the executor's three balances to have",
      "  grown. The VM refuses calls to addresses without code and ERC20 transfer/approve",
      "  answering false. The planned programs hold intermediate amounts in the executor and",
      "  the last hop pays the receiver (V2: the executor's one-command `uniswapV2Swap`; V3:",
      "  `pool.swap` paid from the executor's callback, its output unread on a single hop,",
      "  where a partial fill would leave tokenIn in the executor, which the router refuses;",
      "  deposit: exact `approve` + `deposit`, shares to the receiver).",
      "- Wallet rows (information, not under the bar): the program checks the deadline, reads",
      "  the receiver's balance, swaps through SwapRouter with exact approval, the hop's own",
      "  minimum and the deadline, resets the allowance, and checks the minimum output. The",
      "  corewallet transaction is `CoreWalletFactory.deployAndExecute`, as the API returns it",
      "  also once the wallet exists. The delegate transaction is the EIP-7702 account calling",
      "  itself (delegation installed beforehand); its direct column is an approve transaction",
      "  plus the swap transaction.",
      "- Direct V2: `UniswapV2Router02.swapExactTokensForTokens`; direct V3:",
      "  `SwapRouter.exactInputSingle`; direct swap + deposit: that V2 swap and `vault.deposit` as",
      "  two transactions (two 21,000 intrinsic costs).",
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
