// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TokenMetadataReads} from "./TokenMetadataReads.sol";

/// @title TokenMetadataReader
/// @notice Never deployed: the indexer sends its creation code in an `eth_call` (no `to`), and
///         what the constructor returns is the answer. It reads one token's `name()`, `symbol()`
///         and `decimals()` with a gas budget and a size cap each (see TokenMetadataReads). The
///         indexer reads tokens with `TokenMetadataBatchReader`, and this one for each token of a
///         batch the node refused.
/// @dev Returns `abi.encode(bool nameOk, bytes name, bool symbolOk, bytes symbol, bool
///      decimalsOk, bytes decimals)`: each field's raw return data (at most MAX_RETURN bytes).
contract TokenMetadataReader is TokenMetadataReads {
    constructor(address token) {
        bytes memory answer = _metadata(token);
        assembly ("memory-safe") {
            // What the constructor returns is what the eth_call answers.
            return(add(answer, 0x20), mload(answer))
        }
    }
}
