// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {CommandVM} from "../CommandVM.sol";

/// @title CommandVMHarness
/// @notice Test-only: exposes the command VM with no access control, to test the format itself.
contract CommandVMHarness is CommandVM {
    /// @notice Runs a program and returns its final state.
    function run(bytes32[] calldata commands, bytes[] memory state)
        external
        payable
        returns (bytes[] memory)
    {
        return _execute(commands, state);
    }
}
