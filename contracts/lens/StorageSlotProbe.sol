// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title StorageSlotProbe
/// @notice Never deployed. In an `eth_call`, a state override puts this code at a token's address
///         and the token's own code at TOKEN_CODE; `probe` then tries each candidate storage key
///         of the token in turn: it writes MARKER there, runs the token's code on the token's
///         storage (DELEGATECALL, so `address(this)` is the token's), and checks whether the
///         answer is MARKER. One request, and a fixed gas budget per key, instead of one request
///         per key with whatever gas the node allows.
contract StorageSlotProbe {
    /// @dev Where the override puts the token's code: an address no one holds a key to.
    address internal constant TOKEN_CODE = 0x00000000000000000000000000000000005107E5;
    /// @dev Gas kept back after each try for restoring the key and the loop.
    uint256 internal constant RESERVE = 30_000;

    /// @notice The first of `keys` whose value `query` returns, as its 1-based position; 0 when
    ///         none does (or the gas ran short before every key was tried).
    /// @param query The token's read (`balanceOf(holder)`, `allowance(owner, spender)`).
    /// @param keys Candidate storage keys, most likely first.
    /// @param marker The value written to each key; never a plausible balance.
    /// @param gasPerTry Gas each run of the token's code may use.
    function probe(bytes calldata query, bytes32[] calldata keys, uint256 marker, uint256 gasPerTry)
        external
        returns (uint256)
    {
        for (uint256 i; i < keys.length; ++i) {
            // A call gets at most 63/64 of what is left: stop rather than try with less budget.
            if (gasleft() < gasPerTry + gasPerTry / 63 + RESERVE) return 0;
            bytes32 key = keys[i];
            bool hit;
            assembly ("memory-safe") {
                let original := sload(key)
                sstore(key, marker)
                let input := mload(0x40)
                calldatacopy(input, query.offset, query.length)
                // Only the first word is copied back: a long answer costs the token's budget.
                let ok := delegatecall(gasPerTry, TOKEN_CODE, input, query.length, 0x00, 0x20)
                hit := and(ok, and(iszero(lt(returndatasize(), 0x20)), eq(mload(0x00), marker)))
                // The next key is tried on the token's own storage.
                sstore(key, original)
            }
            if (hit) return i + 1;
        }
        return 0;
    }

    /// @dev A token that calls itself (`this.balanceOf`) reaches its own code, as without the probe.
    fallback() external payable {
        assembly {
            // Copies the call to memory from 0: nothing of this contract's memory is used after.
            calldatacopy(0x00, 0x00, calldatasize())
            let ok := delegatecall(gas(), TOKEN_CODE, 0x00, calldatasize(), 0x00, 0x00)
            returndatacopy(0x00, 0x00, returndatasize())
            if iszero(ok) { revert(0x00, returndatasize()) }
            return(0x00, returndatasize())
        }
    }
}
