// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {BeforeSwapDelta} from "@uniswap/v4-core/src/types/BeforeSwapDelta.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

/// @title ReentrantV4Hook
/// @notice Test-only malicious Uniswap V4 hook (beforeSwap permission only, so it must sit at an
///         address whose low 14 bits are exactly 0x0080): before every swap of its pools it calls
///         `target` with `payload`, trying to reenter whoever is swapping. It records the outcome
///         and lets the swap go on, or, when `bubble` is set, reverts with the call's revert data.
/// @dev No constructor or immutables: tests place its runtime code at a suitable address.
contract ReentrantV4Hook {
    address public target;
    bytes public payload;
    bool public bubble;
    /// @notice Attempts made, and the outcome of the last one.
    uint256 public attempts;
    bool public lastSucceeded;
    bytes public lastReturnData;

    /// @notice Arms the hook: each swap calls `target_` with `payload_`.
    function arm(address target_, bytes calldata payload_, bool bubble_) external {
        target = target_;
        payload = payload_;
        bubble = bubble_;
    }

    function beforeSwap(address, PoolKey calldata, SwapParams calldata, bytes calldata)
        external
        returns (bytes4, BeforeSwapDelta, uint24)
    {
        if (target != address(0)) {
            (bool success, bytes memory returnData) = target.call(payload);
            if (!success && bubble) {
                assembly ("memory-safe") {
                    // Bubble the reentered call's revert data unchanged.
                    revert(add(returnData, 32), mload(returnData))
                }
            }
            attempts += 1;
            lastSucceeded = success;
            lastReturnData = returnData;
        }
        return (IHooks.beforeSwap.selector, BeforeSwapDelta.wrap(0), 0);
    }
}
