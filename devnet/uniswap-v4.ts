/**
 * Uniswap V4 in the devnet world: the PoolManager, StateView and V4Quoter from their npm
 * artifacts, the devnet's liquidity and swap helpers, two hooks at mined CREATE2 addresses, and
 * pools seeded at the world's reference prices with several positions each.
 *
 * A V4 hook's permissions are the low 14 bits of its address (`Hooks.sol`), so each hook is sent
 * through the deterministic-deployment proxy with the first salt, counting from 0, whose CREATE2
 * address carries exactly its flags. Its init code (the manager's address as constructor argument)
 * is the same on every fresh world, and so are the salt and the address.
 */
import {
  type Address,
  concat,
  encodeAbiParameters,
  getAddress,
  type Hex,
  hexToBytes,
  keccak256,
  maxUint256,
  padHex,
  toHex,
  zeroAddress,
} from "viem";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { V4LiquidityHelperAbi } from "../abis/generated/V4LiquidityHelper.js";
import { PoolManagerAbi } from "../abis/PoolManager.js";
import { loadArtifact } from "../contracts/build.js";
import {
  DETERMINISTIC_DEPLOYMENT_PROXY,
  getAmount0Delta,
  getSqrtRatioAtTick,
} from "../engine/index.js";
import { readNpmArtifact } from "./artifacts.js";
import type { UniswapV4Deployment, UniswapV4PoolKey } from "./deployment.js";
import { amountForUsd, sqrtPriceX96FromPrice, tickFromSqrtPriceX96 } from "./price.js";
import type { Deployer } from "./world.js";

/** `Hooks.sol` permission flags: the low bits of a hook's address. */
export const HOOK_FLAGS = {
  beforeSwap: 1 << 7,
  afterSwap: 1 << 6,
  beforeSwapReturnsDelta: 1 << 3,
} as const;
/** `Hooks.ALL_HOOK_MASK`: the 14 bits that hold a hook's permissions. */
const ALL_HOOK_MASK = (1 << 14) - 1;

/** The devnet's hooks: artifact and permission flags. */
const HOOKS = {
  /**
   * Counts swaps after the fact; amounts are untouched. It runs during swaps all the same, so
   * its pool is routed only when the operator allow-lists it (`UNISWAP_V4_HOOKS_<id>`).
   */
  afterSwap: { contract: "V4SwapCounterHook", flags: HOOK_FLAGS.afterSwap },
  /** Keeps 1% of each exact input before the pool swaps; amounts are not the pool's own. */
  returnsDelta: {
    contract: "V4InputFeeHook",
    flags: HOOK_FLAGS.beforeSwap | HOOK_FLAGS.beforeSwapReturnsDelta,
  },
} as const;

/**
 * The protocol fee of the pool that has one: 0.05% of the input each way (`ProtocolFeeLibrary`:
 * the low 12 bits sell currency0, the high 12 bits currency1, in millionths).
 */
export const DEVNET_V4_PROTOCOL_FEE = 500 | (500 << 12);

type V4PoolSpec = {
  /** Symbols of the two sides; `ETH` is native ether (currency address 0). */
  pair: [string, string];
  fee: number;
  tickSpacing: number;
  hooks?: keyof typeof HOOKS;
  protocolFee?: number;
  /** USD value of each side of each of the three centred positions. */
  usd: number;
};

/** The V4 pools of the default world. */
const V4_POOLS: V4PoolSpec[] = [
  // Native ether at 0.01%: with no wrapping and the lowest fee, the best way between ETH and USDC
  // while prices agree (routes through V4 under every strategy rely on it).
  { pair: ["ETH", "USDC"], fee: 100, tickSpacing: 10, usd: 2_000_000 },
  // The V3 WETH/USDC 0.05% pool's price, ticks and depth: large trades split across versions.
  { pair: ["WETH", "USDC"], fee: 500, tickSpacing: 10, usd: 5_000_000 },
  { pair: ["DAI", "USDC"], fee: 100, tickSpacing: 1, usd: 1_000_000 },
  // A fee and tick spacing no V3 pool has.
  { pair: ["WETH", "USDT"], fee: 2500, tickSpacing: 50, usd: 1_000_000 },
  { pair: ["WETH", "DAI"], fee: 3000, tickSpacing: 60, hooks: "afterSwap", usd: 1_000_000 },
  // The WETH/USDC 0.05% pool again but with the fee-taking hook: equal by its price and
  // liquidity, 1% worse by what it pays.
  { pair: ["WETH", "USDC"], fee: 500, tickSpacing: 10, hooks: "returnsDelta", usd: 2_000_000 },
  {
    pair: ["USDC", "USDT"],
    fee: 500,
    tickSpacing: 10,
    protocolFee: DEVNET_V4_PROTOCOL_FEE,
    usd: 1_000_000,
  },
];

/**
 * Half-widths (in tick spacings) of the centred positions: the V3 pools' three. Two narrow
 * one-sided positions more sit just below and just above the price, so that swaps of a few
 * thousand dollars already cross initialized ticks.
 */
const CENTRED_HALF_WIDTHS = [12, 60, 600];
const ONE_SIDED = { near: 4, far: 20 };

const MAX_TICK = 887272;
const Q96 = 1n << 96n;

/** A currency of the V4 world: a token or native ether, with its reference price. */
export type V4Currency = { address: Address; symbol: string; decimals: number; usdPrice: number };

export type DeployUniswapV4Parameters = {
  deployer: Deployer;
  /** The world's tokens by symbol (`ETH` is added here). */
  token: (symbol: string) => V4Currency;
  ethUsdPrice: number;
};

/** `PoolIdLibrary.toId`: the keccak256 of the ABI-encoded PoolKey. */
export function uniswapV4PoolId(key: UniswapV4PoolKey): Hex {
  return keccak256(
    encodeAbiParameters(
      [
        { type: "address" },
        { type: "address" },
        { type: "uint24" },
        { type: "int24" },
        { type: "address" },
      ],
      [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks],
    ),
  );
}

/**
 * The first salt, from 0 up, for which `deployer`'s CREATE2 of `initCode` lands on an address
 * whose low 14 bits are exactly `flags` (one address in 16,384 on average).
 */
export function mineHookSalt(params: { initCode: Hex; flags: number; deployer?: Address }): {
  salt: Hex;
  address: Address;
} {
  const deployer = params.deployer ?? DETERMINISTIC_DEPLOYMENT_PROXY;
  // 0xff ++ deployer ++ salt ++ keccak256(initCode): only the salt's low bytes change per try.
  const preimage = new Uint8Array(85);
  preimage[0] = 0xff;
  preimage.set(hexToBytes(deployer), 1);
  preimage.set(hexToBytes(keccak256(params.initCode)), 53);
  const limit = 2 ** 32;
  for (let salt = 0; salt < limit; salt++) {
    preimage[49] = salt >>> 24;
    preimage[50] = (salt >>> 16) & 0xff;
    preimage[51] = (salt >>> 8) & 0xff;
    preimage[52] = salt & 0xff;
    const hash = keccak256(preimage, "bytes");
    // The address is the hash's last 20 bytes; its low 14 bits sit in the last two.
    const low = (((hash[30] ?? 0) << 8) | (hash[31] ?? 0)) & ALL_HOOK_MASK;
    if (low === params.flags) {
      return {
        salt: padHex(toHex(salt), { size: 32 }),
        address: getAddress(toHex(hash.slice(12))),
      };
    }
  }
  throw new Error(`no salt below ${limit} gives a hook address with flags ${params.flags}`);
}

/**
 * `LiquidityAmounts.getLiquidityForAmounts` of v4-periphery: the most liquidity between two
 * prices that `amount0` and `amount1` can pay for at `sqrtPriceX96`.
 */
export function liquidityForAmounts(
  sqrtPriceX96: bigint,
  sqrtPriceAX96: bigint,
  sqrtPriceBX96: bigint,
  amount0: bigint,
  amount1: bigint,
): bigint {
  const [a, b] =
    sqrtPriceAX96 < sqrtPriceBX96 ? [sqrtPriceAX96, sqrtPriceBX96] : [sqrtPriceBX96, sqrtPriceAX96];
  const for0 = (lower: bigint) => (amount0 * ((lower * b) / Q96)) / (b - lower);
  const for1 = (upper: bigint) => (amount1 * Q96) / (upper - a);
  if (sqrtPriceX96 <= a) return for0(a);
  if (sqrtPriceX96 < b) {
    const l0 = for0(sqrtPriceX96);
    const l1 = for1(sqrtPriceX96);
    return l0 < l1 ? l0 : l1;
  }
  return for1(b);
}

/** Native ether (currency0) a position needs: none once the price is at or above its range. */
function amount0Needed(sqrtPriceX96: bigint, lower: bigint, upper: bigint, liquidity: bigint) {
  if (sqrtPriceX96 >= upper) return 0n;
  return getAmount0Delta(sqrtPriceX96 > lower ? sqrtPriceX96 : lower, upper, liquidity, true);
}

function clampTick(tick: number, spacing: number): number {
  const bound = Math.floor(MAX_TICK / spacing) * spacing;
  return Math.max(-bound, Math.min(bound, tick));
}

/**
 * Deploys Uniswap V4 and seeds its pools from the deployer's inventory of the world's tokens
 * (and its ether).
 * @example const uniswapV4 = await deployUniswapV4({ deployer, token, ethUsdPrice: 3_000 });
 */
export async function deployUniswapV4(
  params: DeployUniswapV4Parameters,
): Promise<UniswapV4Deployment> {
  const d = params.deployer;
  const currency = (symbol: string): V4Currency =>
    symbol === "ETH"
      ? { address: zeroAddress, symbol, decimals: 18, usdPrice: params.ethUsdPrice }
      : params.token(symbol);

  const managerArt = readNpmArtifact("PoolManager");
  const poolManager = await d.deploy(managerArt.abi, managerArt.bytecode, [d.address]);
  const stateViewArt = readNpmArtifact("StateView");
  const stateView = await d.deploy(stateViewArt.abi, stateViewArt.bytecode, [poolManager]);
  const quoterArt = readNpmArtifact("V4Quoter");
  const quoter = await d.deploy(quoterArt.abi, quoterArt.bytecode, [poolManager]);
  const liquidityArt = loadArtifact("V4LiquidityHelper");
  const liquidityHelper = await d.deploy(liquidityArt.abi, liquidityArt.bytecode, [poolManager]);
  const swapArt = loadArtifact("V4SwapHelper");
  const swapHelper = await d.deploy(swapArt.abi, swapArt.bytecode, [poolManager]);

  const proxyCode = await d.client.getCode({ address: DETERMINISTIC_DEPLOYMENT_PROXY });
  if (proxyCode === undefined || proxyCode === "0x") {
    throw new Error(
      `the deterministic-deployment proxy ${DETERMINISTIC_DEPLOYMENT_PROXY} has no code on this node: the V4 hooks are deployed through it (anvil has it from genesis)`,
    );
  }
  const hooks = {} as Record<keyof typeof HOOKS, Address>;
  for (const [name, { contract, flags }] of Object.entries(HOOKS)) {
    const artifact = loadArtifact(contract);
    const initCode = concat([
      artifact.bytecode,
      encodeAbiParameters([{ type: "address" }], [poolManager]),
    ]);
    const { salt, address } = mineHookSalt({ initCode, flags });
    await d.send(DETERMINISTIC_DEPLOYMENT_PROXY, concat([salt, initCode]));
    const code = await d.client.getCode({ address });
    if (code === undefined || code === "0x") {
      throw new Error(`the ${contract} hook is not at its mined address ${address}`);
    }
    hooks[name as keyof typeof HOOKS] = address;
  }

  const symbols = new Set(V4_POOLS.flatMap((p) => p.pair).filter((s) => s !== "ETH"));
  for (const symbol of symbols) {
    await d.write(currency(symbol).address, DevTokenAbi, "approve", [liquidityHelper, maxUint256]);
  }
  if (V4_POOLS.some((p) => p.protocolFee !== undefined)) {
    await d.write(poolManager, PoolManagerAbi, "setProtocolFeeController", [d.address]);
  }

  const pools: UniswapV4Deployment["pools"] = [];
  for (const spec of V4_POOLS) {
    const [a, b] = spec.pair.map(currency) as [V4Currency, V4Currency];
    const [c0, c1] = a.address.toLowerCase() < b.address.toLowerCase() ? [a, b] : [b, a];
    const key: UniswapV4PoolKey = {
      currency0: c0.address,
      currency1: c1.address,
      fee: spec.fee,
      tickSpacing: spec.tickSpacing,
      hooks: spec.hooks ? hooks[spec.hooks] : zeroAddress,
    };
    const sqrtPriceX96 = sqrtPriceX96FromPrice(c0, c1);
    await d.write(poolManager, PoolManagerAbi, "initialize", [key, sqrtPriceX96]);
    if (spec.protocolFee !== undefined) {
      await d.write(poolManager, PoolManagerAbi, "setProtocolFee", [key, spec.protocolFee]);
    }
    const s = spec.tickSpacing;
    const center = Math.floor(tickFromSqrtPriceX96(sqrtPriceX96) / s) * s;
    const amount0 = amountForUsd(c0, spec.usd);
    const amount1 = amountForUsd(c1, spec.usd);
    const positions: [number, number, bigint, bigint][] = [
      ...CENTRED_HALF_WIDTHS.map((half): [number, number, bigint, bigint] => [
        center - half * s,
        center + (half + 1) * s,
        amount0,
        amount1,
      ]),
      // Below the price: currency1 only; above it: currency0 only.
      [center - ONE_SIDED.far * s, center - ONE_SIDED.near * s, 0n, amount1 / 2n],
      [center + (ONE_SIDED.near + 1) * s, center + (ONE_SIDED.far + 1) * s, amount0 / 2n, 0n],
    ];
    for (const [i, [lower, upper, want0, want1]] of positions.entries()) {
      const tickLower = clampTick(lower, s);
      const tickUpper = clampTick(upper, s);
      const sqrtLower = getSqrtRatioAtTick(tickLower);
      const sqrtUpper = getSqrtRatioAtTick(tickUpper);
      const liquidity = liquidityForAmounts(sqrtPriceX96, sqrtLower, sqrtUpper, want0, want1);
      const value =
        c0.address === zeroAddress
          ? amount0Needed(sqrtPriceX96, sqrtLower, sqrtUpper, liquidity)
          : undefined;
      await d.write(
        liquidityHelper,
        V4LiquidityHelperAbi,
        "modifyLiquidity",
        [key, tickLower, tickUpper, liquidity, padHex(toHex(i), { size: 32 })],
        value,
      );
    }
    pools.push({ id: uniswapV4PoolId(key), ...key });
  }
  return { poolManager, stateView, quoter, liquidityHelper, swapHelper, hooks, pools };
}
