// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {NATIVE_TOKEN} from "../Assets.sol";

/// @title BalanceLens
/// @notice Test-only: reads many balances and allowances in one call.
contract BalanceLens {
    /// @notice balances[i * accounts.length + j] = accounts[j]'s balance of tokens[i]
    ///         (NATIVE_TOKEN for native currency).
    function balances(address[] calldata tokens, address[] calldata accounts)
        external
        view
        returns (uint256[] memory result)
    {
        result = new uint256[](tokens.length * accounts.length);
        for (uint256 i; i < tokens.length; ++i) {
            for (uint256 j; j < accounts.length; ++j) {
                result[i * accounts.length + j] = tokens[i] == NATIVE_TOKEN
                    ? accounts[j].balance
                    : IERC20(tokens[i]).balanceOf(accounts[j]);
            }
        }
    }

    /// @notice result[i * spenders.length + j] = allowance of owner's tokens[i] to spenders[j].
    function allowances(address[] calldata tokens, address owner, address[] calldata spenders)
        external
        view
        returns (uint256[] memory result)
    {
        result = new uint256[](tokens.length * spenders.length);
        for (uint256 i; i < tokens.length; ++i) {
            for (uint256 j; j < spenders.length; ++j) {
                result[i * spenders.length + j] = IERC20(tokens[i]).allowance(owner, spenders[j]);
            }
        }
    }
}
