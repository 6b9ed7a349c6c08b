// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {ModifyLiquidityParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";
import {V4DeltaSettler} from "./V4DeltaSettler.sol";

/// @title V4LiquidityHelper
/// @notice Devnet-only: adds and removes liquidity of Uniswap V4 pools for its callers. Every
///         position is this contract's in the pool manager; its salt binds it to the caller, so only
///         the caller can remove it. Adding pulls the tokens from the caller (approve this contract
///         first) and takes native ether from `msg.value`, refunding what is left; removing sends
///         the amounts and the fees earned to the caller.
contract V4LiquidityHelper is V4DeltaSettler {
    constructor(IPoolManager poolManager_) V4DeltaSettler(poolManager_) {}

    /// @notice Adds (`liquidityDelta` > 0) or removes (< 0) liquidity between two ticks.
    /// @param salt Tells apart the caller's positions over the same ticks.
    /// @return delta The caller's balance change (negative: paid into the pool), fees included.
    function modifyLiquidity(PoolKey calldata key, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt)
        external
        payable
        returns (BalanceDelta delta)
    {
        ModifyLiquidityParams memory params = ModifyLiquidityParams({
            tickLower: tickLower,
            tickUpper: tickUpper,
            liquidityDelta: liquidityDelta,
            salt: positionSalt(msg.sender, salt)
        });
        delta = abi.decode(poolManager.unlock(abi.encode(msg.sender, key, params)), (BalanceDelta));
        _refundNative(msg.sender);
    }

    /// @notice The salt of `owner`'s position in the pool manager (whose owner is this contract).
    function positionSalt(address owner, bytes32 salt) public pure returns (bytes32) {
        return keccak256(abi.encode(owner, salt));
    }

    function _whileUnlocked(bytes calldata data) internal override returns (bytes memory) {
        (address owner, PoolKey memory key, ModifyLiquidityParams memory params) =
            abi.decode(data, (address, PoolKey, ModifyLiquidityParams));
        (BalanceDelta delta,) = poolManager.modifyLiquidity(key, params, "");
        _settleWith(key.currency0, delta.amount0(), owner);
        _settleWith(key.currency1, delta.amount1(), owner);
        return abi.encode(delta);
    }
}
