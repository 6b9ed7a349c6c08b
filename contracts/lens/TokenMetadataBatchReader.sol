// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TokenMetadataReads} from "./TokenMetadataReads.sol";

/// @title TokenMetadataBatchReader
/// @notice Never deployed: the indexer sends its creation code in an `eth_call` (no `to`), and
///         what the constructor returns is the answer. It reads many tokens' `name()`, `symbol()`
///         and `decimals()` in one request, each field with the same gas budget and size cap as
///         `TokenMetadataReader` (see TokenMetadataReads), so each token's answer is the one that
///         reader gives for it alone. Left with too little gas to give a call its whole budget, it
///         reverts `GasBelowBudget` rather than answer differently.
/// @dev Returns `abi.encode(bytes[] answers)`: for the first tokens, in order, exactly what
///      `TokenMetadataReader` returns for each. It answers as many tokens as fit in MAX_ANSWER
///      bytes (at least the first: one answer is at most ~3.4 KB); the caller asks again for the
///      rest.
contract TokenMetadataBatchReader is TokenMetadataReads {
    /// @dev What a constructor returns becomes the code of the contract it creates, which EIP-170
    ///      caps at 24,576 bytes: a node refuses the whole call (`max code size exceeded`) beyond.
    uint256 private constant MAX_ANSWER = 24_576;

    constructor(address[] memory tokens) {
        bytes[] memory answers = new bytes[](tokens.length);
        // `abi.encode(answers)`: the array's offset and length words, then for each answer its
        // offset word, its length word and its bytes (whole words already: an ABI encoding).
        uint256 encodedSize = 64;
        uint256 count;
        for (; count < tokens.length; ++count) {
            bytes memory one = _metadata(tokens[count]);
            encodedSize += 64 + one.length;
            if (encodedSize > MAX_ANSWER) break;
            answers[count] = one;
        }
        assembly ("memory-safe") {
            // Shortens the array to the answers that fit; the words after them are never read.
            mstore(answers, count)
        }
        bytes memory answer = abi.encode(answers);
        assembly ("memory-safe") {
            // What the constructor returns is what the eth_call answers.
            return(add(answer, 0x20), mload(answer))
        }
    }
}
