// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IUniswapV2PairLike {
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 timestamp);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
    function token0() external view returns (address);
    function token1() external view returns (address);
}

interface IERC20Like {
    function transfer(address to, uint256 amount) external returns (bool);
}

/// @title SwapBurst
/// @notice Devnet-only load generator: makes many small Uniswap V2 swaps in one transaction,
///         alternating direction, so that a long pool-event history can be produced quickly.
///         It trades its own balance of the pair's tokens (fund it first).
contract SwapBurst {
    error InsufficientOutput(uint256 index);

    /// @notice Performs `count` swaps on `pair`, alternating `amount0In` of token0 for token1 and
    ///         `amount1In` of token1 for token0.
    function burst(IUniswapV2PairLike pair, uint256 amount0In, uint256 amount1In, uint256 count) external {
        address t0 = pair.token0();
        address t1 = pair.token1();
        for (uint256 i = 0; i < count; ++i) {
            if (i % 2 == 0) _swap(pair, t0, true, amount0In, i);
            else _swap(pair, t1, false, amount1In, i);
        }
    }

    function _swap(IUniswapV2PairLike pair, address tokenIn, bool zeroForOne, uint256 amountIn, uint256 index)
        private
    {
        (uint112 r0, uint112 r1,) = pair.getReserves();
        (uint256 rIn, uint256 rOut) = zeroForOne ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
        uint256 amountInWithFee = amountIn * 997;
        uint256 out = (amountInWithFee * rOut) / (rIn * 1000 + amountInWithFee);
        if (out == 0) revert InsufficientOutput(index);
        IERC20Like(tokenIn).transfer(address(pair), amountIn);
        if (zeroForOne) pair.swap(0, out, address(this), "");
        else pair.swap(out, 0, address(this), "");
    }
}
