// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IERC20Like {
    function transfer(address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
}

interface IUniswapV2PairLike is IERC20Like {
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 timestamp);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
    function mint(address to) external returns (uint256 liquidity);
    function burn(address to) external returns (uint256 amount0, uint256 amount1);
    function token0() external view returns (address);
    function token1() external view returns (address);
}

interface IUniswapV3PoolLike {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function tickSpacing() external view returns (int24);
    function liquidity() external view returns (uint128);
    function slot0()
        external
        view
        returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external
        returns (uint256 amount0, uint256 amount1);
    function burn(int24 tickLower, int24 tickUpper, uint128 amount) external returns (uint256, uint256);
    function collect(address recipient, int24 tickLower, int24 tickUpper, uint128 amount0Max, uint128 amount1Max)
        external
        returns (uint128, uint128);
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data)
        external
        returns (int256 amount0, int256 amount1);
}

interface IERC4626Like {
    function asset() external view returns (address);
    function deposit(uint256 assets, address receiver) external returns (uint256 shares);
    function withdraw(uint256 assets, address receiver, address owner) external returns (uint256 shares);
}

/// @title HistoryBurst
/// @notice Devnet-only load generator: one transaction makes one block's worth of the activity a
///         real chain carries, so that a long, realistic event history can be produced quickly.
///         A V3 position minted and the one minted by the previous call burned (tick writes), V3
///         swaps, V2 swaps, a V2 liquidity add and remove, and an ERC4626 deposit and withdrawal.
///         It trades its own balances of the tokens involved (fund it first).
contract HistoryBurst {
    /// @notice What one call does; a zero address or count skips that part.
    struct Round {
        IUniswapV3PoolLike pool;
        uint256 v3Swaps;
        uint256 v3Amount0In;
        uint256 v3Amount1In;
        /// @dev Tick spacings either side of the current tick for the new position.
        int24 halfWidth;
        IUniswapV2PairLike pair;
        uint256 v2Swaps;
        uint256 v2Amount0In;
        uint256 v2Amount1In;
        bool v2Liquidity;
        IERC4626Like vault;
        uint256 vaultAssets;
    }

    struct Position {
        int24 lower;
        int24 upper;
        uint128 liquidity;
    }

    // TickMath.MIN_SQRT_RATIO + 1 and MAX_SQRT_RATIO - 1: swap limits that never bind.
    uint160 private constant MIN_SQRT_PRICE_LIMIT = 4295128740;
    uint160 private constant MAX_SQRT_PRICE_LIMIT = 1461446703485210103287273052203988822378723970341;

    error InsufficientOutput(uint256 index);
    error UnexpectedCallback(address caller);

    /// @notice The position each pool's previous round minted, burned by its next round.
    mapping(IUniswapV3PoolLike => Position) public openPosition;
    /// @dev The pool a callback may come from, set only while this contract calls it.
    IUniswapV3PoolLike private callingPool;

    /// @notice Performs one round of activity (see `Round`).
    function play(Round calldata r) external {
        if (address(r.pool) != address(0)) _v3(r);
        if (address(r.pair) != address(0)) _v2(r);
        if (address(r.vault) != address(0)) _vault(r.vault, r.vaultAssets);
    }

    function _v3(Round calldata r) private {
        IUniswapV3PoolLike pool = r.pool;
        callingPool = pool;
        int24 spacing = pool.tickSpacing();
        (, int24 tick,,,,,) = pool.slot0();
        // Round toward negative infinity so that the bounds are multiples of the spacing.
        int24 center = tick / spacing * spacing;
        if (tick < 0 && tick % spacing != 0) center -= spacing;
        Position memory fresh = Position({
            lower: center - r.halfWidth * spacing,
            upper: center + (r.halfWidth + 1) * spacing,
            liquidity: pool.liquidity() / 200 + 1
        });
        pool.mint(address(this), fresh.lower, fresh.upper, fresh.liquidity, "");
        for (uint256 i = 0; i < r.v3Swaps; ++i) {
            bool zeroForOne = i % 2 == 0;
            pool.swap(
                address(this),
                zeroForOne,
                int256(zeroForOne ? r.v3Amount0In : r.v3Amount1In),
                zeroForOne ? MIN_SQRT_PRICE_LIMIT : MAX_SQRT_PRICE_LIMIT,
                ""
            );
        }
        Position memory old = openPosition[pool];
        if (old.liquidity != 0) {
            pool.burn(old.lower, old.upper, old.liquidity);
            pool.collect(address(this), old.lower, old.upper, type(uint128).max, type(uint128).max);
        }
        openPosition[pool] = fresh;
        callingPool = IUniswapV3PoolLike(address(0));
    }

    function _v2(Round calldata r) private {
        IUniswapV2PairLike pair = r.pair;
        address t0 = pair.token0();
        address t1 = pair.token1();
        for (uint256 i = 0; i < r.v2Swaps; ++i) {
            if (i % 2 == 0) _v2Swap(pair, t0, true, r.v2Amount0In, i);
            else _v2Swap(pair, t1, false, r.v2Amount1In, i);
        }
        if (r.v2Liquidity) {
            (uint112 r0, uint112 r1,) = pair.getReserves();
            uint256 amount0 = r.v2Amount0In * 10;
            // At the pool's ratio, rounded up so that token0's side sets the liquidity minted.
            uint256 amount1 = amount0 * r1 / r0 + 1;
            IERC20Like(t0).transfer(address(pair), amount0);
            IERC20Like(t1).transfer(address(pair), amount1);
            uint256 lp = pair.mint(address(this));
            pair.transfer(address(pair), lp);
            pair.burn(address(this));
        }
    }

    function _v2Swap(IUniswapV2PairLike pair, address tokenIn, bool zeroForOne, uint256 amountIn, uint256 index)
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

    function _vault(IERC4626Like vault, uint256 assets) private {
        IERC20Like(vault.asset()).approve(address(vault), assets);
        vault.deposit(assets, address(this));
        vault.withdraw(assets / 2, address(this), address(this));
    }

    /// @notice Pays what a V3 mint owes; only the pool this contract is calling may ask.
    function uniswapV3MintCallback(uint256 amount0Owed, uint256 amount1Owed, bytes calldata) external {
        IUniswapV3PoolLike pool = callingPool;
        if (msg.sender != address(pool)) revert UnexpectedCallback(msg.sender);
        if (amount0Owed > 0) IERC20Like(pool.token0()).transfer(msg.sender, amount0Owed);
        if (amount1Owed > 0) IERC20Like(pool.token1()).transfer(msg.sender, amount1Owed);
    }

    /// @notice Pays a V3 swap's input; only the pool this contract is calling may ask.
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external {
        IUniswapV3PoolLike pool = callingPool;
        if (msg.sender != address(pool)) revert UnexpectedCallback(msg.sender);
        if (amount0Delta > 0) IERC20Like(pool.token0()).transfer(msg.sender, uint256(amount0Delta));
        if (amount1Delta > 0) IERC20Like(pool.token1()).transfer(msg.sender, uint256(amount1Delta));
    }
}
