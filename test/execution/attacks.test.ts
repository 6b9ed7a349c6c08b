/**
 * Attacks on the execution layer, each a transaction that must fail with an exact error while
 * the victim's balances and allowances stay as they were.
 */
import {
  type AbiFunction,
  type Address,
  concatHex,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getAbiItem,
  getContractAddress,
  type Hex,
  keccak256,
  maxUint256,
  parseAbiItem,
  parseEther,
  parseUnits,
  toFunctionSelector,
  zeroAddress,
} from "viem";
import { describe, expect, it } from "vitest";
import { AllowanceThiefAbi } from "../../abis/generated/AllowanceThief.js";
import { CoreWalletAbi } from "../../abis/generated/CoreWallet.js";
import { CoreWalletFactoryAbi } from "../../abis/generated/CoreWalletFactory.js";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import { FakeUniswapV3PoolAbi } from "../../abis/generated/FakeUniswapV3Pool.js";
import { ReentrantTokenAbi } from "../../abis/generated/ReentrantToken.js";
import { RouterExecutorAbi } from "../../abis/generated/RouterExecutor.js";
import { ShortcutRouterAbi } from "../../abis/generated/ShortcutRouter.js";
import { loadArtifact } from "../../contracts/build.js";
import { DETERMINISTIC_DEPLOYMENT_PROXY } from "../../engine/core/execution-addresses.js";
import { NATIVE_TOKEN_ADDRESS } from "../../engine/core/native.js";
import { encodeCommand } from "../../engine/program/command-layout.js";
import {
  encodeCoreWalletTx,
  encodeDelegateTx,
  encodeRouterBundleTx,
  encodeRouterSwapTx,
} from "../../engine/program/encode.js";
import { addSweep } from "../../engine/program/execution-steps.js";
import { ProgramPlanner } from "../../engine/program/planner.js";
import { addTransfer } from "../../engine/program/protocol-steps.js";
import { addExecutorUniswapV2Swap } from "../../engine/protocols/uniswap-v2/steps.js";
import { uniswapV3CallbackData } from "../../engine/protocols/uniswap-v3/steps.js";
import { addWrapNative } from "../../engine/protocols/wrapped-native/steps.js";
import {
  allErrorsAbi,
  approve,
  balanceOf,
  errorData,
  expectRevert,
  revertData,
  sendOk,
  useExecutionWorld,
} from "./harness.js";
import { quoteV2 } from "./quotes.js";
import { type ExecutionWorld, TRUSTED_FORK_DEPLOYER } from "./world.js";

const ctx = useExecutionWorld();

const executionFailed = (index: number, target: Address, reason: Hex): Hex =>
  errorData(allErrorsAbi, "ExecutionFailed", [BigInt(index), target, reason]);

/** A valid single-swap program A → B of `amountIn` paying `recipient`, for routes used as bait. */
function v2SwapProgram(world: ExecutionWorld, amountIn: bigint, recipient: Address) {
  const planner = new ProgramPlanner();
  addExecutorUniswapV2Swap(planner, {
    pair: world.uniswapV2.pairs.AB.address,
    tokenIn: world.tokens.A.address,
    tokenOut: world.tokens.B.address,
    amountIn,
    recipient,
    executor: world.execution.executor,
    feePpm: 3000,
  });
  return planner.plan();
}

/**
 * The user's route of `amountIn` A → B whose one step is a swap on `pool` (a fake pool) with
 * `data` for the executor's V3 swap callback.
 */
function fakePoolRoute(world: ExecutionWorld, pool: Address, amountIn: bigint, data: Hex) {
  const { user } = world.accounts;
  const planner = new ProgramPlanner();
  planner.add({
    target: pool,
    fn: getAbiItem({ abi: FakeUniswapV3PoolAbi, name: "swap" }),
    args: [user.account.address, true, amountIn, 0n, data],
  });
  return encodeRouterSwapTx({
    router: world.execution.router,
    from: user.account.address,
    tokenIn: world.tokens.A.address,
    amountIn,
    tokenOut: world.tokens.B.address,
    minAmountOut: 1n,
    receiver: user.account.address,
    program: planner.plan(),
  });
}

/** Victim approved the router for A and B without limit, as users of a router do. */
async function victimApprovesRouter(world: ExecutionWorld): Promise<void> {
  const { victim } = world.accounts;
  await approve(world, victim, world.tokens.A.address, world.execution.router, maxUint256);
  await approve(world, victim, world.tokens.B.address, world.execution.router, maxUint256);
}

async function expectVictimUntouched(world: ExecutionWorld, before: bigint[]): Promise<void> {
  expect(await victimState(world)).toEqual(before);
}

async function victimState(world: ExecutionWorld): Promise<bigint[]> {
  const victim = world.accounts.victim.account.address;
  const { A, B } = world.tokens;
  return [
    await balanceOf(world, A.address, victim),
    await balanceOf(world, B.address, victim),
    await world.client.readContract({
      address: B.address,
      abi: DevTokenAbi,
      functionName: "allowance",
      args: [victim, world.execution.router],
    }),
  ];
}

describe("attacks on the router", () => {
  it("a program calling transferFrom(victim, attacker) on a token the victim approved to the router fails", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const { A, B } = world.tokens;
    await victimApprovesRouter(world);
    const before = await victimState(world);
    await approve(world, attacker, A.address, world.execution.router, 1n);
    const stolen = parseUnits("1000", 6);
    const planner = new ProgramPlanner();
    planner.add({
      target: B.address,
      fn: getAbiItem({ abi: DevTokenAbi, name: "transferFrom" }),
      args: [world.accounts.victim.account.address, attacker.account.address, stolen],
    });
    addTransfer(planner, { token: A.address, to: attacker.account.address, amount: 1n });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: attacker.account.address,
      tokenIn: A.address,
      amountIn: 1n,
      tokenOut: B.address,
      minAmountOut: 1n,
      receiver: attacker.account.address,
      program: planner.plan(),
    });
    const reason = errorData(allErrorsAbi, "ERC20InsufficientAllowance", [
      world.execution.executor,
      0n,
      stolen,
    ]);
    await expectRevert(world, attacker, tx, executionFailed(0, B.address, reason));
    await expectVictimUntouched(world, before);
  });

  it("a program calling the router to spend the victim's approval fails on the reentrancy lock", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const { A, B } = world.tokens;
    await victimApprovesRouter(world);
    const before = await victimState(world);
    await approve(world, attacker, A.address, world.execution.router, 1n);
    // From inside the program the executor is msg.sender, so even an unlocked router would
    // pull from the executor, never from the victim.
    const planner = new ProgramPlanner();
    planner.add({
      target: world.execution.router,
      fn: getAbiItem({ abi: ShortcutRouterAbi, name: "swap" }),
      args: [
        {
          tokenIn: B.address,
          amountIn: parseUnits("1000", 6),
          tokenOut: B.address,
          minAmountOut: 1n,
          receiver: attacker.account.address,
          feeBps: 0n,
          feeReceiver: attacker.account.address,
          deadline: maxUint256,
        },
        [],
        [],
      ],
    });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: attacker.account.address,
      tokenIn: A.address,
      amountIn: 1n,
      tokenOut: B.address,
      minAmountOut: 1n,
      receiver: attacker.account.address,
      program: planner.plan(),
    });
    const reason = errorData(allErrorsAbi, "ReentrancyGuardReentrantCall");
    await expectRevert(world, attacker, tx, executionFailed(0, world.execution.router, reason));
    await expectVictimUntouched(world, before);
  });

  it("a fake pool calling uniswapV3SwapCallback during a route is refused", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("100", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const fake = world.testContracts.fakePool;
    // The route goes through a "pool" that claims to be the real A/B 0.3% pool.
    const tx = fakePoolRoute(
      world,
      fake,
      amountIn,
      uniswapV3CallbackData(A.address, B.address, 3000),
    );
    const reason = errorData(allErrorsAbi, "UnexpectedCallbackCaller", [
      fake,
      world.uniswapV3.pools.AB.address,
    ]);
    const userA = await balanceOf(world, A.address, user.account.address);
    await expectRevert(world, user, tx, executionFailed(0, fake, reason));
    expect(await balanceOf(world, A.address, user.account.address)).toBe(userA);
  });

  it("a fake pool or an EOA calling uniswapV3SwapCallback outside a route is refused", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const { A, B } = world.tokens;
    const data = uniswapV3CallbackData(A.address, B.address, 3000);
    const pool = world.uniswapV3.pools.AB.address;
    await expectRevert(
      world,
      attacker,
      {
        to: world.testContracts.fakePool,
        data: encodeFunctionData({
          abi: FakeUniswapV3PoolAbi,
          functionName: "claim",
          args: [world.execution.executor, 1000n, 0n, data],
        }),
      },
      errorData(allErrorsAbi, "UnexpectedCallbackCaller", [world.testContracts.fakePool, pool]),
    );
    await expectRevert(
      world,
      attacker,
      {
        to: world.execution.executor,
        data: encodeFunctionData({
          abi: RouterExecutorAbi,
          functionName: "uniswapV3SwapCallback",
          args: [1000n, 0n, data],
        }),
      },
      errorData(allErrorsAbi, "UnexpectedCallbackCaller", [attacker.account.address, pool]),
    );
  });

  it("a fake pool naming a trusted fork deployer, or one CREATE2'd by a deployer the executor does not trust, is refused; so is malformed callback data", async () => {
    const { world } = ctx;
    const { user, attacker } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("100", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const userA = await balanceOf(world, A.address, user.account.address);
    const executor = world.execution.executor;
    const [token0, token1] = A.address.toLowerCase() < B.address.toLowerCase() ? [A, B] : [B, A];
    const salt = keccak256(
      encodeAbiParameters(
        [{ type: "address" }, { type: "address" }, { type: "uint24" }],
        [token0.address, token1.address, 2500],
      ),
    );
    // The executor was built to trust this deployer (test/execution/world.ts) and says so.
    expect(
      await world.client.readContract({
        address: executor,
        abi: RouterExecutorAbi,
        functionName: "v3ForkInitCodeHash",
        args: [TRUSTED_FORK_DEPLOYER.deployer],
      }),
    ).toBe(TRUSTED_FORK_DEPLOYER.initCodeHash);
    // The attacker CREATE2s a fake pool through the deterministic-deployment proxy with the
    // pool's salt: a genuine CREATE2 address of (proxy, salt, its own code), so a check that
    // took the deployer from the data alone would pay it.
    const fakeCode = loadArtifact("FakeUniswapV3Pool").bytecode as Hex;
    await sendOk(world, attacker, {
      to: DETERMINISTIC_DEPLOYMENT_PROXY,
      data: concatHex([salt, fakeCode]),
    });
    const created = getContractAddress({
      opcode: "CREATE2",
      from: DETERMINISTIC_DEPLOYMENT_PROXY,
      salt,
      bytecode: fakeCode,
    });
    expect(await world.client.getCode({ address: created })).not.toBeUndefined();
    // Where the trusted deployer's A/B 0.25% pool would be.
    const trustedPool = getContractAddress({
      opcode: "CREATE2",
      from: TRUSTED_FORK_DEPLOYER.deployer,
      salt,
      bytecodeHash: TRUSTED_FORK_DEPLOYER.initCodeHash,
    });
    const cases: [Address, Hex, Hex][] = [
      // A fake pool naming the trusted deployer: not at that deployer's address for the pool.
      [
        world.testContracts.fakePool,
        uniswapV3CallbackData(A.address, B.address, 2500, TRUSTED_FORK_DEPLOYER.deployer),
        errorData(allErrorsAbi, "UnexpectedCallbackCaller", [
          world.testContracts.fakePool,
          trustedPool,
        ]),
      ],
      // The attacker's CREATE2'd pool naming its own deployer.
      [
        created,
        uniswapV3CallbackData(A.address, B.address, 2500, DETERMINISTIC_DEPLOYMENT_PROXY),
        errorData(allErrorsAbi, "UntrustedPoolDeployer", [DETERMINISTIC_DEPLOYMENT_PROXY]),
      ],
      // Data of neither shape (a fifth word appended).
      [
        world.testContracts.fakePool,
        concatHex([
          uniswapV3CallbackData(A.address, B.address, 2500, TRUSTED_FORK_DEPLOYER.deployer),
          salt,
        ]),
        errorData(allErrorsAbi, "InvalidCallbackData", [160n]),
      ],
    ];
    for (const [pool, data, reason] of cases) {
      const tx = fakePoolRoute(world, pool, amountIn, data);
      await expectRevert(world, user, tx, executionFailed(0, pool, reason));
    }
    // PancakeSwap's callback name, called by an account outside any swap, is checked alike.
    await expectRevert(
      world,
      attacker,
      {
        to: executor,
        data: encodeFunctionData({
          abi: RouterExecutorAbi,
          functionName: "pancakeV3SwapCallback",
          args: [
            1000n,
            0n,
            uniswapV3CallbackData(A.address, B.address, 2500, TRUSTED_FORK_DEPLOYER.deployer),
          ],
        }),
      },
      errorData(allErrorsAbi, "UnexpectedCallbackCaller", [attacker.account.address, trustedPool]),
    );
    expect(await balanceOf(world, A.address, user.account.address)).toBe(userA);
  });

  it("a router whose executor would trust a zero pool deployer, a zero init code hash or one deployer twice is not deployed", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const { abi, bytecode } = loadArtifact("ShortcutRouter");
    const zeroHash = `0x${"0".repeat(64)}` as Hex;
    const { deployer, initCodeHash } = TRUSTED_FORK_DEPLOYER;
    const cases: [{ deployer: Address; initCodeHash: Hex }[], [Address, Hex]][] = [
      [[{ deployer: zeroAddress, initCodeHash }], [zeroAddress, initCodeHash]],
      [[{ deployer, initCodeHash: zeroHash }], [deployer, zeroHash]],
      [
        [
          { deployer, initCodeHash },
          { deployer, initCodeHash },
        ],
        [deployer, initCodeHash],
      ],
    ];
    for (const [forks, args] of cases) {
      const data = encodeDeployData({
        abi,
        bytecode: bytecode as Hex,
        args: [world.uniswapV3.factory, zeroAddress, forks],
      });
      expect(await revertData(world, attacker, { data } as never)).toBe(
        errorData(allErrorsAbi, "InvalidPoolDeployer", args),
      );
    }
  });

  it("direct calls to the executor (execute, sweep, its V2 swap, native payment) are refused", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const executor = world.execution.executor;
    const program = v2SwapProgram(world, 1n, attacker.account.address);
    await expectRevert(
      world,
      attacker,
      {
        to: executor,
        data: encodeFunctionData({
          abi: RouterExecutorAbi,
          functionName: "execute",
          args: [program.commands, program.state],
        }),
      },
      errorData(allErrorsAbi, "NotRouter", [attacker.account.address]),
    );
    await expectRevert(
      world,
      attacker,
      {
        to: executor,
        data: encodeFunctionData({
          abi: RouterExecutorAbi,
          functionName: "sweep",
          args: [world.tokens.A.address, attacker.account.address],
        }),
      },
      errorData(allErrorsAbi, "NotSelf", [attacker.account.address]),
    );
    await expectRevert(
      world,
      attacker,
      {
        to: executor,
        data: encodeFunctionData({
          abi: RouterExecutorAbi,
          functionName: "uniswapV2Swap",
          args: [
            world.uniswapV2.pairs.AB.address,
            world.tokens.A.address,
            world.tokens.B.address,
            1n,
            attacker.account.address,
            3000,
          ],
        }),
      },
      errorData(allErrorsAbi, "NotSelf", [attacker.account.address]),
    );
    await expectRevert(
      world,
      attacker,
      { to: executor, data: "0x", value: 1n },
      errorData(allErrorsAbi, "NotExecuting"),
    );
  });

  it("a direct call to the delegate executor is refused", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const tx = encodeDelegateTx({
      from: attacker.account.address,
      program: { commands: [], state: [] },
    });
    await expectRevert(
      world,
      attacker,
      { to: world.execution.delegateExecutor, data: tx.data },
      errorData(allErrorsAbi, "DirectCallNotAllowed"),
    );
  });

  it("msg.value must equal the declared native input exactly", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const { A } = world.tokens;
    await approve(world, user, A.address, world.execution.router, maxUint256);
    const erc20In = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn: parseUnits("1", 18),
      tokenOut: world.tokens.B.address,
      minAmountOut: 1n,
      receiver: user.account.address,
      program: v2SwapProgram(world, parseUnits("1", 18), user.account.address),
    });
    await expectRevert(
      world,
      user,
      { ...erc20In, value: 1n },
      errorData(allErrorsAbi, "MsgValueMismatch", [0n, 1n]),
    );
    const amountIn = parseEther("1");
    const planner = new ProgramPlanner();
    addWrapNative(planner, { weth: world.weth, amount: amountIn });
    addTransfer(planner, { token: world.weth, to: user.account.address, amount: amountIn });
    const nativeIn = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      amountIn,
      tokenOut: world.weth,
      minAmountOut: amountIn,
      receiver: user.account.address,
      program: planner.plan(),
    });
    for (const value of [amountIn - 1n, amountIn + 1n, 0n]) {
      await expectRevert(
        world,
        user,
        { ...nativeIn, value },
        errorData(allErrorsAbi, "MsgValueMismatch", [amountIn, value]),
      );
    }
    // The exact value works (and leaves nothing behind).
    await sendOk(world, user, nativeIn);
  });

  it("reentrancy from a malicious token during a route fails: into the router and into the executor", async () => {
    const { world } = ctx;
    const { user, attacker } = world.accounts;
    const token = world.reentrantToken;
    const executor = world.execution.executor;
    const amountIn = parseUnits("10", 18);
    await approve(world, user, token, world.execution.router, maxUint256);
    await approve(world, attacker, token, world.execution.router, maxUint256);
    const planner = new ProgramPlanner();
    addTransfer(planner, { token, to: user.account.address, amount: amountIn });
    const route = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: token,
      amountIn,
      tokenOut: token,
      minAmountOut: 1n,
      receiver: attacker.account.address,
      program: planner.plan(),
    });
    const arm = async (trigger: Address, target: Address, payload: Hex) => {
      const hash = await attacker.writeContract({
        address: token,
        abi: ReentrantTokenAbi,
        functionName: "arm",
        args: [trigger, target, payload],
      });
      await world.client.waitForTransactionReceipt({ hash });
    };
    // The attacker's own route, replayed from inside the victim's.
    const reentry = encodeRouterBundleTx({
      router: world.execution.router,
      from: attacker.account.address,
      tokenIn: token,
      amountIn: 1n,
      outputs: [{ token, account: attacker.account.address, minAmountOut: 1n }],
      program: { commands: [], state: [] },
    });

    // 1. Tokens leaving the executor mid-program re-enter the router.
    await arm(executor, world.execution.router, reentry.data);
    await expectRevert(
      world,
      user,
      route,
      executionFailed(0, token, errorData(allErrorsAbi, "ReentrancyGuardReentrantCall")),
    );
    // 2. ... or call the executor directly.
    const program = v2SwapProgram(world, 1n, attacker.account.address);
    await arm(
      executor,
      executor,
      encodeFunctionData({
        abi: RouterExecutorAbi,
        functionName: "execute",
        args: [program.commands, program.state],
      }),
    );
    await expectRevert(
      world,
      user,
      route,
      executionFailed(0, token, errorData(allErrorsAbi, "NotRouter", [token])),
    );
    // 3. The pull from the caller re-enters the router before the program starts.
    await arm(user.account.address, world.execution.router, reentry.data);
    await expectRevert(world, user, route, errorData(allErrorsAbi, "ReentrancyGuardReentrantCall"));
  });

  it("a route whose output falls short of minAmountOut fails with the amount actually received", async () => {
    const { world } = ctx;
    const { user, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("12", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const expected = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, amountIn);
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: B.address,
      minAmountOut: expected + 1n,
      receiver: receiver.account.address,
      program: v2SwapProgram(world, amountIn, receiver.account.address),
    });
    await expectRevert(
      world,
      user,
      tx,
      errorData(allErrorsAbi, "InsufficientOutput", [
        B.address,
        receiver.account.address,
        expected,
        expected + 1n,
      ]),
    );
  });

  it("a program that pays someone else instead of the receiver fails the output check", async () => {
    const { world } = ctx;
    const { user, receiver, attacker } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("12", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: B.address,
      minAmountOut: 1n,
      receiver: receiver.account.address,
      program: v2SwapProgram(world, amountIn, attacker.account.address),
    });
    await expectRevert(
      world,
      user,
      tx,
      errorData(allErrorsAbi, "InsufficientOutput", [B.address, receiver.account.address, 0n, 1n]),
    );
  });

  it("a bundle checks every output at the account it names: a merchant paid short reverts naming the merchant; no account may be the router, the executor or 0", async () => {
    const { world } = ctx;
    const { user, receiver, bystander } = world.accounts;
    const { A, B } = world.tokens;
    const merchant = bystander.account.address;
    const amountIn = parseUnits("12", 18);
    const half = amountIn / 2n;
    await approve(world, user, A.address, world.execution.router, 2n * amountIn);
    const expected = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, half);
    // Half of A is swapped to B for the merchant, the other half goes to the receiver as A.
    const planner = new ProgramPlanner();
    addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn: half,
      recipient: merchant,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    addTransfer(planner, { token: A.address, to: receiver.account.address, amount: half });
    const program = planner.plan();
    const bundleTx = (outputs: { token: Address; account: Address; minAmountOut: bigint }[]) =>
      encodeRouterBundleTx({
        router: world.execution.router,
        from: user.account.address,
        tokenIn: A.address,
        amountIn,
        outputs,
        program,
      });
    const atReceiver = { token: A.address, account: receiver.account.address, minAmountOut: half };
    await expectRevert(
      world,
      user,
      bundleTx([atReceiver, { token: B.address, account: merchant, minAmountOut: expected + 1n }]),
      errorData(allErrorsAbi, "InsufficientOutput", [B.address, merchant, expected, expected + 1n]),
    );
    for (const account of [
      world.execution.executor,
      world.execution.router,
      "0x0000000000000000000000000000000000000000" as Address,
    ]) {
      await expectRevert(
        world,
        user,
        bundleTx([atReceiver, { token: B.address, account, minAmountOut: 1n }]),
        errorData(allErrorsAbi, "InvalidReceiver", [account]),
      );
    }
    await expectRevert(
      world,
      user,
      bundleTx([atReceiver, { token: B.address, account: merchant, minAmountOut: 0n }]),
      errorData(allErrorsAbi, "ZeroMinAmountOut", [B.address]),
    );
    const merchantB = await balanceOf(world, B.address, merchant);
    const receiverA = await balanceOf(world, A.address, receiver.account.address);
    await sendOk(
      world,
      user,
      bundleTx([atReceiver, { token: B.address, account: merchant, minAmountOut: expected }]),
    );
    expect({
      merchant: (await balanceOf(world, B.address, merchant)) - merchantB,
      receiver: (await balanceOf(world, A.address, receiver.account.address)) - receiverA,
    }).toEqual({ merchant: expected, receiver: half });
  });

  it("zero-amount routes fail: no input, no minimum, no checked output", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const { A, B } = world.tokens;
    await approve(world, user, A.address, world.execution.router, maxUint256);
    const base = {
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      tokenOut: B.address,
      receiver: user.account.address,
      program: { commands: [], state: [] },
    };
    await expectRevert(
      world,
      user,
      encodeRouterSwapTx({ ...base, amountIn: 0n, minAmountOut: 1n }),
      errorData(allErrorsAbi, "ZeroAmountIn"),
    );
    await expectRevert(
      world,
      user,
      encodeRouterSwapTx({ ...base, amountIn: 1n, minAmountOut: 0n }),
      errorData(allErrorsAbi, "ZeroMinAmountOut", [B.address]),
    );
    const noOutputs = encodeFunctionData({
      abi: ShortcutRouterAbi,
      functionName: "bundle",
      args: [
        {
          tokenIn: A.address,
          amountIn: 1n,
          outputs: [],
          feeBps: 0n,
          feeReceiver: user.account.address,
          deadline: maxUint256,
        },
        [],
        [],
      ],
    });
    await expectRevert(
      world,
      user,
      { to: world.execution.router, data: noOutputs },
      errorData(allErrorsAbi, "NoOutputs"),
    );
  });

  it("a program that leaves input in the executor fails instead of leaving it for the next caller", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const { A, B } = world.tokens;
    const amountIn = parseUnits("10", 18);
    const used = parseUnits("4", 18);
    await approve(world, user, A.address, world.execution.router, amountIn);
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: user.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: B.address,
      minAmountOut: 1n,
      receiver: user.account.address,
      program: v2SwapProgram(world, used, user.account.address),
    });
    await expectRevert(
      world,
      user,
      tx,
      errorData(allErrorsAbi, "ExecutorKeptFunds", [A.address, 0n, amountIn - used]),
    );
  });

  it("rejects fees above 100 bps, the executor as receiver, and DELEGATECALL commands", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const { A, B } = world.tokens;
    await approve(world, user, A.address, world.execution.router, maxUint256);
    const swapData = (feeBps: bigint, receiver: Address, commands: Hex[]) =>
      encodeFunctionData({
        abi: ShortcutRouterAbi,
        functionName: "swap",
        args: [
          {
            tokenIn: A.address,
            amountIn: 1000n,
            tokenOut: B.address,
            minAmountOut: 1n,
            receiver,
            feeBps,
            feeReceiver: user.account.address,
            deadline: maxUint256,
          },
          commands,
          [],
        ],
      });
    const router = world.execution.router;
    await expectRevert(
      world,
      user,
      { to: router, data: swapData(101n, user.account.address, []) },
      errorData(allErrorsAbi, "FeeTooHigh", [101n, 100n]),
    );
    await expectRevert(
      world,
      user,
      { to: router, data: swapData(0n, world.execution.executor, []) },
      errorData(allErrorsAbi, "InvalidReceiver", [world.execution.executor]),
    );
    // A hand-made command with call type 0x00 (DELEGATECALL in the original format).
    const [word] = encodeCommand({
      selector: "0xa9059cbb",
      callType: 1,
      tupleReturn: false,
      inputs: [],
      output: 0xff,
      target: A.address,
    });
    const delegateCall = `${(word ?? "0x").slice(0, 10)}00${(word ?? "0x").slice(12)}` as Hex;
    await expectRevert(
      world,
      user,
      { to: router, data: swapData(0n, user.account.address, [delegateCall]) },
      invalidCommandFlags(0, 0),
    );
  });
});

function invalidCommandFlags(index: number, flags: number): Hex {
  return errorData(allErrorsAbi, "InvalidCommandFlags", [BigInt(index), BigInt(flags)]);
}

describe("attacks on wallets and delegated accounts", () => {
  it("another user cannot run a wallet they do not own, directly or through the factory", async () => {
    const { world } = ctx;
    const { attacker, victim } = world.accounts;
    const { A } = world.tokens;
    const factory = world.execution.walletFactory;
    // The victim deploys a wallet and approves it, as the corewallet flow asks.
    const deployHash = await victim.writeContract({
      address: factory,
      abi: CoreWalletFactoryAbi,
      functionName: "deployWallet",
      args: [victim.account.address],
    });
    await world.client.waitForTransactionReceipt({ hash: deployHash });
    const wallet = await world.client.readContract({
      address: factory,
      abi: CoreWalletFactoryAbi,
      functionName: "walletOf",
      args: [victim.account.address],
    });
    await approve(world, victim, A.address, wallet, maxUint256);
    const victimA = await balanceOf(world, A.address, victim.account.address);
    const amount = parseUnits("500", 18);
    const planner = new ProgramPlanner();
    addTransfer(planner, { token: A.address, to: attacker.account.address, amount });
    const program = planner.plan();
    const direct = encodeCoreWalletTx({
      walletFactory: factory,
      from: attacker.account.address,
      tokenIn: A.address,
      amountIn: amount,
      program,
      deployedWallet: wallet,
    });
    await expectRevert(
      world,
      attacker,
      direct,
      errorData(allErrorsAbi, "NotOwner", [attacker.account.address, victim.account.address]),
    );
    // Through the factory the attacker only reaches the attacker's own wallet, which pulls from
    // the attacker (who approved nothing).
    const viaFactory = encodeCoreWalletTx({
      walletFactory: factory,
      from: attacker.account.address,
      tokenIn: A.address,
      amountIn: amount,
      program,
    });
    const attackerWallet = await world.client.readContract({
      address: factory,
      abi: CoreWalletFactoryAbi,
      functionName: "walletOf",
      args: [attacker.account.address],
    });
    await expectRevert(
      world,
      attacker,
      viaFactory,
      errorData(allErrorsAbi, "ERC20InsufficientAllowance", [attackerWallet, 0n, amount]),
    );
    // The implementation refuses direct use.
    const implementation = world.execution.walletImplementation;
    await expectRevert(
      world,
      attacker,
      {
        to: implementation,
        data: encodeFunctionData({
          abi: CoreWalletAbi,
          functionName: "executeShortcut",
          args: [A.address, 0n, program.commands, program.state],
        }),
      },
      errorData(allErrorsAbi, "DirectCallNotAllowed"),
    );
    expect(await balanceOf(world, A.address, victim.account.address)).toBe(victimA);
  });

  it("wallet and factory refuse msg.value that differs from the declared native input", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const amountIn = parseEther("2");
    const planner = new ProgramPlanner();
    addWrapNative(planner, { weth: world.weth, amount: amountIn });
    const tx = encodeCoreWalletTx({
      walletFactory: world.execution.walletFactory,
      from: user.account.address,
      tokenIn: NATIVE_TOKEN_ADDRESS,
      amountIn,
      program: planner.plan(),
    });
    await expectRevert(
      world,
      user,
      { ...tx, value: amountIn - 1n },
      errorData(allErrorsAbi, "MsgValueMismatch", [amountIn, amountIn - 1n]),
    );
    const erc20 = encodeCoreWalletTx({
      walletFactory: world.execution.walletFactory,
      from: user.account.address,
      tokenIn: world.tokens.A.address,
      amountIn: 0n,
      program: { commands: [], state: [] },
    });
    await expectRevert(
      world,
      user,
      { ...erc20, value: 5n },
      errorData(allErrorsAbi, "MsgValueMismatch", [0n, 5n]),
    );
  });

  it("nobody but an EIP-7702 account itself can run programs through its delegation", async () => {
    const { world } = ctx;
    const { delegator, attacker } = world.accounts;
    const { A } = world.tokens;
    const authorization = await delegator.signAuthorization({
      contractAddress: world.execution.delegateExecutor,
      executor: "self",
    });
    // The delegation is installed by the account's own call running an empty program.
    const install = encodeDelegateTx({
      from: delegator.account.address,
      program: { commands: [], state: [] },
    });
    await sendOk(world, delegator, { ...install, authorizationList: [authorization] });
    const code = await world.client.getCode({ address: delegator.account.address });
    expect(code).toBe(
      concatHex(["0xef0100", world.execution.delegateExecutor.toLowerCase() as Hex]),
    );
    const amount = parseUnits("1", 18);
    const planner = new ProgramPlanner();
    addTransfer(planner, { token: A.address, to: attacker.account.address, amount });
    const tx = encodeDelegateTx({ from: delegator.account.address, program: planner.plan() });
    const delegatorA = await balanceOf(world, A.address, delegator.account.address);
    await expectRevert(
      world,
      attacker,
      { to: tx.to, data: tx.data },
      errorData(allErrorsAbi, "UnauthorizedCaller", [attacker.account.address]),
    );
    expect(await balanceOf(world, A.address, delegator.account.address)).toBe(delegatorA);
    // The account itself may run the program.
    await sendOk(world, delegator, { to: tx.to, data: tx.data });
    expect(await balanceOf(world, A.address, delegator.account.address)).toBe(delegatorA - amount);
  });
});

describe("allowances of the shared executor", () => {
  /** Deploys the thief contract from the attacker's account. */
  async function deployThief(world: ExecutionWorld): Promise<Address> {
    const { abi, bytecode } = loadArtifact("AllowanceThief");
    const hash = await world.accounts.attacker.deployContract({ abi, bytecode, gas: 2_000_000n });
    const receipt = await world.client.waitForTransactionReceipt({ hash });
    return receipt.contractAddress as Address;
  }

  /**
   * A swap of 1 wei of A that the attacker's own account pays for, running `extra` commands
   * after sending the wei to the bystander (the checked output).
   */
  function attackerSwap(world: ExecutionWorld, extra: (planner: ProgramPlanner) => void) {
    const { attacker, bystander } = world.accounts;
    const planner = new ProgramPlanner();
    addTransfer(planner, {
      token: world.tokens.A.address,
      to: bystander.account.address,
      amount: 1n,
    });
    extra(planner);
    return encodeRouterSwapTx({
      router: world.execution.router,
      from: attacker.account.address,
      tokenIn: world.tokens.A.address,
      amountIn: 1n,
      tokenOut: world.tokens.A.address,
      minAmountOut: 1n,
      receiver: bystander.account.address,
      program: planner.plan(),
    });
  }

  const approveFn = getAbiItem({ abi: DevTokenAbi, name: "approve" });

  it("a program that leaves an allowance on the executor reverts, so no spender can drain a later victim's bundle up to its slack", async () => {
    const { world } = ctx;
    const { attacker, victim, receiver } = world.accounts;
    const { A, B } = world.tokens;
    const thief = await deployThief(world);
    await approve(world, attacker, A.address, world.execution.router, 1n);
    // The attacker calls the router directly with a program that approves its contract to
    // spend the executor's B, and leaves the allowance standing.
    const setup = attackerSwap(world, (planner) => {
      planner.add({ target: B.address, fn: approveFn, args: [thief, maxUint256] });
    });
    expect
      .soft(await revertData(world, attacker, setup))
      .toBe(errorData(allErrorsAbi, "AllowanceLeft", [1n, B.address, thief, maxUint256]));
    const hash = await attacker.sendTransaction({
      to: setup.to,
      data: setup.data,
      gas: 5_000_000n,
    });
    expect.soft((await world.client.waitForTransactionReceipt({ hash })).status).toBe("reverted");
    expect
      .soft(
        await world.client.readContract({
          address: B.address,
          abi: DevTokenAbi,
          functionName: "allowance",
          args: [world.execution.executor, thief],
        }),
      )
      .toBe(0n);

    // A victim's route A → B: the output waits in the executor while a contract the program
    // calls runs (a merchant's checkout, a hook), then is swept with a 3% minimum.
    const amountIn = parseUnits("100", 18);
    const expected = await quoteV2(world, world.uniswapV2.pairs.AB, A.address, amountIn);
    expect(expected).toBe(996_006_981n);
    const minAmountOut = (expected * 9_700n) / 10_000n;
    const slack = expected - minAmountOut;
    const armed = await attacker.writeContract({
      address: thief,
      abi: AllowanceThiefAbi,
      functionName: "arm",
      args: [B.address, world.execution.executor, attacker.account.address, slack],
    });
    await world.client.waitForTransactionReceipt({ hash: armed });
    await approve(world, victim, A.address, world.execution.router, amountIn);
    const planner = new ProgramPlanner();
    addExecutorUniswapV2Swap(planner, {
      pair: world.uniswapV2.pairs.AB.address,
      tokenIn: A.address,
      tokenOut: B.address,
      amountIn,
      recipient: world.execution.executor,
      executor: world.execution.executor,
      feePpm: 3000,
    });
    planner.add({
      target: thief,
      fn: getAbiItem({ abi: AllowanceThiefAbi, name: "ping" }),
      args: [],
    });
    addSweep(planner, {
      executor: world.execution.executor,
      token: B.address,
      to: receiver.account.address,
    });
    const tx = encodeRouterSwapTx({
      router: world.execution.router,
      from: victim.account.address,
      tokenIn: A.address,
      amountIn,
      tokenOut: B.address,
      minAmountOut,
      receiver: receiver.account.address,
      program: planner.plan(),
    });
    const receiverB = await balanceOf(world, B.address, receiver.account.address);
    const attackerB = await balanceOf(world, B.address, attacker.account.address);
    await sendOk(world, victim, tx);
    // The whole output reached the receiver; the thief's pull found no allowance.
    expect({
      receiver: (await balanceOf(world, B.address, receiver.account.address)) - receiverB,
      attacker: (await balanceOf(world, B.address, attacker.account.address)) - attackerB,
    }).toEqual({ receiver: expected, attacker: 0n });
  });

  it("an approval the program uses up or sets back to 0 passes; one left standing reverts naming its command", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const { A } = world.tokens;
    const spender = world.accounts.bystander.account.address;
    await approve(world, attacker, A.address, world.execution.router, 2n);
    await sendOk(
      world,
      attacker,
      attackerSwap(world, (planner) => {
        planner.add({ target: A.address, fn: approveFn, args: [spender, 5n] });
        planner.add({ target: A.address, fn: approveFn, args: [spender, 0n] });
      }),
    );
    await expectRevert(
      world,
      attacker,
      attackerSwap(world, (planner) => {
        planner.add({ target: A.address, fn: approveFn, args: [spender, 0n] });
        planner.add({ target: A.address, fn: approveFn, args: [spender, 5n] });
      }),
      errorData(allErrorsAbi, "AllowanceLeft", [2n, A.address, spender, 5n]),
    );
  });

  it("the other allowance-granting functions are refused at their command, naming it", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const { A, B } = world.tokens;
    const spender = world.accounts.bystander.account.address;
    await approve(world, attacker, A.address, world.execution.router, 1n);
    const permitSingle = [[B.address, 1n, 0, 0], spender, 0n] as const;
    const refused: [string, readonly unknown[]][] = [
      ["function increaseAllowance(address spender, uint256 value)", [spender, 1n]],
      ["function increaseApproval(address spender, uint256 value)", [spender, 1n]],
      ["function approveAndCall(address spender, uint256 value, bytes data)", [spender, 1n, "0x"]],
      ["function setApprovalForAll(address operator, bool approved)", [spender, true]],
      ["function authorizeOperator(address operator)", [spender]],
      [
        "function approve(address token, address spender, uint160 amount, uint48 expiration)",
        [B.address, spender, 1n, 0],
      ],
      [
        "function permit(address owner, ((address token, uint160 amount, uint48 expiration, uint48 nonce) details, address spender, uint256 sigDeadline) permitSingle, bytes signature)",
        [world.execution.executor, permitSingle, "0x"],
      ],
      [
        "function permit(address owner, ((address token, uint160 amount, uint48 expiration, uint48 nonce)[] details, address spender, uint256 sigDeadline) permitBatch, bytes signature)",
        [world.execution.executor, [[[B.address, 1n, 0, 0]], spender, 0n], "0x"],
      ],
      ["function approve(address spender, uint256 id, uint256 amount)", [spender, 1n, 1n]],
      ["function setOperator(address spender, bool approved)", [spender, true]],
    ];
    const selectors: Hex[] = [];
    for (const [signature, args] of refused) {
      const fn = parseAbiItem(signature) as AbiFunction;
      const selector = toFunctionSelector(fn);
      selectors.push(selector);
      expect(
        await revertData(
          world,
          attacker,
          attackerSwap(world, (planner) => {
            planner.add({ target: B.address, fn, args: args as never });
          }),
        ),
      ).toBe(errorData(allErrorsAbi, "AllowanceGrantRefused", [1n, B.address, selector]));
    }
    expect(selectors).toEqual([
      "0x39509351",
      "0xd73dd623",
      "0xcae9ca51",
      "0xa22cb465",
      "0x959b8c3f",
      "0x87517c45",
      "0x2b67b570",
      "0x2a2d80d1",
      "0x426a8493",
      "0x558a7297",
    ]);
  });
});
