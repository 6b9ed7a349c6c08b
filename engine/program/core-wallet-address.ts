import {
  type Address,
  concatHex,
  getContractAddress,
  type Hex,
  keccak256,
  numberToHex,
  pad,
} from "viem";

/**
 * The CREATE2 address of `owner`'s CoreWallet, deployed or not: a clone of `implementation`
 * with the owner as immutable argument, salted with the owner, created by `factory`. Equals
 * `CoreWalletFactory.walletOf(owner)`.
 * @example predictCoreWalletAddress({ factory, implementation, owner })
 */
export function predictCoreWalletAddress(params: {
  factory: Address;
  implementation: Address;
  owner: Address;
}): Address {
  return getContractAddress({
    opcode: "CREATE2",
    from: params.factory,
    salt: pad(params.owner, { size: 32 }),
    bytecodeHash: keccak256(cloneInitCode(params.implementation, params.owner)),
  });
}

/** Creation code of a minimal proxy with 20 bytes of immutable arguments (the owner). */
function cloneInitCode(implementation: Address, owner: Address): Hex {
  const argsLength = 20;
  return concatHex([
    "0x61",
    numberToHex(argsLength + 0x2d, { size: 2 }),
    "0x3d81600a3d39f3363d3d373d3d3d363d73",
    implementation,
    "0x5af43d82803e903d91602b57fd5bf3",
    owner,
  ]);
}
