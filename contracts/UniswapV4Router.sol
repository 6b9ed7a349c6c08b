// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {InsufficientOutput, MsgValueMismatch} from "./Assets.sol";
import {UniswapV4Settlement} from "./UniswapV4Settlement.sol";

/// @title UniswapV4Router
/// @notice Exact-input swaps on one Uniswap V4 pool for accounts that cannot answer the pool
///         manager's unlock callback themselves (`delegate` and `corewallet` programs): the
///         caller's input goes straight to the manager, the output straight to the recipient.
/// @dev No storage, no owner, nothing held between transactions: an ERC20 input moves from
///      `msg.sender` to the manager by transferFrom inside the callback (the caller approves
///      exactly `amountIn` to this router first), a native input must arrive as exactly
///      `msg.value == amountIn` and is settled whole, and the manager pays the recipient directly.
///      It only ever pulls from `msg.sender`. Currencies are V4's: address(0) is native currency.
contract UniswapV4Router is UniswapV4Settlement {
    /// @notice The recipient is the zero address or this router.
    error InvalidRecipient(address recipient);

    /// @param poolManager The Uniswap V4 pool manager, or address(0) on a chain without V4
    ///        (every swap then reverts UniswapV4NotConfigured).
    constructor(address poolManager) UniswapV4Settlement(poolManager) {}

    /// @notice Swaps exactly `amountIn` of the caller's input on the Uniswap V4 pool of the given
    ///         key for at least `amountOutMinimum`, paid to `recipient`.
    /// @dev Reverts InsufficientOutput(currencyOut, recipient, amountOut, amountOutMinimum)
    ///      below the minimum, UniswapV4PartialFill unless the swap took all of `amountIn`,
    ///      MsgValueMismatch unless `msg.value` is `amountIn` for native input and zero otherwise.
    /// @param currency0 The pool's currency0 (address(0) for native currency).
    /// @param currency1 The pool's currency1.
    /// @param fee The pool's LP fee (hundredths of a bip).
    /// @param tickSpacing The pool's tick spacing.
    /// @param hooks The pool's hooks contract (address(0) for none).
    /// @param zeroForOne Whether currency0 is sold for currency1.
    /// @param amountIn The amount sold, pulled from `msg.sender` (or sent as `msg.value`).
    /// @param amountOutMinimum The least output accepted.
    /// @param recipient Who receives the output.
    /// @return amountOut The amount paid to `recipient`.
    function swapExactIn(
        address currency0,
        address currency1,
        uint24 fee,
        int24 tickSpacing,
        address hooks,
        bool zeroForOne,
        uint256 amountIn,
        uint256 amountOutMinimum,
        address recipient
    ) external payable returns (uint256 amountOut) {
        if (recipient == address(0) || recipient == address(this)) revert InvalidRecipient(recipient);
        uint256 expectedValue = zeroForOne && currency0 == address(0) ? amountIn : 0;
        if (msg.value != expectedValue) revert MsgValueMismatch(expectedValue, msg.value);
        amountOut = _swapOnUniswapV4(
            _poolKey(currency0, currency1, fee, tickSpacing, hooks),
            zeroForOne,
            amountIn,
            msg.sender,
            recipient
        );
        if (amountOut < amountOutMinimum) {
            revert InsufficientOutput(
                zeroForOne ? currency1 : currency0, recipient, amountOut, amountOutMinimum
            );
        }
    }
}
