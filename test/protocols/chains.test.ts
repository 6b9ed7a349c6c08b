import { describe, expect, test } from "vitest";
import { indexedChains, parseVaultList } from "../../chains.js";
import {
  CANONICAL_UNISWAP_V3_FACTORY,
  deterministicExecutionAddresses,
} from "../../engine/protocols/execution-addresses.js";

describe("indexedChains", () => {
  test("a real chain comes from PONDER_RPC_URL_<id> with its canonical Uniswap factories", () => {
    const chains = indexedChains({ PONDER_RPC_URL_1: "https://rpc.example/1", DEVNET: "false" });
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
        vaults: [],
        stablecoins: [
          "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
          "0xdAC17F958D2ee523a2206206994597C13D831ec7",
          "0x6B175474E89094C44Da98b954EedeAC495271d0F",
        ],
        execution: {},
        deterministicExecution: deterministicExecutionAddresses({
          v3Factory: CANONICAL_UNISWAP_V3_FACTORY,
        }),
        devnet: false,
      },
    ]);
  });

  test("without EXECUTION_<id>, the deterministic addresses follow the chain's V3 factory, else the canonical one", () => {
    const base = "0x33128a8fC17869897dcE68Ed026d694621f6FDfD";
    const chains = indexedChains({
      PONDER_RPC_URL_8453: "http://base",
      UNISWAP_V3_FACTORY_8453: base,
      PONDER_RPC_URL_10: "http://optimism",
      DEVNET: "false",
    });
    expect(chains.map((c) => [c.id, c.deterministicExecution])).toEqual([
      [10, deterministicExecutionAddresses({ v3Factory: CANONICAL_UNISWAP_V3_FACTORY })],
      [8453, deterministicExecutionAddresses({ v3Factory: base })],
    ]);
    expect(chains[1]?.deterministicExecution?.router).not.toBe(
      chains[0]?.deterministicExecution?.router,
    );
    expect(chains[1]?.deterministicExecution?.delegateExecutor).toBe(
      chains[0]?.deterministicExecution?.delegateExecutor,
    );
  });

  test("start block, factories, vaults, stablecoins and execution contracts can be set per chain", () => {
    const [chain] = indexedChains({
      PONDER_RPC_URL_8453: "http://base",
      START_BLOCK_8453: "2000000",
      UNISWAP_V2_FACTORY_8453: "0x8909dc15e40173ff4699343b6eb8132c65e18ec6",
      VAULTS_8453:
        "savings-vaults:0x1111111111111111111111111111111111111111, yield-vaults:0x2222222222222222222222222222222222222222",
      STABLECOINS_8453: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
      EXECUTION_8453: "router:0x3333333333333333333333333333333333333333",
      DEVNET: "false",
    });
    expect(chain).toEqual({
      id: 8453,
      name: "chain8453",
      title: "Chain 8453",
      rpc: ["http://base"],
      startBlock: 2_000_000,
      weth: undefined,
      uniswapV2: {
        factory: "0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6",
        router02: undefined,
        startBlock: 2_000_000,
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

  test("malformed settings are refused with the variable's name", () => {
    expect(() =>
      indexedChains({ PONDER_RPC_URL_1: "x", START_BLOCK_1: "soon", DEVNET: "false" }),
    ).toThrow('START_BLOCK_1 must be a whole number, got "soon"');
    expect(() => parseVaultList("savings-vaults", "VAULTS_1")).toThrow(
      'VAULTS_1: expected "slug:0xaddress" entries, got "savings-vaults"',
    );
    expect(() => indexedChains({ PONDER_RPC_URL_1: "x", WETH_1: "0x12", DEVNET: "false" })).toThrow(
      'WETH_1 must be an address, got "0x12"',
    );
  });

  test("no deployment file and no RPC URL means no chain", () => {
    expect(indexedChains({ DEVNET_DEPLOYMENT: "/nonexistent/deployment.json" })).toEqual([]);
  });
});
