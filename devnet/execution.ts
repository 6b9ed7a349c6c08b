/**
 * Deploys the project's execution layer: ShortcutRouter (which deploys its RouterExecutor),
 * DelegateExecutor, CoreWalletFactory (which deploys the CoreWallet implementation),
 * MinAmountOutCheck, ProgramValues and UniswapV4Router. Plain sequential deployments from one
 * account, so the same account and nonce give the same addresses on every fresh chain.
 */
import {
  type Abi,
  type Address,
  getAddress,
  type Hex,
  type PublicClient,
  type WalletClient,
  zeroAddress,
} from "viem";
import { CoreWalletFactoryAbi } from "../abis/generated/CoreWalletFactory.js";
import { ShortcutRouterAbi } from "../abis/generated/ShortcutRouter.js";
import { loadArtifact } from "../contracts/build.js";
import type { ExecutionAddresses, V3PoolDeployer } from "../engine/index.js";
import { devnetReceipt } from "./receipts.js";

/** Addresses of the execution layer, by name. */
export type ExecutionLayer = ExecutionAddresses;

export type DeployExecutionLayerParameters = {
  walletClient: WalletClient;
  publicClient: PublicClient;
  /** Uniswap V3 factory: the router executor pays swap callbacks only to its pools. */
  v3Factory: Address;
  /** WETH9 (checked to exist; programs wrap and unwrap through it). */
  weth: Address;
  /** Uniswap V3 SwapRouter (checked to exist; wallet programs swap on V3 through it). */
  swapRouter: Address;
  /**
   * Uniswap V4 pool manager of the router executor and the V4 router (checked to exist unless
   * zero). Default the zero address: a world without Uniswap V4, where V4 swaps revert.
   */
  v4PoolManager?: Address;
  /**
   * The Uniswap V3 forks' pool deployers (with their pools' init code hash) whose pools the
   * router executor pays from its swap callback. Default none.
   */
  v3ForkDeployers?: readonly V3PoolDeployer[];
};

/**
 * Deploys the execution layer from `walletClient`'s account.
 * @example const execution = await deployExecutionLayer({ walletClient, publicClient, v3Factory, weth, swapRouter });
 */
export async function deployExecutionLayer(
  params: DeployExecutionLayerParameters,
): Promise<ExecutionLayer> {
  const { walletClient, publicClient } = params;
  const account = walletClient.account;
  if (account === undefined) throw new Error("deployExecutionLayer: wallet client has no account");
  const v4PoolManager = params.v4PoolManager ?? zeroAddress;
  for (const [name, address] of [
    ["v3Factory", params.v3Factory],
    ["weth", params.weth],
    ["swapRouter", params.swapRouter],
    ...(v4PoolManager === zeroAddress ? [] : [["v4PoolManager", v4PoolManager] as const]),
  ] as const) {
    const code = await publicClient.getCode({ address });
    if (code === undefined || code === "0x") {
      throw new Error(`deployExecutionLayer: ${name} ${address} has no code`);
    }
  }
  let nonce = await publicClient.getTransactionCount({
    address: account.address,
    blockTag: "pending",
  });
  const deploy = async (name: string, args: readonly unknown[] = []): Promise<Address> => {
    const { abi, bytecode } = loadArtifact(name);
    const hash = await walletClient.deployContract({
      abi: abi as Abi,
      bytecode: bytecode as Hex,
      args,
      account,
      chain: walletClient.chain ?? null,
      nonce: nonce++,
    });
    const receipt = await devnetReceipt(publicClient as never, hash);
    if (receipt.status !== "success" || !receipt.contractAddress) {
      throw new Error(`deployExecutionLayer: deploying ${name} reverted (tx ${hash})`);
    }
    return getAddress(receipt.contractAddress);
  };

  const router = await deploy("ShortcutRouter", [
    params.v3Factory,
    v4PoolManager,
    [...(params.v3ForkDeployers ?? [])],
  ]);
  const delegateExecutor = await deploy("DelegateExecutor");
  const walletFactory = await deploy("CoreWalletFactory");
  const minAmountOutCheck = await deploy("MinAmountOutCheck");
  const programValues = await deploy("ProgramValues");
  const uniswapV4Router = await deploy("UniswapV4Router", [v4PoolManager]);
  const executor = await publicClient.readContract({
    address: router,
    abi: ShortcutRouterAbi,
    functionName: "executor",
  });
  const walletImplementation = await publicClient.readContract({
    address: walletFactory,
    abi: CoreWalletFactoryAbi,
    functionName: "implementation",
  });
  return {
    router,
    executor: getAddress(executor),
    delegateExecutor,
    walletFactory,
    walletImplementation: getAddress(walletImplementation),
    minAmountOutCheck,
    programValues,
    uniswapV4Router,
  };
}
