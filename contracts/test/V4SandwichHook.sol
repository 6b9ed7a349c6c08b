// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {Hooks} from "@uniswap/v4-core/src/libraries/Hooks.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {BeforeSwapDelta, BeforeSwapDeltaLibrary} from "@uniswap/v4-core/src/types/BeforeSwapDelta.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

/// @title V4SandwichHook
/// @notice Test-only Uniswap V4 hook with `beforeSwap` and `afterSwap` and no return-delta
///         permission, on a static-fee pool: by its flags it "only observes" swaps. It shows why
///         such a hook cannot be trusted: the pool manager is unlocked by the swapper while it
///         runs, so before each exact-input swap it sells into its own pool in the same direction
///         (`frontRunBps` of the swapper's input, no capital: the manager's deltas settle at the
///         end), and after the swap it sells the proceeds back, taking the difference to its
///         owner — a sandwich inside the swapper's own transaction. Where it thinks it is being
///         simulated (no gas price or no base fee) it stays honest.
///         It must live at an address whose low 14 bits are exactly its permissions.
contract V4SandwichHook {
    /// @notice The permission flags this hook's address carries.
    uint160 public constant PERMISSIONS = Hooks.BEFORE_SWAP_FLAG | Hooks.AFTER_SWAP_FLAG;

    IPoolManager public immutable poolManager;
    address public immutable owner;

    /// @notice The front-run's size, in basis points of the swapper's exact input.
    uint256 public frontRunBps;

    /// @dev The front-run's delta of the current swap (zero when it did not front-run).
    BalanceDelta private frontRun;

    error NotPoolManager(address caller);
    error NotOwner(address caller);
    error WrongHookAddress(address hook, uint160 permissions);

    constructor(IPoolManager poolManager_, address owner_) {
        if (uint160(address(this)) & Hooks.ALL_HOOK_MASK != PERMISSIONS) {
            revert WrongHookAddress(address(this), PERMISSIONS);
        }
        poolManager = poolManager_;
        owner = owner_;
    }

    /// @notice Sets the front-run's size (basis points of the swapper's input).
    function setFrontRunBps(uint256 bps) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        frontRunBps = bps;
    }

    /// @notice Called by the pool manager before every swap of a pool using this hook; its own
    ///         swaps do not call it (`Hooks.noSelfCall`).
    function beforeSwap(address, PoolKey calldata key, SwapParams calldata params, bytes calldata)
        external
        returns (bytes4, BeforeSwapDelta, uint24)
    {
        if (msg.sender != address(poolManager)) revert NotPoolManager(msg.sender);
        if (params.amountSpecified < 0 && !_looksSimulated()) {
            uint256 amount = uint256(-params.amountSpecified) * frontRunBps / 10_000;
            if (amount > 0) frontRun = _sell(key, params.zeroForOne, int256(amount));
        }
        return (IHooks.beforeSwap.selector, BeforeSwapDeltaLibrary.ZERO_DELTA, 0);
    }

    /// @notice Called by the pool manager after every swap of a pool using this hook: sells the
    ///         front-run's proceeds back and pays the owner what is left over.
    function afterSwap(address, PoolKey calldata key, SwapParams calldata params, BalanceDelta, bytes calldata)
        external
        returns (bytes4, int128)
    {
        if (msg.sender != address(poolManager)) revert NotPoolManager(msg.sender);
        BalanceDelta first = frontRun;
        if (BalanceDelta.unwrap(first) != 0) {
            frontRun = BalanceDelta.wrap(0);
            bool zeroForOne = params.zeroForOne;
            // What the front-run bought is owed to this hook: sell all of it back.
            int128 bought = zeroForOne ? first.amount1() : first.amount0();
            BalanceDelta second = _sell(key, !zeroForOne, bought);
            // The input currency: paid on the way in (negative), received on the way out.
            int128 profit = zeroForOne ? first.amount0() + second.amount0() : first.amount1() + second.amount1();
            Currency input = zeroForOne ? key.currency0 : key.currency1;
            poolManager.take(input, owner, uint256(uint128(profit)));
        }
        return (IHooks.afterSwap.selector, 0);
    }

    /// @dev An exact-input swap of `amount` on the hook's own account, to the price limit.
    function _sell(PoolKey calldata key, bool zeroForOne, int256 amount) private returns (BalanceDelta) {
        return poolManager.swap(
            key,
            SwapParams({
                zeroForOne: zeroForOne,
                amountSpecified: -amount,
                sqrtPriceLimitX96: zeroForOne ? TickMath.MIN_SQRT_PRICE + 1 : TickMath.MAX_SQRT_PRICE - 1
            }),
            ""
        );
    }

    /// @dev What a node's `eth_call` or `eth_simulateV1` without validation looks like.
    function _looksSimulated() private view returns (bool) {
        return tx.gasprice == 0 || block.basefee == 0;
    }
}
