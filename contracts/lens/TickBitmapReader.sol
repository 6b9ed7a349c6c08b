// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title TickBitmapReader
/// @notice Never deployed: the indexer's state start sends its creation code in an `eth_call`
///         (no `to`), and what the constructor returns is the answer. It reads ranges of tick
///         bitmap words — a Uniswap V3 pool's `tickBitmap(int16)`, or a Uniswap V4 pool's words
///         from its pool manager's storage (`extsload(bytes32)`) — and returns only the words that
///         are not zero. A tick-spacing-1 pool's bitmap is 6,932 words, nearly all of them zero:
///         one request reads them, where a batch of calls answers each word (and its envelope).
/// @dev Returns, packed: `uint256 read` (how many words, over the ranges in order, were read),
///      then per non-zero word among them `uint32 position` (its place in that order, from 0)
///      and `uint256 bits`. A word that cannot be read reverts `WordUnreadable`. It reads until
///      the answer would exceed MAX_ANSWER bytes; the caller asks again from `read` for the rest.
contract TickBitmapReader {
    /// @dev What a constructor returns becomes the code of the contract it creates, which EIP-170
    ///      caps at 24,576 bytes: a node refuses the whole call (`max code size exceeded`) beyond.
    uint256 private constant MAX_ANSWER = 24_576;
    /// @dev Bytes of one non-zero word in the answer: its position (4) and its bits (32).
    uint256 private constant ENTRY = 36;

    /// @notice Consecutive bitmap words of one pool.
    /// @param target The V3 pool, or the V4 pool manager.
    /// @param bitmapSlot Zero for a V3 pool; for a V4 pool, the slot of its `tickBitmap` mapping
    ///        (its state's slot + 5), whose word `w` is at `keccak256(abi.encode(w, bitmapSlot))`.
    /// @param firstWord The range's first word.
    /// @param words How many words, from `firstWord` up.
    struct Range {
        address target;
        bytes32 bitmapSlot;
        int16 firstWord;
        uint16 words;
    }

    /// @notice A word's call reverted or answered fewer than 32 bytes.
    error WordUnreadable(address target, int16 word);

    constructor(Range[] memory ranges) {
        bytes memory answer = new bytes(MAX_ANSWER);
        uint256 size = 32;
        uint256 position;
        for (uint256 r; r < ranges.length; ++r) {
            Range memory range = ranges[r];
            int256 last = int256(range.firstWord) + int256(uint256(range.words));
            for (int256 w = range.firstWord; w < last; ++w) {
                uint256 bits = _word(range.target, range.bitmapSlot, int16(w));
                if (bits != 0) {
                    if (size + ENTRY > MAX_ANSWER) break;
                    assembly ("memory-safe") {
                        let at := add(add(answer, 0x20), size)
                        mstore(at, shl(224, position))
                        mstore(add(at, 4), bits)
                    }
                    size += ENTRY;
                }
                ++position;
            }
            if (size + ENTRY > MAX_ANSWER) break;
        }
        assembly ("memory-safe") {
            // The header: the words read. It is below 2^32, so the answer never begins with the
            // byte 0xEF that EIP-3541 refuses as code.
            mstore(add(answer, 0x20), position)
            // What the constructor returns is what the eth_call answers.
            return(add(answer, 0x20), size)
        }
    }

    /// @dev One bitmap word: `tickBitmap(word)` of a V3 pool, or `extsload` of a V4 pool's slot.
    function _word(address target, bytes32 bitmapSlot, int16 word) private view returns (uint256 bits) {
        bool ok;
        assembly ("memory-safe") {
            // Scratch space at the free memory pointer, not allocated: only the call reads it.
            let input := mload(0x40)
            switch bitmapSlot
            case 0 {
                // tickBitmap(int16)
                mstore(input, shl(224, 0x5339c296))
                mstore(add(input, 0x04), signextend(1, word))
            }
            default {
                // extsload(bytes32) of keccak256(abi.encode(int16 word, bytes32 bitmapSlot))
                mstore(0x00, signextend(1, word))
                mstore(0x20, bitmapSlot)
                mstore(input, shl(224, 0x1e2eaeaf))
                mstore(add(input, 0x04), keccak256(0x00, 0x40))
            }
            let before := gas()
            ok := staticcall(before, target, input, 0x24, 0x00, 0x20)
            // A call that ran out of gas used 63/64 of what was left: the reader runs out too, as
            // a batch of calls would, rather than report a readable word as unreadable.
            if and(iszero(ok), lt(gas(), div(before, 63))) { for {} 1 {} {} }
            // After the call: Yul evaluates arguments right to left.
            ok := and(ok, iszero(lt(returndatasize(), 0x20)))
            bits := mload(0x00)
        }
        if (!ok) revert WordUnreadable(target, word);
    }
}
