// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

// Layout of one command word (bytes32), most significant byte first:
//   selector (4) | flags (1) | inputs (6) | output (1) | target (20)
// contracts/README.md describes the format in full.

/// @dev Mask of the call-type bits in the flags byte.
uint256 constant FLAG_CALL_TYPE_MASK = 0x03;
/// @dev Call type 0x00 (DELEGATECALL in the original format) is deliberately not supported.
uint256 constant CALL_TYPE_CALL = 0x01;
/// @dev STATICCALL: the target cannot change state.
uint256 constant CALL_TYPE_STATICCALL = 0x02;
/// @dev CALL with value: the first input index names the state slot holding the wei amount.
uint256 constant CALL_TYPE_VALUE_CALL = 0x03;
/// @dev Bits of the flags byte that must be zero (0x20 is the original format's raw-data flag).
uint256 constant FLAG_RESERVED_MASK = 0x3c;
/// @dev The next command word holds up to 32 input indices; the 6 inline input bytes are ignored.
uint256 constant FLAG_EXTENDED_COMMAND = 0x40;
/// @dev Store the whole return data in the output slot as an ABI `bytes` value.
uint256 constant FLAG_TUPLE_RETURN = 0x80;

/// @dev High bit of an input or output index byte: the slot holds a dynamic (variable-length) value.
uint256 constant INDEX_DYNAMIC = 0x80;
/// @dev Low seven bits of an index byte: the state slot number.
uint256 constant INDEX_SLOT_MASK = 0x7f;
/// @dev Ends the input list; as the output byte, discards the return data.
uint256 constant INDEX_END = 0xff;
/// @dev The original format's "whole state" marker; rejected here.
uint256 constant INDEX_WHOLE_STATE = 0xfe;

/// @dev Fills the 26 bytes after the 6 inline inputs with INDEX_END, so that a short command reads
///      like an extended one whose index list ends after at most six entries.
uint256 constant SHORT_COMMAND_FILL = type(uint208).max;
