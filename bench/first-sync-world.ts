/**
 * The chain of the first-sync benchmark (bench/first-sync.ts): the devnet world (Uniswap V2, V3,
 * V4, Aave V3, vaults), then many more tokens, V2 pairs with liquidity, V3 pools with many
 * initialized ticks each and V4 pools with a few positions each.
 *
 * Speed is the point: the extra transactions are sent unsigned from anvil's unlocked first
 * account (no signing here), hundreds to a JSON-RPC batch, with automine off and a high block gas
 * limit, so that a block holds dozens to hundreds of them; each batch is mined with `evm_mine`
 * and every receipt checked. A chain built so has far fewer blocks per pool than a real one;
 * the benchmark counts the blocks it fetched and prices mainnet's separately.
 */
import {
  type Address,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  maxUint256,
  zeroAddress,
} from "viem";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { V4LiquidityHelperAbi } from "../abis/generated/V4LiquidityHelper.js";
import { NonfungiblePositionManagerAbi } from "../abis/NonfungiblePositionManager.js";
import { PoolManagerAbi } from "../abis/PoolManager.js";
import { UniswapV2Router02Abi } from "../abis/UniswapV2Router02.js";
import { UniswapV3FactoryAbi } from "../abis/UniswapV3Factory.js";
import { loadArtifact } from "../contracts/build.js";
import type { Deployment } from "../devnet/deployment.js";
import { deployWorld } from "../devnet/world.js";

export type FirstSyncSizes = {
  /** New tokens (18 decimals) the extra pools are made of. */
  tokens: number;
  v2Pairs: number;
  v3Pools: number;
  /** Initialized ticks per extra V3 pool (even: each position adds two). */
  v3TicksPerPool: number;
  /**
   * How many of the extra V3 pools (the first ones) are fee 100, tick spacing 1 (the tier
   * governance enabled on mainnet), their ticks spread over the whole range; the rest rotate
   * through fees 500, 3,000 and 10,000 with their ticks around the price.
   */
  v3Fee100Pools: number;
  v4Pools: number;
  /** Initialized ticks per extra V4 pool (even). */
  v4TicksPerPool: number;
};

export type FirstSyncWorld = {
  deployment: Deployment;
  tokens: Address[];
  /** Blocks mined by the extra seeding (the world's own come before). */
  blocks: number;
  seconds: number;
};

/** `sqrtPriceX96` of a price of 1 (tick 0): every extra pool starts there. */
const SQRT_PRICE_ONE = 1n << 96n;
/** Raw units of each token minted to the seeder: far more than every pool together takes. */
const INVENTORY = 10n ** 36n;
/** What each V2 pair and each V3 position is given of each token. */
const DEPOSIT = 10n ** 18n;
/** Liquidity of each V4 position (a few 10^15 raw units of each token near tick 0). */
const V4_LIQUIDITY = 10n ** 18n;
/** Tick spacing of each V3 fee tier the factory enables by default; pools rotate through them. */
const V3_FEES = [
  { fee: 500, spacing: 10 },
  { fee: 3000, spacing: 60 },
  { fee: 10000, spacing: 200 },
] as const;
/** The fee-100 tier, which the factory's owner enables (`enableFeeAmount`). */
const V3_FEE_100 = { fee: 100, spacing: 1 } as const;
const V4_FEE = 3000;
const V4_SPACING = 60;
/** Block gas limit while seeding: a V3 pool with 25 positions is one ~15 M gas transaction. */
const BLOCK_GAS_LIMIT = 2_000_000_000n;
/** Transactions per JSON-RPC batch (and per `evm_mine` round), and their calldata at most. */
const BATCH = 400;
const BATCH_CALLDATA_CHARS = 1_000_000;

type RpcAnswer = { id: number; result?: unknown; error?: { message: string } };
type Tx = { to?: Address; data: Hex; gas: bigint; value?: bigint };
type Receipt = { status: Hex; contractAddress: Address | null; blockNumber: Hex };

/** Sends `calls` to `url` as one JSON-RPC batch; throws naming the first call that failed. */
async function rpcBatch(
  url: string,
  calls: readonly { method: string; params: readonly unknown[] }[],
): Promise<unknown[]> {
  if (calls.length === 0) return [];
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((c, id) => ({ jsonrpc: "2.0", id, ...c }))),
  });
  const answers = (await res.json()) as RpcAnswer[] | RpcAnswer;
  if (!Array.isArray(answers)) {
    throw new Error(
      `a batch of ${calls.length} ${calls[0]?.method} failed: ${answers.error?.message}`,
    );
  }
  const byId = new Map(answers.map((a) => [a.id, a]));
  return calls.map((c, id) => {
    const answer = byId.get(id);
    if (!answer || answer.error) {
      throw new Error(`${c.method} (call ${id} of a batch) failed: ${answer?.error?.message}`);
    }
    return answer.result;
  });
}

async function rpc(url: string, method: string, params: readonly unknown[] = []): Promise<unknown> {
  return (await rpcBatch(url, [{ method, params }]))[0];
}

/**
 * Sends `txs` from `from` in batches, mines each batch (as many blocks as its gas needs) and
 * checks every receipt; resolves with the receipts in order and the blocks mined.
 */
async function sendAll(
  url: string,
  from: Address,
  txs: readonly Tx[],
  what: string,
): Promise<{ receipts: Receipt[]; blocks: number }> {
  const receipts: Receipt[] = [];
  let blocks = 0;
  for (let i = 0; i < txs.length; ) {
    // Within anvil's request size: a batch of contract deployments is megabytes of hex.
    let end = i;
    for (let chars = 0; end < txs.length && end - i < BATCH; end++) {
      chars += txs[end]?.data.length ?? 0;
      if (chars > BATCH_CALLDATA_CHARS && end > i) break;
    }
    const chunk = txs.slice(i, end);
    // Nonces given here: anvil answers a batch's calls concurrently, and would give two the same.
    const nonce = BigInt((await rpc(url, "eth_getTransactionCount", [from, "pending"])) as Hex);
    const hashes = (await rpcBatch(
      url,
      chunk.map((tx, j) => ({
        method: "eth_sendTransaction",
        params: [
          {
            from,
            nonce: `0x${(nonce + BigInt(j)).toString(16)}`,
            ...(tx.to ? { to: tx.to } : {}),
            data: tx.data,
            gas: `0x${tx.gas.toString(16)}`,
            ...(tx.value ? { value: `0x${tx.value.toString(16)}` } : {}),
          },
        ],
      })),
    )) as Hex[];
    // Mined until the pool is empty: a block takes what fits under its gas limit.
    for (;;) {
      await rpc(url, "evm_mine");
      blocks++;
      const status = (await rpc(url, "txpool_status")) as { pending: Hex };
      if (BigInt(status.pending) === 0n) break;
    }
    const got = (await rpcBatch(
      url,
      hashes.map((h) => ({ method: "eth_getTransactionReceipt", params: [h] })),
    )) as (Receipt | null)[];
    for (const [j, receipt] of got.entries()) {
      if (receipt?.status !== "0x1") {
        throw new Error(`${what}: transaction ${i + j} (${hashes[j]}) reverted or was not mined`);
      }
      receipts.push(receipt);
    }
    i = end;
  }
  return { receipts, blocks };
}

/**
 * `count` distinct unordered pairs of indices below `n`, deterministic: (a, a + d mod n) for
 * d = 1, 2, … and every a (d = n / 2 only once per pair).
 */
function* distinctPairs(n: number): Generator<[number, number]> {
  for (let d = 1; d <= Math.floor(n / 2); d++) {
    for (let a = 0; a < n; a++) {
      if (2 * d === n && a >= d) continue;
      yield [a, (a + d) % n];
    }
  }
}

function sorted(a: Address, b: Address): [Address, Address] {
  return a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
}

/** Positions around tick 0 whose bounds are `ticks` distinct initialized ticks. */
function positionsAroundZero(ticks: number, spacing: number): [number, number][] {
  return Array.from({ length: Math.floor(ticks / 2) }, (_, i) => [
    -(i + 1) * spacing,
    (i + 2) * spacing,
  ]);
}

/**
 * `ticks / 2` positions nested around tick 0 out to MIN_TICK and MAX_TICK, evenly apart: their
 * ticks spread over a tick-spacing-1 pool's whole bitmap, one word each.
 */
function positionsSpread(ticks: number): [number, number][] {
  const count = Math.floor(ticks / 2);
  const step = Math.floor(887_272 / count);
  return Array.from({ length: count }, (_, i) => [-(i + 1) * step, (i + 1) * step]);
}

/**
 * Deploys the devnet world on the fresh node at `rpcUrl`, then seeds `sizes` more on it.
 * @example const world = await seedFirstSyncWorld({ rpcUrl: anvil.url, sizes, log: console.error });
 */
export async function seedFirstSyncWorld(params: {
  rpcUrl: string;
  sizes: FirstSyncSizes;
  /**
   * The block gas limit once seeded, which anvil also applies to each `eth_call`: a node's cap
   * on a call's gas (geth's default `RPCGasCap` is 50 M), which a batched read must fit under.
   */
  callGasCap: bigint;
  log: (line: string) => void;
}): Promise<FirstSyncWorld> {
  const { rpcUrl: url, sizes, log } = params;
  const started = Date.now();
  const deployment = await deployWorld({ rpcUrl: url });
  log(`deployed the devnet world in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const from = deployment.deployer;
  const router = deployment.uniswapV2.router02;
  const positionManager = deployment.uniswapV3.positionManager;
  const v4 = deployment.uniswapV4;
  if (!v4) throw new Error("the devnet world has no Uniswap V4: the benchmark needs its pools");
  await rpc(url, "evm_setAutomine", [false]);
  await rpc(url, "evm_setBlockGasLimit", [`0x${BLOCK_GAS_LIMIT.toString(16)}`]);
  let blocks = 0;
  const send = async (txs: Tx[], what: string) => {
    const t = Date.now();
    const sent = await sendAll(url, from, txs, what);
    blocks += sent.blocks;
    log(
      `${what}: ${txs.length} transactions in ${sent.blocks} blocks, ${((Date.now() - t) / 1000).toFixed(0)} s`,
    );
    return sent.receipts;
  };

  const devToken = loadArtifact("DevToken");
  const deployed = await send(
    Array.from({ length: sizes.tokens }, (_, i) => ({
      data: encodeDeployData({
        abi: devToken.abi,
        bytecode: devToken.bytecode,
        args: [`Bench Token ${i}`, `BT${i}`, 18],
      }),
      gas: 3_000_000n,
    })),
    "tokens",
  );
  const tokens = deployed.map((r) => {
    if (!r.contractAddress) throw new Error("a token deployment left no contract");
    return getAddress(r.contractAddress);
  });
  const call = (to: Address, data: Hex, gas = 200_000n): Tx => ({ to, data, gas });
  const approve = (spender: Address) =>
    encodeFunctionData({ abi: DevTokenAbi, functionName: "approve", args: [spender, maxUint256] });
  await send(
    tokens.flatMap((t) => [
      call(
        t,
        encodeFunctionData({ abi: DevTokenAbi, functionName: "mint", args: [from, INVENTORY] }),
      ),
      call(t, approve(router)),
      call(t, approve(positionManager)),
      call(t, approve(v4.liquidityHelper)),
    ]),
    "token inventory and approvals",
  );

  const pairs = distinctPairs(tokens.length);
  const take = (count: number): [Address, Address][] => {
    const out: [Address, Address][] = [];
    for (let i = 0; i < count; i++) {
      const next = pairs.next();
      if (next.done) {
        throw new Error(
          `${tokens.length} tokens make too few distinct pairs for the pools asked for: raise --tokens`,
        );
      }
      const [a, b] = next.value;
      out.push(sorted(tokens[a] as Address, tokens[b] as Address));
    }
    return out;
  };

  // V2: Router02's addLiquidity creates the pair and deposits into it, one transaction each.
  await send(
    take(sizes.v2Pairs).map(([a, b]) =>
      call(
        router,
        encodeFunctionData({
          abi: UniswapV2Router02Abi,
          functionName: "addLiquidity",
          args: [a, b, DEPOSIT, DEPOSIT, 0n, 0n, from, maxUint256],
        }),
        5_000_000n,
      ),
    ),
    "V2 pairs",
  );

  // V3: one NonfungiblePositionManager multicall per pool creates and initializes it and mints
  // its positions; the fee-100 tier first enabled by the factory's owner, the deployer.
  if (sizes.v3Fee100Pools > 0) {
    await send(
      [
        call(
          deployment.uniswapV3.factory,
          encodeFunctionData({
            abi: UniswapV3FactoryAbi,
            functionName: "enableFeeAmount",
            args: [V3_FEE_100.fee, V3_FEE_100.spacing],
          }),
        ),
      ],
      "V3 fee 100 enabled",
    );
  }
  await send(
    take(sizes.v3Pools).map(([token0, token1], i) => {
      const fee100 = i < sizes.v3Fee100Pools;
      const { fee, spacing } = fee100 ? V3_FEE_100 : (V3_FEES[i % V3_FEES.length] ?? V3_FEES[0]);
      const positions = fee100
        ? positionsSpread(sizes.v3TicksPerPool)
        : positionsAroundZero(sizes.v3TicksPerPool, spacing);
      const create = encodeFunctionData({
        abi: NonfungiblePositionManagerAbi,
        functionName: "createAndInitializePoolIfNecessary",
        args: [token0, token1, fee, SQRT_PRICE_ONE],
      });
      const mints = positions.map(([tickLower, tickUpper]) =>
        encodeFunctionData({
          abi: NonfungiblePositionManagerAbi,
          functionName: "mint",
          args: [
            {
              token0,
              token1,
              fee,
              tickLower,
              tickUpper,
              amount0Desired: DEPOSIT,
              amount1Desired: DEPOSIT,
              amount0Min: 0n,
              amount1Min: 0n,
              recipient: from,
              deadline: maxUint256,
            },
          ],
        }),
      );
      return call(
        positionManager,
        encodeFunctionData({
          abi: NonfungiblePositionManagerAbi,
          functionName: "multicall",
          args: [[create, ...mints]],
        }),
        6_000_000n + 600_000n * BigInt(mints.length),
      );
    }),
    "V3 pools",
  );

  // V4: the pool manager initializes each pool; the devnet's liquidity helper adds positions.
  const v4Keys = take(sizes.v4Pools).map(([currency0, currency1]) => ({
    currency0,
    currency1,
    fee: V4_FEE,
    tickSpacing: V4_SPACING,
    hooks: zeroAddress,
  }));
  await send(
    v4Keys.map((key) =>
      call(
        v4.poolManager,
        encodeFunctionData({
          abi: PoolManagerAbi,
          functionName: "initialize",
          args: [key, SQRT_PRICE_ONE],
        }),
        1_000_000n,
      ),
    ),
    "V4 pools",
  );
  await send(
    v4Keys.flatMap((key) =>
      positionsAroundZero(sizes.v4TicksPerPool, V4_SPACING).map(([tickLower, tickUpper], i) =>
        call(
          v4.liquidityHelper,
          encodeFunctionData({
            abi: V4LiquidityHelperAbi,
            functionName: "modifyLiquidity",
            args: [
              key,
              tickLower,
              tickUpper,
              V4_LIQUIDITY,
              encodeAbiParameters([{ type: "uint256" }], [BigInt(i)]),
            ],
          }),
          2_000_000n,
        ),
      ),
    ),
    "V4 positions",
  );

  // Past Ponder's finality window of an unknown chain (30 blocks), as deployWorld leaves it: the
  // seeded blocks are final, fetched in the backfill's batches. The blocks above have the call
  // gas cap as their limit, so the state start's reads at the head are held to it.
  await rpc(url, "evm_setBlockGasLimit", [`0x${params.callGasCap.toString(16)}`]);
  await rpc(url, "anvil_mine", ["0x40"]);
  blocks += 64;
  await rpc(url, "evm_setAutomine", [true]);
  return { deployment, tokens, blocks, seconds: (Date.now() - started) / 1000 };
}
