// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title ForceSend
/// @notice Test-only: forces its whole value into `target` with SELFDESTRUCT, which no contract
///         can refuse (after EIP-6780 it still sends the balance; created and destroyed in one
///         transaction, the contract is also deleted).
contract ForceSend {
    constructor(address payable target) payable {
        selfdestruct(target);
    }
}
