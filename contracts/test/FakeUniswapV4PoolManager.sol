// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";

/// @title FakeUniswapV4PoolManager
/// @notice Test-only attacker posing as a Uniswap V4 pool manager: it calls `unlockCallback` on
///         its victims with data of its own making.
contract FakeUniswapV4PoolManager {
    /// @notice What {unlock} calls back with instead of the caller's data.
    bytes public forged;

    function setForged(bytes calldata data) external {
        forged = data;
    }

    /// @notice Shaped like PoolManager.unlock, but calls the caller back with {forged}.
    function unlock(bytes calldata) external returns (bytes memory) {
        return IUnlockCallback(msg.sender).unlockCallback(forged);
    }

    /// @notice Calls `victim`'s unlock callback directly, outside any unlock.
    function claim(address victim, bytes calldata data) external returns (bytes memory) {
        return IUnlockCallback(victim).unlockCallback(data);
    }
}
