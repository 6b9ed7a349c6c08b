import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Abi, Hex } from "viem";

const require = createRequire(import.meta.url);

/** Build artifacts of real, canonical contracts, as shipped in their npm packages. */
export const npmArtifacts = {
  WETH9: "@uniswap/v2-periphery/build/WETH9.json",
  UniswapV2Factory: "@uniswap/v2-core/build/UniswapV2Factory.json",
  UniswapV2Pair: "@uniswap/v2-core/build/UniswapV2Pair.json",
  UniswapV2Router02: "@uniswap/v2-periphery/build/UniswapV2Router02.json",
  UniswapV3Factory:
    "@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
  UniswapV3Pool: "@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json",
  NonfungiblePositionManager:
    "@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  SwapRouter: "@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json",
  QuoterV2: "@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json",
  PoolManager: "@uniswap/v4-core/out/PoolManager.sol/PoolManager.json",
  StateView: "@uniswap/v4-periphery/foundry-out/StateView.sol/StateView.json",
  V4Quoter: "@uniswap/v4-periphery/foundry-out/V4Quoter.sol/V4Quoter.json",
} as const;

/** Reads one npm artifact: its ABI and creation bytecode, unchanged. */
export function readNpmArtifact(name: keyof typeof npmArtifacts): { abi: Abi; bytecode: Hex } {
  const json = JSON.parse(readFileSync(require.resolve(npmArtifacts[name]), "utf8")) as {
    abi: Abi;
    // Hardhat and Truffle artifacts hold the hex itself; Foundry's wrap it in `object`.
    bytecode: string | { object: string };
  };
  const hex = typeof json.bytecode === "string" ? json.bytecode : json.bytecode.object;
  const bytecode = hex.startsWith("0x") ? hex : `0x${hex}`;
  return { abi: json.abi, bytecode: bytecode as Hex };
}
