/**
 * The routing graph's vocabulary, shared by the snapshot (built from the indexed tables), the
 * pool math, the path search and the transaction builder. Pure data: no Ponder, no Hono.
 * Addresses are lowercase hex throughout the engine.
 */

export type Address = `0x${string}`;

/** A Uniswap V2 pair as the indexer holds it. */
export type V2Pool = {
  kind: "v2";
  /** `uniswap-v2`, or the slug of one of its forks (engine/protocols/uniswap-v2/forks.ts). */
  protocol: string;
  address: Address;
  token0: Address;
  token1: Address;
  reserve0: bigint;
  reserve1: bigint;
  /** Swap fee in millionths of the input (3000 = 0.3%). */
  feePpm: number;
  /** LP tokens in existence (the pair is also the LP token). */
  totalSupply: bigint;
};

/** One initialized tick of a V3 pool. */
export type V3Tick = { tick: number; liquidityNet: bigint };

/** A Uniswap V3 pool: exactly what a swap needs to be quoted off-chain. */
export type V3Pool = {
  kind: "v3";
  /** `uniswap-v3`, or the slug of one of its forks (engine/protocols/uniswap-v3/forks.ts). */
  protocol: string;
  address: Address;
  token0: Address;
  token1: Address;
  /** Fee in millionths (500, 3000, 10000). */
  feePpm: number;
  tickSpacing: number;
  sqrtPriceX96: bigint;
  tick: number;
  /** In-range liquidity. */
  liquidity: bigint;
  /** Initialized ticks (liquidityGross > 0), ascending by tick. */
  ticks: V3Tick[];
};

/**
 * A Uniswap V4 pool: one entry of the singleton pool manager, named by its PoolId. The swap is
 * V3's loop over the same kind of ticks; the fee is the LP fee composed with the protocol fee
 * of the swap's direction.
 */
export type V4Pool = {
  kind: "v4";
  protocol: "uniswap-v4";
  /** The PoolId (32 bytes, lowercase hex): the pool's key in the graph and the tables. */
  address: Address;
  /** The pool manager holding it. */
  poolManager: Address;
  /** Catalogue addresses, sorted as the key's currencies (native currency as `0xeeee…`). */
  token0: Address;
  token1: Address;
  /** LP fee in millionths, as in the pool key (static-fee pools). */
  feePpm: number;
  /** The key's fee field as it is (`0x800000` marks a dynamic-fee pool). */
  keyFee: number;
  /** Protocol fee in millionths: low 12 bits selling currency0, high 12 bits selling currency1. */
  protocolFee: number;
  tickSpacing: number;
  /** The pool's hook contract (the zero address when none). */
  hooks: Address;
  /**
   * `exact`: the hook cannot change a swap's amounts, the math is the chain's. `simulated`: it
   * can, and the operator allow-listed it: the math only ranks routes, the simulation decides.
   */
  admission: "exact" | "simulated";
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
  /** Initialized ticks (liquidityGross > 0), ascending by tick. */
  ticks: V3Tick[];
};

/** An ERC4626 vault: deposit asset → shares, redeem shares → asset. */
export type VaultPool = {
  kind: "erc4626";
  /** The vault's protocol slug (e.g. `savings-vaults`). */
  protocol: string;
  /** The vault, which is also the share token. */
  address: Address;
  asset: Address;
  totalAssets: bigint;
  totalSupply: bigint;
  /** OpenZeppelin's `_decimalsOffset()` (0 for a plain ERC4626). */
  decimalsOffset: number;
};

/**
 * An Aave V3 reserve as a routing edge: supplying its asset mints aTokens (`deposit`),
 * withdrawing burns them for the asset (`redeem`). Keyed by its aToken, the position token.
 */
export type AaveReservePool = {
  kind: "aave-v3";
  protocol: "aave-v3";
  /** The aToken: the reserve's key in the graph and the position token. */
  address: Address;
  /** The Aave Pool (proxy) that supplies and withdraws. */
  pool: Address;
  asset: Address;
  /** The reserve's debt tokens (variable, stable): a borrow mints them to the borrower. */
  debtTokens: Address[];
  /** Ray. */
  liquidityIndex: bigint;
  /** Ray, per year. */
  liquidityRate: bigint;
  /** Unix seconds of the reserve's last update. */
  lastUpdateTimestamp: bigint;
  /** Unix seconds the quotes accrue interest to (the indexed head block's timestamp). */
  accrueTo: bigint;
  /** What the aToken holds of the asset: the most a withdrawal can take. */
  availableLiquidity: bigint;
  /** The supply cap in raw units of the asset (0: none). */
  supplyCap: bigint;
  /** Scaled aToken supply plus what is accrued to the treasury (scaled): what the cap counts. */
  scaledSupplied: bigint;
  /** Supplies and withdrawals are accepted (active, not paused; supplies also not frozen). */
  active: boolean;
  frozen: boolean;
  paused: boolean;
};

/** WETH9-style wrapper: native ↔ wrapped, one for one. */
export type WrapperPool = {
  kind: "wrap";
  protocol: "wrapped-native";
  /** The wrapped token (WETH). */
  address: Address;
};

/** A weighted pool as the chain holds it; per-token arrays follow `tokens`. */
export type WeightedPoolState = {
  /** The pool's tokens in the vault's order (`Vault.getPoolTokens`). */
  tokens: readonly Address[];
  /** Balances in token units (cash plus managed, as the vault passes them to the pool). */
  balances: readonly bigint[];
  /** `getScalingFactors()`: 1e18 · 10^(18 - decimals). */
  scalingFactors: readonly bigint[];
  /** `getNormalizedWeights()`, summing to 1e18. */
  normalizedWeights: readonly bigint[];
  /** `getSwapFeePercentage()`, 18 decimals. */
  swapFeePercentage: bigint;
  /** `getActualSupply()`: the BPT supply with protocol fees due, the supply a join mints against. */
  actualSupply: bigint;
};

/**
 * The protocol's share of the pool's growth since the last join or exit, which the pool mints as
 * BPT before a join or exit (`ComposableStablePoolProtocolFees`).
 */
export type ComposableStableProtocolFees = {
  /** `getLastJoinExitData()`. */
  lastJoinExitAmp: bigint;
  lastPostJoinExitInvariant: bigint;
  /** `getProtocolFeePercentageCache(0)` and `(2)`: the swap and yield fee types. */
  swapFeePercentage: bigint;
  yieldFeePercentage: bigint;
};

/** A composable stable pool as the chain holds it; per-token arrays follow `tokens`. */
export type ComposableStablePoolState = {
  /** The pool's address, which is its BPT. */
  address: Address;
  /** The registered tokens in the vault's order, the BPT among them (`Vault.getPoolTokens`). */
  tokens: readonly Address[];
  /** `getBptIndex()`. */
  bptIndex: number;
  /** Registered balances in token units, the BPT's (the preminted BPT the vault holds) included. */
  balances: readonly bigint[];
  /** 1e18 · 10^(18 - decimals) for each token, 1e18 for the BPT. */
  decimalScalingFactors: readonly bigint[];
  /** The rate each token's amounts are multiplied by in the swap ({@link rateAtSwap}); 1e18 without a provider. */
  tokenRates: readonly bigint[];
  /** Each token's rate cache's old rate; ignored for tokens without a rate provider. */
  oldRates: readonly bigint[];
  /** Whether the token has a rate provider (`getRateProviders()` not zero). */
  hasRateProvider: readonly boolean[];
  /** `isTokenExemptFromYieldProtocolFee(token)`. */
  exemptFromYieldProtocolFee: readonly boolean[];
  /** The amplification parameter times 1e3 (`getAmplificationParameter()`'s value). */
  amp: bigint;
  /** `getSwapFeePercentage()`. */
  swapFeePercentage: bigint;
  /** The BPT's `totalSupply()`: preminted BPT included. */
  totalSupply: bigint;
  protocolFees: ComposableStableProtocolFees;
};

type BalancerV2PoolBase = {
  kind: "balancer-v2";
  protocol: "balancer-v2";
  /** The pool contract (lowercase), its key in the graph; a composable stable pool's BPT too. */
  address: Address;
  /** The vault's id of the pool, which `Vault.swap` names it by. */
  poolId: `0x${string}`;
  /** The vault holding the pool's tokens, which swaps go through. */
  vault: Address;
};

/** A weighted pool: its tokens (lowercase) and everything its exact math reads. */
export type BalancerV2WeightedPool = BalancerV2PoolBase & {
  type: "weighted";
  state: WeightedPoolState;
};

/**
 * A composable stable pool: its tokens (lowercase, its BPT among them), amp, rates as a swap in
 * the next block applies them, and the protocol-fee state joins and exits price the BPT with.
 */
export type BalancerV2StablePool = BalancerV2PoolBase & {
  type: "composable-stable";
  state: ComposableStablePoolState;
};

export type BalancerV2Pool = BalancerV2WeightedPool | BalancerV2StablePool;

/**
 * A pool of a protocol added from outside the engine (`createEngine`): its kind starts with
 * `ext:` (so no built-in kind is ever mistaken for it) and its own fields are its protocol's.
 */
export type ExternalPool = {
  kind: `ext:${string}`;
  protocol: string;
  address: Address;
  readonly [field: string]: unknown;
};

export type Pool =
  | V2Pool
  | V3Pool
  | V4Pool
  | VaultPool
  | AaveReservePool
  | WrapperPool
  | BalancerV2Pool
  | ExternalPool;

export type EdgeAction = "swap" | "deposit" | "redeem" | "wrap" | "unwrap";

/** A directed edge of the graph: one way through one pool. */
export type Edge = {
  pool: Pool;
  tokenIn: Address;
  tokenOut: Address;
  action: EdgeAction;
};

/** One hop of a quoted path. */
export type QuotedHop = { edge: Edge; amountIn: bigint; amountOut: bigint };

/** A path with the part of the input it carries. */
export type QuotedLeg = { amountIn: bigint; amountOut: bigint; hops: QuotedHop[] };

/**
 * A hop of a flow: it spends `sharePpb` parts per billion of what its input token holds when
 * the token's first spending hop runs (the route's input, or the sum of what earlier hops made of
 * it). A token's spending hops share a billion; each takes its share rounded down, the last the
 * remainder, as `ProgramValues.splitProportionally` divides on chain.
 */
export type FlowHop = QuotedHop & { sharePpb: number };

/**
 * A route whose amounts split and merge at any token: its hops in execution order, every hop
 * producing a token running before any hop spending it, each pool used once.
 */
export type QuotedFlow = { hops: FlowHop[] };

/** The best way found from tokenIn to tokenOut for an amount. */
export type RouteQuote = {
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  /** Sum of the legs' outputs, or of the flow's last hops' (before gas). */
  amountOut: bigint;
  /**
   * One to four whole paths; their amountIn sum to amountIn. Empty when the route is a
   * {@link flow}.
   */
  legs: QuotedLeg[];
  /** A route split and merged at intermediate tokens, instead of whole paths. */
  flow?: QuotedFlow;
  /** Estimated gas units of executing all legs (from measured per-step constants). */
  gasUnits: bigint;
  /**
   * Gas cost, and on a chain with one the estimated L1 data fee, valued in tokenOut at the graph's
   * own prices (0 when it cannot be valued).
   */
  gasCostInTokenOut: bigint;
};

/** Every hop of a route: its legs' hops leg by leg, or its flow's in execution order. */
export function routeHops(quote: Pick<RouteQuote, "legs" | "flow">): QuotedHop[] {
  return quote.flow ? quote.flow.hops : quote.legs.flatMap((leg) => leg.hops);
}
