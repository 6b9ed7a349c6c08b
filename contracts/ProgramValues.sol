// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

interface IUniswapV2PairReserves {
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 timestamp);
}

/// @title ProgramValues
/// @notice Stateless helpers a program calls (by STATICCALL) to turn one call's return value into
///         the argument of a later call: pick a word of a tuple or an array element, negate a pool
///         delta, compute a Uniswap V2 output from what a pair has just been sent.
/// @dev Deployed on its own for wallet and delegate programs; RouterExecutor inherits it so that
///      router programs call these helpers on the (already warm) executor address.
contract ProgramValues {
    /// @notice `index` is past the end of a tuple of `length` bytes or an array of `length` items.
    error IndexOutOfRange(uint256 index, uint256 length);
    /// @notice Split shares must be given and sum to their whole (10,000 basis points for
    ///         `splitAmount`; more than zero for `splitProportionally`).
    error InvalidShares(uint256 total);
    /// @notice A value expected to be a negative amount (a pool paying out) is not negative.
    error NotNegative(int256 value);
    /// @notice The pair holds no more of `tokenIn` than its reserve: nothing was sent to it.
    error NothingSent(address pair, address tokenIn);
    /// @notice An exact-input swap of `amountIn` took only `taken`.
    error PartialFill(uint256 amountIn, int256 taken);
    /// @notice The pair holds none of one of its tokens: there is no ratio to add liquidity at.
    error EmptyPair(address pair);
    /// @notice A V2 swap fee of `feePpm` millionths leaves nothing of the input.
    error FeeTooHigh(uint24 feePpm);

    /// @notice Balancer V2's `IVault.JoinPoolRequest` and `IVault.ExitPoolRequest`, which share
    ///         one layout: the pool's tokens, an amount limit per token (the most a join takes,
    ///         the least an exit pays), the pool's own encoding of the join or exit, and whether
    ///         the vault's internal balances are used.
    struct BalancerV2PoolRequest {
        address[] assets;
        uint256[] limits;
        bytes userData;
        bool internalBalance;
    }

    /// @notice Word `index` of a tuple return value (stored by a tuple-return command).
    /// @param data The raw return data of the earlier call.
    /// @param index Zero-based word position.
    /// @return word The word, usable as any static type.
    function tupleWord(bytes calldata data, uint256 index) external pure returns (bytes32 word) {
        if (index >= data.length / 32) revert IndexOutOfRange(index, data.length);
        return bytes32(data[index * 32:index * 32 + 32]);
    }

    /// @notice Element `index` of a uint256 array (e.g. Uniswap V2 router `amounts`).
    /// @param values The array.
    /// @param index Zero-based position.
    /// @return The element.
    function arrayElement(uint256[] calldata values, uint256 index) external pure returns (uint256) {
        if (index >= values.length) revert IndexOutOfRange(index, values.length);
        return values[index];
    }

    /// @notice `amount` divided into parts of `bps` basis points each (they must sum to 10,000);
    ///         the last part takes the rounding remainder, so the parts sum to `amount` exactly.
    /// @param amount The amount to divide.
    /// @param bps The share of each part, in basis points.
    /// @return parts One amount per share.
    function splitAmount(uint256 amount, uint256[] calldata bps) external pure returns (uint256[] memory parts) {
        uint256 total;
        for (uint256 i; i < bps.length; ++i) {
            total += bps[i];
        }
        if (bps.length == 0 || total != 10_000) revert InvalidShares(total);
        parts = new uint256[](bps.length);
        uint256 assigned;
        for (uint256 i; i + 1 < bps.length; ++i) {
            parts[i] = (amount * bps[i]) / 10_000;
            assigned += parts[i];
        }
        parts[bps.length - 1] = amount - assigned;
    }

    /// @notice `amount` divided in proportion to `weights` (a route's flow dividing a token between
    ///         its pools, finer than basis points): part i is `amount * weights[i] / sum`, rounded
    ///         down, and the last part takes the remainder, so the parts sum to `amount` exactly.
    /// @param amount The amount to divide.
    /// @param weights The weight of each part; their sum is the whole.
    /// @return parts One amount per weight.
    function splitProportionally(uint256 amount, uint256[] calldata weights)
        external
        pure
        returns (uint256[] memory parts)
    {
        uint256 total;
        for (uint256 i; i < weights.length; ++i) {
            total += weights[i];
        }
        if (total == 0) revert InvalidShares(total);
        parts = new uint256[](weights.length);
        uint256 assigned;
        for (uint256 i; i + 1 < weights.length; ++i) {
            parts[i] = Math.mulDiv(amount, weights[i], total);
            assigned += parts[i];
        }
        parts[weights.length - 1] = amount - assigned;
    }

    /// @notice `values` with element `index` replaced by `value`: places an earlier call's output
    ///         inside a dynamic array argument.
    /// @param values The array.
    /// @param index Zero-based position to replace.
    /// @param value The new element.
    /// @return The updated array.
    function setArrayElement(uint256[] calldata values, uint256 index, uint256 value)
        external
        pure
        returns (uint256[] memory)
    {
        if (index >= values.length) revert IndexOutOfRange(index, values.length);
        uint256[] memory out = values;
        out[index] = value;
        return out;
    }

    /// @notice `-value` for a negative `value`: what a pool paid out, as a positive amount.
    /// @param value A negative amount.
    /// @return The absolute value.
    function negate(int256 value) external pure returns (uint256) {
        if (value >= 0) revert NotNegative(value);
        return uint256(-value);
    }

    /// @notice The amount a Uniswap V3 pool swap paid out, from its `(amount0, amount1)` return.
    /// @param swapResult The raw return data of `UniswapV3Pool.swap` (a tuple-return command).
    /// @return amountOut The negated negative delta.
    function uniswapV3AmountOut(bytes calldata swapResult) external pure returns (uint256 amountOut) {
        if (swapResult.length != 64) revert IndexOutOfRange(1, swapResult.length);
        (int256 amount0, int256 amount1) = abi.decode(swapResult, (int256, int256));
        int256 paid = amount0 < amount1 ? amount0 : amount1;
        if (paid >= 0) revert NotNegative(paid);
        return uint256(-paid);
    }

    /// @notice Like {uniswapV3AmountOut} for an exact-input swap of `amountIn`: reverts with
    ///         PartialFill unless the pool took all of it (a pool that ran out of liquidity before
    ///         the price limit takes less and would leave the rest with the caller).
    /// @param swapResult The raw return data of `UniswapV3Pool.swap` (a tuple-return command).
    /// @param amountIn The exact input the swap was asked for.
    /// @return amountOut The negated negative delta.
    function uniswapV3ExactInputAmountOut(bytes calldata swapResult, uint256 amountIn)
        external
        pure
        returns (uint256 amountOut)
    {
        if (swapResult.length != 64) revert IndexOutOfRange(1, swapResult.length);
        (int256 amount0, int256 amount1) = abi.decode(swapResult, (int256, int256));
        (int256 taken, int256 paid) = amount0 < amount1 ? (amount1, amount0) : (amount0, amount1);
        if (paid >= 0) revert NotNegative(paid);
        // The pool reports what it took as a positive delta; an exact-input swap takes amountIn.
        if (taken < 0 || uint256(taken) != amountIn) revert PartialFill(amountIn, taken);
        return uint256(-paid);
    }

    /// @notice The output of a Uniswap V2 swap of whatever `tokenIn` the pair received beyond
    ///         its reserve (call it after sending the input to the pair, then call `pair.swap`).
    /// @dev The pair's token order is that of the addresses, as in every Uniswap V2 pair and
    ///      its forks; a pair of other tokens makes the following `pair.swap` fail its K check,
    ///      and so does a fee below the pair's own (a fee above it only asks for less).
    /// @param pair The Uniswap V2 (or fork) pair of tokenIn and tokenOut.
    /// @param tokenIn The token sent to the pair.
    /// @param tokenOut The other token of the pair.
    /// @param feePpm The pair's swap fee in millionths of the input (3000 for Uniswap V2's 0.3%).
    /// @return amountOut The most the pair pays out of tokenOut.
    function uniswapV2AmountOut(address pair, address tokenIn, address tokenOut, uint24 feePpm)
        external
        view
        returns (uint256 amountOut)
    {
        return _uniswapV2AmountOut(pair, tokenIn, tokenOut, feePpm);
    }

    /// @dev Uniswap V2's `getAmountOut` with the fee in millionths: at 3000 it is the pair's own
    ///      (a·997·R) / (r·1000 + a·997) with 1000 more above and below, the same quotient.
    function _uniswapV2AmountOut(address pair, address tokenIn, address tokenOut, uint24 feePpm)
        internal
        view
        returns (uint256)
    {
        (uint256 reserve0, uint256 reserve1,) = IUniswapV2PairReserves(pair).getReserves();
        (uint256 reserveIn, uint256 reserveOut) =
            tokenIn < tokenOut ? (reserve0, reserve1) : (reserve1, reserve0);
        uint256 balance = IERC20(tokenIn).balanceOf(pair);
        if (balance <= reserveIn) revert NothingSent(pair, tokenIn);
        if (feePpm >= 1_000_000) revert FeeTooHigh(feePpm);
        uint256 amountInWithFee = (balance - reserveIn) * (1_000_000 - feePpm);
        return (amountInWithFee * reserveOut) / (reserveIn * 1_000_000 + amountInWithFee);
    }

    /// @notice `a + b`: joins two amounts of one token into one program value (what a V2
    ///         liquidity removal paid out directly and what its other side swapped into).
    /// @param a An amount.
    /// @param b An amount of the same token.
    /// @return The sum.
    function sum(uint256 a, uint256 b) external pure returns (uint256) {
        return a + b;
    }

    /// @notice The request of a Balancer V2 weighted pool join with exactly `amountIn` of its
    ///         token `index` alone (`EXACT_TOKENS_IN_FOR_BPT_OUT`), minting at least `minBptOut`
    ///         BPT (else the pool reverts `BAL#208`); no internal balance. `amountIn` is usually
    ///         what an earlier call of the program returned, so the request is built at run time.
    /// @param assets The pool's tokens in the vault's order.
    /// @param index The position of the token joined with.
    /// @param amountIn The exact amount of it.
    /// @param minBptOut The least BPT the join may mint.
    /// @return request The `JoinPoolRequest` for `Vault.joinPool`.
    function balancerV2JoinRequest(address[] calldata assets, uint256 index, uint256 amountIn, uint256 minBptOut)
        external
        pure
        returns (BalancerV2PoolRequest memory request)
    {
        uint256[] memory amountsIn = _onlyAt(assets.length, index, amountIn);
        request = BalancerV2PoolRequest(assets, amountsIn, abi.encode(uint256(1), amountsIn, minBptOut), false);
    }

    /// @notice The request of a Balancer V2 weighted pool exit burning exactly `bptIn` for its
    ///         token `index` alone (`EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`), paying at least
    ///         `minAmountOut` of it (else the vault reverts `BAL#505`); no internal balance.
    /// @param assets The pool's tokens in the vault's order.
    /// @param index The position of the token paid out.
    /// @param bptIn The exact BPT burnt.
    /// @param minAmountOut The least of the token the exit may pay.
    /// @return request The `ExitPoolRequest` for `Vault.exitPool`.
    function balancerV2ExitRequest(address[] calldata assets, uint256 index, uint256 bptIn, uint256 minAmountOut)
        external
        pure
        returns (BalancerV2PoolRequest memory request)
    {
        request = BalancerV2PoolRequest(
            assets, _onlyAt(assets.length, index, minAmountOut), abi.encode(uint256(0), bptIn, index), false
        );
    }

    /// @dev `length` amounts, all zero but `value` at `index` (which must be below `length`).
    function _onlyAt(uint256 length, uint256 index, uint256 value) private pure returns (uint256[] memory amounts) {
        if (index >= length) revert IndexOutOfRange(index, length);
        amounts = new uint256[](length);
        amounts[index] = value;
    }

    /// @notice How to turn `amountIn` of one of a Uniswap V2 pair's tokens into its liquidity
    ///         (a single-sided "zap"), at the pair's current reserves: sell `swapIn` of it for
    ///         `swapOut` of the other token on the pair, then add `depositIn` and `depositOther`.
    /// @dev `swapIn` is the sale after which what is left and what was bought stand in the
    ///      pair's new ratio (0.3% fee): floor((sqrt(r(3988009 r + 3988000 a)) - 1997 r) / 1994)
    ///      for reserve r of tokenIn and amount a. The deposits are what Router02 would take of
    ///      the two at the new reserves (one side whole, the other in ratio, rounded down);
    ///      `amountIn - swapIn - depositIn` of tokenIn and `swapOut - depositOther` of the other
    ///      token are left over. Exactly `uniswapV2ZapIn` of the routing engine.
    /// @param pair The Uniswap V2 pair.
    /// @param tokenIn One of its tokens.
    /// @param tokenOther The other.
    /// @param amountIn The amount of tokenIn to turn into liquidity.
    /// @return swapIn Sold first.
    /// @return swapOut Bought by that sale.
    /// @return depositIn tokenIn added as liquidity.
    /// @return depositOther The other token added as liquidity.
    function uniswapV2ZapIn(address pair, address tokenIn, address tokenOther, uint256 amountIn)
        external
        view
        returns (uint256 swapIn, uint256 swapOut, uint256 depositIn, uint256 depositOther)
    {
        (uint256 reserve0, uint256 reserve1,) = IUniswapV2PairReserves(pair).getReserves();
        (uint256 reserveIn, uint256 reserveOut) =
            tokenIn < tokenOther ? (reserve0, reserve1) : (reserve1, reserve0);
        if (reserveIn == 0 || reserveOut == 0) revert EmptyPair(pair);
        swapIn = (Math.sqrt(reserveIn * (reserveIn * 3_988_009 + amountIn * 3_988_000)) - reserveIn * 1997)
            / 1994;
        uint256 amountInWithFee = swapIn * 997;
        swapOut = (amountInWithFee * reserveOut) / (reserveIn * 1000 + amountInWithFee);
        reserveIn += swapIn;
        reserveOut -= swapOut;
        uint256 left = amountIn - swapIn;
        uint256 otherInRatio = (left * reserveOut) / reserveIn;
        if (otherInRatio <= swapOut) {
            (depositIn, depositOther) = (left, otherInRatio);
        } else {
            (depositIn, depositOther) = ((swapOut * reserveIn) / reserveOut, swapOut);
        }
    }
}
