// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title QuirkyToken
/// @notice Test-only ERC20 whose `transfer`, `transferFrom` and `approve` either return `true`
///         (standard), return `false` without moving anything (old tokens that fail softly), or
///         return nothing (USDT-style), chosen at deployment.
contract QuirkyToken {
    /// @notice How the token answers: 0 true, 1 false (and does nothing), 2 no return data.
    uint8 public immutable mode;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    constructor(uint8 mode_) {
        mode = mode_;
    }

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        if (mode == 1) return false;
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        _answer();
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        if (mode == 1) return false;
        allowance[from][msg.sender] -= amount;
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        _answer();
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        if (mode == 1) return false;
        allowance[msg.sender][spender] = amount;
        _answer();
        return true;
    }

    /// @dev In mode 2, stop here with empty return data, as tokens without a return value do.
    function _answer() private view {
        if (mode == 2) {
            assembly ("memory-safe") {
                // Return no data at all.
                return(0, 0)
            }
        }
    }
}
