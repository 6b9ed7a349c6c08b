/** What the builder tests run against instead of a chain: execution contracts and a chain setup. */
import type { ChainSetup } from "../../engine/core/chain-setup.js";
import type { ExecutionContracts } from "../../engine/program/hop-context.js";
import type { RouteRequest } from "../../engine/route/route.js";
import { token } from "../routing/fixtures.js";

/** The execution layer at small made-up addresses (0x…100 to 0x…107). */
export const contracts: ExecutionContracts = {
  router: token(0x100),
  executor: token(0x101),
  delegateExecutor: token(0x102),
  walletFactory: token(0x103),
  walletImplementation: token(0x104),
  minAmountOutCheck: token(0x105),
  programValues: token(0x106),
  uniswapV4Router: token(0x107),
};

/** Chain 1 with nothing configured: no wrapped native token, no V2 router, no SwapRouter. */
export const chain: ChainSetup = {
  id: 1,
  name: "mainnet",
  title: "Ethereum",
  rpc: [],
  startBlock: 0,
  vaults: [],
  stablecoins: [],
  execution: {},
  devnet: false,
};

/**
 * A route request as the API parses one with only the four required parameters given (the
 * router strategy, 100 bps of slippage, three hops), and `fields` over that.
 */
export function routeRequest(
  fields: Pick<RouteRequest, "fromAddress" | "tokenIn" | "tokenOut" | "amountIn"> &
    Partial<RouteRequest>,
): RouteRequest {
  return {
    chainId: 1,
    receiver: undefined,
    spender: fields.fromAddress,
    routingStrategy: "router",
    usedToEOA: false,
    toEOA: undefined,
    priceImpact: false,
    slippage: 100,
    fee: undefined,
    feeReceiver: undefined,
    tokenInAmountToApprove: undefined,
    tokenInAmountToTransfer: undefined,
    maxHops: 3,
    deadline: undefined,
    ...fields,
  };
}
