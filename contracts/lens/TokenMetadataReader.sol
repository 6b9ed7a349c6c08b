// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title TokenMetadataReader
/// @notice Never deployed: the indexer sends its creation code in an `eth_call` (no `to`), and
///         what the constructor returns is the answer. It reads a token's `name()`, `symbol()`
///         and `decimals()` with a gas budget and a size cap each, so that a token whose call
///         reverts, loops or returns megabytes yields "unreadable" for that field instead of a
///         failed RPC request (which a node reports as an error to retry).
/// @dev Returns `abi.encode(bool nameOk, bytes name, bool symbolOk, bytes symbol, bool
///      decimalsOk, bytes decimals)`: each field's raw return data (at most MAX_RETURN bytes).
contract TokenMetadataReader {
    uint256 private constant CALL_GAS = 200_000;
    uint256 private constant MAX_RETURN = 1_024;

    constructor(address token) {
        (bool nameOk, bytes memory name) = _read(token, 0x06fdde03);
        (bool symbolOk, bytes memory symbol) = _read(token, 0x95d89b41);
        (bool decimalsOk, bytes memory decimals) = _read(token, 0x313ce567);
        bytes memory answer = abi.encode(nameOk, name, symbolOk, symbol, decimalsOk, decimals);
        assembly ("memory-safe") {
            return(add(answer, 0x20), mload(answer))
        }
    }

    function _read(address token, bytes4 selector) private view returns (bool ok, bytes memory data) {
        uint256 size;
        assembly ("memory-safe") {
            let input := mload(0x40)
            mstore(input, selector)
            ok := staticcall(CALL_GAS, token, input, 4, 0, 0)
            size := returndatasize()
        }
        if (size > MAX_RETURN) size = MAX_RETURN;
        data = new bytes(size);
        assembly ("memory-safe") {
            returndatacopy(add(data, 0x20), 0, size)
        }
    }
}
