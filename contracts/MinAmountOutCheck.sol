// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {InsufficientOutput, assetBalanceOf} from "./Assets.sol";

/// @title MinAmountOutCheck
/// @notice Enforces a minimum output from inside a program, for strategies where no router wraps
///         the program (`delegate`, `corewallet`). The program reads the receiver's balance first
///         and asks for the check last; both are STATICCALLs to this stateless contract.
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
