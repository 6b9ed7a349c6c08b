// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DevPancakeV3PoolDeployer
/// @notice The pool deployer a PancakeSwap V3 factory creates its pools through, for the local
///         devnet (the v3-core npm package of PancakeSwap ships the factory and the pool, not this
///         contract). It answers the pool constructor's `parameters()` call and CREATE2s the
///         pool with the salt `keccak256(abi.encode(token0, token1, fee))`, so pools sit where
///         PancakeSwap's periphery (SwapRouter, QuoterV2, the position manager) computes them
///         from this deployer's address and the pool's init code hash.
/// @dev The pool's creation code (23.5 kB, from the npm artifact) is kept as the runtime code of
///      a data contract created by the constructor, and copied from there at each deployment.
contract DevPancakeV3PoolDeployer {
    /// @notice `caller` is not the factory this deployer serves.
    error NotFactory(address caller);
    /// @notice `caller` is not the account that deployed this contract.
    error NotOwner(address caller);
    /// @notice The factory is already set (once only).
    error FactoryAlreadySet(address factory);
    /// @notice The pool's CREATE2 failed (a pool of these tokens and fee already exists).
    error PoolNotCreated(address token0, address token1, uint24 fee);
    /// @notice The creation code's data contract could not be created.
    error CodeStoreNotCreated();

    /// @dev What the pool being created reads in its constructor, in `IPancakeV3PoolDeployer`'s
    ///      order; zero outside {deploy}.
    struct Parameters {
        address factory;
        address token0;
        address token1;
        uint24 fee;
        int24 tickSpacing;
    }

    /// @notice The parameters of the pool being deployed (`IPancakeV3PoolDeployer.parameters`).
    Parameters public parameters;

    /// @notice The factory allowed to deploy pools; set once by the owner.
    address public factoryAddress;

    address private immutable owner;
    /// @dev The contract whose runtime code is the pool's creation code.
    address private immutable codeStore;

    /// @param poolCreationCode `PancakeV3Pool`'s creation bytecode (no constructor arguments).
    constructor(bytes memory poolCreationCode) {
        owner = msg.sender;
        // PUSH2 length, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN: returns the 12-byte
        // prefix's trailing data as the new contract's runtime code.
        bytes memory init = abi.encodePacked(
            hex"61", uint16(poolCreationCode.length), hex"80600c6000396000f3", poolCreationCode
        );
        address store;
        assembly ("memory-safe") {
            store := create(0, add(init, 32), mload(init))
        }
        if (store == address(0) || store.code.length != poolCreationCode.length) {
            revert CodeStoreNotCreated();
        }
        codeStore = store;
    }

    /// @notice Names the factory whose `createPool` may call {deploy}; once, by the owner.
    function setFactoryAddress(address factory) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        if (factoryAddress != address(0)) revert FactoryAlreadySet(factoryAddress);
        factoryAddress = factory;
    }

    /// @notice Creates the pool of `token0`, `token1` and `fee` (`IPancakeV3PoolDeployer.deploy`).
    function deploy(address factory, address token0, address token1, uint24 fee, int24 tickSpacing)
        external
        returns (address pool)
    {
        if (msg.sender != factoryAddress) revert NotFactory(msg.sender);
        parameters = Parameters(factory, token0, token1, fee, tickSpacing);
        address store = codeStore;
        uint256 size = store.code.length;
        bytes32 salt = keccak256(abi.encode(token0, token1, fee));
        assembly ("memory-safe") {
            let code := mload(0x40)
            extcodecopy(store, code, 0, size)
            pool := create2(0, code, size, salt)
        }
        if (pool == address(0)) revert PoolNotCreated(token0, token1, fee);
        delete parameters;
    }
}
