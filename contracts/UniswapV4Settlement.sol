// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

/// @title UniswapV4Settlement
/// @notice One exact-input swap on a Uniswap V4 pool, settled in full inside the pool manager's
///         unlock callback: swap, pay exactly the input, take the whole output for the recipient.
/// @dev Shared by RouterExecutor (paying from its own balance) and UniswapV4Router (paying from
///      its caller). The callback is answered only for the configured pool manager and only with
///      the very data this contract passed to `unlock` a moment before, kept as its hash in
///      transient storage: neither another contract nor the manager on someone else's behalf
///      can make it pay. Currencies are V4's: address(0) is the native currency.
abstract contract UniswapV4Settlement is IUnlockCallback {
    using SafeERC20 for IERC20;

    /// @dev The largest input: the manager accounts amounts as int128.
    uint256 private constant MAX_AMOUNT_IN = uint256(uint128(type(int128).max));

    /// @notice The Uniswap V4 pool manager this contract swaps on; address(0) on a chain without
    ///         Uniswap V4, where every V4 swap reverts {UniswapV4NotConfigured}.
    IPoolManager public immutable uniswapV4PoolManager;

    /// @dev keccak256 of the data of the `unlock` this contract is inside, zero otherwise. Set
    ///      just around the call and cleared by the callback it expects (one callback per swap);
    ///      transient, so nothing survives the transaction.
    bytes32 private transient pendingUniswapV4Swap;

    /// @notice A Uniswap V4 swap was asked of a deployment without a pool manager.
    error UniswapV4NotConfigured();
    /// @notice `caller` called `unlockCallback` but is not the configured `poolManager`.
    error UnexpectedUnlockCaller(address caller, address poolManager);
    /// @notice The pool manager called back while this contract had no swap in progress, or with
    ///         other data than this contract sent it.
    error NoUniswapV4SwapInProgress();
    /// @notice `amountIn` is zero or above 2^127 - 1, the largest amount the manager accounts.
    error InvalidUniswapV4AmountIn(uint256 amountIn);
    /// @notice The swap charged `inputDelta` (negative: owed) instead of exactly -`amountIn`: the
    ///         pool ran out of liquidity before the price limit, or a hook changed the input.
    error UniswapV4PartialFill(uint256 amountIn, int256 inputDelta);
    /// @notice The swap's output delta is `outputDelta`, not a positive amount to take.
    error UniswapV4NoOutput(int256 outputDelta);

    /// @param poolManager The Uniswap V4 pool manager, or address(0) where there is none.
    constructor(address poolManager) {
        uniswapV4PoolManager = IPoolManager(poolManager);
    }

    /// @notice Settles the swap this contract started: swaps exactly the input, pays it to the
    ///         manager and takes the output to the recipient.
    /// @dev Only the configured pool manager, only inside this contract's own `unlock`.
    /// @param data `abi.encode(key, zeroForOne, amountIn, payer, recipient)`, as passed to unlock.
    /// @return `abi.encode(amountOut)`.
    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        IPoolManager manager = uniswapV4PoolManager;
        if (msg.sender != address(manager)) {
            revert UnexpectedUnlockCaller(msg.sender, address(manager));
        }
        _checkUniswapV4Callback();
        // A hash of real data is never zero, so no swap in progress never matches.
        if (keccak256(data) != pendingUniswapV4Swap) revert NoUniswapV4SwapInProgress();
        pendingUniswapV4Swap = bytes32(0);
        (PoolKey memory key, bool zeroForOne, uint256 amountIn, address payer, address recipient) =
            abi.decode(data, (PoolKey, bool, uint256, address, address));
        (Currency currencyIn, Currency currencyOut, uint256 amountOut) =
            _swapExactIn(manager, key, zeroForOne, amountIn);
        _pay(manager, currencyIn, payer, amountIn);
        manager.take(currencyOut, recipient, amountOut);
        return abi.encode(amountOut);
    }

    /// @dev Swaps exactly `amountIn` on the pool `key` through the pool manager, paid by `payer`
    ///      (this contract: from its own balance; anyone else: by transferFrom, which they
    ///      approved to this contract; native input is always paid from this contract's balance),
    ///      the output going to `recipient`.
    /// @return amountOut What `recipient` was paid.
    function _swapOnUniswapV4(
        PoolKey memory key,
        bool zeroForOne,
        uint256 amountIn,
        address payer,
        address recipient
    ) internal returns (uint256 amountOut) {
        IPoolManager manager = uniswapV4PoolManager;
        if (address(manager) == address(0)) revert UniswapV4NotConfigured();
        if (amountIn == 0 || amountIn > MAX_AMOUNT_IN) revert InvalidUniswapV4AmountIn(amountIn);
        bytes memory data = abi.encode(key, zeroForOne, amountIn, payer, recipient);
        pendingUniswapV4Swap = keccak256(data);
        amountOut = abi.decode(manager.unlock(data), (uint256));
        // Normally cleared by the callback already; a manager that never called back leaves none.
        pendingUniswapV4Swap = bytes32(0);
    }

    /// @dev The PoolKey of the flattened arguments the external functions take.
    function _poolKey(
        address currency0,
        address currency1,
        uint24 fee,
        int24 tickSpacing,
        address hooks
    ) internal pure returns (PoolKey memory) {
        return PoolKey({
            currency0: Currency.wrap(currency0),
            currency1: Currency.wrap(currency1),
            fee: fee,
            tickSpacing: tickSpacing,
            hooks: IHooks(hooks)
        });
    }

    /// @dev Further conditions on the callback (reverting when unmet), checked after its caller.
    function _checkUniswapV4Callback() internal view virtual {}

    /// @dev The swap itself, limited by its amount only (price limits just inside the valid
    ///      range), reverting unless it charged exactly `amountIn` and owes a positive output.
    function _swapExactIn(IPoolManager manager, PoolKey memory key, bool zeroForOne, uint256 amountIn)
        private
        returns (Currency currencyIn, Currency currencyOut, uint256 amountOut)
    {
        // amountIn <= 2^127 - 1 (checked before unlocking), so the negation is exact.
        int256 amountSpecified = -int256(amountIn);
        BalanceDelta delta = manager.swap(
            key,
            SwapParams({
                zeroForOne: zeroForOne,
                amountSpecified: amountSpecified,
                sqrtPriceLimitX96: zeroForOne ? TickMath.MIN_SQRT_PRICE + 1 : TickMath.MAX_SQRT_PRICE - 1
            }),
            ""
        );
        int128 inputDelta;
        int128 outputDelta;
        (currencyIn, currencyOut, inputDelta, outputDelta) = zeroForOne
            ? (key.currency0, key.currency1, delta.amount0(), delta.amount1())
            : (key.currency1, key.currency0, delta.amount1(), delta.amount0());
        if (inputDelta != amountSpecified) revert UniswapV4PartialFill(amountIn, inputDelta);
        if (outputDelta <= 0) revert UniswapV4NoOutput(outputDelta);
        amountOut = uint256(int256(outputDelta));
    }

    /// @dev Pays `amount` of `currency` owed to the manager: native with the settle call itself;
    ///      an ERC20 by syncing the manager's balance, sending the tokens to it, then settling
    ///      (which credits what arrived since the sync).
    function _pay(IPoolManager manager, Currency currency, address payer, uint256 amount) private {
        if (currency.isAddressZero()) {
            manager.settle{value: amount}();
            return;
        }
        manager.sync(currency);
        IERC20 token = IERC20(Currency.unwrap(currency));
        if (payer == address(this)) token.safeTransfer(address(manager), amount);
        else token.safeTransferFrom(payer, address(manager), amount);
        manager.settle();
    }
}
