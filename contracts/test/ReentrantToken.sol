// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title ReentrantToken
/// @notice Test-only malicious ERC20: when tokens move out of `trigger`, it calls `target` with
///         `payload` and bubbles any revert, to attempt reentrancy in the middle of a route.
contract ReentrantToken is ERC20 {
    address public trigger;
    address public target;
    bytes public payload;
    bool private inHook;

    constructor() ERC20("Reentrant", "REENT") {}

    /// @notice Mints freely (test token).
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Arms the hook: moving tokens out of `trigger_` calls `target_` with `payload_`.
    function arm(address trigger_, address target_, bytes calldata payload_) external {
        trigger = trigger_;
        target = target_;
        payload = payload_;
    }

    function _update(address from, address to, uint256 value) internal override {
        super._update(from, to, value);
        if (from != address(0) && from == trigger && !inHook) {
            inHook = true;
            (bool success, bytes memory reason) = target.call(payload);
            if (!success) {
                assembly ("memory-safe") {
                    // Bubble the reentered call's revert data unchanged.
                    revert(add(reason, 32), mload(reason))
                }
            }
            inHook = false;
        }
    }
}
