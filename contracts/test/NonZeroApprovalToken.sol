// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title NonZeroApprovalToken
/// @notice Test-only ERC20 that approves like USDT: an allowance may go from zero to a value or
///         from a value to zero, never from one non-zero value to another. USDT itself reverts
///         without a reason; this one gives one, so a decoded revert reason can be asserted.
contract NonZeroApprovalToken is ERC20 {
    constructor() ERC20("Non-zero Approval Token", "NZA") {}

    /// @notice Mints freely (test token).
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Sets `spender`'s allowance to `value`, refusing a change from one non-zero value
    ///         to another (the caller must set it to zero first).
    function approve(address spender, uint256 value) public override returns (bool) {
        require(
            value == 0 || allowance(msg.sender, spender) == 0,
            "approve from non-zero to non-zero allowance"
        );
        return super.approve(spender, value);
    }
}
