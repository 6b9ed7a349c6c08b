/**
 * The known chains (known-chains.ts): the chains an operator enables with `PONDER_RPC_URL_<id>`
 * alone, their contracts from the address books `@uniswap/sdk-core` and
 * `@bgd-labs/aave-address-book`, their forks of Uniswap from `sushi`, `@pancakeswap/sdk` and
 * `@pancakeswap/v3-sdk`, and what the service makes of them (chains.ts).
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as aaveAddressBook from "@bgd-labs/aave-address-book";
import * as pancakeV2Book from "@pancakeswap/sdk";
import * as pancakeV3Book from "@pancakeswap/v3-sdk";
import * as sushiBook from "sushi/evm";
import { getAddress, isAddress } from "viem";
import { describe, expect, test } from "vitest";
import { indexedChains } from "../../chains.js";
import { deterministicExecutionAddresses } from "../../engine/core/execution-addresses.js";
import { protocols, stateReadBlock, v3ForkPoolDeployers } from "../../engine/index.js";
import {
  KNOWN_CHAINS,
  type KnownChain,
  uniswapAddressBook as uniswap,
} from "../../known-chains.js";

/** The chains operators run this service on, with the Aave V3 market each has. */
const NAMED = [
  { id: 1, name: "mainnet", title: "Ethereum", aave: aaveAddressBook.AaveV3Ethereum },
  { id: 10, name: "optimism", title: "Optimism", aave: aaveAddressBook.AaveV3Optimism },
  { id: 56, name: "bsc", title: "BNB Chain", aave: aaveAddressBook.AaveV3BNB },
  { id: 137, name: "polygon", title: "Polygon PoS", aave: aaveAddressBook.AaveV3Polygon },
  { id: 8453, name: "base", title: "Base", aave: aaveAddressBook.AaveV3Base },
  { id: 42161, name: "arbitrum", title: "Arbitrum One", aave: aaveAddressBook.AaveV3Arbitrum },
] as const;

/** Every address a known chain names. */
function addressesOf(chain: KnownChain): string[] {
  return [
    chain.weth,
    ...chain.stablecoins,
    chain.uniswapV2?.factory,
    chain.uniswapV2?.router02,
    chain.uniswapV3?.factory,
    chain.uniswapV3?.swapRouter,
    chain.uniswapV3?.quoterV2,
    chain.uniswapV4?.poolManager,
    chain.uniswapV4?.stateView,
    chain.uniswapV4?.quoter,
    chain.aaveV3?.pool,
    chain.aaveV3?.poolAddressesProvider,
    chain.aaveV3?.poolConfigurator,
    chain.aaveV3?.dataProvider,
    ...(chain.uniswapV2Forks ?? []).map((f) => f.factory),
    ...(chain.uniswapV3Forks ?? []).flatMap((f) =>
      f.poolDeployer === f.factory ? [f.factory] : [f.factory, f.poolDeployer],
    ),
  ].flatMap((a) => (a === undefined ? [] : [a]));
}

/** A map of the books, by chain id, keyed by numbers or strings. */
type Book = Readonly<Record<number, string | undefined>>;

describe("KNOWN_CHAINS", () => {
  test("holds Ethereum, Optimism, BNB Chain, Polygon PoS, Base and Arbitrum One, each under its own name", () => {
    expect(Object.values(KNOWN_CHAINS).map((c) => [c.id, c.name, c.title])).toEqual(
      NAMED.map((c) => [c.id, c.name, c.title]),
    );
  });

  test("Optimism and Base are OP-stack chains, valued with the L1 data fee; the others are not", () => {
    expect(
      Object.values(KNOWN_CHAINS)
        .filter((chain) => chain.l1Fee?.kind === "op-stack")
        .map((chain) => chain.id),
    ).toEqual([10, 8453]);
    const [base] = indexedChains({ PONDER_RPC_URL_8453: "http://127.0.0.1:1" });
    expect(base?.l1Fee).toEqual({
      kind: "op-stack",
      gasPriceOracle: "0x420000000000000000000000000000000000000F",
    });
    // L1_FEE_<id>=none turns it off.
    const [off] = indexedChains({ PONDER_RPC_URL_8453: "http://127.0.0.1:1", L1_FEE_8453: "none" });
    expect(off?.l1Fee).toBeUndefined();
  });

  test("Base, in full", () => {
    expect(KNOWN_CHAINS[8453]).toEqual({
      id: 8453,
      name: "base",
      title: "Base",
      // An OP-stack chain: routes are valued with the L1 data fee its predeploy prices.
      l1Fee: { kind: "op-stack", gasPriceOracle: "0x420000000000000000000000000000000000000F" },
      weth: "0x4200000000000000000000000000000000000006",
      stablecoins: [
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA",
      ],
      uniswapV2: {
        factory: "0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6",
        router02: "0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24",
        startBlock: 0,
      },
      uniswapV3: {
        factory: "0x33128a8fC17869897dcE68Ed026d694621f6FDfD",
        swapRouter: undefined,
        quoterV2: "0x3d4e44Eb1374240CE5F1B871ab261CD16335B76a",
        startBlock: 2_009_445,
      },
      uniswapV4: {
        poolManager: "0x498581fF718922c3f8e6A244956aF099B2652b2b",
        stateView: "0xA3c0c9b65baD0b08107Aa264b0f3dB444b867A71",
        quoter: "0x0d5e0F971ED27FBfF6c2837bf31316121532048D",
        startBlock: 0,
        allowedHooks: [],
      },
      aaveV3: {
        pool: "0xA238Dd80C259a72e81d7e4664a9801593F98d1c5",
        poolAddressesProvider: "0xe20fCBdBfFC4Dd138cE8b2E6FBb6CB49777ad64D",
        poolConfigurator: "0x5731a04B1E775f0fdd454Bf70f3335886e9A96be",
        dataProvider: "0x0F43731EB8d45A581f4a36DD74F5f358bc90C73A",
        startBlock: 0,
      },
      // PancakeSwap's and SushiSwap's forks, discovered from genesis: Uniswap V3 came to Base
      // after the forks' licence date, so its deployment bounds nothing.
      uniswapV2Forks: [
        {
          slug: "pancakeswap-v2",
          factory: "0x02a84c1b3BBD7401a5f7fa98a384EBC70bB5749E",
          startBlock: 0,
        },
        {
          slug: "sushiswap-v2",
          factory: "0x71524B4f93c58fcbF659783284E38825f0622859",
          startBlock: 0,
        },
      ],
      uniswapV3Forks: [
        {
          slug: "pancakeswap-v3",
          factory: "0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865",
          poolDeployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
          poolInitCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
          startBlock: 0,
        },
        {
          slug: "sushiswap-v3",
          factory: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4",
          poolDeployer: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4",
          poolInitCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
          startBlock: 0,
        },
      ],
    });
  });

  test("every chain's forks of Uniswap are what their makers' address books say", () => {
    const lower = (a: string | undefined) => a?.toLowerCase();
    const at = (book: Book, id: number) => lower(book[id]);
    for (const { id } of NAMED) {
      const chain = KNOWN_CHAINS[id];
      const v2 = Object.fromEntries(
        (chain?.uniswapV2Forks ?? []).map((f) => [f.slug, lower(f.factory)]),
      );
      const v3 = Object.fromEntries(
        (chain?.uniswapV3Forks ?? []).map((f) => [
          f.slug,
          [lower(f.factory), lower(f.poolDeployer), f.poolInitCodeHash],
        ]),
      );
      const pancakeV3 = at(pancakeV3Book.FACTORY_ADDRESSES, id);
      const sushiV3 = at(sushiBook.SUSHISWAP_V3_FACTORY_ADDRESS, id);
      // Every fork a book lists on the chain, and nothing else.
      expect({ id, v2, v3 }).toEqual({
        id,
        v2: {
          ...(at(pancakeV2Book.FACTORY_ADDRESS_MAP, id) && {
            "pancakeswap-v2": at(pancakeV2Book.FACTORY_ADDRESS_MAP, id),
          }),
          ...(at(sushiBook.SUSHISWAP_V2_FACTORY_ADDRESS, id) && {
            "sushiswap-v2": at(sushiBook.SUSHISWAP_V2_FACTORY_ADDRESS, id),
          }),
        },
        v3: {
          ...(pancakeV3 && {
            "pancakeswap-v3": [
              pancakeV3,
              at(pancakeV3Book.DEPLOYER_ADDRESSES, id),
              pancakeV3Book.POOL_INIT_CODE_HASHES[
                id as keyof typeof pancakeV3Book.POOL_INIT_CODE_HASHES
              ],
            ],
          }),
          ...(sushiV3 && {
            "sushiswap-v3": [
              sushiV3,
              sushiV3,
              sushiBook.SUSHISWAP_V3_INIT_CODE_HASH[
                id as keyof typeof sushiBook.SUSHISWAP_V3_INIT_CODE_HASH
              ],
            ],
          }),
        },
      });
    }
    // Which forks each chain has: PancakeSwap is on four of the six.
    expect(
      Object.values(KNOWN_CHAINS).map((c) => [
        c.id,
        [...(c.uniswapV2Forks ?? []), ...(c.uniswapV3Forks ?? [])].map((f) => f.slug),
      ]),
    ).toEqual([
      [1, ["pancakeswap-v2", "sushiswap-v2", "pancakeswap-v3", "sushiswap-v3"]],
      [10, ["sushiswap-v2", "sushiswap-v3"]],
      [56, ["pancakeswap-v2", "sushiswap-v2", "pancakeswap-v3", "sushiswap-v3"]],
      [137, ["sushiswap-v2", "sushiswap-v3"]],
      [8453, ["pancakeswap-v2", "sushiswap-v2", "pancakeswap-v3", "sushiswap-v3"]],
      [42161, ["pancakeswap-v2", "sushiswap-v2", "pancakeswap-v3", "sushiswap-v3"]],
    ]);
  });

  test("a fork is discovered from the deployment of the Uniswap contract it copies where that came first, else from genesis", () => {
    expect(
      Object.values(KNOWN_CHAINS).map((c) => [
        c.id,
        [...(c.uniswapV2Forks ?? []), ...(c.uniswapV3Forks ?? [])].map((f) => f.startBlock),
      ]),
    ).toEqual([
      [1, [10_000_835, 10_000_835, 12_369_621, 12_369_621]],
      [10, [0, 0]],
      [56, [0, 0, 0, 0]],
      [137, [0, 22_757_547]],
      [8453, [0, 0, 0, 0]],
      [42161, [0, 0, 165, 165]],
    ]);
  });

  test("the wrapped native token, stablecoins and V3 factory of every chain", () => {
    expect(
      Object.values(KNOWN_CHAINS).map((c) => [c.id, c.weth, c.stablecoins, c.uniswapV3?.factory]),
    ).toEqual([
      [
        1,
        "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
        [
          "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
          "0xdAC17F958D2ee523a2206206994597C13D831ec7",
          "0x6B175474E89094C44Da98b954EedeAC495271d0F",
        ],
        "0x1F98431c8aD98523631AE4a59f267346ea31F984",
      ],
      [
        10,
        "0x4200000000000000000000000000000000000006",
        [
          "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85",
          "0x7F5c764cBc14f9669B88837ca1490cCa17c31607",
          "0x94b008aA00579c1307B0EF2c499aD98a8ce58e58",
          "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1",
        ],
        "0x1F98431c8aD98523631AE4a59f267346ea31F984",
      ],
      [
        56,
        "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c",
        [
          "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d",
          "0x55d398326f99059fF775485246999027B3197955",
        ],
        "0xdB1d10011AD0Ff90774D0C6Bb92e5C5c8b4461F7",
      ],
      [
        137,
        "0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270",
        [
          "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
          "0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174",
          "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
          "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063",
        ],
        "0x1F98431c8aD98523631AE4a59f267346ea31F984",
      ],
      [
        8453,
        "0x4200000000000000000000000000000000000006",
        [
          "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
          "0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA",
        ],
        "0x33128a8fC17869897dcE68Ed026d694621f6FDfD",
      ],
      [
        42161,
        "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1",
        [
          "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
          "0xFF970A61A04b1cA14834A43f5dE4533eBDDB5CC8",
          "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9",
          "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1",
        ],
        "0x1F98431c8aD98523631AE4a59f267346ea31F984",
      ],
    ]);
  });

  test("every chain's table is what the address books say", () => {
    for (const { id, aave } of NAMED) {
      const book = uniswap.CHAIN_TO_ADDRESSES_MAP[id];
      const chain = KNOWN_CHAINS[id];
      const lower = (a: string | undefined) => a?.toLowerCase();
      expect({
        id,
        weth: lower(chain?.weth),
        v2: [lower(chain?.uniswapV2?.factory), lower(chain?.uniswapV2?.router02)],
        v3: lower(chain?.uniswapV3?.factory),
        v4: [
          lower(chain?.uniswapV4?.poolManager),
          lower(chain?.uniswapV4?.stateView),
          lower(chain?.uniswapV4?.quoter),
        ],
        aave: [
          chain?.aaveV3?.pool,
          chain?.aaveV3?.poolAddressesProvider,
          chain?.aaveV3?.poolConfigurator,
          chain?.aaveV3?.dataProvider,
        ],
      }).toEqual({
        id,
        weth: lower(uniswap.WETH9[id]?.address),
        v2: [lower(uniswap.V2_FACTORY_ADDRESSES[id]), lower(uniswap.V2_ROUTER_ADDRESSES[id])],
        v3: lower(book.v3CoreFactoryAddress),
        v4: [
          lower(book.v4PoolManagerAddress),
          lower(book.v4StateView),
          lower(book.v4QuoterAddress),
        ],
        aave: [
          aave.POOL,
          aave.POOL_ADDRESSES_PROVIDER,
          aave.POOL_CONFIGURATOR,
          aave.AAVE_PROTOCOL_DATA_PROVIDER,
        ],
      });
      // Every stablecoin is an asset of the chain's Aave market.
      const assets = new Set(Object.values(aave.ASSETS).map((a) => a.UNDERLYING));
      expect(chain?.stablecoins.filter((s) => !assets.has(s))).toEqual([]);
    }
    // QuoterV2 where the Uniswap book's quoter is one (its own deployments on Base and BNB Chain).
    expect(KNOWN_CHAINS[8453]?.uniswapV3?.quoterV2).toBe(
      uniswap.CHAIN_TO_ADDRESSES_MAP[8453].quoterAddress,
    );
    expect(KNOWN_CHAINS[56]?.uniswapV3?.quoterV2).toBe(
      uniswap.CHAIN_TO_ADDRESSES_MAP[56].quoterAddress,
    );
  });

  test("every address is checksummed, and none is named twice on a chain", () => {
    for (const chain of Object.values(KNOWN_CHAINS)) {
      const addresses = addressesOf(chain);
      expect(
        addresses.filter((a) => !isAddress(a, { strict: true }) || getAddress(a) !== a),
      ).toEqual([]);
      expect(new Set(addresses).size).toBe(addresses.length);
    }
  });

  test("the original SwapRouter where it was deployed; deployment blocks where a source names them", () => {
    expect(
      Object.values(KNOWN_CHAINS).map((c) => [
        c.id,
        c.uniswapV3?.swapRouter,
        c.uniswapV2?.startBlock,
        c.uniswapV3?.startBlock,
        c.uniswapV4?.startBlock,
        c.aaveV3?.startBlock,
      ]),
    ).toEqual([
      [
        1,
        "0xE592427A0AEce92De3Edee1F18E0157C05861564",
        10_000_835,
        12_369_621,
        21_688_329,
        16_291_127,
      ],
      [10, "0xE592427A0AEce92De3Edee1F18E0157C05861564", 0, 0, 0, 0],
      [56, undefined, 0, 0, 45_970_610, 0],
      [137, "0xE592427A0AEce92De3Edee1F18E0157C05861564", 0, 22_757_547, 0, 0],
      [8453, undefined, 0, 2_009_445, 0, 0],
      [42161, "0xE592427A0AEce92De3Edee1F18E0157C05861564", 0, 165, 0, 0],
    ]);
  });
});

describe("a known chain enabled by PONDER_RPC_URL_<id> alone", () => {
  const env = (id: number, extra: Record<string, string> = {}) => ({
    [`PONDER_RPC_URL_${id}`]: `https://rpc.example/${id}`,
    DEVNET: "false",
    // No index has pinned its start yet.
    START_BLOCK_PIN_FILE: join(tmpdir(), "no-such-dir", "start-blocks.json"),
    ...extra,
  });

  test("has every protocol of its table, no trusted hook, and the deterministic execution addresses of its own factory, pool manager and V3 forks", () => {
    for (const { id } of NAMED) {
      const [chain] = indexedChains(env(id));
      const known = KNOWN_CHAINS[id];
      expect(chain).toEqual({
        ...known,
        rpc: [`https://rpc.example/${id}`],
        // Before its head is pinned: the first recorded deployment, else block 0.
        startBlock: id === 1 ? 10_000_835 : 0,
        vaults: [],
        execution: {},
        deterministicExecution: deterministicExecutionAddresses({
          v3Factory: known?.uniswapV3?.factory ?? "0x",
          v4PoolManager: known?.uniswapV4?.poolManager,
          v3ForkDeployers: v3ForkPoolDeployers(known?.uniswapV3Forks),
        }),
        devnet: false,
      });
    }
  });

  test("is served by the same protocols as mainnet (/v1/projects)", () => {
    const supported = (id: number) => {
      const [chain] = indexedChains(env(id));
      return protocols.filter((p) => chain && p.supports(chain)).map((p) => p.slug);
    };
    const mainnet = supported(1);
    expect(mainnet).toEqual(
      expect.arrayContaining([
        "wrapped-native",
        "uniswap-v2",
        "uniswap-v3",
        "uniswap-v4",
        "aave-v3",
        "balancer-v2",
        "pancakeswap-v2",
        "sushiswap-v2",
        "pancakeswap-v3",
        "sushiswap-v3",
      ]),
    );
    // Balancer V2's release lists every known chain but Base; PancakeSwap is not on Optimism
    // and Polygon PoS.
    const without = (slugs: string[]) => mainnet.filter((slug) => !slugs.includes(slug));
    for (const { id } of NAMED) {
      expect([id, supported(id)]).toEqual([
        id,
        id === 8453
          ? without(["balancer-v2"])
          : id === 10 || id === 137
            ? without(["pancakeswap-v2", "pancakeswap-v3"])
            : mainnet,
      ]);
    }
  });

  test("START_BLOCK_<id> after a recorded deployment: discovery from that deployment, from block 0 where none is recorded", () => {
    const [base] = indexedChains(env(8453, { START_BLOCK_8453: "30000000" }));
    expect({
      uniswapV2: base?.uniswapV2?.startBlock,
      uniswapV3: base?.uniswapV3?.startBlock,
      uniswapV4: base?.uniswapV4?.startBlock,
      aaveV3: base?.aaveV3?.startBlock,
      stateRead: base && stateReadBlock(base),
    }).toEqual({
      uniswapV2: 0,
      uniswapV3: 2_009_445,
      uniswapV4: 0,
      aaveV3: 0,
      stateRead: 29_999_999,
    });
    // Before it: not Base's history (a local copy of its contracts), everything from genesis.
    const [copy] = indexedChains(env(8453, { START_BLOCK_8453: "150" }));
    expect(copy?.uniswapV3?.startBlock).toBe(0);
    expect(copy && stateReadBlock(copy)).toBe(149);
  });

  test("the environment still overrides a known chain's table", () => {
    const [chain] = indexedChains(
      env(42161, {
        WETH_42161: "0x1111111111111111111111111111111111111111",
        STABLECOINS_42161: "0xaf88d065e77c8cc2239327c5edb3a432268e5831",
        UNISWAP_V4_HOOKS_42161: "0x48225437D9A2e3777f0b17d3e99AD08656610088",
      }),
    );
    expect([chain?.weth, chain?.stablecoins, chain?.uniswapV4?.allowedHooks]).toEqual([
      "0x1111111111111111111111111111111111111111",
      ["0xaf88d065e77c8cC2239327C5EDb3A432268e5831"],
      ["0x48225437d9a2e3777f0b17d3e99ad08656610088"],
    ]);
  });
});
