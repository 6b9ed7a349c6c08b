/**
 * The devnet deployment file is checked as it is read: a file that is not JSON, or that lacks a
 * field the service reads or holds a malformed one, is refused with an error naming the file,
 * the field and the remedy, instead of failing later wherever the field is used.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { type Deployment, readDeployment } from "../../deployment-file.js";

const dir = mkdtempSync(join(tmpdir(), "deployment-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const a = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** A deployment without Uniswap V4 and Aave V3 (as files written before them are). */
const valid = {
  chainId: 31337,
  genesisHash: `0x${"ab".repeat(32)}`,
  startBlock: 1,
  deployer: a(1),
  weth: a(2),
  tokens: [
    { address: a(3), name: "USD Coin", symbol: "USDC", decimals: 6, usdPrice: 1 },
    { address: a(4), name: "Dai", symbol: "DAI", decimals: 18, usdPrice: 1 },
  ],
  uniswapV2: { factory: a(5), router02: a(6), pairs: [a(7)] },
  uniswapV3: {
    factory: a(8),
    positionManager: a(9),
    swapRouter: a(10),
    quoterV2: a(11),
    pools: [a(12)],
  },
  vaults: [{ address: a(13), protocolSlug: "savings-vaults", asset: a(3), name: "S", symbol: "S" }],
  execution: { router: a(14) },
  // A field no reader knows is kept as written.
  note: "written by a later version",
};

function fileWith(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const remedy =
  "Delete it and run `npm start` to deploy a fresh world, or point DEVNET_DEPLOYMENT at the file the world was deployed with.";

describe("readDeployment", () => {
  test("no file: undefined; a valid file: its contents, unknown fields kept", () => {
    expect(readDeployment(join(dir, "absent.json"))).toBeUndefined();
    const path = fileWith("valid.json", JSON.stringify(valid));
    expect(readDeployment(path)).toEqual(valid as unknown as Deployment);
  });

  test("a file that is not JSON is refused, naming the file", () => {
    const path = fileWith("truncated.json", JSON.stringify(valid).slice(0, 40));
    expect(() => readDeployment(path)).toThrow(
      new RegExp(
        `^The devnet deployment file ${path} is not a deployment: it is not JSON \\(.+\\)\\. ${remedy.replace(/[.*+?^${}()|[\]\\`]/g, "\\$&")}$`,
      ),
    );
  });

  test("a malformed or missing field is refused, naming its path", () => {
    const badAddress = {
      ...valid,
      tokens: [valid.tokens[0], { ...valid.tokens[1], address: "0x1234" }],
    };
    const path = fileWith("bad-address.json", JSON.stringify(badAddress));
    expect(() => readDeployment(path)).toThrow(
      `The devnet deployment file ${path} is not a deployment: tokens[1].address: expected a 20-byte hex address. ${remedy}`,
    );
    const { weth: _, ...noWeth } = valid;
    const missing = fileWith("no-weth.json", JSON.stringify(noWeth));
    expect(() => readDeployment(missing)).toThrow(
      `The devnet deployment file ${missing} is not a deployment: weth: Invalid input: expected string, received undefined. ${remedy}`,
    );
  });
});
