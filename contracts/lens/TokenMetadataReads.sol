// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title TokenMetadataReads
/// @notice What the deployless metadata readers (`TokenMetadataReader`, one token;
///         `TokenMetadataBatchReader`, many) share: how one token's `name()`, `symbol()` and
///         `decimals()` are read, each with a gas budget and a size cap, so that a token whose call
///         reverts, loops or returns megabytes yields "unreadable" for that field instead of a
///         failed RPC request (which a node reports as an error to retry).
abstract contract TokenMetadataReads {
    /// @dev Gas each field's call is given, whatever the token does with it.
    uint256 internal constant CALL_GAS = 200_000;
    /// @dev Bytes kept of each field's answer: a `string` name longer than this is unreadable.
    uint256 internal constant MAX_RETURN = 1_024;
    /// @dev Gas the call itself costs before the token runs (a cold account access is 2,600),
    ///      with the few instructions between the check in {_read} and the call.
    uint256 internal constant CALL_OVERHEAD = 5_000;

    /// @notice The reader had too little gas left to give `token`'s call its whole budget: its
    ///         answer would differ from the one a read with enough gas gives, so there is none.
    error GasBelowBudget(address token, uint256 gasLeft);

    /// @dev `abi.encode(bool nameOk, bytes name, bool symbolOk, bytes symbol, bool decimalsOk,
    ///      bytes decimals)`: each field's raw return data (at most MAX_RETURN bytes).
    function _metadata(address token) internal view returns (bytes memory) {
        (bool nameOk, bytes memory name) = _read(token, 0x06fdde03);
        (bool symbolOk, bytes memory symbol) = _read(token, 0x95d89b41);
        (bool decimalsOk, bytes memory decimals) = _read(token, 0x313ce567);
        return abi.encode(nameOk, name, symbolOk, symbol, decimalsOk, decimals);
    }

    function _read(address token, bytes4 selector) private view returns (bool ok, bytes memory data) {
        // A call is given at most 63/64 of the gas left after its own cost: below this its budget
        // would be cut short, and the field read as unreadable only because earlier reads (in a
        // batch) used the gas.
        if (gasleft() < CALL_GAS + CALL_GAS / 63 + CALL_OVERHEAD) {
            revert GasBelowBudget(token, gasleft());
        }
        uint256 size;
        assembly ("memory-safe") {
            // Scratch space at the free memory pointer, not allocated: only the call reads it.
            let input := mload(0x40)
            mstore(input, selector)
            // No output buffer: the answer stays in the return data until its size is capped.
            ok := staticcall(CALL_GAS, token, input, 4, 0, 0)
            size := returndatasize()
        }
        if (size > MAX_RETURN) size = MAX_RETURN;
        data = new bytes(size);
        assembly ("memory-safe") {
            // Copies only the capped prefix: a megabyte answer costs the token's budget, not ours.
            returndatacopy(add(data, 0x20), 0, size)
        }
    }
}
