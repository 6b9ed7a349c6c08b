import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256 } from "viem";
import { describe, expect, test } from "vitest";
import { indexedChains, parseL1Fee, parseVaultList } from "../../chains.js";
import { readNpmArtifact } from "../../devnet/artifacts.js";
import { type Deployment, writeDeployment } from "../../devnet/deployment.js";
import {
  CANONICAL_UNISWAP_V3_FACTORY,
  deterministicExecutionAddresses,
} from "../../engine/core/execution-addresses.js";
import {
  type ChainSetup,
  forkPoolDeployers,
  forkSwapRouters,
  protocols,
  stateReadBlock,
} from "../../engine/index.js";

describe("indexedChains", () => {
  test("Balancer V2 (from @balancer-labs/v2-deployments) is indexed by a state start and by a replay of its vault alike", () => {
    const pin = { START_BLOCK_PIN_FILE: join(tmpdir(), "no-such-dir", "start-blocks.json") };
    const mainnet = (start?: string) =>
      indexedChains({
        PONDER_RPC_URL_1: "https://rpc.example/1",
        ...pin,
        ...(start ? { START_BLOCK_1: start } : {}),
      })[0]?.balancerV2;
    const release = {
      vault: "0xBA12222222228d8Ba445958a75a0704d566BF2C8",
      weightedPoolFactories: ["0x5Dd94Da3644DDD055fcf6B3E1aa310Bb7801EB8b"],
      composableStablePoolFactories: ["0xdba127fBc23fb20F5929C546af220A991b5C6e01"],
    };
    // Its pools discovered from the vault's deployment block, whatever the start: a state start
    // (at the head, or at a block after the deployment) reads those created before it.
    expect(mainnet()).toEqual({ ...release, startBlock: 12_272_146 });
    expect(mainnet("20000000")).toEqual({ ...release, startBlock: 12_272_146 });
    expect(mainnet("12272146")).toEqual({ ...release, startBlock: 12_272_146 });
    // From an earlier start, the vault's history is replayed from there; a start before every
    // recorded deployment (a local copy of the chain) discovers them from genesis.
    expect(mainnet("10000835")).toEqual({ ...release, startBlock: 10_000_835 });
    expect(mainnet("5000000")).toEqual({ ...release, startBlock: 0 });
    const at = (id: number, start?: string) =>
      indexedChains({
        [`PONDER_RPC_URL_${id}`]: "https://rpc.example",
        ...(start === undefined ? {} : { [`START_BLOCK_${id}`]: start }),
        ...pin,
      })[0];
    // The other chains the release lists, from block 0; Base is not among them.
    for (const id of [10, 56, 137, 42161]) {
      for (const start of ["0", "150000000", undefined]) {
        expect(at(id, start)?.balancerV2?.vault, `chain ${id}`).toBe(release.vault);
        expect(at(id, start)?.balancerV2?.startBlock, `chain ${id}`).toBe(0);
      }
    }
    expect(at(8453, "0")?.balancerV2).toBeUndefined();
    // A state start reads its pools at the block before the start.
    expect(stateReadBlock(at(10, "150000000") as ChainSetup)).toBe(149_999_999);
  });

  test("a real chain comes from PONDER_RPC_URL_<id> with its canonical Uniswap factories", () => {
    const chains = indexedChains({
      PONDER_RPC_URL_1: "https://rpc.example/1",
      DEVNET: "false",
      // No index has pinned its start yet.
      START_BLOCK_PIN_FILE: join(tmpdir(), "no-such-dir", "start-blocks.json"),
    });
    expect(chains).toEqual([
      {
        id: 1,
        name: "mainnet",
        title: "Ethereum",
        rpc: ["https://rpc.example/1"],
        startBlock: 10_000_835,
        weth: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
        uniswapV2: {
          factory: "0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f",
          router02: "0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D",
          startBlock: 10_000_835,
        },
        uniswapV3: {
          factory: "0x1F98431c8aD98523631AE4a59f267346ea31F984",
          swapRouter: "0xE592427A0AEce92De3Edee1F18E0157C05861564",
          quoterV2: "0x61fFE014bA17989E743c5F6cB21bF9697530B21e",
          startBlock: 12_369_621,
        },
        uniswapV4: {
          poolManager: "0x000000000004444c5dc75cB358380D2e3dE08A90",
          stateView: "0x7fFE42C4a5DEeA5b0feC41C94C136Cf115597227",
          quoter: "0x52F0E24D1c21C8A0cB1e5a5dD6198556BD9E1203",
          startBlock: 21_688_329,
          allowedHooks: [],
        },
        aaveV3: {
          pool: "0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2",
          poolAddressesProvider: "0x2f39d218133AFaB8F2B819B1066c7E434Ad94E9e",
          poolConfigurator: "0x64b761D848206f447Fe2dd461b0c635Ec39EbB27",
          dataProvider: "0x0a16f2FCC0D44FaE41cc54e079281D84A363bECD",
          startBlock: 16_291_127,
        },
        // From @balancer-labs/v2-deployments: the vault and the 2023 pool factories.
        balancerV2: {
          vault: "0xBA12222222228d8Ba445958a75a0704d566BF2C8",
          weightedPoolFactories: ["0x5Dd94Da3644DDD055fcf6B3E1aa310Bb7801EB8b"],
          composableStablePoolFactories: ["0xdba127fBc23fb20F5929C546af220A991b5C6e01"],
          startBlock: 12_272_146,
        },
        // PancakeSwap's and SushiSwap's forks, from their address books (known-chains.ts),
        // discovered from the recorded deployment of the Uniswap contract each copies.
        uniswapV2Forks: [
          {
            slug: "pancakeswap-v2",
            factory: "0x1097053Fd2ea711dad45caCcc45EfF7548fCB362",
            startBlock: 10_000_835,
          },
          {
            slug: "sushiswap-v2",
            factory: "0xC0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac",
            startBlock: 10_000_835,
          },
        ],
        uniswapV3Forks: [
          {
            slug: "pancakeswap-v3",
            factory: "0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865",
            poolDeployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
            poolInitCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
            swapRouter: undefined,
            startBlock: 12_369_621,
          },
          {
            slug: "sushiswap-v3",
            factory: "0xbACEB8eC6b9355Dfc0269C18bac9d6E2Bdc29C4F",
            poolDeployer: "0xbACEB8eC6b9355Dfc0269C18bac9d6E2Bdc29C4F",
            poolInitCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
            swapRouter: undefined,
            startBlock: 12_369_621,
          },
        ],
        vaults: [],
        stablecoins: [
          "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
          "0xdAC17F958D2ee523a2206206994597C13D831ec7",
          "0x6B175474E89094C44Da98b954EedeAC495271d0F",
        ],
        execution: {},
        // The router's executor trusts the two V3 forks' pool deployers.
        deterministicExecution: deterministicExecutionAddresses({
          v3Factory: CANONICAL_UNISWAP_V3_FACTORY,
          v3ForkDeployers: [
            {
              deployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
              initCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
            },
            {
              deployer: "0xbACEB8eC6b9355Dfc0269C18bac9d6E2Bdc29C4F",
              initCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
            },
          ],
        }),
        devnet: false,
      },
    ]);
  });

  test("without EXECUTION_<id>, the deterministic addresses follow the chain's V3 factory and V4 pool manager, else the canonical ones", () => {
    const factory = "0x33128a8fC17869897dcE68Ed026d694621f6FDfD";
    const chains = indexedChains({
      PONDER_RPC_URL_100: "http://gnosis",
      UNISWAP_V3_FACTORY_100: factory,
      PONDER_RPC_URL_10: "http://optimism",
      PONDER_RPC_URL_250: "http://fantom",
      DEVNET: "false",
    });
    expect(chains.map((c) => [c.id, c.deterministicExecution])).toEqual([
      // A known chain: its own V3 factory (mainnet's address there) and V4 pool manager, and
      // its V3 fork, SushiSwap's, whose factory creates Uniswap's pool.
      [
        10,
        deterministicExecutionAddresses({
          v3Factory: CANONICAL_UNISWAP_V3_FACTORY,
          v4PoolManager: "0x9a13F98Cb987694C9F086b1F5eB990EeA8264Ec3",
          v3ForkDeployers: [
            {
              deployer: "0x9c6522117e2ed1fE5bdb72bb0eD5E3f2bdE7DBe0",
              initCodeHash: "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
            },
          ],
        }),
      ],
      [100, deterministicExecutionAddresses({ v3Factory: factory })],
      [250, deterministicExecutionAddresses({ v3Factory: CANONICAL_UNISWAP_V3_FACTORY })],
    ]);
    expect(chains[1]?.deterministicExecution?.router).not.toBe(
      chains[2]?.deterministicExecution?.router,
    );
    expect(chains[1]?.deterministicExecution?.delegateExecutor).toBe(
      chains[2]?.deterministicExecution?.delegateExecutor,
    );
  });

  test("start block, factories, vaults, stablecoins and execution contracts can be set per chain", () => {
    const [chain] = indexedChains({
      PONDER_RPC_URL_100: "http://gnosis",
      START_BLOCK_100: "2000000",
      UNISWAP_V2_FACTORY_100: "0x8909dc15e40173ff4699343b6eb8132c65e18ec6",
      VAULTS_100:
        "savings-vaults:0x1111111111111111111111111111111111111111, yield-vaults:0x2222222222222222222222222222222222222222",
      STABLECOINS_100: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
      EXECUTION_100: "router:0x3333333333333333333333333333333333333333",
      DEVNET: "false",
    });
    expect(chain).toEqual({
      id: 100,
      name: "chain100",
      title: "Chain 100",
      rpc: ["http://gnosis"],
      startBlock: 2_000_000,
      weth: undefined,
      // The factory's deployment is not known: its pairs are discovered from block 0, their
      // events applied from the start block, and the state of those before it read there.
      uniswapV2: {
        factory: "0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6",
        router02: undefined,
        startBlock: 0,
      },
      uniswapV3: undefined,
      vaults: [
        { protocolSlug: "savings-vaults", address: "0x1111111111111111111111111111111111111111" },
        { protocolSlug: "yield-vaults", address: "0x2222222222222222222222222222222222222222" },
      ],
      stablecoins: ["0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"],
      execution: { router: "0x3333333333333333333333333333333333333333" },
      deterministicExecution: undefined,
      devnet: false,
    });
  });

  test("Uniswap V4: UNISWAP_V4_POOL_MANAGER_<id> and the hook allow-list UNISWAP_V4_HOOKS_<id>", () => {
    const chains = indexedChains({
      PONDER_RPC_URL_100: "http://gnosis",
      UNISWAP_V4_POOL_MANAGER_100: "0x498581ff718922c3f8e6a244956af099b2652b2b",
      UNISWAP_V4_HOOKS_100:
        " 0xAbCdEf0123456789aBcDeF0123456789AbCdEf01 ,0x0000000000000000000000000000000000000088",
      PONDER_RPC_URL_1: "https://rpc.example/1",
      START_BLOCK_1: "22000000",
      UNISWAP_V4_HOOKS_1: "0x48225437D9A2e3777f0b17d3e99AD08656610088",
      DEVNET: "false",
    });
    const gnosis = chains.find((c) => c.id === 100);
    const mainnet = chains.find((c) => c.id === 1);
    expect(gnosis?.uniswapV4).toEqual({
      poolManager: "0x498581fF718922c3f8e6A244956aF099B2652b2b",
      stateView: undefined,
      quoter: undefined,
      startBlock: 0,
      allowedHooks: [
        "0xabcdef0123456789abcdef0123456789abcdef01",
        "0x0000000000000000000000000000000000000088",
      ],
    });
    expect(gnosis?.startBlock).toBe(0);
    expect(mainnet?.uniswapV4).toEqual({
      poolManager: "0x000000000004444c5dc75cB358380D2e3dE08A90",
      stateView: "0x7fFE42C4a5DEeA5b0feC41C94C136Cf115597227",
      quoter: "0x52F0E24D1c21C8A0cB1e5a5dD6198556BD9E1203",
      // Pools are discovered from the manager's deployment, whatever the start.
      startBlock: 21_688_329,
      allowedHooks: ["0x48225437d9a2e3777f0b17d3e99ad08656610088"],
    });
  });

  test("Uniswap V4: another manager on chain 1 comes without the canonical StateView and V4Quoter", () => {
    const [chain] = indexedChains({
      PONDER_RPC_URL_1: "https://rpc.example/1",
      UNISWAP_V4_POOL_MANAGER_1: "0x1111111111111111111111111111111111111111",
      DEVNET: "false",
    });
    expect(chain?.uniswapV4).toEqual({
      poolManager: "0x1111111111111111111111111111111111111111",
      stateView: undefined,
      quoter: undefined,
      startBlock: 0,
      allowedHooks: [],
    });
    // No known start block for that manager: the chain starts at block 0.
    expect(chain?.startBlock).toBe(0);
    // Without a manager, a chain has no Uniswap V4 (hooks alone configure nothing).
    const [other] = indexedChains({
      PONDER_RPC_URL_250: "http://fantom",
      UNISWAP_V4_HOOKS_250: "0x1111111111111111111111111111111111111111",
      DEVNET: "false",
    });
    expect(other?.uniswapV4).toBeUndefined();
  });

  test("a start before every recorded deployment: pools are discovered from genesis, and the state is read before the start", () => {
    // A chain with id 1 whose history is not mainnet's (a local copy of its contracts, as
    // test/mainnet-shaped-state-start.test.ts runs): pools may predate a start at block 150.
    const [copy] = indexedChains({
      PONDER_RPC_URL_1: "http://127.0.0.1:8545",
      START_BLOCK_1: "150",
      DEVNET: "false",
    });
    expect({
      startBlock: copy?.startBlock,
      uniswapV2: copy?.uniswapV2?.startBlock,
      uniswapV3: copy?.uniswapV3?.startBlock,
      uniswapV4: copy?.uniswapV4?.startBlock,
      aaveV3: copy?.aaveV3?.startBlock,
      stateRead: copy && stateReadBlock(copy),
    }).toEqual({
      startBlock: 150,
      uniswapV2: 0,
      uniswapV3: 0,
      uniswapV4: 0,
      aaveV3: 0,
      stateRead: 149,
    });
    // After a recorded deployment the history is the recorded one: discovery begins at each
    // deployment, or at the start when that comes first.
    const [mainnet] = indexedChains({
      PONDER_RPC_URL_1: "https://rpc.example/1",
      START_BLOCK_1: "15000000",
      DEVNET: "false",
    });
    expect({
      uniswapV2: mainnet?.uniswapV2?.startBlock,
      uniswapV3: mainnet?.uniswapV3?.startBlock,
      uniswapV4: mainnet?.uniswapV4?.startBlock,
      aaveV3: mainnet?.aaveV3?.startBlock,
      stateRead: mainnet && stateReadBlock(mainnet),
    }).toEqual({
      uniswapV2: 10_000_835,
      uniswapV3: 12_369_621,
      uniswapV4: 15_000_000,
      aaveV3: 15_000_000,
      stateRead: 14_999_999,
    });
  });

  test("Aave V3: AAVE_V3_POOL_<id> with AAVE_V3_POOL_ADDRESSES_PROVIDER_<id>; the canonical market's configurator and data provider come with it only", () => {
    const chains = indexedChains({
      PONDER_RPC_URL_100: "http://gnosis",
      AAVE_V3_POOL_100: "0xa238dd80c259a72e81d7e4664a9801593f98d1c5",
      AAVE_V3_POOL_ADDRESSES_PROVIDER_100: "0xe20fcbdbffc4dd138ce8b2e6fbb6cb49777ad64d",
      AAVE_V3_POOL_CONFIGURATOR_100: "0x5731a04b1e775f0fdd454bf70f3335886e9a96be",
      PONDER_RPC_URL_1: "https://rpc.example/1",
      START_BLOCK_1: "22000000",
      AAVE_V3_POOL_1: "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2",
      AAVE_V3_POOL_ADDRESSES_PROVIDER_1: "0x2f39d218133afab8f2b819b1066c7e434ad94e9e",
      PONDER_RPC_URL_250: "http://fantom",
      DEVNET: "false",
    });
    expect(chains.map((c) => [c.id, c.aaveV3])).toEqual([
      [
        1,
        {
          pool: "0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2",
          poolAddressesProvider: "0x2f39d218133AFaB8F2B819B1066c7E434Ad94E9e",
          poolConfigurator: "0x64b761D848206f447Fe2dd461b0c635Ec39EbB27",
          dataProvider: "0x0a16f2FCC0D44FaE41cc54e079281D84A363bECD",
          // Its reserves are read at the start; the market's own deployment block stays.
          startBlock: 16_291_127,
        },
      ],

      [
        100,
        {
          pool: "0xA238Dd80C259a72e81d7e4664a9801593F98d1c5",
          poolAddressesProvider: "0xe20fCBdBfFC4Dd138cE8b2E6FBb6CB49777ad64D",
          poolConfigurator: "0x5731a04B1E775f0fdd454Bf70f3335886e9A96be",
          dataProvider: undefined,
          startBlock: 0,
        },
      ],
      // No known market on chain 250, and nothing set: no Aave V3.
      [250, undefined],
    ]);
    // Another market on chain 1: without the canonical configurator and data provider, and with
    // no known start block, so the chain starts at block 0.
    const [mainnet] = indexedChains({
      PONDER_RPC_URL_1: "https://rpc.example/1",
      AAVE_V3_POOL_1: "0x4e033931ad43597d96D6bcc25c280717730B58B1",
      AAVE_V3_POOL_ADDRESSES_PROVIDER_1: "0xcfBf336fe147D643B9Cb705648500e101504B16d",
      DEVNET: "false",
      START_BLOCK_PIN_FILE: join(tmpdir(), "no-such-dir", "start-blocks.json"),
    });
    expect(mainnet?.aaveV3).toEqual({
      pool: "0x4e033931ad43597d96D6bcc25c280717730B58B1",
      poolAddressesProvider: "0xcfBf336fe147D643B9Cb705648500e101504B16d",
      poolConfigurator: undefined,
      dataProvider: undefined,
      startBlock: 0,
    });
    expect(mainnet?.startBlock).toBe(0);
  });

  test("Aave V3: a malformed address, or the Pool without its PoolAddressesProvider (or the reverse), is refused", () => {
    expect(() =>
      indexedChains({ PONDER_RPC_URL_1: "x", AAVE_V3_POOL_1: "pool", DEVNET: "false" }),
    ).toThrow(new Error('AAVE_V3_POOL_1 must be an address, got "pool"'));
    expect(() =>
      indexedChains({
        PONDER_RPC_URL_1: "x",
        AAVE_V3_POOL_1: "0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2",
        AAVE_V3_POOL_ADDRESSES_PROVIDER_1: "0x2f39d218",
        DEVNET: "false",
      }),
    ).toThrow(new Error('AAVE_V3_POOL_ADDRESSES_PROVIDER_1 must be an address, got "0x2f39d218"'));
    expect(() =>
      indexedChains({
        PONDER_RPC_URL_8453: "http://base",
        AAVE_V3_POOL_8453: "0xA238Dd80C259a72e81d7e4664a9801593F98d1c5",
        DEVNET: "false",
      }),
    ).toThrow(
      new Error(
        "AAVE_V3_POOL_8453 is set but AAVE_V3_POOL_ADDRESSES_PROVIDER_8453 is not: set both, the Pool and the PoolAddressesProvider of one Aave V3 market",
      ),
    );
    expect(() =>
      indexedChains({
        PONDER_RPC_URL_1: "x",
        AAVE_V3_POOL_ADDRESSES_PROVIDER_1: "0x2f39d218133AFaB8F2B819B1066c7E434Ad94E9e",
        DEVNET: "false",
      }),
    ).toThrow(
      new Error(
        "AAVE_V3_POOL_ADDRESSES_PROVIDER_1 is set but AAVE_V3_POOL_1 is not: set both, the Pool and the PoolAddressesProvider of one Aave V3 market",
      ),
    );
  });

  test("L1_FEE_<id>=op-stack: the chain's L1 data fee is priced by its GasPriceOracle predeploy; none by default, `none` turns a known one off", () => {
    const pin = { START_BLOCK_PIN_FILE: join(tmpdir(), "no-such-dir", "start-blocks.json") };
    const [base] = indexedChains({
      PONDER_RPC_URL_8453: "https://rpc.example/8453",
      L1_FEE_8453: "op-stack",
      DEVNET: "false",
      ...pin,
    });
    expect(base?.l1Fee).toEqual({
      kind: "op-stack",
      gasPriceOracle: "0x420000000000000000000000000000000000000F",
    });
    const [mainnet] = indexedChains({ PONDER_RPC_URL_1: "x", DEVNET: "false", ...pin });
    expect(mainnet && "l1Fee" in mainnet).toBe(false);
    expect(parseL1Fee("none", "L1_FEE_10", base?.l1Fee)).toBeUndefined();
    expect(parseL1Fee(undefined, "L1_FEE_10", base?.l1Fee)).toBe(base?.l1Fee);
    expect(() =>
      indexedChains({ PONDER_RPC_URL_10: "x", L1_FEE_10: "arbitrum", DEVNET: "false", ...pin }),
    ).toThrow(new Error('L1_FEE_10: expected "op-stack" or "none", got "arbitrum"'));
  });

  test("UNISWAP_V2_FORKS_<id>: forks of Uniswap V2 by slug and factory, discovered from their deployment block or genesis; an unknown slug or a malformed entry is refused", () => {
    const pin = { START_BLOCK_PIN_FILE: join(tmpdir(), "no-such-dir", "start-blocks.json") };
    const bsc = (forks: string, start?: string) =>
      indexedChains({
        PONDER_RPC_URL_56: "https://rpc.example/56",
        UNISWAP_V2_FORKS_56: forks,
        ...(start === undefined ? {} : { START_BLOCK_56: start }),
        ...pin,
      })[0];
    const chain = bsc(
      "pancakeswap-v2:0xca143ce32fe78f1f7019d7d551a6402fc5350c73:6809737, sushiswap-v2:0xc35DADB65012eC5796536bD9864eD8773aBc74C4",
      "40000000",
    );
    expect(chain?.uniswapV2Forks).toEqual([
      {
        slug: "pancakeswap-v2",
        factory: "0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73",
        startBlock: 6_809_737,
      },
      {
        slug: "sushiswap-v2",
        factory: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4",
        startBlock: 0,
      },
    ]);
    // The forks' deployments count among the chain's: a start after them reads their pairs' state.
    expect(chain && stateReadBlock(chain)).toBe(39_999_999);
    // The protocols are supported there (and only there), and listed as forks of Uniswap V2.
    const [uniswapV2, pancakeV2, pancakeV1] = [
      "uniswap-v2",
      "pancakeswap-v2",
      "pancakeswap-v1",
    ].map((slug) => protocols.find((p) => p.slug === slug));
    expect(chain && pancakeV2?.supports(chain)).toBe(true);
    expect(chain && pancakeV1?.supports(chain)).toBe(false);
    expect(uniswapV2?.forks).toEqual([
      { slug: "pancakeswap-v1", url: "https://pancakeswap.finance" },
      { slug: "pancakeswap-v2", url: "https://pancakeswap.finance" },
      { slug: "sushiswap-v2", url: "https://www.sushi.com" },
    ]);
    expect(() => bsc("quickswap:0xca143ce32fe78f1f7019d7d551a6402fc5350c73")).toThrow(
      'UNISWAP_V2_FORKS_56: "quickswap" is not a known Uniswap V2 fork (known: pancakeswap-v1, pancakeswap-v2, sushiswap-v2)',
    );
    expect(() => bsc("pancakeswap-v2:0xnope")).toThrow(
      'UNISWAP_V2_FORKS_56: expected <slug>:<factory address>[:<deployment block>], got "pancakeswap-v2:0xnope"',
    );
    expect(() => bsc("pancakeswap-v2:0xca143ce32fe78f1f7019d7d551a6402fc5350c73:soon")).toThrow(
      'UNISWAP_V2_FORKS_56: the deployment block of pancakeswap-v2 must be a block number, got "soon"',
    );
    // Unset: BNB Chain's own forks (known-chains.ts), discovered from genesis; `none`: no fork.
    expect(bsc("")?.uniswapV2Forks).toEqual([
      {
        slug: "pancakeswap-v2",
        factory: "0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73",
        startBlock: 0,
      },
      {
        slug: "sushiswap-v2",
        factory: "0xc35DADB65012eC5796536bD9864eD8773aBc74C4",
        startBlock: 0,
      },
    ]);
    expect(bsc("none")?.uniswapV2Forks).toBeUndefined();
    // A fork named replaces the known one of its slug; the others stay.
    expect(
      bsc("sushiswap-v2:0x1111111111111111111111111111111111111111:7")?.uniswapV2Forks,
    ).toEqual([
      {
        slug: "pancakeswap-v2",
        factory: "0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73",
        startBlock: 0,
      },
      {
        slug: "sushiswap-v2",
        factory: "0x1111111111111111111111111111111111111111",
        startBlock: 7,
      },
    ]);
  });

  test("UNISWAP_V3_FORKS_<id>: forks of Uniswap V3 by slug, factory, SwapRouter (and PancakeSwap's pool deployer); the router's executor is built to trust their pool deployers; an unknown slug or a malformed entry is refused", () => {
    const pin = { START_BLOCK_PIN_FILE: join(tmpdir(), "no-such-dir", "start-blocks.json") };
    const bsc = (forks: string, start?: string) =>
      indexedChains({
        PONDER_RPC_URL_56: "https://rpc.example/56",
        UNISWAP_V3_FORKS_56: forks,
        ...(start === undefined ? {} : { START_BLOCK_56: start }),
        ...pin,
      })[0];
    const factory = "0x0bfbcf9fa4f9c56b0f40a671ad40e0805a091865";
    const router = "0x1b81d678ffb9c0263b24a97847620c99d213eb14";
    const deployer = "0x41ff9aa7e16b8b1a8a8dc4f0efacd93d02d071c9";
    const sushiFactory = "0x126555dd55a39328f69400d6ae4f782bd4c34abb";
    const sushiRouter = "0x909662a99605382db1e8d69cc1f182bb577d9038";
    const chain = bsc(
      `pancakeswap-v3:${factory}:${router}:${deployer}:26956207,sushiswap-v3:${sushiFactory}:${sushiRouter}`,
      "40000000",
    );
    const pancakeHash = "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2";
    const uniswapHash = "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54";
    expect(chain?.uniswapV3Forks).toEqual([
      {
        slug: "pancakeswap-v3",
        factory: "0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865",
        poolDeployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
        poolInitCodeHash: pancakeHash,
        swapRouter: "0x1b81D678ffb9C0263b24A97847620C99d213eB14",
        startBlock: 26_956_207,
      },
      {
        // A fork without a separate deployer: its factory CREATE2s its pools.
        slug: "sushiswap-v3",
        factory: "0x126555dd55a39328F69400d6aE4F782Bd4C34ABb",
        poolDeployer: "0x126555dd55a39328F69400d6aE4F782Bd4C34ABb",
        poolInitCodeHash: uniswapHash,
        swapRouter: "0x909662a99605382dB1E8d69cc1f182bb577d9038",
        startBlock: 0,
      },
    ]);
    // The published hashes are those of the pools' creation code in the npm artifacts.
    expect(keccak256(readNpmArtifact("PancakeV3Pool").bytecode)).toBe(pancakeHash);
    expect(keccak256(readNpmArtifact("UniswapV3Pool").bytecode)).toBe(uniswapHash);
    // The router's executor is built to trust both deployers: its address says so.
    expect(chain?.deterministicExecution).toEqual(
      deterministicExecutionAddresses({
        v3Factory: chain?.uniswapV3?.factory,
        v4PoolManager: chain?.uniswapV4?.poolManager,
        v3ForkDeployers: [
          { deployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9", initCodeHash: pancakeHash },
          { deployer: "0x126555dd55a39328F69400d6aE4F782Bd4C34ABb", initCodeHash: uniswapHash },
        ],
      }),
    );
    expect(chain?.deterministicExecution?.executor).not.toBe(
      bsc("none")?.deterministicExecution?.executor,
    );
    // The fork's deployment counts among the chain's: a start after it reads its pools' state.
    const pancakeOnly = bsc(`pancakeswap-v3:${factory}:${router}:${deployer}:26956207`, "40000000");
    expect(pancakeOnly && stateReadBlock(pancakeOnly)).toBe(39_999_999);
    // Supported there (and only there), listed as a fork of Uniswap V3, its router the hop's.
    const [uniswapV3, pancakeV3, sushiV3] = ["uniswap-v3", "pancakeswap-v3", "sushiswap-v3"].map(
      (slug) => protocols.find((p) => p.slug === slug),
    );
    expect(chain && pancakeV3?.supports(chain)).toBe(true);
    expect(chain && sushiV3?.supports(chain)).toBe(true);
    expect(uniswapV3?.forks).toEqual([
      { slug: "pancakeswap-v3", url: "https://pancakeswap.finance" },
      { slug: "sushiswap-v3", url: "https://www.sushi.com" },
    ]);
    expect(chain && forkSwapRouters(chain)).toEqual({
      "pancakeswap-v3": "0x1b81D678ffb9C0263b24A97847620C99d213eB14",
      "sushiswap-v3": "0x909662a99605382dB1E8d69cc1f182bb577d9038",
    });
    expect(chain && forkPoolDeployers(chain)).toEqual({
      "pancakeswap-v3": "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
      "sushiswap-v3": "0x126555dd55a39328F69400d6aE4F782Bd4C34ABb",
    });
    expect(() => bsc(`quickswap-v3:${factory}:${router}`)).toThrow(
      'UNISWAP_V3_FORKS_56: "quickswap-v3" is not a known Uniswap V3 fork (known: pancakeswap-v3, sushiswap-v3)',
    );
    // PancakeSwap V3 needs its pool deployer; SushiSwap V3 takes none.
    expect(() => bsc(`pancakeswap-v3:${factory}:${router}`)).toThrow(
      `UNISWAP_V3_FORKS_56: expected <slug>:<factory address>:<SwapRouter address>:<pool deployer address>[:<deployment block>], got "pancakeswap-v3:${factory}:${router}"`,
    );
    expect(() => bsc(`sushiswap-v3:${sushiFactory}`)).toThrow(
      `UNISWAP_V3_FORKS_56: expected <slug>:<factory address>:<SwapRouter address>[:<deployment block>], got "sushiswap-v3:${sushiFactory}"`,
    );
    expect(() => bsc(`pancakeswap-v3:${factory}:${router}:${deployer}:soon`)).toThrow(
      'UNISWAP_V3_FORKS_56: the deployment block of pancakeswap-v3 must be a block number, got "soon"',
    );
    // Unset: BNB Chain's own forks (known-chains.ts), without a SwapRouter (no address book
    // has one); `none`: no fork, and an executor that trusts no fork's deployer.
    expect(bsc("")?.uniswapV3Forks).toEqual([
      {
        slug: "pancakeswap-v3",
        factory: "0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865",
        poolDeployer: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
        poolInitCodeHash: pancakeHash,
        swapRouter: undefined,
        startBlock: 0,
      },
      {
        slug: "sushiswap-v3",
        factory: "0x126555dd55a39328F69400d6aE4F782Bd4C34ABb",
        poolDeployer: "0x126555dd55a39328F69400d6aE4F782Bd4C34ABb",
        poolInitCodeHash: uniswapHash,
        swapRouter: undefined,
        startBlock: 0,
      },
    ]);
    const known = bsc("");
    expect(known && forkSwapRouters(known)).toEqual({});
    expect(known?.deterministicExecution).toEqual(chain?.deterministicExecution);
    const none = bsc("none");
    expect(none?.uniswapV3Forks).toBeUndefined();
    expect(none?.deterministicExecution).toEqual(
      deterministicExecutionAddresses({
        v3Factory: chain?.uniswapV3?.factory,
        v4PoolManager: chain?.uniswapV4?.poolManager,
      }),
    );
  });

  test("malformed settings are refused with the variable's name", () => {
    expect(() =>
      indexedChains({ PONDER_RPC_URL_1: "x", START_BLOCK_1: "soon", DEVNET: "false" }),
    ).toThrow('START_BLOCK_1 must be a block number or "latest", got "soon"');
    expect(() => parseVaultList("savings-vaults", "VAULTS_1")).toThrow(
      'VAULTS_1: expected "slug:0xaddress" entries, got "savings-vaults"',
    );
    expect(() => indexedChains({ PONDER_RPC_URL_1: "x", WETH_1: "0x12", DEVNET: "false" })).toThrow(
      'WETH_1 must be an address, got "0x12"',
    );
    expect(() =>
      indexedChains({ PONDER_RPC_URL_1: "x", UNISWAP_V4_POOL_MANAGER_1: "pm", DEVNET: "false" }),
    ).toThrow(new Error('UNISWAP_V4_POOL_MANAGER_1 must be an address, got "pm"'));
    expect(() =>
      indexedChains({
        PONDER_RPC_URL_1: "x",
        UNISWAP_V4_HOOKS_1: "0x48225437D9A2e3777f0b17d3e99AD08656610088,0x4822",
        DEVNET: "false",
      }),
    ).toThrow(new Error('UNISWAP_V4_HOOKS_1: expected comma-separated addresses, got "0x4822"'));
    expect(() =>
      indexedChains({
        PONDER_RPC_URL_1: "x",
        UNISWAP_V4_HOOKS_1: "0x48225437D9A2e3777f0b17d3e99AD08656610088,",
        DEVNET: "false",
      }),
    ).toThrow(new Error('UNISWAP_V4_HOOKS_1: expected comma-separated addresses, got ""'));
  });

  test("the devnet's Uniswap V4, Aave V3 and Balancer V2 come from its deployment file; UNISWAP_V4_HOOKS_<id> applies there too", () => {
    const dir = mkdtempSync(join(tmpdir(), "chains-test-"));
    try {
      const file = join(dir, "deployment.json");
      const deployment: Deployment = {
        chainId: 31337,
        genesisHash: `0x${"ab".repeat(32)}`,
        startBlock: 1,
        deployer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        weth: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        tokens: [],
        uniswapV2: {
          factory: "0x1111111111111111111111111111111111111111",
          router02: "0x1111111111111111111111111111111111111112",
          pairs: [],
        },
        uniswapV3: {
          factory: "0x1111111111111111111111111111111111111113",
          positionManager: "0x1111111111111111111111111111111111111114",
          swapRouter: "0x1111111111111111111111111111111111111115",
          quoterV2: "0x1111111111111111111111111111111111111116",
          pools: [],
        },
        uniswapV4: {
          poolManager: "0x2222222222222222222222222222222222222221",
          stateView: "0x2222222222222222222222222222222222222222",
          quoter: "0x2222222222222222222222222222222222222223",
          liquidityHelper: "0x2222222222222222222222222222222222222224",
          swapHelper: "0x2222222222222222222222222222222222222225",
          hooks: {
            afterSwap: "0x972ADB80e42d209c6E93ABd9215fF1f271420040",
            returnsDelta: "0x48225437D9A2e3777f0b17d3e99AD08656610088",
          },
          pools: [],
        },
        aaveV3: {
          poolAddressesProvider: "0x3333333333333333333333333333333333333331",
          pool: "0x3333333333333333333333333333333333333332",
          poolConfigurator: "0x3333333333333333333333333333333333333333",
          aclManager: "0x3333333333333333333333333333333333333334",
          oracle: "0x3333333333333333333333333333333333333335",
          dataProvider: "0x3333333333333333333333333333333333333336",
          reserves: [],
        },
        balancerV2: {
          vault: "0x4444444444444444444444444444444444444441",
          weightedPoolFactory: "0x4444444444444444444444444444444444444442",
          composableStablePoolFactory: "0x4444444444444444444444444444444444444443",
          stakedEthRateProvider: "0x4444444444444444444444444444444444444444",
          pools: {},
        },
        vaults: [],
        execution: {},
      };
      writeDeployment(deployment, file);
      const [devnet] = indexedChains({
        DEVNET_DEPLOYMENT: file,
        UNISWAP_V4_HOOKS_31337: "0x48225437D9A2e3777f0b17d3e99AD08656610088",
      });
      expect(devnet?.uniswapV4).toEqual({
        poolManager: "0x2222222222222222222222222222222222222221",
        stateView: "0x2222222222222222222222222222222222222222",
        quoter: "0x2222222222222222222222222222222222222223",
        startBlock: 1,
        allowedHooks: ["0x48225437d9a2e3777f0b17d3e99ad08656610088"],
      });
      expect(devnet?.aaveV3).toEqual({
        pool: "0x3333333333333333333333333333333333333332",
        poolAddressesProvider: "0x3333333333333333333333333333333333333331",
        poolConfigurator: "0x3333333333333333333333333333333333333333",
        dataProvider: "0x3333333333333333333333333333333333333336",
        startBlock: 1,
      });
      expect(devnet?.balancerV2).toEqual({
        vault: "0x4444444444444444444444444444444444444441",
        weightedPoolFactories: ["0x4444444444444444444444444444444444444442"],
        composableStablePoolFactories: ["0x4444444444444444444444444444444444444443"],
        startBlock: 1,
      });
      // Worlds deployed before the devnet had Uniswap V4, or Aave V3, or without Balancer V2.
      writeDeployment(
        { ...deployment, uniswapV4: undefined, aaveV3: undefined, balancerV2: undefined },
        file,
      );
      const [older] = indexedChains({ DEVNET_DEPLOYMENT: file });
      expect([older?.uniswapV4, older?.aaveV3, older?.balancerV2]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("no deployment file and no RPC URL means no chain", () => {
    expect(indexedChains({ DEVNET_DEPLOYMENT: "/nonexistent/deployment.json" })).toEqual([]);
  });
});
