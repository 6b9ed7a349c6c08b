/**
 * Where a chain's index starts (start-blocks.ts, chains.ts): `START_BLOCK_<id>` as a block or
 * `latest`, and on a real chain without it the head, pinned the first time its index is created
 * so that a restart resumes the same index. Against a real node (anvil).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { indexedChains, startFollowsHead } from "../chains.js";
import type { AnvilInstance } from "../devnet/anvil.js";
import { type ChainSetup, stateReadBlock } from "../engine/index.js";
import { pinHeadStarts, startSetting } from "../start-blocks.js";
import { startTestAnvil } from "./harness/anvil.js";

const CHAIN = 100;
let anvil: AnvilInstance;
let dir: string;

beforeAll(async () => {
  anvil = await startTestAnvil({ chainId: CHAIN });
  dir = mkdtempSync(join(tmpdir(), "start-blocks-"));
});

afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function mine(blocks: number): Promise<number> {
  const call = async (method: string, params: unknown[]) =>
    (
      (await (
        await fetch(anvil.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        })
      ).json()) as { result: string }
    ).result;
  await call("anvil_mine", [`0x${blocks.toString(16)}`]);
  return Number(await call("eth_blockNumber", []));
}

/** A real chain on the anvil, its index in `pglite`, its pins in `pins`. */
function envOf(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    [`PONDER_RPC_URL_${CHAIN}`]: anvil.url,
    [`UNISWAP_V2_FACTORY_${CHAIN}`]: "0x8909dc15e40173ff4699343b6eb8132c65e18ec6",
    DEVNET: "false",
    START_BLOCK_PIN_FILE: join(dir, "pins.json"),
    PONDER_PGLITE_DIR: join(dir, "pglite"),
    ...extra,
  };
}

async function pin(env: NodeJS.ProcessEnv): Promise<void> {
  await pinHeadStarts(
    env,
    indexedChains(env).map((c) => ({
      id: c.id,
      rpc: c.rpc[0] ?? "",
      followsHead: startFollowsHead(env, c),
    })),
  );
}

describe("START_BLOCK_<id>", () => {
  test("is a block number or latest; anything else is refused naming the variable", () => {
    expect(startSetting({ START_BLOCK_1: "19000000" }, 1)).toBe(19_000_000);
    expect(startSetting({ START_BLOCK_1: "latest" }, 1)).toBe("latest");
    expect(startSetting({ START_BLOCK_1: "" }, 1)).toBeUndefined();
    expect(() => startSetting({ START_BLOCK_1: "-5" }, 1)).toThrow(
      'START_BLOCK_1 must be a block number or "latest", got "-5"',
    );
  });

  test("unset on a real chain: the head when the index is first created, kept across restarts", async () => {
    const env = envOf();
    const head = await mine(5);
    await pin(env);
    expect(indexedChains(env)[0]?.startBlock).toBe(head);
    expect(JSON.parse(readFileSync(join(dir, "pins.json"), "utf8"))).toEqual({
      [`${CHAIN}@${resolve(dir, "pglite")}`]: head,
    });
    // A restart later: the chain has moved on, the index keeps its start.
    await mine(7);
    await pin(env);
    expect(indexedChains(env)[0]?.startBlock).toBe(head);
    // Another index of the same chain (its own database) starts at the head of its own creation.
    const other = envOf({ PONDER_PGLITE_DIR: join(dir, "second") });
    await pin(other);
    expect(indexedChains(other)[0]?.startBlock).toBe(head + 7);
    // `latest` means the same; a block number is that block, whatever is pinned.
    expect(indexedChains({ ...env, [`START_BLOCK_${CHAIN}`]: "latest" })[0]?.startBlock).toBe(head);
    expect(indexedChains({ ...env, [`START_BLOCK_${CHAIN}`]: "3" })[0]?.startBlock).toBe(3);
  });

  test("a Postgres index is told apart by its URL (without credentials) and schema", async () => {
    const env = envOf({
      DATABASE_URL: "postgresql://reader:secret@db.example:5432/index",
      DATABASE_SCHEMA: "mainnet_a",
    });
    const head = await mine(1);
    await pin(env);
    const pins = JSON.parse(readFileSync(join(dir, "pins.json"), "utf8")) as Record<string, number>;
    expect(pins[`${CHAIN}@postgresql://db.example:5432/index#mainnet_a`]).toBe(head);
    expect(JSON.stringify(pins)).not.toContain("secret");
  });

  test("the devnet follows the head only when told latest", () => {
    const devnet = { ...indexedChains(envOf())[0], devnet: true } as Parameters<
      typeof startFollowsHead
    >[1];
    expect(startFollowsHead({}, devnet)).toBe(false);
    expect(startFollowsHead({ [`START_BLOCK_${CHAIN}`]: "latest" }, devnet)).toBe(true);
    expect(startFollowsHead({ [`START_BLOCK_${CHAIN}`]: "12" }, devnet)).toBe(false);
  });

  test("a node that cannot be asked its head, or a damaged pin file, is a clear error", async () => {
    const down = envOf({
      [`PONDER_RPC_URL_${CHAIN}`]: "http://127.0.0.1:9",
      PONDER_PGLITE_DIR: join(dir, "third"),
    });
    await expect(pin(down)).rejects.toThrow(
      `Chain ${CHAIN}: could not read the head block to start its index from (fetch failed); check PONDER_RPC_URL_${CHAIN}, or set START_BLOCK_${CHAIN}`,
    );
    const damaged = join(dir, "damaged.json");
    writeFileSync(damaged, "{ not json");
    expect(() => indexedChains(envOf({ START_BLOCK_PIN_FILE: damaged }))).toThrow(
      `${damaged} is not valid JSON (`,
    );
  });

  test("the state is read at the end of the block before the start, only when pools can predate it", () => {
    const chain = (startBlock: number, deployedAt: number) =>
      ({
        ...indexedChains(envOf())[0],
        startBlock,
        uniswapV2: {
          factory: "0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6",
          startBlock: deployedAt,
        },
      }) as ChainSetup;
    expect(stateReadBlock(chain(19_000_000, 10_000_835))).toBe(18_999_999);
    // At or before the deployment: a replay, nothing to read.
    expect(stateReadBlock(chain(10_000_835, 10_000_835))).toBeUndefined();
    expect(stateReadBlock(chain(5, 10_000_835))).toBeUndefined();
    // START_BLOCK 1 on a chain whose deployment block is unknown (0): a replay, no read at genesis.
    expect(stateReadBlock(chain(1, 0))).toBeUndefined();
    expect(stateReadBlock(chain(2, 0))).toBe(1);
  });
});
