// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";
import {V4DeltaSettler} from "./V4DeltaSettler.sol";

/// @title V4SwapHelper
/// @notice Devnet-only: swaps on one Uniswap V4 pool for its caller, paying the input from the
///         caller (approve this contract first; native ether from `msg.value`, the rest refunded)
///         and sending the output to the caller. No slippage check: it generates activity.
contract V4SwapHelper is V4DeltaSettler {
    constructor(IPoolManager poolManager_) V4DeltaSettler(poolManager_) {}

    /// @notice Swaps `amountSpecified` (negative: exact input, positive: exact output).
    /// @param sqrtPriceLimitX96 Where the swap stops; 0 for no limit.
    /// @return delta The caller's balance change (negative: paid into the pool).
    function swap(PoolKey calldata key, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96)
        external
        payable
        returns (BalanceDelta delta)
    {
        if (sqrtPriceLimitX96 == 0) {
            // The furthest price each direction allows (the bounds themselves are excluded).
            sqrtPriceLimitX96 = zeroForOne ? TickMath.MIN_SQRT_PRICE + 1 : TickMath.MAX_SQRT_PRICE - 1;
        }
        SwapParams memory params =
            SwapParams({zeroForOne: zeroForOne, amountSpecified: amountSpecified, sqrtPriceLimitX96: sqrtPriceLimitX96});
        delta = abi.decode(poolManager.unlock(abi.encode(msg.sender, key, params)), (BalanceDelta));
        _refundNative(msg.sender);
    }

    function _whileUnlocked(bytes calldata data) internal override returns (bytes memory) {
        (address swapper, PoolKey memory key, SwapParams memory params) =
            abi.decode(data, (address, PoolKey, SwapParams));
        BalanceDelta delta = poolManager.swap(key, params, "");
        _settleWith(key.currency0, delta.amount0(), swapper);
        _settleWith(key.currency1, delta.amount1(), swapper);
        return abi.encode(delta);
    }
}
