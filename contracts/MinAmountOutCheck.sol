// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {DeadlineExpired, InsufficientOutput, assetBalanceOf} from "./Assets.sol";

/// @title MinAmountOutCheck
/// @notice Enforces a deadline and minimum outputs from inside a program, for strategies where no
///         router wraps the program (`delegate`, `corewallet`), and measures what a program made:
///         the program reads balances first and asks for the checks (or the growth) last; all are
///         STATICCALLs to this stateless contract.
contract MinAmountOutCheck {
    /// @notice A check was asked with a zero minimum, which would check nothing.
    error ZeroMinAmountOut(address token);

    /// @notice `account`'s balance of `token` (NATIVE_TOKEN 0xEeee…EEeE for native currency).
    /// @param token The token, or NATIVE_TOKEN.
    /// @param account The account whose balance is read.
    /// @return The balance, to keep in a program slot as the starting balance.
    function balanceOf(address token, address account) external view returns (uint256) {
        return assetBalanceOf(token, account);
    }

    /// @notice Reverts with DeadlineExpired once the block's timestamp is past `deadline`.
    /// @param deadline The last acceptable block timestamp (unix seconds).
    function checkDeadline(uint256 deadline) external view {
        if (block.timestamp > deadline) revert DeadlineExpired(deadline, block.timestamp);
    }

    /// @notice How much `account`'s balance of `token` grew since it was `balanceBefore` (0 when
    ///         it did not grow): what the running transaction made, never what was held before.
    /// @param token The token, or NATIVE_TOKEN.
    /// @param account The account.
    /// @param balanceBefore The balance {balanceOf} returned at the start of the program.
    /// @return The growth.
    function balanceGrowth(address token, address account, uint256 balanceBefore)
        external
        view
        returns (uint256)
    {
        uint256 balance = assetBalanceOf(token, account);
        return balance > balanceBefore ? balance - balanceBefore : 0;
    }

    /// @notice Reverts with InsufficientOutput unless `account`'s balance of `token` grew by at
    ///         least `minAmountOut` since it was `balanceBefore`.
    /// @param token The token, or NATIVE_TOKEN.
    /// @param account The receiver.
    /// @param balanceBefore The balance {balanceOf} returned at the start of the program.
    /// @param minAmountOut The least acceptable growth.
    /// @return received The growth of the balance.
    function checkMinAmountOut(
        address token,
        address account,
        uint256 balanceBefore,
        uint256 minAmountOut
    ) external view returns (uint256 received) {
        if (minAmountOut == 0) revert ZeroMinAmountOut(token);
        uint256 balance = assetBalanceOf(token, account);
        received = balance > balanceBefore ? balance - balanceBefore : 0;
        if (received < minAmountOut) {
            revert InsufficientOutput(token, account, received, minAmountOut);
        }
    }
}
