import { type Address, createPublicClient, erc20Abi, http, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AnvilInstance } from "../../devnet/anvil.js";
import type { Deployment } from "../../devnet/deployment.js";
import { deployWorld } from "../../devnet/world.js";
import { SimulationUnavailableError } from "../../src/api/chain/simulate.js";
import { SlotNotFoundError, TokenSlotFinder } from "../../src/api/chain/slots.js";
import { startTestAnvil } from "../harness/anvil.js";
import { freePort } from "../harness/net.js";

let anvil: AnvilInstance;
let deployment: Deployment;
let client: PublicClient;

beforeAll(async () => {
  anvil = await startTestAnvil();
  deployment = await deployWorld({ rpcUrl: anvil.url });
  client = createPublicClient({ transport: http(anvil.url) });
});

afterAll(async () => {
  await anvil?.stop();
});

const holder = "0x00000000000000000000000000000000000a11ce" as Address;
const spender = "0x000000000000000000000000000000000000b0b0" as Address;
const marker = 123_456_789_012_345_678_901n;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}` as const;

describe("TokenSlotFinder", () => {
  test("the keys it finds are where balanceOf and allowance read from", async () => {
    const finder = new TokenSlotFinder(client);
    for (const token of deployment.tokens) {
      const address = token.address as Address;
      const balanceKey = await finder.balanceKey(address, holder);
      const allowanceKey = await finder.allowanceKey(address, holder, spender);
      const stateOverride = [
        {
          address,
          stateDiff: [
            { slot: balanceKey, value: word(marker) },
            { slot: allowanceKey, value: word(marker + 1n) },
          ],
        },
      ];
      const [balance, allowance] = await Promise.all([
        client.readContract({
          address,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [holder],
          stateOverride,
        }),
        client.readContract({
          address,
          abi: erc20Abi,
          functionName: "allowance",
          args: [holder, spender],
          stateOverride,
        }),
      ]);
      expect({ symbol: token.symbol, balance, allowance }).toEqual({
        symbol: token.symbol,
        balance: marker,
        allowance: marker + 1n,
      });
    }
  });

  test("a contract without balanceOf: SlotNotFoundError, not a crash", async () => {
    const finder = new TokenSlotFinder(client);
    const factory = deployment.uniswapV3.factory as Address;
    const error = await finder.balanceKey(factory, holder).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlotNotFoundError);
    expect({
      token: (error as SlotNotFoundError).token,
      what: (error as SlotNotFoundError).what,
    }).toEqual({
      token: factory,
      what: "balance",
    });
  });

  test("the node unreachable: SimulationUnavailableError (a 503), not a missing slot", async () => {
    const closed = createPublicClient({
      transport: http(`http://127.0.0.1:${await freePort()}`, { retryCount: 0 }),
    });
    const finder = new TokenSlotFinder(closed);
    const usdc = deployment.tokens.find((t) => t.symbol === "USDC")?.address as Address;
    await expect(finder.balanceKey(usdc, holder)).rejects.toBeInstanceOf(
      SimulationUnavailableError,
    );
    await expect(finder.allowanceKey(usdc, holder, spender)).rejects.toBeInstanceOf(
      SimulationUnavailableError,
    );
  });
});
