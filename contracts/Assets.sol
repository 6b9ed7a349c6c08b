// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @dev The address that stands for the chain's native currency in token positions.
address constant NATIVE_TOKEN = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

/// @notice The checked account's (`receiver`: a route's receiver, or any account a bundle pays)
///         balance of `token` grew by `received`, less than `minAmountOut`.
error InsufficientOutput(address token, address receiver, uint256 received, uint256 minAmountOut);
/// @notice `msg.value` differs from the native amount the call declares.
error MsgValueMismatch(uint256 expected, uint256 actual);
/// @notice Sending `amount` wei to `to` failed.
error NativeTransferFailed(address to, uint256 amount);
/// @notice The transaction was mined after its `deadline` (unix seconds) at block time `timestamp`.
error DeadlineExpired(uint256 deadline, uint256 timestamp);

/// @dev `account`'s balance of `token` (wei for NATIVE_TOKEN).
function assetBalanceOf(address token, address account) view returns (uint256) {
    if (token == NATIVE_TOKEN) return account.balance;
    return IERC20(token).balanceOf(account);
}

/// @dev Sends `amount` of `token` (NATIVE_TOKEN for native currency) from this contract to `to`.
function transferAsset(address token, address to, uint256 amount) {
    if (token == NATIVE_TOKEN) {
        (bool success,) = to.call{value: amount}("");
        if (!success) revert NativeTransferFailed(to, amount);
    } else {
        SafeERC20.safeTransfer(IERC20(token), to, amount);
    }
}
