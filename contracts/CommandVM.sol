// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {
    CALL_TYPE_CALL,
    CALL_TYPE_STATICCALL,
    CALL_TYPE_VALUE_CALL,
    FLAG_CALL_TYPE_MASK,
    FLAG_EXTENDED_COMMAND,
    FLAG_RESERVED_MASK,
    FLAG_TUPLE_RETURN,
    INDEX_DYNAMIC,
    INDEX_END,
    INDEX_SLOT_MASK,
    INDEX_WHOLE_STATE,
    SHORT_COMMAND_FILL
} from "./CommandFlags.sol";

/// @title CommandVM
/// @notice Executes a program: an ordered list of contract calls whose arguments are read from, and
///         whose return values are written to, a list of state slots. The command layout is the
///         weiroll one (see contracts/README.md) without its DELEGATECALL call type.
/// @dev Stateless: it reads and writes no storage, so it is safe to run under DELEGATECALL.
abstract contract CommandVM {
    /// @notice Command `commandIndex` (its position in `commands`) called `target`, which reverted
    ///         with `reason`.
    error ExecutionFailed(uint256 commandIndex, address target, bytes reason);
    /// @notice The flags byte of a command names no supported call type or sets reserved bits.
    error InvalidCommandFlags(uint256 commandIndex, uint256 flags);
    /// @notice An extended command is the last word of the program, so its input word is missing.
    error MissingExtendedInputs(uint256 commandIndex);
    /// @notice An index byte names a slot past the end of the state, or an unsupported marker.
    error InvalidStateIndex(uint256 commandIndex, uint256 index);
    /// @notice A slot used as a static argument does not hold exactly one 32-byte word.
    error InvalidStaticValue(uint256 commandIndex, uint256 slot, uint256 length);
    /// @notice A slot used as a dynamic argument is not a whole number of 32-byte words.
    error InvalidDynamicValue(uint256 commandIndex, uint256 slot, uint256 length);
    /// @notice The return data does not have the shape the output byte asks for.
    error UnexpectedReturnData(uint256 commandIndex, uint256 length);
    /// @notice Command `commandIndex` called `target`, which has no code: the call "succeeded"
    ///         without doing anything.
    error NoCode(uint256 commandIndex, address target);
    /// @notice Command `commandIndex` called ERC20 `transfer`, `transferFrom` or `approve` on
    ///         `target`, which returned something other than `true`.
    error TokenCallFailed(uint256 commandIndex, address target);

    /// @dev Selectors of the ERC20 calls whose boolean result must be true (SafeERC20's rule:
    ///      no return data from a contract, or a return value of exactly 1).
    bytes4 private constant TRANSFER = 0xa9059cbb;
    bytes4 private constant TRANSFER_FROM = 0x23b872dd;
    bytes4 private constant APPROVE = 0x095ea7b3;

    /// @dev Runs `commands` against `state` and returns the final state.
    function _execute(bytes32[] calldata commands, bytes[] memory state)
        internal
        returns (bytes[] memory)
    {
        uint256 count = commands.length;
        for (uint256 i; i < count; ++i) {
            uint256 commandIndex = i;
            bytes32 command = commands[i];
            uint256 flags = uint8(bytes1(command << 32));
            uint256 callType = flags & FLAG_CALL_TYPE_MASK;
            if (callType == 0 || flags & FLAG_RESERVED_MASK != 0) {
                revert InvalidCommandFlags(commandIndex, flags);
            }
            bytes32 indices;
            if (flags & FLAG_EXTENDED_COMMAND != 0) {
                ++i;
                if (i == count) revert MissingExtendedInputs(commandIndex);
                indices = commands[i];
            } else {
                indices = bytes32(uint256(command << 40) | SHORT_COMMAND_FILL);
            }
            _run(state, command, flags, indices, commandIndex);
        }
        return state;
    }

    /// @dev Called before every CALL command (with or without value) with its calldata, so an
    ///      executing contract can refuse or record what its programs ask of other contracts. The
    ///      VM itself lets every call through.
    /// @param commandIndex The command's position in `commands`.
    /// @param target The contract about to be called.
    /// @param selector The first four bytes of `data`.
    /// @param data The calldata (selector and ABI-encoded arguments).
    function _beforeCall(uint256 commandIndex, address target, bytes4 selector, bytes memory data)
        internal
        virtual
    {}

    /// @dev Makes one command's call and stores its return value.
    function _run(
        bytes[] memory state,
        bytes32 command,
        uint256 flags,
        bytes32 indices,
        uint256 commandIndex
    ) private {
        address target = address(uint160(uint256(command)));
        uint256 callType = flags & FLAG_CALL_TYPE_MASK;
        uint256 value;
        if (callType == CALL_TYPE_VALUE_CALL) {
            // The first index holds the value; the rest are the arguments.
            value = uint256(_staticWord(state, uint8(indices[0]), commandIndex));
            indices = bytes32(uint256(indices << 8) | INDEX_END);
        }
        bytes memory data = _buildCalldata(state, bytes4(command), indices, commandIndex);
        // A STATICCALL cannot change state, so only calls that can are shown to the hook.
        if (callType != CALL_TYPE_STATICCALL) _beforeCall(commandIndex, target, bytes4(command), data);
        bool success;
        assembly ("memory-safe") {
            // Return data is not copied here: only kept outputs and failures need it.
            switch callType
            case 2 { success := staticcall(gas(), target, add(data, 32), mload(data), 0, 0) }
            default { success := call(gas(), target, value, add(data, 32), mload(data), 0, 0) }
            // The calldata buffer is dead: let the return data reuse its memory.
            mstore(0x40, data)
        }
        if (!success) revert ExecutionFailed(commandIndex, target, _returnData());
        uint256 returned;
        uint256 firstWord;
        assembly ("memory-safe") {
            returned := returndatasize()
            // The first word of the return data (a bool for the ERC20 calls checked below).
            if gt(returned, 31) {
                returndatacopy(0, 0, 32)
                firstWord := mload(0)
            }
        }
        if (returned == 0) {
            // A call to an address without code succeeds with nothing returned; refuse it (an
            // EIP-7702 account's designator counts as code, so delegated accounts pass).
            if (target.code.length == 0) revert NoCode(commandIndex, target);
        } else {
            bytes4 selector = bytes4(command);
            if (
                (selector == TRANSFER || selector == TRANSFER_FROM || selector == APPROVE)
                    && (returned < 32 || firstWord != 1)
            ) revert TokenCallFailed(commandIndex, target);
        }
        uint256 output = uint8(bytes1(command << 88));
        if (output != INDEX_END) {
            _writeOutput(state, output, flags & FLAG_TUPLE_RETURN != 0, _returnData(), commandIndex);
        }
    }

    /// @dev The last call's return data, copied to new memory.
    function _returnData() private pure returns (bytes memory result) {
        assembly ("memory-safe") {
            result := mload(0x40)
            let size := returndatasize()
            mstore(result, size)
            returndatacopy(add(result, 32), 0, size)
            // Allocate the length word and the data rounded up to whole words.
            mstore(0x40, add(add(result, 32), and(add(size, 31), not(31))))
        }
    }

    /// @dev ABI-encodes `selector` and the arguments named by `indices`: static slots go inline as
    ///      one word, dynamic slots (already tail-encoded) go to the tail behind an offset word.
    function _buildCalldata(
        bytes[] memory state,
        bytes4 selector,
        bytes32 indices,
        uint256 commandIndex
    ) private pure returns (bytes memory data) {
        uint256 stateLength = state.length;
        uint256 argumentCount;
        uint256 tailLength;
        unchecked {
            for (; argumentCount < 32; ++argumentCount) {
                uint256 index = uint8(indices[argumentCount]);
                if (index == INDEX_END) break;
                uint256 slot = index & INDEX_SLOT_MASK;
                if (slot >= stateLength || index == INDEX_WHOLE_STATE) {
                    revert InvalidStateIndex(commandIndex, index);
                }
                uint256 length = state[slot].length;
                if (index & INDEX_DYNAMIC != 0) {
                    if (length % 32 != 0) revert InvalidDynamicValue(commandIndex, slot, length);
                    tailLength += length;
                } else if (length != 32) {
                    revert InvalidStaticValue(commandIndex, slot, length);
                }
            }
        }
        uint256 headLength = argumentCount * 32;
        assembly ("memory-safe") {
            // Allocate without zeroing: every byte is written below (selector, heads, tails).
            data := mload(0x40)
            let length := add(4, add(headLength, tailLength))
            mstore(data, length)
            mstore(0x40, add(add(data, 32), and(add(length, 31), not(31))))
            // The selector occupies the first 4 bytes; the rest of this word is overwritten below.
            mstore(add(data, 32), selector)
        }
        unchecked {
            // Offset of the next dynamic value, counted from the start of the arguments.
            uint256 tailOffset = headLength;
            for (uint256 k; k < argumentCount; ++k) {
                uint256 index = uint8(indices[k]);
                bytes memory value = state[index & INDEX_SLOT_MASK];
                if (index & INDEX_DYNAMIC != 0) {
                    uint256 length = value.length;
                    assembly ("memory-safe") {
                        // Argument k's head word (data + 32-byte length + 4-byte selector + 32·k)
                        // holds the offset of its tail.
                        mstore(add(add(data, 36), mul(k, 32)), tailOffset)
                        // Copy the tail-encoded value (length word and padded contents) into place.
                        mcopy(add(add(data, 36), tailOffset), add(value, 32), length)
                    }
                    tailOffset += length;
                } else {
                    assembly ("memory-safe") {
                        // A static value is its single word, written inline as argument k's head.
                        mstore(add(add(data, 36), mul(k, 32)), mload(add(value, 32)))
                    }
                }
            }
        }
    }

    /// @dev Reads the 32-byte word in the slot named by a static index.
    function _staticWord(bytes[] memory state, uint256 index, uint256 commandIndex)
        private
        pure
        returns (bytes32 word)
    {
        if (index & INDEX_DYNAMIC != 0 || index >= state.length) {
            revert InvalidStateIndex(commandIndex, index);
        }
        bytes memory value = state[index];
        if (value.length != 32) revert InvalidStaticValue(commandIndex, index, value.length);
        assembly ("memory-safe") {
            // The word right after the length word.
            word := mload(add(value, 32))
        }
    }

    /// @dev Stores a call's return data in the slot named by `output`.
    function _writeOutput(
        bytes[] memory state,
        uint256 output,
        bool tuple,
        bytes memory returnData,
        uint256 commandIndex
    ) private pure {
        uint256 slot = output & INDEX_SLOT_MASK;
        if (output == INDEX_WHOLE_STATE || slot >= state.length) {
            revert InvalidStateIndex(commandIndex, output);
        }
        uint256 length = returnData.length;
        if (tuple) {
            // Kept as the tail encoding of a `bytes` value (length word, then the data padded to
            // whole words) so a later command can pass it as a dynamic argument.
            bytes memory entry = new bytes(32 + ((length + 31) & ~uint256(31)));
            assembly ("memory-safe") {
                mstore(add(entry, 32), length)
                mcopy(add(entry, 64), add(returnData, 32), length)
            }
            state[slot] = entry;
        } else if (output & INDEX_DYNAMIC != 0) {
            // A single dynamic return value is encoded as the offset word 0x20 followed by its tail.
            if (length < 64 || length % 32 != 0) revert UnexpectedReturnData(commandIndex, length);
            uint256 offset;
            assembly ("memory-safe") {
                offset := mload(add(returnData, 32))
            }
            if (offset != 32) revert UnexpectedReturnData(commandIndex, length);
            assembly ("memory-safe") {
                // Reuse the return data in place: the offset word becomes the length word of a
                // `bytes` holding just the tail, and the slot points at it.
                let tail := add(returnData, 32)
                mstore(tail, sub(length, 32))
                mstore(add(add(state, 32), mul(slot, 32)), tail)
            }
        } else {
            if (length != 32) revert UnexpectedReturnData(commandIndex, length);
            state[slot] = returnData;
        }
    }
}
