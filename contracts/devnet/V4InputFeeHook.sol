// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {Hooks} from "@uniswap/v4-core/src/libraries/Hooks.sol";
import {SafeCast} from "@uniswap/v4-core/src/libraries/SafeCast.sol";
import {BeforeSwapDelta, BeforeSwapDeltaLibrary, toBeforeSwapDelta} from "@uniswap/v4-core/src/types/BeforeSwapDelta.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {PoolId} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

/// @title V4InputFeeHook
/// @notice Devnet-only Uniswap V4 hook with `beforeSwap` and `beforeSwapReturnDelta`: it keeps
///         1% of every exact input before the pool sees it (the pool swaps the other 99%), so
///         its pools do not swap as their price and liquidity alone say. Exact-output swaps pass
///         untouched. It must live at an address whose low 14 bits are exactly its permissions.
contract V4InputFeeHook {
    using SafeCast for uint256;

    /// @notice The permission flags this hook's address carries.
    uint160 public constant PERMISSIONS = Hooks.BEFORE_SWAP_FLAG | Hooks.BEFORE_SWAP_RETURNS_DELTA_FLAG;
    /// @notice The share of an exact input kept, in millionths (1%).
    uint256 public constant FEE_PIPS = 10_000;

    IPoolManager public immutable poolManager;

    /// @notice The hook kept `amount` of `currency` from a swap of pool `id`.
    event HookFee(PoolId indexed id, Currency indexed currency, uint256 amount);

    error NotPoolManager(address caller);
    error WrongHookAddress(address hook, uint160 permissions);

    constructor(IPoolManager poolManager_) {
        if (uint160(address(this)) & Hooks.ALL_HOOK_MASK != PERMISSIONS) {
            revert WrongHookAddress(address(this), PERMISSIONS);
        }
        poolManager = poolManager_;
    }

    /// @notice Called by the pool manager before every swap of a pool using this hook.
    function beforeSwap(address, PoolKey calldata key, SwapParams calldata params, bytes calldata)
        external
        returns (bytes4, BeforeSwapDelta, uint24)
    {
        if (msg.sender != address(poolManager)) revert NotPoolManager(msg.sender);
        // Exact output (a positive amount): nothing kept.
        if (params.amountSpecified >= 0) return (IHooks.beforeSwap.selector, BeforeSwapDeltaLibrary.ZERO_DELTA, 0);
        uint256 fee = uint256(-params.amountSpecified) * FEE_PIPS / 1_000_000;
        if (fee == 0) return (IHooks.beforeSwap.selector, BeforeSwapDeltaLibrary.ZERO_DELTA, 0);
        Currency input = params.zeroForOne ? key.currency0 : key.currency1;
        // Taking now leaves this hook owing `fee`; the positive specified delta returned below
        // credits it the same amount, and shrinks the input the pool swaps by it.
        poolManager.take(input, address(this), fee);
        emit HookFee(key.toId(), input, fee);
        return (IHooks.beforeSwap.selector, toBeforeSwapDelta(fee.toInt128(), 0), 0);
    }

    /// @notice Receives the fees of native-ether inputs.
    receive() external payable {}
}
