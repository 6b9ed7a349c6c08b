/**
 * The devnet world's Aave V3 (`devnet/aave-v3.ts`): the market deployed from the npm release's
 * bytecode with its libraries linked (`linkBytecode`), its reserves, prices, risk parameters and
 * curves as set, and the pool doing what Aave does: supplies mint aTokens at the liquidity
 * index, the index accrues while borrows are outstanding, and borrows beyond the collateral or
 * with a health factor below one are refused with Aave's error codes.
 */
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
  parseEventLogs,
  parseUnits,
  type TransactionReceipt,
  type WalletClient,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AaveV3ACLManagerAbi } from "../../abis/AaveV3ACLManager.js";
import { AaveV3ATokenAbi } from "../../abis/AaveV3AToken.js";
import { AaveV3DefaultReserveInterestRateStrategyAbi } from "../../abis/AaveV3DefaultReserveInterestRateStrategy.js";
import { AaveV3OracleAbi } from "../../abis/AaveV3Oracle.js";
import { AaveV3PoolAbi } from "../../abis/AaveV3Pool.js";
import { AaveV3PoolAddressesProviderAbi } from "../../abis/AaveV3PoolAddressesProvider.js";
import { AaveV3ProtocolDataProviderAbi } from "../../abis/AaveV3ProtocolDataProvider.js";
import { AaveV3VariableDebtTokenAbi } from "../../abis/AaveV3VariableDebtToken.js";
import { DevPriceFeedAbi } from "../../abis/generated/DevPriceFeed.js";
import { DevTokenAbi } from "../../abis/generated/DevToken.js";
import type { AnvilInstance } from "../../devnet/anvil.js";
import { DEVNET_ACCOUNT_KEYS, DEVNET_DEPLOYER_KEY } from "../../devnet/anvil.js";
import {
  libraryPlaceholder,
  linkBytecode,
  readLinkedNpmArtifact,
  readNpmArtifact,
} from "../../devnet/artifacts.js";
import type { AaveV3Deployment, AaveV3Reserve, Deployment } from "../../devnet/deployment.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { chainOf, deployWorld } from "../../devnet/world.js";
import { startTestAnvil } from "../harness/anvil.js";

type Wallet = WalletClient & { account: { address: Address } };

// Aave's WadRayMath and PercentageMath: half-up rounding.
const RAY = 10n ** 27n;
const rayMul = (a: bigint, b: bigint) => (a * b + RAY / 2n) / RAY;
const rayDiv = (a: bigint, b: bigint) => (a * RAY + b / 2n) / b;
const wadDiv = (a: bigint, b: bigint) => (a * 10n ** 18n + b / 2n) / b;
const wadToRay = (a: bigint) => a * 10n ** 9n;
const percentMul = (value: bigint, bps: bigint) => (value * bps + 5_000n) / 10_000n;
const SECONDS_PER_YEAR = 365n * 24n * 3600n;
/** `MathUtils.calculateLinearInterest`. */
const linearInterest = (rate: bigint, seconds: bigint) => RAY + (rate * seconds) / SECONDS_PER_YEAR;
const ray = (percent: string) => parseUnits(percent, 25);

describe("linkBytecode", () => {
  const a = "contracts/A.sol:A";
  const b = "contracts/lib/B.sol:B";
  // Two calls to A and one to B around a few bytes of code.
  const bytecode = `0x6080${libraryPlaceholder(a)}00${libraryPlaceholder(b)}${libraryPlaceholder(a)}fe`;
  const linkReferences = {
    "contracts/A.sol": {
      A: [
        { start: 2, length: 20 },
        { start: 43, length: 20 },
      ],
    },
    "contracts/lib/B.sol": { B: [{ start: 23, length: 20 }] },
  };
  const addressA: Address = "0xAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAa";
  const addressB: Address = "0x00000000000000000000000000000000000000B0";

  test("the placeholder is __$, 17 bytes of the name's keccak256, $__", () => {
    expect(
      libraryPlaceholder("contracts/protocol/libraries/logic/BorrowLogic.sol:BorrowLogic"),
    ).toBe("__$c3724b8d563dc83a94e797176cddecb3b9$__");
  });

  test("each library's address, lowercase, where each of its placeholders stood", () => {
    expect(
      linkBytecode({
        bytecode,
        linkReferences,
        libraries: { A: addressA, "contracts/lib/B.sol:B": addressB },
      }),
    ).toBe(`0x6080${"aa".repeat(20)}00${"00".repeat(19)}b0${"aa".repeat(20)}fe`);
  });

  test("a missing address, an unused one, a misplaced reference and an unlisted placeholder are refused", () => {
    expect(() => linkBytecode({ bytecode, linkReferences, libraries: { A: addressA } })).toThrow(
      new Error("no address given for contracts/lib/B.sol:B"),
    );
    expect(() =>
      linkBytecode({
        bytecode,
        linkReferences,
        libraries: { A: addressA, B: addressB, C: addressB },
      }),
    ).toThrow(new Error("the code does not call C"));
    expect(() =>
      linkBytecode({
        bytecode,
        linkReferences: {
          ...linkReferences,
          "contracts/lib/B.sol": { B: [{ start: 22, length: 20 }] },
        },
        libraries: { A: addressA, B: addressB },
      }),
    ).toThrow(
      new Error(
        `bytes 22..42 hold "00${libraryPlaceholder(b).slice(0, 38)}", not the placeholder of contracts/lib/B.sol:B`,
      ),
    );
    expect(() =>
      linkBytecode({
        bytecode,
        linkReferences: { "contracts/A.sol": linkReferences["contracts/A.sol"] },
        libraries: { A: addressA },
      }),
    ).toThrow(new Error("the code still holds a placeholder that its link references do not list"));
  });

  test("Aave's Pool: its 23 references filled, every other byte of the artifact unchanged", () => {
    const names = [
      "BorrowLogic",
      "BridgeLogic",
      "EModeLogic",
      "FlashLoanLogic",
      "LiquidationLogic",
      "PoolLogic",
      "SupplyLogic",
    ];
    // Addresses no run of the artifact's own bytes could be mistaken for.
    const addressOf = (i: number) => `${"c0ffee".repeat(6)}0${i + 1}00`;
    const libraries = Object.fromEntries(
      names.map((name, i): [string, Address] => [name, `0x${addressOf(i)}`]),
    );
    const raw = readNpmArtifact("AaveV3Pool").bytecode;
    const linked = readLinkedNpmArtifact("AaveV3Pool", libraries).bytecode;
    expect(linked.length).toBe(raw.length);
    let restored: string = linked;
    let references = 0;
    for (const [i, name] of names.entries()) {
      const address = addressOf(i);
      const placeholder = libraryPlaceholder(
        `contracts/protocol/libraries/logic/${name}.sol:${name}`,
      );
      references += raw.split(placeholder).length - 1;
      restored = restored.split(address).join(placeholder);
    }
    expect(references).toBe(23);
    expect(restored).toBe(raw);
    expect(() => readLinkedNpmArtifact("AaveV3Pool", {})).toThrow(
      new Error(
        `AaveV3Pool: no address given for ${names.map((n) => `contracts/protocol/libraries/logic/${n}.sol:${n}`).join(", ")}`,
      ),
    );
  });
});

describe("the devnet world's Aave V3", () => {
  let anvil: AnvilInstance;
  let deployment: Deployment;
  let aave: AaveV3Deployment;
  let client: PublicClient;
  let deployer: Wallet;
  let stranger: Wallet;

  const reserve = (symbol: string): AaveV3Reserve => {
    const r = aave.reserves.find((x) => x.symbol === symbol);
    if (!r) throw new Error(`no reserve ${symbol}`);
    return r;
  };
  const send = async (
    wallet: Wallet,
    call: { address: Address; abi: Abi; functionName: string; args: unknown[] },
  ): Promise<TransactionReceipt> => {
    const hash = await wallet.writeContract({
      ...call,
      account: wallet.account,
      chain: wallet.chain,
      gas: 3_000_000n,
    } as never);
    const receipt = await devnetReceipt(client, hash);
    expect(receipt.status).toBe("success");
    return receipt;
  };
  const balanceOf = (token: Address, who: Address, blockNumber?: bigint) =>
    client.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [who],
      blockNumber,
    });
  const reserveData = (asset: Address, blockNumber?: bigint) =>
    client.readContract({
      address: aave.pool,
      abi: AaveV3PoolAbi,
      functionName: "getReserveData",
      args: [asset],
      blockNumber,
    });
  const timestampOf = async (blockNumber: bigint) =>
    (await client.getBlock({ blockNumber })).timestamp;
  /** The revert reason of a variable-rate borrow for `who`: Aave reverts with its error codes. */
  const borrowRevert = (who: Wallet, asset: Address, amount: bigint) =>
    client
      .simulateContract({
        account: who.account.address,
        address: aave.pool,
        abi: AaveV3PoolAbi,
        functionName: "borrow",
        args: [asset, amount, 2n, 0, who.account.address],
      })
      .then(
        () => "no revert",
        (e: { cause?: { reason?: string } }) => e.cause?.reason,
      );

  beforeAll(async () => {
    anvil = await startTestAnvil();
    deployment = await deployWorld({ rpcUrl: anvil.url });
    if (!deployment.aaveV3) throw new Error("the world has no Aave V3");
    aave = deployment.aaveV3;
    const chain = await chainOf(anvil.url);
    client = createPublicClient({ chain, transport: http(anvil.url) }) as PublicClient;
    const wallet = (key: Hex) =>
      createWalletClient({
        chain,
        transport: http(anvil.url),
        account: privateKeyToAccount(key),
      }) as Wallet;
    deployer = wallet(DEVNET_DEPLOYER_KEY);
    stranger = wallet(DEVNET_ACCOUNT_KEYS[0]);
  }, 120_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  test("the addresses provider names the market, its proxies, ACL manager, oracle and data provider", async () => {
    const read = (
      functionName:
        | "getMarketId"
        | "owner"
        | "getPool"
        | "getPoolConfigurator"
        | "getACLManager"
        | "getACLAdmin"
        | "getPriceOracle"
        | "getPoolDataProvider"
        | "getPriceOracleSentinel",
    ) =>
      client.readContract({
        address: aave.poolAddressesProvider,
        abi: AaveV3PoolAddressesProviderAbi,
        functionName,
      });
    expect(
      await Promise.all([
        read("getMarketId"),
        read("owner"),
        read("getPool"),
        read("getPoolConfigurator"),
        read("getACLManager"),
        read("getACLAdmin"),
        read("getPriceOracle"),
        read("getPoolDataProvider"),
        read("getPriceOracleSentinel"),
      ]),
    ).toEqual([
      "Devnet",
      deployment.deployer,
      aave.pool,
      aave.poolConfigurator,
      aave.aclManager,
      deployment.deployer,
      aave.oracle,
      aave.dataProvider,
      zeroAddress,
    ]);
    for (const role of ["isPoolAdmin", "isRiskAdmin", "isEmergencyAdmin"] as const) {
      const holds = await client.readContract({
        address: aave.aclManager,
        abi: AaveV3ACLManagerAbi,
        functionName: role,
        args: [deployment.deployer],
      });
      expect({ role, holds }).toEqual({ role, holds: role !== "isEmergencyAdmin" });
    }
  });

  test("the pool lists WETH, USDC, DAI and WBTC, with the tokens of the deployment file", async () => {
    const tokenOf = (symbol: string) => deployment.tokens.find((t) => t.symbol === symbol)?.address;
    expect(aave.reserves.map((r) => [r.symbol, r.asset])).toEqual(
      ["WETH", "USDC", "DAI", "WBTC"].map((s) => [s, tokenOf(s)]),
    );
    expect(
      await client.readContract({
        address: aave.pool,
        abi: AaveV3PoolAbi,
        functionName: "getReservesList",
      }),
    ).toEqual(aave.reserves.map((r) => r.asset));
    for (const [id, r] of aave.reserves.entries()) {
      const data = await reserveData(r.asset);
      expect(data).toMatchObject({
        id,
        aTokenAddress: r.aToken,
        variableDebtTokenAddress: r.variableDebtToken,
        stableDebtTokenAddress: r.stableDebtToken,
      });
      expect(
        await client.readContract({
          address: aave.dataProvider,
          abi: AaveV3ProtocolDataProviderAbi,
          functionName: "getReserveTokensAddresses",
          args: [r.asset],
        }),
      ).toEqual([r.aToken, r.stableDebtToken, r.variableDebtToken]);
      const token = (address: Address, functionName: "name" | "symbol" | "decimals") =>
        client.readContract({ address, abi: AaveV3ATokenAbi, functionName });
      const decimals = deployment.tokens.find((t) => t.address === r.asset)?.decimals;
      expect([
        await token(r.aToken, "name"),
        await token(r.aToken, "symbol"),
        await token(r.aToken, "decimals"),
        await token(r.variableDebtToken, "symbol"),
        await token(r.stableDebtToken, "symbol"),
        await client.readContract({
          address: r.aToken,
          abi: AaveV3ATokenAbi,
          functionName: "UNDERLYING_ASSET_ADDRESS",
        }),
        await client.readContract({
          address: r.aToken,
          abi: AaveV3ATokenAbi,
          functionName: "RESERVE_TREASURY_ADDRESS",
        }),
      ]).toEqual([
        `Aave Devnet ${r.symbol}`,
        `aDev${r.symbol}`,
        decimals,
        `variableDebtDev${r.symbol}`,
        `stableDebtDev${r.symbol}`,
        r.asset,
        deployment.deployer,
      ]);
    }
  });

  test("the oracle prices each asset in USD (8 decimals) at its feed's answer, the world's reference price", async () => {
    const assets = aave.reserves.map((r) => r.asset);
    const prices = await client.readContract({
      address: aave.oracle,
      abi: AaveV3OracleAbi,
      functionName: "getAssetsPrices",
      args: [assets],
    });
    expect(prices).toEqual([300_000_000_000n, 100_000_000n, 100_000_000n, 6_000_000_000_000n]);
    for (const [i, r] of aave.reserves.entries()) {
      expect(
        await client.readContract({
          address: aave.oracle,
          abi: AaveV3OracleAbi,
          functionName: "getSourceOfAsset",
          args: [r.asset],
        }),
      ).toBe(r.priceFeed);
      const answer = await client.readContract({
        address: r.priceFeed,
        abi: DevPriceFeedAbi,
        functionName: "latestAnswer",
      });
      expect(answer).toBe(prices[i]);
      expect(
        await client.readContract({
          address: r.priceFeed,
          abi: DevPriceFeedAbi,
          functionName: "description",
        }),
      ).toBe(`${r.symbol} / USD`);
    }
    expect(
      await Promise.all(
        (["BASE_CURRENCY", "BASE_CURRENCY_UNIT", "getFallbackOracle"] as const).map((fn) =>
          client.readContract({ address: aave.oracle, abi: AaveV3OracleAbi, functionName: fn }),
        ),
      ),
    ).toEqual([zeroAddress, 100_000_000n, zeroAddress]);
    // Only the deployer sets a feed's answer.
    const refused = await client
      .simulateContract({
        account: stranger.account,
        address: reserve("USDC").priceFeed,
        abi: DevPriceFeedAbi,
        functionName: "setAnswer",
        args: [1n],
      })
      .catch((e: { cause?: { data?: unknown } }) => e.cause?.data);
    expect(refused).toMatchObject({ errorName: "NotOwner", args: [stranger.account.address] });
  });

  test("each reserve's risk parameters, caps and reserve factor, as set; variable-rate borrowing only", async () => {
    const rows = [];
    for (const r of aave.reserves) {
      const read = (functionName: "getReserveConfigurationData" | "getReserveCaps") =>
        client.readContract({
          address: aave.dataProvider,
          abi: AaveV3ProtocolDataProviderAbi,
          functionName,
          args: [r.asset],
        });
      const [config, caps] = await Promise.all([
        read("getReserveConfigurationData"),
        read("getReserveCaps"),
      ]);
      rows.push([r.symbol, ...config, ...caps]);
    }
    // symbol, decimals, ltv, threshold, bonus, reserve factor, collateral, borrowing, stable
    // borrowing, active, frozen, borrow cap, supply cap.
    expect(rows).toEqual([
      [
        "WETH",
        18n,
        8050n,
        8300n,
        10500n,
        1500n,
        true,
        true,
        false,
        true,
        false,
        1_400_000n,
        1_800_000n,
      ],
      [
        "USDC",
        6n,
        7700n,
        8000n,
        10450n,
        1000n,
        true,
        true,
        false,
        true,
        false,
        1_800_000_000n,
        2_000_000_000n,
      ],
      [
        "DAI",
        18n,
        6700n,
        7700n,
        10400n,
        1000n,
        true,
        true,
        false,
        true,
        false,
        270_000_000n,
        300_000_000n,
      ],
      ["WBTC", 8n, 7300n, 7800n, 10500n, 2000n, true, true, false, true, false, 28_000n, 43_000n],
    ]);
  });

  test("each reserve's interest-rate curve, as set", async () => {
    const curves = [];
    for (const r of aave.reserves) {
      const strategy = await client.readContract({
        address: aave.dataProvider,
        abi: AaveV3ProtocolDataProviderAbi,
        functionName: "getInterestRateStrategyAddress",
        args: [r.asset],
      });
      const read = (
        functionName:
          | "OPTIMAL_USAGE_RATIO"
          | "getBaseVariableBorrowRate"
          | "getVariableRateSlope1"
          | "getVariableRateSlope2"
          | "getStableRateSlope1"
          | "getStableRateSlope2"
          | "getBaseStableBorrowRate"
          | "getStableRateExcessOffset"
          | "OPTIMAL_STABLE_TO_TOTAL_DEBT_RATIO",
      ) =>
        client.readContract({
          address: strategy,
          abi: AaveV3DefaultReserveInterestRateStrategyAbi,
          functionName,
        });
      curves.push([
        r.symbol,
        ...(await Promise.all(
          (
            [
              "OPTIMAL_USAGE_RATIO",
              "getBaseVariableBorrowRate",
              "getVariableRateSlope1",
              "getVariableRateSlope2",
              "getStableRateSlope1",
              "getStableRateSlope2",
              "getBaseStableBorrowRate",
              "getStableRateExcessOffset",
              "OPTIMAL_STABLE_TO_TOTAL_DEBT_RATIO",
            ] as const
          ).map(read),
        )),
      ]);
    }
    // Optimal usage, base, slope 1, slope 2; then stable slopes 1 and 2, base stable rate (the
    // variable slope 1 plus the offset), excess offset, optimal stable-to-total-debt ratio.
    expect(curves).toEqual([
      [
        "WETH",
        ray("80"),
        0n,
        ray("3.8"),
        ray("80"),
        ray("4"),
        ray("80"),
        ray("5.8"),
        ray("5"),
        ray("20"),
      ],
      [
        "USDC",
        ray("90"),
        0n,
        ray("4"),
        ray("60"),
        ray("0.5"),
        ray("60"),
        ray("5"),
        ray("8"),
        ray("20"),
      ],
      [
        "DAI",
        ray("90"),
        0n,
        ray("4"),
        ray("60"),
        ray("0.5"),
        ray("60"),
        ray("5"),
        ray("8"),
        ray("20"),
      ],
      [
        "WBTC",
        ray("45"),
        0n,
        ray("4"),
        ray("300"),
        ray("7"),
        ray("300"),
        ray("6"),
        ray("5"),
        ray("20"),
      ],
    ]);
  });

  test("the seed: the deployer's supplies and borrows, and the rates the curves give at that usage", async () => {
    // Supplied and borrowed in USD: WETH 6M and 2M, USDC 8M and 4M, DAI 4M and 2M, WBTC 4M and
    // 0.8M; then each curve's slope 1 and optimal usage, and the reserve factor.
    const seeds: [string, bigint, bigint, bigint, bigint, bigint][] = [
      ["WETH", parseUnits("2000", 18), parseUnits("666.666667", 18), ray("3.8"), ray("80"), 1500n],
      ["USDC", parseUnits("8000000", 6), parseUnits("4000000", 6), ray("4"), ray("90"), 1000n],
      ["DAI", parseUnits("4000000", 18), parseUnits("2000000", 18), ray("4"), ray("90"), 1000n],
      ["WBTC", parseUnits("66.666667", 8), parseUnits("13.333333", 8), ray("4"), ray("45"), 2000n],
    ];
    expect(seeds.map(([symbol]) => symbol)).toEqual(aave.reserves.map((r) => r.symbol));
    for (const [symbol, supplied, borrowed, slope1, optimal, reserveFactor] of seeds) {
      const r = reserve(symbol);
      const data = await client.readContract({
        address: aave.dataProvider,
        abi: AaveV3ProtocolDataProviderAbi,
        functionName: "getReserveData",
        args: [r.asset],
      });
      const [, , , totalStableDebt, , liquidityRate, variableBorrowRate, stableBorrowRate] = data;
      const [liquidityIndex, variableBorrowIndex] = [data[9], data[10]];
      // Nothing accrued before the first borrow, and the borrow was the reserve's last action.
      expect([liquidityIndex, variableBorrowIndex, totalStableDebt]).toEqual([RAY, RAY, 0n]);
      expect(await balanceOf(r.asset, r.aToken)).toBe(supplied - borrowed);
      expect(
        await client.readContract({
          address: r.variableDebtToken,
          abi: AaveV3VariableDebtTokenAbi,
          functionName: "scaledBalanceOf",
          args: [deployment.deployer],
        }),
      ).toBe(borrowed);
      // DefaultReserveInterestRateStrategy below the kink: slope 1 times usage over optimal usage;
      // suppliers earn the borrow rate times usage, less the reserve factor.
      const usage = rayDiv(borrowed, supplied);
      const variable = rayDiv(rayMul(slope1, usage), optimal);
      const overall = rayDiv(rayMul(wadToRay(borrowed), variable), wadToRay(borrowed));
      const liquidity = percentMul(rayMul(overall, usage), 10_000n - reserveFactor);
      expect({ symbol: r.symbol, variableBorrowRate, liquidityRate }).toEqual({
        symbol: r.symbol,
        variableBorrowRate: variable,
        liquidityRate: liquidity,
      });
      expect(liquidityRate).toBeGreaterThan(0n);
      expect(stableBorrowRate).toBeGreaterThan(variableBorrowRate);
    }
    // WETH at a third of its supply borrowed: 3.8% × 33.33% / 80% = 1.58%, suppliers 0.45%.
    const weth = await reserveData(reserve("WETH").asset);
    expect([weth.currentVariableBorrowRate, weth.currentLiquidityRate]).toEqual([
      15_833_333_341_250_000_000_000_000n,
      4_486_111_115_597_222_223_343_750n,
    ]);
  });

  test("a supply mints aTokens at the liquidity index it first accrues to the block", async () => {
    const usdc = reserve("USDC");
    const me = stranger.account.address;
    const amount = parseUnits("100000", 6);
    await send(deployer, {
      address: usdc.asset,
      abi: DevTokenAbi,
      functionName: "transfer",
      args: [me, amount],
    });
    await send(stranger, {
      address: usdc.asset,
      abi: DevTokenAbi,
      functionName: "approve",
      args: [aave.pool, maxUint256],
    });
    const before = await reserveData(usdc.asset);
    const heldBefore = await balanceOf(usdc.asset, usdc.aToken);
    const receipt = await send(stranger, {
      address: aave.pool,
      abi: AaveV3PoolAbi,
      functionName: "supply",
      args: [usdc.asset, amount, me, 0],
    });
    const block = receipt.blockNumber;
    const elapsed = (await timestampOf(block)) - BigInt(before.lastUpdateTimestamp);
    const index = rayMul(
      linearInterest(before.currentLiquidityRate, elapsed),
      before.liquidityIndex,
    );
    const after = await reserveData(usdc.asset, block);
    expect(after.liquidityIndex).toBe(index);
    const scaled = rayDiv(amount, index);
    const [aTokens, scaledBalance] = await Promise.all([
      balanceOf(usdc.aToken, me, block),
      client.readContract({
        address: usdc.aToken,
        abi: AaveV3ATokenAbi,
        functionName: "scaledBalanceOf",
        args: [me],
        blockNumber: block,
      }),
    ]);
    expect(scaledBalance).toBe(scaled);
    expect(aTokens).toBe(rayMul(scaled, index));
    // What that rounding gives here: the amount supplied, or one wei less.
    expect(amount - aTokens).toBeGreaterThanOrEqual(0n);
    expect(amount - aTokens).toBeLessThanOrEqual(1n);
    expect(await balanceOf(usdc.asset, me, block)).toBe(0n);
    expect(await balanceOf(usdc.asset, usdc.aToken, block)).toBe(heldBefore + amount);
    const [event] = parseEventLogs({ abi: AaveV3PoolAbi, eventName: "Supply", logs: receipt.logs });
    expect(event?.args).toEqual({
      reserve: usdc.asset,
      user: me,
      onBehalfOf: me,
      amount,
      referralCode: 0,
    });
    // The first supply of an asset with an LTV makes it the account's collateral.
    const userData = await client.readContract({
      address: aave.dataProvider,
      abi: AaveV3ProtocolDataProviderAbi,
      functionName: "getUserReserveData",
      args: [usdc.asset, me],
      blockNumber: block,
    });
    expect(userData[8]).toBe(true);
  });

  test("with borrows outstanding, the liquidity index grows with time by the liquidity rate", async () => {
    const weth = reserve("WETH");
    const before = await reserveData(weth.asset);
    const day = 86_400n;
    const next = BigInt(before.lastUpdateTimestamp) + day;
    await client.request({
      method: "evm_setNextBlockTimestamp" as never,
      params: [Number(next)] as never,
    });
    await client.request({ method: "evm_mine" as never, params: [] as never });
    const block = await client.getBlockNumber({ cacheTime: 0 });
    expect(await timestampOf(block)).toBe(next);
    const normalizedIncome = await client.readContract({
      address: aave.pool,
      abi: AaveV3PoolAbi,
      functionName: "getReserveNormalizedIncome",
      args: [weth.asset],
      blockNumber: block,
    });
    expect(normalizedIncome).toBe(
      rayMul(linearInterest(before.currentLiquidityRate, day), before.liquidityIndex),
    );
    expect(normalizedIncome).toBeGreaterThan(before.liquidityIndex);
    // The deployer's aWETH and its WETH debt grew with it: a day of 0.45% and 1.58% a year.
    const [aWeth, debt] = await Promise.all([
      balanceOf(weth.aToken, deployment.deployer, block),
      balanceOf(weth.variableDebtToken, deployment.deployer, block),
    ]);
    expect(aWeth).toBeGreaterThan(parseUnits("2000", 18));
    expect(debt).toBeGreaterThan(parseUnits("666.666667", 18));
    // The stored index catches up at the reserve's next action.
    const receipt = await send(deployer, {
      address: aave.pool,
      abi: AaveV3PoolAbi,
      functionName: "borrow",
      args: [weth.asset, parseUnits("1", 18), 2n, 0, deployment.deployer],
    });
    const elapsed = (await timestampOf(receipt.blockNumber)) - BigInt(before.lastUpdateTimestamp);
    expect((await reserveData(weth.asset, receipt.blockNumber)).liquidityIndex).toBe(
      rayMul(linearInterest(before.currentLiquidityRate, elapsed), before.liquidityIndex),
    );
  });

  test("borrows beyond the collateral's LTV, or with a health factor under one, revert with Aave's codes", async () => {
    const me = stranger.account.address;
    const weth = reserve("WETH");
    const usdc = reserve("USDC");
    // 100,000 USDC of collateral at an LTV of 77% lends $77,000: 26 WETH is $78,000.
    expect(await borrowRevert(stranger, weth.asset, parseUnits("26", 18))).toBe("36");
    await send(stranger, {
      address: aave.pool,
      abi: AaveV3PoolAbi,
      functionName: "borrow",
      args: [weth.asset, parseUnits("25", 18), 2n, 0, me],
    });

    // USDC at $0.90: $90,000 at a liquidation threshold of 80% against $75,000 of debt.
    await send(deployer, {
      address: usdc.priceFeed,
      abi: DevPriceFeedAbi,
      functionName: "setAnswer",
      args: [90_000_000n],
    });
    try {
      const block = await client.getBlockNumber({ cacheTime: 0 });
      const [collateral, debt] = await Promise.all([
        balanceOf(usdc.aToken, me, block),
        balanceOf(weth.variableDebtToken, me, block),
      ]);
      const collateralBase = (collateral * 90_000_000n) / 10n ** 6n;
      const debtBase = (debt * 300_000_000_000n) / 10n ** 18n;
      const account = await client.readContract({
        address: aave.pool,
        abi: AaveV3PoolAbi,
        functionName: "getUserAccountData",
        args: [me],
        blockNumber: block,
      });
      expect(account).toEqual([
        collateralBase,
        debtBase,
        0n,
        8000n,
        7700n,
        wadDiv(percentMul(collateralBase, 8000n), debtBase),
      ]);
      expect(account[5]).toBeLessThan(10n ** 18n);
      expect(await borrowRevert(stranger, weth.asset, 1n)).toBe("35");
    } finally {
      await send(deployer, {
        address: usdc.priceFeed,
        abi: DevPriceFeedAbi,
        functionName: "setAnswer",
        args: [100_000_000n],
      });
    }
  });
});
