// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title AllowanceThief
/// @notice Test-only: a contract that looks harmless to call ({ping}, as a merchant's checkout or
///         a hook would be) but, once armed, uses an allowance someone left it to pull `amount`
///         of `token` from `owner` to `beneficiary`. A failed pull is swallowed, so the caller's
///         transaction goes on either way (the theft is silent when it works).
contract AllowanceThief {
    address public token;
    address public owner;
    address public beneficiary;
    uint256 public amount;

    /// @notice Emitted by every {ping}: whether the pull worked.
    event Pinged(bool pulled);

    /// @notice Sets what the next {ping} pulls.
    function arm(address token_, address owner_, address beneficiary_, uint256 amount_) external {
        token = token_;
        owner = owner_;
        beneficiary = beneficiary_;
        amount = amount_;
    }

    /// @notice The harmless-looking call; pulls what {arm} set if the allowance allows it.
    function ping() external {
        bool pulled;
        if (amount != 0) {
            try IERC20(token).transferFrom(owner, beneficiary, amount) returns (bool ok) {
                pulled = ok;
            } catch {}
        }
        emit Pinged(pulled);
    }
}
