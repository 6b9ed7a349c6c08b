// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";

/// @title V4DeltaSettler
/// @notice Devnet-only base of the contracts that act on Uniswap V4 pools: the pool manager calls
///         `unlockCallback` back while it is unlocked, and whatever the action left owed between the
///         two is settled with the account that asked for it (it pays what it owes, it is sent what
///         it is owed).
abstract contract V4DeltaSettler is IUnlockCallback {
    /// @notice The singleton pool manager this contract acts on.
    IPoolManager public immutable poolManager;

    error NotPoolManager(address caller);
    error TransferFromFailed(address token, address from, uint256 amount);
    error NativeRefundFailed(address to, uint256 amount);

    constructor(IPoolManager poolManager_) {
        poolManager = poolManager_;
    }

    /// @notice Runs the action encoded in `data`; only the pool manager calls it, while unlocked.
    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        if (msg.sender != address(poolManager)) revert NotPoolManager(msg.sender);
        return _whileUnlocked(data);
    }

    /// @dev The action itself, run inside the pool manager's unlock.
    function _whileUnlocked(bytes calldata data) internal virtual returns (bytes memory);

    /// @dev Clears this contract's `delta` in `currency`: a negative delta is owed to the manager
    ///      and paid by `account`, a positive one is owed by the manager and sent to `account`.
    function _settleWith(Currency currency, int128 delta, address account) internal {
        if (delta < 0) _pay(currency, account, uint256(-int256(delta)));
        else if (delta > 0) poolManager.take(currency, account, uint128(delta));
    }

    /// @dev Native ether comes out of this call's `msg.value`; a token is pulled from `payer`
    ///      straight into the manager between `sync` and `settle`, which credit what arrived.
    function _pay(Currency currency, address payer, uint256 amount) private {
        if (currency.isAddressZero()) {
            poolManager.settle{value: amount}();
            return;
        }
        poolManager.sync(currency);
        address token = Currency.unwrap(currency);
        (bool ok, bytes memory returned) =
            token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", payer, address(poolManager), amount));
        // Tokens that return nothing (USDT-style) succeed without a return value.
        if (!ok || (returned.length != 0 && !abi.decode(returned, (bool)))) {
            revert TransferFromFailed(token, payer, amount);
        }
        poolManager.settle();
    }

    /// @dev Sends back whatever native ether the call did not spend.
    function _refundNative(address to) internal {
        uint256 left = address(this).balance;
        if (left == 0) return;
        (bool ok,) = to.call{value: left}("");
        if (!ok) revert NativeRefundFailed(to, left);
    }
}
