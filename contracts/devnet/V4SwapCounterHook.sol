// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {Hooks} from "@uniswap/v4-core/src/libraries/Hooks.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {PoolId} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

/// @title V4SwapCounterHook
/// @notice Devnet-only Uniswap V4 hook with the `afterSwap` permission alone: it counts each
///         pool's swaps and returns no delta, so its pools swap exactly as hookless ones do.
///         The pool manager reads a hook's permissions from the low 14 bits of its address: this
///         one must live at an address whose low 14 bits are exactly `Hooks.AFTER_SWAP_FLAG`.
contract V4SwapCounterHook {
    /// @notice The permission flags this hook's address carries.
    uint160 public constant PERMISSIONS = Hooks.AFTER_SWAP_FLAG;

    IPoolManager public immutable poolManager;

    /// @notice Swaps seen per pool.
    mapping(PoolId => uint256) public swapCount;

    error NotPoolManager(address caller);
    error WrongHookAddress(address hook, uint160 permissions);

    constructor(IPoolManager poolManager_) {
        if (uint160(address(this)) & Hooks.ALL_HOOK_MASK != PERMISSIONS) {
            revert WrongHookAddress(address(this), PERMISSIONS);
        }
        poolManager = poolManager_;
    }

    /// @notice Called by the pool manager after every swap of a pool using this hook.
    function afterSwap(address, PoolKey calldata key, SwapParams calldata, BalanceDelta, bytes calldata)
        external
        returns (bytes4, int128)
    {
        if (msg.sender != address(poolManager)) revert NotPoolManager(msg.sender);
        swapCount[key.toId()] += 1;
        return (IHooks.afterSwap.selector, 0);
    }
}
