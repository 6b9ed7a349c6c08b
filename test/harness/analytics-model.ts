/**
 * The history tables (src/analytics/tables.ts) recomputed from the chain alone: every pool and
 * vault event log from the deployment's start block to a block, replayed in log order by the
 * rules the tables document (docs/analysts.md, "History"), written here a second time without
 * the indexer's code. Token decimals and vault assets are read from their contracts. Then every
 * row of every history table is compared with the recomputed one, exactly.
 *
 * Uniswap V4 pools live in the pool manager and are keyed by their PoolId. Its `Swap` reports the
 * swapper's balance changes, so the pool's are their negation; a liquidity change moves what
 * v4-core's `Pool.modifyLiquidity` computes from the liquidity delta and the price (ported below
 * from v4-core's TickMath and SqrtPriceMath); a donation adds to the pool's holdings. Native
 * currency (address 0) is the catalogue's 0xeeee… token, a swap's fees are its event's fee (LP
 * and protocol), and a dynamic-fee pool's own `fee` is 0.
 */
import {
  type Address,
  erc20Abi,
  erc4626Abi,
  type Log,
  type PublicClient,
  parseEventLogs,
} from "viem";
import { expect } from "vitest";
import { PancakeV3PoolAbi } from "../../abis/PancakeV3Pool.js";
import { PoolManagerAbi } from "../../abis/PoolManager.js";
import { UniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../../abis/UniswapV2Pair.js";
import { UniswapV3FactoryAbi } from "../../abis/UniswapV3Factory.js";
import { UniswapV3PoolAbi } from "../../abis/UniswapV3Pool.js";
import type { Deployment } from "../../devnet/deployment.js";
import { uniswapV2Fork } from "../../engine/index.js";
import { getSqrtRatioAtTick } from "../../engine/math/tick-math.js";
import type { ServiceInstance } from "./service.js";

const E18 = 10n ** 18n;
const MIN_LIQUIDITY_USD = 50_000n * E18;
const STABLE_SYMBOLS = ["USDC", "USDT", "DAI"];
/** The catalogue's address for the native currency, which V4 keys name as address 0. */
const NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
/** `LPFeeLibrary.DYNAMIC_FEE_FLAG`: the key fee of a pool whose hook sets each swap's fee. */
const DYNAMIC_FEE = 0x800000;

type Row = Record<string, string | null>;
type Pool = {
  /** The pool's key in the history tables: its address, or a V4 pool's PoolId. */
  address: string;
  protocol: string;
  token0: string;
  token1: string;
  dec0: number;
  dec1: number;
  fee: bigint;
  bal0: bigint;
  bal1: bigint;
  price: bigint;
  vol0: bigint;
  vol1: bigint;
  volUsd: bigint;
  feesUsd: bigint;
  swaps: number;
  created: bigint;
  updated: bigint;
};
type TokenState = {
  price: bigint | null;
  pricedBy: string | null;
  tvl: bigint;
  vol: bigint;
  volUsd: bigint;
  updated: bigint;
};

export type AnalyticsModel = {
  swap: Row[];
  liquidity_event: Row[];
  vault_event: Row[];
  pool_market: Row[];
  token_market: Row[];
  native_price: Row[];
  pool_hour: Row[];
  pool_day: Row[];
  token_day: Row[];
};

const s = (v: bigint | number | string | null) => (v === null ? null : String(v));
const abs = (v: bigint) => (v < 0n ? -v : v);

/** Replays the chain's pool and vault events up to `toBlock` into the history tables' rows. */
export async function analyticsFromChain(
  client: PublicClient,
  d: Deployment,
  toBlock: bigint,
): Promise<AnalyticsModel> {
  const chainId = String(d.chainId);
  const weth = d.weth.toLowerCase();
  const stables = new Set(
    d.tokens.filter((t) => STABLE_SYMBOLS.includes(t.symbol)).map((t) => t.address.toLowerCase()),
  );
  const fromBlock = BigInt(d.startBlock);
  const raw = await client.request({
    method: "eth_getLogs",
    params: [{ fromBlock: `0x${fromBlock.toString(16)}`, toBlock: `0x${toBlock.toString(16)}` }],
  });
  const logs = (raw as Log[]).map((l) => ({
    ...l,
    blockNumber: BigInt(l.blockNumber as unknown as string),
    logIndex: Number(l.logIndex as unknown as string),
  }));
  const manager = d.uniswapV4?.poolManager.toLowerCase();
  const v4Logs = parseEventLogs({
    abi: PoolManagerAbi,
    logs,
    eventName: ["Initialize", "Swap", "ModifyLiquidity", "Donate"],
    strict: true,
  }).filter((e) => e.address.toLowerCase() === manager);
  const decoded = [
    ...parseEventLogs({ abi: UniswapV2FactoryAbi, logs, eventName: "PairCreated", strict: true }),
    ...parseEventLogs({ abi: UniswapV3FactoryAbi, logs, eventName: "PoolCreated", strict: true }),
    ...parseEventLogs({
      abi: UniswapV2PairAbi,
      logs,
      eventName: ["Sync", "Swap", "Mint", "Burn"],
      strict: true,
    }),
    ...parseEventLogs({
      abi: UniswapV3PoolAbi,
      logs,
      eventName: ["Initialize", "Swap", "Mint", "Burn", "Collect", "Flash", "CollectProtocol"],
      strict: true,
    }),
    // PancakeSwap V3's pools: Uniswap V3's events but for `Swap`, which adds the protocol fees.
    ...parseEventLogs({ abi: PancakeV3PoolAbi, logs, eventName: "Swap", strict: true }),
    ...parseEventLogs({ abi: erc4626Abi, logs, eventName: ["Deposit", "Withdraw"], strict: true }),
    ...v4Logs,
  ].sort((a, b) =>
    a.blockNumber === b.blockNumber
      ? (a.logIndex as number) - (b.logIndex as number)
      : a.blockNumber < b.blockNumber
        ? -1
        : 1,
  );
  const v4Set = new Set<object>(v4Logs);
  const isV4 = (e: (typeof decoded)[number]): e is (typeof v4Logs)[number] => v4Set.has(e);

  // Native ether has no contract to ask.
  const decimals = new Map<string, number>([[NATIVE, 18]]);
  const decimalsOf = async (t: string) => {
    let v = decimals.get(t);
    if (v === undefined) {
      v = await client.readContract({
        address: t as Address,
        abi: erc20Abi,
        functionName: "decimals",
      });
      decimals.set(t, v);
    }
    return v;
  };
  const timestamps = new Map<bigint, bigint>();
  const timestampOf = async (n: bigint) => {
    let v = timestamps.get(n);
    if (v === undefined) {
      v = (await client.getBlock({ blockNumber: n })).timestamp;
      timestamps.set(n, v);
    }
    return v;
  };
  const vaults = new Map<string, string>();
  for (const v of d.vaults) vaults.set(v.address.toLowerCase(), v.asset.toLowerCase());

  const pools = new Map<string, Pool>();
  /** Uniswap V2's factory and its forks', each with its protocol and fee. */
  const v2Factories = new Map<string, { protocol: string; fee: bigint }>([
    [d.uniswapV2.factory.toLowerCase(), { protocol: "uniswap-v2", fee: 3000n }],
    ...(d.uniswapV2Forks ?? []).map((f) => {
      const fee = BigInt(uniswapV2Fork(f.slug)?.feePpm ?? 0);
      return [f.factory.toLowerCase(), { protocol: f.slug, fee }] as const;
    }),
  ]);
  const v2Protocols = new Set([...v2Factories.values()].map((f) => f.protocol));
  const isV2Pair = (pool: Pool | undefined): pool is Pool =>
    pool !== undefined && v2Protocols.has(pool.protocol);
  /** Uniswap V3's factory and its forks', each with its protocol. */
  const v3Factories = new Map<string, string>([
    [d.uniswapV3.factory.toLowerCase(), "uniswap-v3"],
    ...(d.uniswapV3Forks ?? []).map((f) => [f.factory.toLowerCase(), f.slug] as const),
  ]);
  const v3Protocols = new Set(v3Factories.values());
  const isV3Pool = (pool: Pool | undefined): pool is Pool =>
    pool !== undefined && v3Protocols.has(pool.protocol);
  /** Each V4 pool's price and tick, as its liquidity changes need them. */
  const v4Slot0 = new Map<string, { sqrtPriceX96: bigint; tick: number }>();
  const tokens = new Map<string, TokenState>();
  const out: AnalyticsModel = {
    swap: [],
    liquidity_event: [],
    vault_event: [],
    pool_market: [],
    token_market: [],
    native_price: [],
    pool_hour: [],
    pool_day: [],
    token_day: [],
  };
  const native = new Map<string, Row>();
  const hours = new Map<string, Row>();
  const days = new Map<string, Row>();
  const tokenDays = new Map<string, Row>();
  const tokenOf = (t: string): TokenState =>
    tokens.get(t) ?? {
      price: stables.has(t) ? E18 : null,
      pricedBy: null,
      tvl: 0n,
      vol: 0n,
      volUsd: 0n,
      updated: 0n,
    };
  const usd = (amount: bigint, price: bigint | null, dec: number) =>
    price === null ? null : (abs(amount) * price) / 10n ** BigInt(dec);

  for (const e of decoded) {
    const address = e.address.toLowerCase();
    const block = e.blockNumber;
    const ts = await timestampOf(block);
    const meta = {
      chain_id: chainId,
      tx_hash: e.transactionHash,
      log_index: s(e.logIndex as number),
      block_number: s(block),
      timestamp: s(ts),
    };
    const register = async (protocol: string, p: string, t0: string, t1: string, fee: bigint) => {
      if (pools.has(p)) return;
      pools.set(p, {
        address: p,
        protocol,
        token0: t0,
        token1: t1,
        dec0: await decimalsOf(t0),
        dec1: await decimalsOf(t1),
        fee,
        bal0: 0n,
        bal1: 0n,
        price: 0n,
        vol0: 0n,
        vol1: 0n,
        volUsd: 0n,
        feesUsd: 0n,
        swaps: 0,
        created: block,
        updated: block,
      });
    };
    type Change = {
      set?: [bigint, bigint];
      delta?: [bigint, bigint];
      price?: bigint;
      swap?: { sender: string; recipient: string; a0: bigint; a1: bigint; fee?: bigint };
    };
    const poolEvent = (p: Pool, c: Change) => {
      const before = [p.bal0, p.bal1];
      if (c.set) [p.bal0, p.bal1] = c.set;
      if (c.delta) {
        p.bal0 += c.delta[0];
        p.bal1 += c.delta[1];
      }
      if (c.price !== undefined) p.price = c.price;
      p.updated = block;
      const t0 = tokenOf(p.token0);
      const t1 = tokenOf(p.token1);
      t0.tvl += p.bal0 - (before[0] as bigint);
      t1.tvl += p.bal1 - (before[1] as bigint);
      // Pricing: stablecoin > WETH > other; the higher side prices the lower one when the pool
      // holds enough of it.
      const rank = (t: string) => (stables.has(t) ? 2 : t === weth ? 1 : 0);
      const r0 = rank(p.token0);
      const r1 = rank(p.token1);
      if (r0 !== r1 && p.price !== 0n) {
        const [known, held, kdec] = r0 > r1 ? [t0, p.bal0, p.dec0] : [t1, p.bal1, p.dec1];
        if (
          known.price !== null &&
          (held * known.price) / 10n ** BigInt(kdec) >= MIN_LIQUIDITY_USD
        ) {
          const target = r0 > r1 ? t1 : t0;
          const sc0 = 10n ** BigInt(p.dec0);
          const sc1 = 10n ** BigInt(p.dec1);
          target.price =
            r0 > r1
              ? (known.price * (1n << 128n) * sc1) / (p.price * sc0)
              : (p.price * known.price * sc0) / ((1n << 128n) * sc1);
          target.pricedBy = p.address;
          if ((r0 > r1 ? p.token1 : p.token0) === weth) {
            native.set(chainId, {
              chain_id: chainId,
              price_usd: s(target.price),
              priced_by: p.address,
              updated_block: s(block),
            });
          }
        }
      }
      let v = { v0: 0n, v1: 0n, usd: 0n, fees: 0n, n: 0 };
      if (c.swap) {
        const u0 = usd(c.swap.a0, t0.price, p.dec0);
        const u1 = usd(c.swap.a1, t1.price, p.dec1);
        const value = u0 !== null && u1 !== null ? (u0 + u1) / 2n : (u0 ?? u1 ?? 0n);
        v = {
          v0: abs(c.swap.a0),
          v1: abs(c.swap.a1),
          usd: value,
          fees: (value * (c.swap.fee ?? p.fee)) / 1_000_000n,
          n: 1,
        };
        out.swap.push({
          ...meta,
          protocol_slug: p.protocol,
          pool: p.address,
          token0: p.token0,
          token1: p.token1,
          sender: c.swap.sender,
          recipient: c.swap.recipient,
          amount0: s(c.swap.a0),
          amount1: s(c.swap.a1),
          amount_usd: s(v.usd),
          fees_usd: s(v.fees),
          price: s(p.price),
        });
        p.vol0 += v.v0;
        p.vol1 += v.v1;
        p.volUsd += v.usd;
        p.feesUsd += v.fees;
        p.swaps += 1;
        t0.vol += v.v0;
        t1.vol += v.v1;
        t0.volUsd += v.usd;
        t1.volUsd += v.usd;
      }
      t0.updated = block;
      t1.updated = block;
      tokens.set(p.token0, t0);
      tokens.set(p.token1, t1);
      const tvlUsd = (usd(p.bal0, t0.price, p.dec0) ?? 0n) + (usd(p.bal1, t1.price, p.dec1) ?? 0n);
      const t = Number(ts);
      for (const [map, start] of [
        [hours, t - (t % 3600)],
        [days, t - (t % 86_400)],
      ] as const) {
        const key = `${p.address}:${start}`;
        const row = map.get(key);
        const price = p.price;
        const big = (k: string) => BigInt(row?.[k] ?? 0);
        map.set(key, {
          chain_id: chainId,
          pool: p.address,
          period_start: s(start),
          protocol_slug: p.protocol,
          token0: p.token0,
          token1: p.token1,
          open: row?.open ?? s(price),
          high: s(row && big("high") > price ? big("high") : price),
          low: s(row && big("low") < price ? big("low") : price),
          close: s(price),
          volume_token0: s(big("volume_token0") + v.v0),
          volume_token1: s(big("volume_token1") + v.v1),
          volume_usd: s(big("volume_usd") + v.usd),
          fees_usd: s(big("fees_usd") + v.fees),
          swap_count: s(Number(row?.swap_count ?? 0) + v.n),
          tvl_token0: s(p.bal0),
          tvl_token1: s(p.bal1),
          tvl_usd: s(tvlUsd),
          updated_block: s(block),
        });
      }
      for (const [token, tok, dec, amount] of [
        [p.token0, t0, p.dec0, v.v0],
        [p.token1, t1, p.dec1, v.v1],
      ] as const) {
        const start = t - (t % 86_400);
        const key = `${token}:${start}`;
        const row = tokenDays.get(key);
        const price = tok.price;
        const prev = (k: string) => (row?.[k] == null ? null : BigInt(row[k] as string));
        const high = prev("high_usd");
        const low = prev("low_usd");
        tokenDays.set(key, {
          chain_id: chainId,
          token,
          period_start: s(start),
          volume: s((prev("volume") ?? 0n) + amount),
          volume_usd: s((prev("volume_usd") ?? 0n) + v.usd),
          swap_count: s(Number(row?.swap_count ?? 0) + v.n),
          total_value_locked: s(tok.tvl),
          tvl_usd: s(usd(tok.tvl, price, dec) ?? 0n),
          open_usd: row?.open_usd ?? s(price),
          high_usd: s(price === null ? high : high !== null && high >= price ? high : price),
          low_usd: s(price === null ? low : low !== null && low <= price ? low : price),
          close_usd: s(price ?? prev("close_usd")),
          updated_block: s(block),
        });
      }
    };
    const liquidity = (
      p: Pool,
      r: {
        kind: string;
        sender: string;
        owner?: string;
        recipient?: string;
        a0: bigint;
        a1: bigint;
        liquidity?: bigint;
        tickLower?: number;
        tickUpper?: number;
      },
    ) => {
      const t0 = tokenOf(p.token0);
      const t1 = tokenOf(p.token1);
      out.liquidity_event.push({
        ...meta,
        protocol_slug: p.protocol,
        pool: p.address,
        kind: r.kind,
        sender: r.sender.toLowerCase(),
        owner: r.owner?.toLowerCase() ?? null,
        recipient: r.recipient?.toLowerCase() ?? null,
        amount0: s(r.a0),
        amount1: s(r.a1),
        liquidity: r.liquidity === undefined ? null : s(r.liquidity),
        tick_lower: r.tickLower === undefined ? null : s(r.tickLower),
        tick_upper: r.tickUpper === undefined ? null : s(r.tickUpper),
        amount_usd: s((usd(r.a0, t0.price, p.dec0) ?? 0n) + (usd(r.a1, t1.price, p.dec1) ?? 0n)),
      });
    };

    const lower = (a: string) => a.toLowerCase();
    if (isV4(e)) {
      // A V4 event names its pool by PoolId.
      const { id } = e.args;
      const pool = pools.get(id);
      switch (e.eventName) {
        case "Initialize": {
          const a = e.args;
          const catalogue = (c: string) => (lower(c) === ZERO_ADDRESS ? NATIVE : lower(c));
          const fee = a.fee === DYNAMIC_FEE ? 0n : BigInt(a.fee);
          await register("uniswap-v4", id, catalogue(a.currency0), catalogue(a.currency1), fee);
          v4Slot0.set(id, { sqrtPriceX96: a.sqrtPriceX96, tick: a.tick });
          const created = pools.get(id);
          if (created) poolEvent(created, { price: (a.sqrtPriceX96 ** 2n) >> 64n });
          break;
        }
        case "Swap": {
          const a = e.args;
          v4Slot0.set(id, { sqrtPriceX96: a.sqrtPriceX96, tick: a.tick });
          if (!pool) break;
          // The swapper's deltas: what the pool took in is their negation.
          poolEvent(pool, {
            delta: [-a.amount0, -a.amount1],
            price: (a.sqrtPriceX96 ** 2n) >> 64n,
            swap: {
              sender: lower(a.sender),
              recipient: lower(a.sender),
              a0: -a.amount0,
              a1: -a.amount1,
              // The event's fee: the LP fee composed with the protocol fee.
              fee: BigInt(a.fee),
            },
          });
          break;
        }
        case "ModifyLiquidity": {
          const { sender, tickLower, tickUpper, liquidityDelta } = e.args;
          const slot0 = v4Slot0.get(id);
          // A zero delta only collects fees, which the event does not report.
          if (!pool || !slot0 || liquidityDelta === 0n) break;
          const [a0, a1] = v4LiquidityAmounts(slot0, tickLower, tickUpper, liquidityDelta);
          poolEvent(pool, { delta: [a0, a1] });
          liquidity(pool, {
            kind: liquidityDelta > 0n ? "mint" : "burn",
            sender,
            owner: sender,
            a0: abs(a0),
            a1: abs(a1),
            liquidity: abs(liquidityDelta),
            tickLower,
            tickUpper,
          });
          break;
        }
        case "Donate":
          if (pool) poolEvent(pool, { delta: [e.args.amount0, e.args.amount1] });
          break;
      }
      continue;
    }
    const pool = pools.get(address);
    switch (e.eventName) {
      case "PairCreated": {
        const factory = v2Factories.get(address);
        if (factory) {
          // The event's fourth argument is unnamed: viem decodes the arguments as a tuple.
          const [t0, t1, pair] = e.args as unknown as [Address, Address, Address];
          await register(factory.protocol, lower(pair), lower(t0), lower(t1), factory.fee);
        }
        break;
      }
      case "PoolCreated": {
        const protocol = v3Factories.get(address);
        if (protocol)
          await register(
            protocol,
            lower(e.args.pool),
            lower(e.args.token0),
            lower(e.args.token1),
            BigInt(e.args.fee),
          );
        break;
      }
      case "Sync":
        if (isV2Pair(pool)) {
          const { reserve0, reserve1 } = e.args;
          poolEvent(pool, {
            set: [reserve0, reserve1],
            price: reserve0 === 0n ? 0n : (reserve1 << 128n) / reserve0,
          });
        }
        break;
      case "Initialize":
        if (isV3Pool(pool)) poolEvent(pool, { price: (e.args.sqrtPriceX96 ** 2n) >> 64n });
        break;
      case "Swap":
        if (isV2Pair(pool) && "amount0In" in e.args) {
          const a = e.args;
          poolEvent(pool, {
            swap: {
              sender: lower(a.sender),
              recipient: lower(a.to),
              a0: a.amount0In - a.amount0Out,
              a1: a.amount1In - a.amount1Out,
            },
          });
        } else if (isV3Pool(pool) && "sqrtPriceX96" in e.args) {
          const a = e.args;
          poolEvent(pool, {
            delta: [a.amount0, a.amount1],
            price: (a.sqrtPriceX96 ** 2n) >> 64n,
            swap: {
              sender: lower(a.sender),
              recipient: lower(a.recipient),
              a0: a.amount0,
              a1: a.amount1,
            },
          });
        }
        break;
      case "Mint":
        if (isV2Pair(pool) && !("owner" in e.args)) {
          liquidity(pool, {
            kind: "mint",
            sender: e.args.sender,
            a0: e.args.amount0,
            a1: e.args.amount1,
          });
        } else if (isV3Pool(pool) && "owner" in e.args) {
          const a = e.args;
          poolEvent(pool, { delta: [a.amount0, a.amount1] });
          liquidity(pool, {
            kind: "mint",
            sender: a.sender,
            owner: a.owner,
            a0: a.amount0,
            a1: a.amount1,
            liquidity: a.amount,
            tickLower: a.tickLower,
            tickUpper: a.tickUpper,
          });
        }
        break;
      case "Burn":
        if (isV2Pair(pool) && "to" in e.args) {
          const a = e.args;
          liquidity(pool, {
            kind: "burn",
            sender: a.sender,
            recipient: a.to,
            a0: a.amount0,
            a1: a.amount1,
          });
        } else if (isV3Pool(pool) && "owner" in e.args) {
          const a = e.args;
          liquidity(pool, {
            kind: "burn",
            sender: a.owner,
            owner: a.owner,
            a0: a.amount0,
            a1: a.amount1,
            liquidity: a.amount,
            tickLower: a.tickLower,
            tickUpper: a.tickUpper,
          });
        }
        break;
      case "Collect":
        if (isV3Pool(pool)) {
          const a = e.args;
          poolEvent(pool, { delta: [-a.amount0, -a.amount1] });
          liquidity(pool, {
            kind: "collect",
            sender: a.owner,
            owner: a.owner,
            recipient: a.recipient,
            a0: a.amount0,
            a1: a.amount1,
            tickLower: a.tickLower,
            tickUpper: a.tickUpper,
          });
        }
        break;
      case "Flash":
        if (isV3Pool(pool)) poolEvent(pool, { delta: [e.args.paid0, e.args.paid1] });
        break;
      case "CollectProtocol":
        if (isV3Pool(pool)) poolEvent(pool, { delta: [-e.args.amount0, -e.args.amount1] });
        break;
      case "Deposit":
      case "Withdraw": {
        const asset = vaults.get(address);
        if (!asset) break;
        const a = e.args;
        const withdraw = e.eventName === "Withdraw";
        out.vault_event.push({
          ...meta,
          vault: address,
          asset,
          kind: withdraw ? "withdraw" : "deposit",
          sender: lower(a.sender),
          owner: lower("owner" in a ? a.owner : a.receiver),
          receiver: withdraw && "owner" in a ? lower(a.receiver) : null,
          assets: s(a.assets),
          shares: s(a.shares),
          assets_usd: s(usd(a.assets, tokenOf(asset).price, await decimalsOf(asset))),
        });
        break;
      }
    }
  }
  for (const [address, p] of pools) {
    out.pool_market.push({
      chain_id: chainId,
      address,
      protocol_slug: p.protocol,
      token0: p.token0,
      token1: p.token1,
      decimals0: s(p.dec0),
      decimals1: s(p.dec1),
      fee: s(p.fee),
      balance0: s(p.bal0),
      balance1: s(p.bal1),
      price: s(p.price),
      volume_token0: s(p.vol0),
      volume_token1: s(p.vol1),
      volume_usd: s(p.volUsd),
      fees_usd: s(p.feesUsd),
      swap_count: s(p.swaps),
      created_block: s(p.created),
      updated_block: s(p.updated),
    });
  }
  for (const [address, t] of tokens) {
    out.token_market.push({
      chain_id: chainId,
      address,
      price_usd: s(t.price),
      priced_by: t.pricedBy,
      total_value_locked: s(t.tvl),
      volume: s(t.vol),
      volume_usd: s(t.volUsd),
      updated_block: s(t.updated),
    });
  }
  out.native_price = [...native.values()];
  out.pool_hour = [...hours.values()];
  out.pool_day = [...days.values()];
  out.token_day = [...tokenDays.values()];
  return out;
}

const divUp = (a: bigint, b: bigint) => a / b + (a % b === 0n ? 0n : 1n);

/** v4-core `SqrtPriceMath.getAmount0Delta` (unsigned): currency0 between two prices. */
function amount0Between(a: bigint, b: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const [lo, hi] = a < b ? [a, b] : [b, a];
  const numerator = (liquidity << 96n) * (hi - lo);
  return roundUp ? divUp(divUp(numerator, hi), lo) : numerator / hi / lo;
}

/** v4-core `SqrtPriceMath.getAmount1Delta` (unsigned): currency1 between two prices. */
function amount1Between(a: bigint, b: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const product = liquidity * (a < b ? b - a : a - b);
  return roundUp ? divUp(product, 1n << 96n) : product >> 96n;
}

/**
 * What a V4 liquidity change moves into the pool (+) or out of it (−), as `Pool.modifyLiquidity`
 * computes it from the pool's slot0: rounded up when adding, down when removing.
 */
function v4LiquidityAmounts(
  slot0: { sqrtPriceX96: bigint; tick: number },
  tickLower: number,
  tickUpper: number,
  liquidityDelta: bigint,
): [bigint, bigint] {
  const adding = liquidityDelta > 0n;
  const l = abs(liquidityDelta);
  const sign = adding ? 1n : -1n;
  // TickMath itself is the engine's port (held to the chain by test/routing/math.test.ts).
  const lower = getSqrtRatioAtTick(tickLower);
  const upper = getSqrtRatioAtTick(tickUpper);
  if (slot0.tick < tickLower) return [sign * amount0Between(lower, upper, l, adding), 0n];
  if (slot0.tick >= tickUpper) return [0n, sign * amount1Between(lower, upper, l, adding)];
  return [
    sign * amount0Between(slot0.sqrtPriceX96, upper, l, adding),
    sign * amount1Between(lower, slot0.sqrtPriceX96, l, adding),
  ];
}

/** Runs one SQL statement (with `$1`… `params`) through the service's SQL over HTTP (`/sql/db`). */
export async function sqlOverHttp<T = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const query = encodeURIComponent(JSON.stringify({ json: { sql, params } }));
  const res = await fetch(`${url}/sql/db?sql=${query}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/sql/db answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { rows: T[] }).rows;
}

const KEYS: Record<keyof AnalyticsModel, string[]> = {
  swap: ["tx_hash", "log_index"],
  liquidity_event: ["tx_hash", "log_index"],
  vault_event: ["tx_hash", "log_index"],
  pool_market: ["address"],
  token_market: ["address"],
  native_price: ["chain_id"],
  pool_hour: ["pool", "period_start"],
  pool_day: ["pool", "period_start"],
  token_day: ["token", "period_start"],
};

const normalize = (rows: Record<string, unknown>[], table: keyof AnalyticsModel): Row[] =>
  rows
    .map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [k, v === null || v === undefined ? null : String(v)]),
      ),
    )
    .sort((a, b) => {
      for (const k of KEYS[table]) {
        const x = a[k] ?? "";
        const y = b[k] ?? "";
        if (x !== y)
          return /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x < y ? -1 : 1;
      }
      return 0;
    });

/** Every history table of the service, read with SQL over HTTP. */
export async function analyticsFromIndex(service: ServiceInstance): Promise<AnalyticsModel> {
  const out = {} as AnalyticsModel;
  for (const table of Object.keys(KEYS) as (keyof AnalyticsModel)[]) {
    out[table] = normalize(await sqlOverHttp(service.url, `select * from ${table}`), table);
  }
  return out;
}

/** Asserts that every history table equals its recomputation from the chain at `blockNumber`. */
export async function expectAnalyticsMatchChain(
  service: ServiceInstance,
  client: PublicClient,
  blockNumber: bigint,
): Promise<AnalyticsModel> {
  const expected = await analyticsFromChain(client, service.deployment, blockNumber);
  const actual = await analyticsFromIndex(service);
  for (const table of Object.keys(KEYS) as (keyof AnalyticsModel)[]) {
    expect({ table, rows: actual[table] }).toEqual({
      table,
      rows: normalize(expected[table], table),
    });
  }
  return expected;
}
