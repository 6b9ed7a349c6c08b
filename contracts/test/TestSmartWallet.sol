// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title TestSmartWallet
/// @notice Test-only smart wallet: its owner can DELEGATECALL any contract (as Safe-like wallets
///         do for the `delegate` strategy).
contract TestSmartWallet {
    address public immutable owner;

    error NotWalletOwner(address caller);

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice DELEGATECALLs `target` with `data`, bubbling its revert.
    function delegate(address target, bytes calldata data) external payable returns (bytes memory) {
        if (msg.sender != owner) revert NotWalletOwner(msg.sender);
        (bool success, bytes memory result) = target.delegatecall(data);
        if (!success) {
            assembly ("memory-safe") {
                // Bubble the revert data unchanged.
                revert(add(result, 32), mload(result))
            }
        }
        return result;
    }

    receive() external payable {}
}
