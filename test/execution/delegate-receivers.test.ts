/**
 * What an EIP-7702 account delegating to the DelegateExecutor answers besides `execute`: the
 * ERC-721 and ERC-1155 receiver hooks (so `safeTransferFrom` to it works), ERC-165, and ERC-1271
 * for its own key's signatures. The executor's own address refuses all of them.
 */
import {
  type Address,
  concatHex,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  numberToHex,
  parseSignature,
  serializeSignature,
  sliceHex,
  stringToHex,
} from "viem";
import { sign } from "viem/accounts";
import { beforeEach, describe, expect, it } from "vitest";
import { DelegateExecutorAbi } from "../../abis/generated/DelegateExecutor.js";
import { TestERC721Abi } from "../../abis/generated/TestERC721.js";
import { TestERC1155Abi } from "../../abis/generated/TestERC1155.js";
import { TestSmartWalletAbi } from "../../abis/generated/TestSmartWallet.js";
import { loadArtifact } from "../../contracts/build.js";
import { DEVNET_ACCOUNT_KEYS } from "../../devnet/anvil.js";
import { devnetReceipt } from "../../devnet/receipts.js";
import { encodeDelegateTx } from "../../engine/program/encode.js";
import {
  allErrorsAbi,
  errorData,
  expectRevert,
  revertData,
  sendOk,
  useExecutionWorld,
} from "./harness.js";
import type { ExecutionWorld, Wallet } from "./world.js";

const ctx = useExecutionWorld();

/** The private keys behind `world.accounts.delegator` and `world.accounts.attacker`. */
const DELEGATOR_KEY = DEVNET_ACCOUNT_KEYS[6];
const OTHER_KEY = DEVNET_ACCOUNT_KEYS[1];

const ERC1271_MAGIC = "0x1626ba7e";
const ERC1271_INVALID = "0xffffffff";

/** secp256k1's group order: `s` and `n - s` both recover the same signer through ecrecover. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The test tokens, deployed afresh after each snapshot restore. */
let nft: Address;
let multi: Address;

beforeEach(async () => {
  const { world } = ctx;
  nft = await deploy(world, "TestERC721");
  multi = await deploy(world, "TestERC1155");
});

async function deploy(world: ExecutionWorld, name: "TestERC721" | "TestERC1155"): Promise<Address> {
  const { abi, bytecode } = loadArtifact(name);
  const hash = await world.accounts.deployer.deployContract({ abi, bytecode, gas: 5_000_000n });
  const receipt = await devnetReceipt(world.client as never, hash);
  expect(receipt.status).toBe("success");
  if (!receipt.contractAddress) throw new Error(`${name}: no contract address`);
  return getAddress(receipt.contractAddress);
}

/** Sends a transaction from `from` that must be mined successfully. */
async function mined(world: ExecutionWorld, from: Wallet, to: Address, data: Hex): Promise<void> {
  const hash = await from.sendTransaction({ to, data, gas: 1_000_000n });
  expect((await devnetReceipt(world.client as never, hash)).status).toBe("success");
}

/**
 * Points the delegator's code at the DelegateExecutor (its own transaction, running an empty
 * program) and returns its address.
 */
async function delegateToExecutor(world: ExecutionWorld): Promise<Address> {
  const { delegator } = world.accounts;
  const account = delegator.account.address;
  const authorization = await delegator.signAuthorization({
    contractAddress: world.execution.delegateExecutor,
    executor: "self",
  });
  const install = encodeDelegateTx({ from: account, program: { commands: [], state: [] } });
  await sendOk(world, delegator, { ...install, authorizationList: [authorization] });
  expect(await world.client.getCode({ address: account })).toBe(
    concatHex(["0xef0100", world.execution.delegateExecutor.toLowerCase() as Hex]),
  );
  return account;
}

async function isValidSignature(
  world: ExecutionWorld,
  account: Address,
  hash: Hex,
  signature: Hex,
): Promise<Hex> {
  return await world.client.readContract({
    address: account,
    abi: DelegateExecutorAbi,
    functionName: "isValidSignature",
    args: [hash, signature],
  });
}

async function supportsInterface(
  world: ExecutionWorld,
  account: Address,
  interfaceId: Hex,
): Promise<boolean> {
  return await world.client.readContract({
    address: account,
    abi: DelegateExecutorAbi,
    functionName: "supportsInterface",
    args: [interfaceId],
  });
}

async function erc1155Balances(
  world: ExecutionWorld,
  owners: readonly Address[],
  ids: readonly bigint[],
): Promise<readonly bigint[]> {
  return await world.client.readContract({
    address: multi,
    abi: TestERC1155Abi,
    functionName: "balanceOfBatch",
    args: [owners, ids],
  });
}

describe("token receiver hooks", () => {
  it("an ERC-721 safeTransferFrom to the delegated account succeeds; to the executor itself it reverts", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const account = await delegateToExecutor(world);
    const executor = world.execution.delegateExecutor;
    const from = user.account.address;
    for (const tokenId of [7n, 8n]) {
      await mined(
        world,
        user,
        nft,
        encodeFunctionData({ abi: TestERC721Abi, functionName: "mint", args: [from, tokenId] }),
      );
    }

    await sendOk(world, user, {
      to: nft,
      data: encodeFunctionData({
        abi: TestERC721Abi,
        functionName: "safeTransferFrom",
        args: [from, account, 7n, "0xc0ffee"],
      }),
    });
    const ownerOf = (tokenId: bigint) =>
      world.client.readContract({
        address: nft,
        abi: TestERC721Abi,
        functionName: "ownerOf",
        args: [tokenId],
      });
    const balanceOf = (owner: Address) =>
      world.client.readContract({
        address: nft,
        abi: TestERC721Abi,
        functionName: "balanceOf",
        args: [owner],
      });
    expect(await ownerOf(7n)).toBe(account);
    expect(await balanceOf(account)).toBe(1n);

    // OpenZeppelin's ERC721 bubbles the receiver's revert data.
    await expectRevert(
      world,
      user,
      {
        to: nft,
        data: encodeFunctionData({
          abi: TestERC721Abi,
          functionName: "safeTransferFrom",
          args: [from, executor, 8n],
        }),
      },
      errorData(allErrorsAbi, "DirectCallNotAllowed"),
    );
    expect(await ownerOf(8n)).toBe(from);
    expect(await balanceOf(executor)).toBe(0n);
    expect(await balanceOf(from)).toBe(1n);
  });

  it("ERC-1155 safeTransferFrom and safeBatchTransferFrom to the delegated account succeed; to the executor itself they revert", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const account = await delegateToExecutor(world);
    const executor = world.execution.delegateExecutor;
    const from = user.account.address;
    for (const [id, amount] of [
      [1n, 100n],
      [2n, 50n],
    ] as const) {
      await mined(
        world,
        user,
        multi,
        encodeFunctionData({
          abi: TestERC1155Abi,
          functionName: "mint",
          args: [from, id, amount],
        }),
      );
    }

    await sendOk(world, user, {
      to: multi,
      data: encodeFunctionData({
        abi: TestERC1155Abi,
        functionName: "safeTransferFrom",
        args: [from, account, 1n, 30n, "0x"],
      }),
    });
    expect(await erc1155Balances(world, [from, account, from, account], [1n, 1n, 2n, 2n])).toEqual([
      70n,
      30n,
      50n,
      0n,
    ]);

    await sendOk(world, user, {
      to: multi,
      data: encodeFunctionData({
        abi: TestERC1155Abi,
        functionName: "safeBatchTransferFrom",
        args: [from, account, [1n, 2n], [45n, 20n], "0x01"],
      }),
    });
    expect(await erc1155Balances(world, [from, account, from, account], [1n, 1n, 2n, 2n])).toEqual([
      25n,
      75n,
      30n,
      20n,
    ]);

    const refused = errorData(allErrorsAbi, "DirectCallNotAllowed");
    await expectRevert(
      world,
      user,
      {
        to: multi,
        data: encodeFunctionData({
          abi: TestERC1155Abi,
          functionName: "safeTransferFrom",
          args: [from, executor, 1n, 1n, "0x"],
        }),
      },
      refused,
    );
    await expectRevert(
      world,
      user,
      {
        to: multi,
        data: encodeFunctionData({
          abi: TestERC1155Abi,
          functionName: "safeBatchTransferFrom",
          args: [from, executor, [1n, 2n], [1n, 1n], "0x"],
        }),
      },
      refused,
    );
    expect(
      await erc1155Balances(world, [from, executor, from, executor], [1n, 1n, 2n, 2n]),
    ).toEqual([25n, 0n, 30n, 0n]);
  });
});

describe("ERC-1271 isValidSignature", () => {
  const hash = keccak256(stringToHex("delegate-receivers: a message the account signs"));

  it("answers 0x1626ba7e only for the account's own key's signature of the hash", async () => {
    const { world } = ctx;
    const account = await delegateToExecutor(world);
    const own = await sign({ hash, privateKey: DELEGATOR_KEY, to: "hex" });
    expect(await isValidSignature(world, account, hash, own)).toBe(ERC1271_MAGIC);

    const byOtherKey = await sign({ hash, privateKey: OTHER_KEY, to: "hex" });
    expect(await isValidSignature(world, account, hash, byOtherKey)).toBe(ERC1271_INVALID);

    const otherHash = keccak256(stringToHex("delegate-receivers: another message"));
    expect(await isValidSignature(world, account, otherHash, own)).toBe(ERC1271_INVALID);
  });

  it("answers 0xffffffff, without reverting, for malformed and malleable signatures", async () => {
    const { world } = ctx;
    const account = await delegateToExecutor(world);
    const own = await sign({ hash, privateKey: DELEGATOR_KEY, to: "hex" });
    const { r, s, yParity } = parseSignature(own);
    const v = BigInt(yParity) + 27n;
    expect(BigInt(sliceHex(own, 64))).toBe(v);

    // The same signature with s replaced by n - s and the parity flipped: ecrecover itself still
    // returns the account, so only the low-s rule rejects it.
    const highS = serializeSignature({
      r,
      s: numberToHex(SECP256K1_N - BigInt(s), { size: 32 }),
      yParity: 1 - yParity,
    });
    const ecrecover = await world.client.call({
      to: "0x0000000000000000000000000000000000000001",
      data: concatHex([
        hash,
        numberToHex(27n + BigInt(1 - yParity), { size: 32 }),
        r,
        numberToHex(SECP256K1_N - BigInt(s), { size: 32 }),
      ]),
    });
    expect(ecrecover.data).toBe(
      concatHex(["0x000000000000000000000000", account.toLowerCase() as Hex]),
    );

    const malformed: Record<string, Hex> = {
      empty: "0x",
      "64 bytes (ERC-2098 compact form)": sliceHex(own, 0, 64),
      "66 bytes": concatHex([own, "0x00"]),
      "v as 0/1": concatHex([sliceHex(own, 0, 64), numberToHex(yParity, { size: 1 })]),
      "all zeros": `0x${"00".repeat(65)}`,
      "high s": highS,
    };
    const answers = Object.fromEntries(
      await Promise.all(
        Object.entries(malformed).map(
          async ([name, signature]) =>
            [name, await isValidSignature(world, account, hash, signature)] as const,
        ),
      ),
    );
    expect(answers).toEqual(
      Object.fromEntries(Object.keys(malformed).map((name) => [name, ERC1271_INVALID])),
    );
  });

  it("answers 0xffffffff in a smart wallet that DELEGATECALLs it, and reverts at the executor's own address", async () => {
    const { world } = ctx;
    const { user } = world.accounts;
    const executor = world.execution.delegateExecutor;
    const smartWallet = world.testContracts.smartWallet;
    // A signature by the wallet owner's key: still not the wallet's own, which has no key.
    const byOwner = await sign({ hash, privateKey: DEVNET_ACCOUNT_KEYS[0], to: "hex" });
    const call = encodeFunctionData({
      abi: DelegateExecutorAbi,
      functionName: "isValidSignature",
      args: [hash, byOwner],
    });
    const { data } = await world.client.call({
      account: user.account.address,
      to: smartWallet,
      data: encodeFunctionData({
        abi: TestSmartWalletAbi,
        functionName: "delegate",
        args: [executor, call],
      }),
    });
    const returned = decodeFunctionResult({
      abi: TestSmartWalletAbi,
      functionName: "delegate",
      data: data ?? "0x",
    });
    expect(
      decodeFunctionResult({
        abi: DelegateExecutorAbi,
        functionName: "isValidSignature",
        data: returned,
      }),
    ).toBe(ERC1271_INVALID);

    expect(await revertData(world, user, { to: executor, data: call })).toBe(
      errorData(allErrorsAbi, "DirectCallNotAllowed"),
    );
  });
});

describe("ERC-165 supportsInterface", () => {
  it("the delegated account supports IERC165, IERC721Receiver, IERC1155Receiver and IERC1271 only", async () => {
    const { world } = ctx;
    const account = await delegateToExecutor(world);
    const ids: Record<string, Hex> = {
      IERC165: "0x01ffc9a7",
      IERC721Receiver: "0x150b7a02",
      IERC1155Receiver: "0x4e2312e0",
      IERC1271: "0x1626ba7e",
      "invalid (ERC-165 requires false)": "0xffffffff",
      IERC721: "0x80ac58cd",
      IERC1155: "0xd9b67a26",
      "none (zero)": "0x00000000",
    };
    const answers = Object.fromEntries(
      await Promise.all(
        Object.entries(ids).map(
          async ([name, id]) => [name, await supportsInterface(world, account, id)] as const,
        ),
      ),
    );
    expect(answers).toEqual({
      IERC165: true,
      IERC721Receiver: true,
      IERC1155Receiver: true,
      IERC1271: true,
      "invalid (ERC-165 requires false)": false,
      IERC721: false,
      IERC1155: false,
      "none (zero)": false,
    });
  });

  it("the executor's own address refuses the query and every receiver hook", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const executor = world.execution.delegateExecutor;
    const from = attacker.account.address;
    const calls: Record<string, Hex> = {
      supportsInterface: encodeFunctionData({
        abi: DelegateExecutorAbi,
        functionName: "supportsInterface",
        args: ["0x01ffc9a7"],
      }),
      onERC721Received: encodeFunctionData({
        abi: DelegateExecutorAbi,
        functionName: "onERC721Received",
        args: [from, from, 1n, "0x"],
      }),
      onERC1155Received: encodeFunctionData({
        abi: DelegateExecutorAbi,
        functionName: "onERC1155Received",
        args: [from, from, 1n, 1n, "0x"],
      }),
      onERC1155BatchReceived: encodeFunctionData({
        abi: DelegateExecutorAbi,
        functionName: "onERC1155BatchReceived",
        args: [from, from, [1n], [1n], "0x"],
      }),
    };
    const answers = Object.fromEntries(
      await Promise.all(
        Object.entries(calls).map(
          async ([name, data]) =>
            [name, await revertData(world, attacker, { to: executor, data })] as const,
        ),
      ),
    );
    const refused = errorData(allErrorsAbi, "DirectCallNotAllowed");
    expect(answers).toEqual(Object.fromEntries(Object.keys(calls).map((name) => [name, refused])));
  });

  it("the receiver hooks return their selectors on the delegated account, whoever calls", async () => {
    const { world } = ctx;
    const { attacker } = world.accounts;
    const account = await delegateToExecutor(world);
    const from = attacker.account.address;
    const read = (data: Hex) => world.client.call({ account: from, to: account, data });
    const word = (selector: Hex) => concatHex([selector, `0x${"00".repeat(28)}`]);
    expect(
      (
        await read(
          encodeFunctionData({
            abi: DelegateExecutorAbi,
            functionName: "onERC721Received",
            args: [from, from, 1n, "0x"],
          }),
        )
      ).data,
    ).toBe(word("0x150b7a02"));
    expect(
      (
        await read(
          encodeFunctionData({
            abi: DelegateExecutorAbi,
            functionName: "onERC1155Received",
            args: [from, from, 1n, 1n, "0x"],
          }),
        )
      ).data,
    ).toBe(word("0xf23a6e61"));
    expect(
      (
        await read(
          encodeFunctionData({
            abi: DelegateExecutorAbi,
            functionName: "onERC1155BatchReceived",
            args: [from, from, [1n], [1n], "0x"],
          }),
        )
      ).data,
    ).toBe(word("0xbc197c81"));
  });
});
