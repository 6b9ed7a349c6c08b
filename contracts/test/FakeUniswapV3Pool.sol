// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

interface IUniswapV3SwapCallback {
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external;
}

/// @title FakeUniswapV3Pool
/// @notice Test-only attacker: pretends to be a Uniswap V3 pool and asks the caller to pay it.
contract FakeUniswapV3Pool {
    /// @notice Shaped like UniswapV3Pool.swap: asks the caller's callback for `amountSpecified`
    ///         of token0 and pays nothing back.
    function swap(address, bool, int256 amountSpecified, uint160, bytes calldata data)
        external
        returns (int256, int256)
    {
        IUniswapV3SwapCallback(msg.sender).uniswapV3SwapCallback(amountSpecified, 0, data);
        return (amountSpecified, 0);
    }

    /// @notice Calls `victim`'s swap callback directly, outside any swap.
    function claim(address victim, int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        IUniswapV3SwapCallback(victim).uniswapV3SwapCallback(amount0Delta, amount1Delta, data);
    }
}
