/**
 * Routes on an OP-stack chain: the devnet world on an anvil shaped like Base (chain 8453,
 * `--network optimism`, the `GasPriceOracle` and `L1Block` predeploys from
 * @eth-optimism/contracts-bedrock at Fjord with Base's fee scalars), indexed with
 * `L1_FEE_8453=op-stack`. Anvil prices L2 gas at about 1 gwei (its suggested priority fee), a
 * thousand times Base's usual 0.001 gwei; the L1 base fee is scaled alike, 40,000 gwei for an L1
 * at 40, so that L1 data weighs against L2 gas as it does on Base then.
 *
 * One trade has two routes: a 3-hop path through fresh V2 pairs that yields more than the direct
 * pair by more than its extra L2 gas costs, but by less than its extra calldata costs on L1. The
 * search without the L1 fee takes the 3-hop path; the service, counting it, answers the direct
 * pair, which both transactions run on the chain show to be better net of both fees. The answer's
 * `l1Fee` is the oracle's `getL1Fee` of its calldata, to the wei.
 *
 * The node charges the L1 fee in its simulations too: a bundle for an account without ether is
 * answered (its senders are given the fee's bound) with its `l1Fee`, and a route to ether paid to
 * its sender answers what the sent transaction delivers before both fees (the L1 fee the
 * simulation charged is measured and added back like the gas).
 */
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  hexToBytes,
  http,
  maxUint256,
  numberToHex,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevTokenAbi } from "../abis/generated/DevToken.js";
import { UniswapV2FactoryAbi } from "../abis/UniswapV2Factory.js";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { WETH9Abi } from "../abis/WETH9.js";
import { loadArtifact } from "../contracts/build.js";
import { DEVNET_DEPLOYER_KEY } from "../devnet/anvil.js";
import type { Deployment } from "../devnet/deployment.js";
import { devnetDeployer } from "../devnet/world.js";
import {
  buildRoute,
  type ChainSetup,
  createRoutingGraph,
  NATIVE_TOKEN_ADDRESS,
  OP_STACK_GAS_PRICE_ORACLE,
  OP_STACK_L1_FEE_VAULT,
  type OpStackFeeParameters,
  opStackFeePerByte,
  opStackL1Fee,
} from "../engine/index.js";
import { V2_SWAP_GAS } from "../engine/protocols/uniswap-v2/gas.js";
import { HOP_DATA_BYTES, routeGas } from "../engine/routing/gas.js";
import { readOpStackFeeParameters } from "../src/api/chain/l1-fee.js";
import { parseRouteQuery } from "../src/api/v1/route-query.js";
import { jsonRpc } from "./harness/json-rpc.js";
import { BASE_LIKE_L1_VALUES, gasPriceOracleAbi, makeOpStackChain } from "./harness/op-stack.js";
import { type ServiceInstance, startService, waitForRoutingGraph } from "./harness/service.js";
import { readV2Pool } from "./routing/chain-graph.js";
import { executionOf } from "./routing/devnet.js";

const CHAIN_ID = 8453;
/** The L2 base fee of the block the route is asked for (set before it; anvil adds its 1 gwei tip). */
const L2_BASE_FEE = 10_000_000n;
/** Base's fee scalars, at an L1 base fee of 40 gwei scaled like L2 gas here (× 1,000). */
const L1_VALUES = { ...BASE_LIKE_L1_VALUES, l1BaseFee: 40_000_000_000_000n };
const E18 = 10n ** 18n;
/**
 * 0.01 X into pairs of 50,000: each hop's price impact (≈ 2·10^9 wei) is small beside the L2 gas
 * and L1 fee of a further leg, so no split pays.
 */
const AMOUNT_IN = E18 / 100n;
/** Every pair holds this much of each side (the direct pair this much X). */
const RESERVE = 50_000n * E18;

/** Uniswap V2's getAmountOut at its 0.3% fee. */
function v2Out(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
}

/** What the test world adds to the devnet: tokens X, B, C and the pairs X/B, B/C, C/WETH, X/WETH. */
type Market = {
  x: Address;
  pairs: { direct: Address; hops: Address[] };
  viaThree: bigint;
  /** What the direct pair gives for AMOUNT_IN. */
  directOut: bigint;
};

async function addMarket(
  client: PublicClient,
  rpcUrl: string,
  d: Deployment,
): Promise<Market & { gasPrice: bigint }> {
  const deployer = await devnetDeployer(rpcUrl);
  const devToken = loadArtifact("DevToken");
  const tokens: Address[] = [];
  for (const symbol of ["X", "B", "C"]) {
    const address = await deployer.deploy(devToken.abi, devToken.bytecode, [symbol, symbol, 18]);
    await deployer.write(address, DevTokenAbi, "mint", [deployer.address, 1_000_000n * E18]);
    tokens.push(address);
  }
  const pair = async (t0: Address, t1: Address, r0: bigint, r1: bigint): Promise<Address> => {
    const factory = d.uniswapV2.factory;
    await deployer.write(factory, UniswapV2FactoryAbi, "createPair", [t0, t1]);
    const address = await client.readContract({
      address: factory,
      abi: UniswapV2FactoryAbi,
      functionName: "getPair",
      args: [t0, t1],
    });
    await deployer.write(t0, DevTokenAbi, "transfer", [address, r0]);
    await deployer.write(t1, DevTokenAbi, "transfer", [address, r1]);
    await deployer.write(address, UniswapV2PairAbi, "mint", [deployer.address]);
    return address;
  };
  const [tx, tb, tc] = tokens as [Address, Address, Address];
  // WETH for the two WETH pairs, wrapped from the deployer's ether.
  await deployer.write(d.weth, WETH9Abi, "deposit", [], 2n * RESERVE);
  const hops = [
    await pair(tx, tb, RESERVE, RESERVE),
    await pair(tb, tc, RESERVE, RESERVE),
    await pair(tc, d.weth, RESERVE, RESERVE),
  ];
  let viaThree = AMOUNT_IN;
  for (let i = 0; i < 3; i++) viaThree = v2Out(viaThree, RESERVE, RESERVE);
  // The direct pair yields `viaThree - gain`: the 3-hop path's gain pays its two extra hops' L2
  // gas and 40% of what the search estimates their calldata costs on L1, at the gas price the
  // route is asked at (the next block's base fee is set once everything here is mined). The
  // model's errors (here it counts 142,000 gas for two V2 hops that take 111,000, and 210
  // compressed bytes that take 168) stay well inside the 60% left.
  await deployer.write(tx, DevTokenAbi, "approve", [d.execution.router as Address, maxUint256]);
  const tip = BigInt(await jsonRpc<Hex>(rpcUrl, "eth_maxPriorityFeePerGas"));
  const gasPrice = L2_BASE_FEE + tip;
  const params = await readOpStackFeeParameters(client, OP_STACK_GAS_PRICE_ORACLE);
  const extraGas = BigInt(routeGas(1, 3 * V2_SWAP_GAS) - routeGas(1, V2_SWAP_GAS));
  const extraL1 = 2n * BigInt(HOP_DATA_BYTES) * opStackFeePerByte(params);
  const gain = extraGas * gasPrice + (extraL1 * 2n) / 5n;
  const directIn = RESERVE;
  // The WETH reserve whose output for AMOUNT_IN is viaThree - gain (rounded up, then checked).
  const target = viaThree - gain;
  const withFee = AMOUNT_IN * 997n;
  const directOut = (target * (directIn * 1000n + withFee) + withFee - 1n) / withFee;
  if (v2Out(AMOUNT_IN, directIn, directOut) !== target) throw new Error("direct pair off target");
  const direct = await pair(tx, d.weth, directIn, directOut);
  // Pools that have traded before, as the gas model has them: a later block's `sync` writes each
  // pair's price accumulators, which the first swap would otherwise pay to create.
  await jsonRpc(rpcUrl, "evm_increaseTime", [12]);
  for (const p of [...hops, direct]) await deployer.write(p, UniswapV2PairAbi, "sync", []);
  await jsonRpc(rpcUrl, "anvil_setNextBlockBaseFeePerGas", [numberToHex(L2_BASE_FEE)]);
  return { x: tx, pairs: { direct, hops }, viaThree, directOut: target, gasPrice };
}

describe("routes on an OP-stack chain, valued net of the L1 data fee", () => {
  let service: ServiceInstance;
  let client: PublicClient;
  let market: Market & { gasPrice: bigint };
  let params: OpStackFeeParameters;

  beforeAll(async () => {
    service = await startService({
      database: "pglite",
      chainId: CHAIN_ID,
      anvil: { network: "optimism" },
      prepare: async (anvil, deployment) => {
        client = createPublicClient({ transport: http(anvil.url) });
        await makeOpStackChain(client, anvil.url, L1_VALUES);
        market = await addMarket(client, anvil.url, deployment);
      },
      env: { [`L1_FEE_${CHAIN_ID}`]: "op-stack" },
    });
    params = await readOpStackFeeParameters(client, OP_STACK_GAS_PRICE_ORACLE);
  }, 240_000);
  afterAll(async () => {
    await service?.stop();
  });
  /** An answer's `l1Fee` is the oracle's `getL1Fee(tx.data)` on its block, and the engine's. */
  const expectOracleL1Fee = async (answer: {
    l1Fee: string;
    blockNumber: number;
    tx: { data: Hex };
  }) => {
    const oracleFee = await client.readContract({
      address: OP_STACK_GAS_PRICE_ORACLE,
      abi: gasPriceOracleAbi,
      functionName: "getL1Fee",
      args: [answer.tx.data],
      blockNumber: BigInt(answer.blockNumber),
    });
    expect(answer.l1Fee).toBe(oracleFee.toString());
    expect(opStackL1Fee(params, hexToBytes(answer.tx.data))).toBe(oracleFee);
  };

  it("takes the direct pair over a 3-hop path that pays its L2 gas but not its calldata, and reports l1Fee = getL1Fee(tx.data)", async () => {
    const d = service.deployment;
    const from = d.deployer;
    const query = `chainId=${CHAIN_ID}&fromAddress=${from}&tokenIn=${market.x}&tokenOut=${d.weth}&amountIn=${AMOUNT_IN}&priceImpact=false`;
    // Quotes of the chain as it stands: the direct pair, created last, is in the routing graph.
    await waitForRoutingGraph(service, CHAIN_ID, await client.getBlockNumber());
    const gasPrice = await client.getGasPrice();
    expect(gasPrice).toBe(market.gasPrice);
    const res = await fetch(`${service.url}/v1/shortcuts/route?${query}`);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as {
      route: { primaryAddress: string }[];
      amountOut: string;
      gasUsed: string;
      blockNumber: number;
      deadline: number;
      l1Fee: string;
      tx: { data: Hex; to: Address };
    };
    expect(answer.route.map((s) => s.primaryAddress)).toEqual([market.pairs.direct]);

    // The fee reported is the oracle's for the calldata returned, asked on the simulated block's
    // parent (the L1 values a block holds are set by its first transaction: none was mined since),
    // and the same as the off-chain arithmetic.
    await expectOracleL1Fee(answer);

    // The same request to the engine on the same pools, valued with and without the L1 fee.
    const graph = createRoutingGraph();
    for (const pool of [market.pairs.direct, ...market.pairs.hops]) {
      graph.upsertPool(await readV2Pool(client, pool));
    }
    const chain: ChainSetup = {
      id: CHAIN_ID,
      name: "devnet",
      title: "Devnet",
      rpc: [service.anvil.url],
      startBlock: 0,
      weth: d.weth,
      vaults: [],
      stablecoins: [],
      execution: d.execution,
      devnet: true,
    };
    const build = (l1Fee: OpStackFeeParameters | undefined) =>
      buildRoute({
        chain,
        contracts: executionOf(d.execution),
        graph,
        gasPriceWei: gasPrice,
        l1Fee,
        request: parseRouteQuery(`http://x/v1/shortcuts/route?${query}`),
      });
    const l2Only = build(undefined);
    const counted = build(params);
    const pools = (r: ReturnType<typeof build>) =>
      r.quote.legs.map((leg) => leg.hops.map((h) => h.edge.pool.address));
    expect(pools(l2Only)).toEqual([market.pairs.hops.map((p) => p.toLowerCase())]);
    expect(l2Only.quote.amountOut).toBe(market.viaThree);
    expect(pools(counted)).toEqual([[market.pairs.direct.toLowerCase()]]);
    expect(counted.quote.amountOut.toString()).toBe(answer.amountOut);

    // Both transactions run on the chain from the same state: what each delivers, its gas and
    // its L1 fee.
    const test = createTestClient({ mode: "anvil", transport: http(service.anvil.url) });
    const wallet = createWalletClient({
      account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
      transport: http(service.anvil.url),
    });
    const run = async (data: Hex) => {
      const snapshot = await test.snapshot();
      const before = await client.readContract({
        address: d.weth,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [from],
      });
      const fee = await client.readContract({
        address: OP_STACK_GAS_PRICE_ORACLE,
        abi: gasPriceOracleAbi,
        functionName: "getL1Fee",
        args: [data],
      });
      const hash = await wallet.sendTransaction({
        chain: null,
        to: answer.tx.to,
        data,
        gas: 1_000_000n,
      });
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      const after = await client.readContract({
        address: d.weth,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [from],
        blockNumber: receipt.blockNumber,
      });
      await test.revert({ id: snapshot });
      const out = after - before;
      return { out, l2: receipt.gasUsed * gasPrice, l1: fee };
    };
    const direct = await run(answer.tx.data);
    const threeHop = await run(l2Only.encode(1n, BigInt(answer.deadline)).tx.data);
    expect(direct.out.toString()).toBe(answer.amountOut);
    expect(threeHop.out).toBe(market.viaThree);
    // Without the L1 fee the 3-hop path is the better route; with it, the direct pair.
    expect(threeHop.out - threeHop.l2).toBeGreaterThan(direct.out - direct.l2);
    expect(threeHop.l1).toBeGreaterThan(direct.l1);
    expect(direct.out - direct.l2 - direct.l1).toBeGreaterThan(
      threeHop.out - threeHop.l2 - threeHop.l1,
    );
    console.log(
      `direct: out ${direct.out}, L2 ${direct.l2}, L1 ${direct.l1}; 3 hops: out ${threeHop.out}, L2 ${threeHop.l2}, L1 ${threeHop.l1}`,
    );
  }, 120_000);

  it("answers a bundle for an account without ether, prices its calldata's L1 fee, and the sent transaction delivers it", async () => {
    const d = service.deployment;
    // A fresh account: it holds nothing, so the simulation must give it the gas and the L1 fee.
    const user = privateKeyToAccount(generatePrivateKey());
    const res = await fetch(
      `${service.url}/v1/shortcuts/bundle?chainId=${CHAIN_ID}&fromAddress=${user.address}`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([
          { protocol: "wrapped-native", action: "deposit", args: { amountIn: "1000" } },
        ]),
      },
    );
    const answer = (await res.json()) as {
      amountsOut: Record<string, string>;
      blockNumber: number;
      l1Fee: string;
      tx: { data: Hex; to: Address; value: string };
    };
    expect({ status: res.status, amountsOut: answer.amountsOut }).toEqual({
      status: 200,
      amountsOut: { [d.weth]: "1000" },
    });
    await expectOracleL1Fee(answer);

    await jsonRpc(service.anvil.url, "anvil_setBalance", [user.address, numberToHex(E18)]);
    const wallet = createWalletClient({ account: user, transport: http(service.anvil.url) });
    const hash = await wallet.sendTransaction({
      chain: null,
      to: answer.tx.to,
      data: answer.tx.data,
      value: BigInt(answer.tx.value),
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const weth = await client.readContract({
      address: d.weth,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [user.address],
    });
    expect(weth).toBe(1000n);
  }, 120_000);

  it("counts the L1 fee its sender paid when the output is ether to the sender: amountOut is what the transaction delivers", async () => {
    const d = service.deployment;
    const from = d.deployer;
    const res = await fetch(
      `${service.url}/v1/shortcuts/route?chainId=${CHAIN_ID}&fromAddress=${from}&tokenIn=${market.x}&tokenOut=${NATIVE_TOKEN_ADDRESS}&amountIn=${AMOUNT_IN}&priceImpact=false`,
    );
    const answer = (await res.json()) as {
      amountOut: string;
      route: { primaryAddress: string }[];
      tx: { data: Hex; to: Address };
    };
    expect(res.status).toBe(200);
    // The direct pair, then WETH unwrapped: the pair's exact output, none of it lost to fees.
    expect(answer.route.map((s) => s.primaryAddress)).toEqual([market.pairs.direct, d.weth]);
    expect(answer.amountOut).toBe(market.directOut.toString());

    // Sent: the ether the sender gained plus its L2 gas and its L1 fee is exactly amountOut.
    const wallet = createWalletClient({
      account: privateKeyToAccount(DEVNET_DEPLOYER_KEY),
      transport: http(service.anvil.url),
    });
    const before = await client.getBalance({ address: from });
    const hash = await wallet.sendTransaction({
      chain: null,
      to: answer.tx.to,
      data: answer.tx.data,
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const after = await client.getBalance({ address: from, blockNumber: receipt.blockNumber });
    // What the transaction paid for its L1 data, credited to the L1FeeVault (the only
    // transaction of its block).
    const vault = (blockNumber: bigint) =>
      client.getBalance({ address: OP_STACK_L1_FEE_VAULT, blockNumber });
    const l1Fee = (await vault(receipt.blockNumber)) - (await vault(receipt.blockNumber - 1n));
    expect(l1Fee).toBeGreaterThan(0n);
    const fees = receipt.gasUsed * receipt.effectiveGasPrice + l1Fee;
    expect((after - before + fees).toString()).toBe(answer.amountOut);
  }, 120_000);
});
