// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {CommandVM} from "./CommandVM.sol";

/// @title DelegateExecutor
/// @notice The command VM for the `delegate` strategy: a smart wallet DELEGATECALLs {execute} (or
///         an EIP-7702 account points its code here and calls itself), so the program's calls are
///         made by that account. It has no storage and refuses to run in its own context.
/// @dev An EIP-7702 account delegating straight to this contract would otherwise let anyone run
///      programs as that account, so in that case only the account itself may call.
contract DelegateExecutor is CommandVM {
    /// @dev This contract's own address, to tell a direct call from a delegated one.
    address private immutable self;

    /// @notice The executor was called directly rather than through DELEGATECALL or EIP-7702.
    error DirectCallNotAllowed();
    /// @notice An EIP-7702 account delegating here was called by `caller`, not by itself.
    error UnauthorizedCaller(address caller);

    constructor() {
        self = address(this);
    }

    /// @notice Runs a program as the calling account (under DELEGATECALL or EIP-7702).
    /// @param commands The program's command words.
    /// @param state The program's initial state slots.
    /// @return The final state slots.
    function execute(bytes32[] calldata commands, bytes[] memory state)
        external
        payable
        returns (bytes[] memory)
    {
        if (address(this) == self) revert DirectCallNotAllowed();
        if (msg.sender != address(this) && _delegatesHereByEip7702()) {
            revert UnauthorizedCaller(msg.sender);
        }
        return _execute(commands, state);
    }

    /// @notice Lets the delegating account receive native currency (e.g. from unwrapping WETH);
    ///         refused in this contract's own context, where it would be stuck.
    receive() external payable {
        if (address(this) == self) revert DirectCallNotAllowed();
    }

    /// @dev True when the running account's code is the EIP-7702 designator 0xef0100 ‖ self.
    function _delegatesHereByEip7702() private view returns (bool) {
        if (address(this).code.length != 23) return false;
        bytes32 code;
        assembly ("memory-safe") {
            // Load the 23-byte designator into the high bytes of a zeroed scratch word.
            mstore(0, 0)
            extcodecopy(address(), 0, 0, 23)
            code := mload(0)
        }
        return code == bytes32(abi.encodePacked(hex"ef0100", self));
    }
}
