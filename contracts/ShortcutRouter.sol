// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {
    DeadlineExpired,
    InsufficientOutput,
    MsgValueMismatch,
    NATIVE_TOKEN,
    assetBalanceOf,
    transferAsset
} from "./Assets.sol";
import {RouterExecutor} from "./RouterExecutor.sol";

/// @title ShortcutRouter
/// @notice The contract users approve. Each entry point makes the same fixed calls: check the
///         deadline, take the fee, pull exactly `amountIn` of `tokenIn` from `msg.sender` into the
///         executor, run the program there, then require that every checked output's account (the
///         receiver of a swap; each payee of a bundle) grew its balance of the output's token by at
///         least its minimum, and that the executor holds no more of the input, the outputs or
///         native currency than before the transaction (what anyone sent it beforehand cannot
///         block a route; what the program left behind reverts it).
/// @dev The router never makes a call chosen by the caller; programs run in {executor}, which
///      holds no approvals. NATIVE_TOKEN (0xEeee…EEeE) stands for the native currency.
contract ShortcutRouter is ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @notice Highest fee a route may take, in basis points of `amountIn`.
    uint256 public constant MAX_FEE_BPS = 100;
    uint256 private constant BPS = 10_000;

    /// @notice The executor that runs this router's programs (deployed by the constructor).
    address public immutable executor;

    /// @notice A checked output: `account` must gain at least `minAmountOut` of `token` (a
    ///         bundle paying several accounts names each of them, with the token it gets).
    struct Output {
        address token;
        address account;
        uint256 minAmountOut;
    }

    /// @notice Parameters of {swap}.
    struct SwapParams {
        address tokenIn;
        uint256 amountIn;
        address tokenOut;
        uint256 minAmountOut;
        address receiver;
        uint256 feeBps;
        address feeReceiver;
        uint256 deadline;
    }

    /// @notice Parameters of {bundle}: the outputs name who is paid, so there is no one receiver.
    struct BundleParams {
        address tokenIn;
        uint256 amountIn;
        Output[] outputs;
        uint256 feeBps;
        address feeReceiver;
        uint256 deadline;
    }

    /// @dev What both entry points share besides the outputs.
    struct Input {
        address token;
        uint256 amount;
        uint256 feeBps;
        address feeReceiver;
        uint256 deadline;
    }

    /// @notice A route ran: `sender` paid `amountIn` of `tokenIn` (of which `feeAmount` went to
    ///         the fee receiver) and `receiver` got `amountsOut` of the checked outputs.
    event Routed(
        address indexed sender,
        address indexed receiver,
        address indexed tokenIn,
        uint256 amountIn,
        uint256 feeAmount,
        uint256[] amountsOut
    );

    /// @notice A bundle ran: `sender` paid `amountIn` of `tokenIn` (of which `feeAmount` went to
    ///         the fee receiver) and each checked output's account got the amount at its position
    ///         in `amountsOut`.
    event Bundled(
        address indexed sender,
        address indexed tokenIn,
        uint256 amountIn,
        uint256 feeAmount,
        Output[] outputs,
        uint256[] amountsOut
    );

    /// @notice `amountIn` is zero.
    error ZeroAmountIn();
    /// @notice The minimum of checked output `token` is zero, which would check nothing.
    error ZeroMinAmountOut(address token);
    /// @notice A bundle declares no checked output.
    error NoOutputs();
    /// @notice A checked output's account (a swap's receiver) is the zero address, this router or
    ///         its executor.
    error InvalidReceiver(address receiver);
    /// @notice `feeBps` exceeds MAX_FEE_BPS.
    error FeeTooHigh(uint256 feeBps, uint256 maxFeeBps);
    /// @notice A fee is asked with the zero address as its receiver.
    error InvalidFeeReceiver(address feeReceiver);
    /// @notice After the program the executor holds `balanceAfter` of `token`, more than the
    ///         `balanceBefore` it held when the transaction reached the router.
    error ExecutorKeptFunds(address token, uint256 balanceBefore, uint256 balanceAfter);

    /// @param uniswapV3Factory The Uniswap V3 factory whose pools the executor pays.
    /// @param uniswapV4PoolManager The Uniswap V4 pool manager the executor swaps on, or
    ///        address(0) on a chain without Uniswap V4.
    /// @param v3ForkDeployers The pool deployers (and pool init code hashes) of the Uniswap V3
    ///        forks whose pools the executor pays; empty for none.
    constructor(
        address uniswapV3Factory,
        address uniswapV4PoolManager,
        RouterExecutor.V3PoolDeployer[] memory v3ForkDeployers
    ) {
        executor = address(
            new RouterExecutor(uniswapV3Factory, uniswapV4PoolManager, v3ForkDeployers)
        );
    }

    /// @notice Swaps exactly `amountIn` of `tokenIn` from the caller for at least `minAmountOut`
    ///         of `tokenOut` delivered to `receiver`, by running a program in the executor.
    /// @param params Input, checked output, receiver, fee (feeBps of amountIn, at most 100) and
    ///        deadline (the last acceptable block timestamp).
    /// @param commands The program's command words.
    /// @param state The program's initial state slots.
    /// @return amountOut The growth of the receiver's `tokenOut` balance.
    function swap(SwapParams calldata params, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        nonReentrant
        returns (uint256 amountOut)
    {
        Output[] memory outputs = new Output[](1);
        outputs[0] = Output(params.tokenOut, params.receiver, params.minAmountOut);
        Input memory input = Input(
            params.tokenIn, params.amountIn, params.feeBps, params.feeReceiver, params.deadline
        );
        (uint256[] memory amountsOut, uint256 feeAmount) = _route(input, outputs, commands, state);
        amountOut = amountsOut[0];
        emit Routed(
            msg.sender, params.receiver, params.tokenIn, params.amountIn, feeAmount, amountsOut
        );
    }

    /// @notice Like {swap} for bundles: one input, several checked outputs, each naming the
    ///         account it pays (the receiver, a merchant, any transfer's target) and its minimum.
    /// @param params Input, checked outputs, fee (feeBps of amountIn, at most 100) and deadline
    ///        (the last acceptable block timestamp).
    /// @param commands The program's command words.
    /// @param state The program's initial state slots.
    /// @return amountsOut The growth of each output's account's balance of its token, in order.
    function bundle(
        BundleParams calldata params,
        bytes32[] calldata commands,
        bytes[] calldata state
    ) external payable nonReentrant returns (uint256[] memory amountsOut) {
        if (params.outputs.length == 0) revert NoOutputs();
        Input memory input = Input(
            params.tokenIn, params.amountIn, params.feeBps, params.feeReceiver, params.deadline
        );
        uint256 feeAmount;
        (amountsOut, feeAmount) = _route(input, params.outputs, commands, state);
        emit Bundled(
            msg.sender, params.tokenIn, params.amountIn, feeAmount, params.outputs, amountsOut
        );
    }

    function _route(
        Input memory input,
        Output[] memory outputs,
        bytes32[] calldata commands,
        bytes[] calldata state
    ) private returns (uint256[] memory amountsOut, uint256 feeAmount) {
        if (block.timestamp > input.deadline) revert DeadlineExpired(input.deadline, block.timestamp);
        if (input.amount == 0) revert ZeroAmountIn();
        if (input.feeBps > MAX_FEE_BPS) revert FeeTooHigh(input.feeBps, MAX_FEE_BPS);
        bool nativeIn = input.token == NATIVE_TOKEN;
        uint256 expectedValue = nativeIn ? input.amount : 0;
        if (msg.value != expectedValue) revert MsgValueMismatch(expectedValue, msg.value);

        // Balances before anything moves, so the deltas count nothing but this route's effect: each
        // output's account, and what the executor held (anyone can send it tokens, or force
        // native currency into it, so "empty" is not a check that only the program controls).
        amountsOut = new uint256[](outputs.length);
        // The executor's balances: of each output, then of the input, then of native currency.
        uint256[] memory held = new uint256[](outputs.length + 2);
        for (uint256 i; i < outputs.length; ++i) {
            Output memory output = outputs[i];
            address account = output.account;
            if (account == address(0) || account == address(this) || account == executor) {
                revert InvalidReceiver(account);
            }
            if (output.minAmountOut == 0) revert ZeroMinAmountOut(output.token);
            amountsOut[i] = assetBalanceOf(output.token, account);
            held[i] = assetBalanceOf(output.token, executor);
        }
        held[outputs.length] = assetBalanceOf(input.token, executor);
        held[outputs.length + 1] = executor.balance;

        feeAmount = _takeInput(input, nativeIn);
        _execute(nativeIn ? input.amount - feeAmount : 0, commands, state);

        for (uint256 i; i < outputs.length; ++i) {
            Output memory output = outputs[i];
            uint256 balance = assetBalanceOf(output.token, output.account);
            uint256 received = balance > amountsOut[i] ? balance - amountsOut[i] : 0;
            if (received < output.minAmountOut) {
                revert InsufficientOutput(output.token, output.account, received, output.minAmountOut);
            }
            amountsOut[i] = received;
            _requireNoGrowth(output.token, held[i]);
        }
        _requireNoGrowth(input.token, held[outputs.length]);
        if (!nativeIn) _requireNoGrowth(NATIVE_TOKEN, held[outputs.length + 1]);
    }

    /// @dev Sends the fee to its receiver and, for an ERC20 input, pulls the rest from
    ///      `msg.sender` into the executor (native input reaches the executor with the call).
    function _takeInput(Input memory input, bool nativeIn) private returns (uint256 feeAmount) {
        feeAmount = (input.amount * input.feeBps) / BPS;
        if (feeAmount != 0) {
            if (input.feeReceiver == address(0)) revert InvalidFeeReceiver(input.feeReceiver);
            if (nativeIn) transferAsset(NATIVE_TOKEN, input.feeReceiver, feeAmount);
            else IERC20(input.token).safeTransferFrom(msg.sender, input.feeReceiver, feeAmount);
        }
        if (!nativeIn) {
            IERC20(input.token).safeTransferFrom(msg.sender, executor, input.amount - feeAmount);
        }
    }

    /// @dev Calls `executor.execute(commands, state)` forwarding the program as it arrived: the
    ///      commands are copied word for word and the state's encoding is copied in one piece
    ///      (its length word to the end of the calldata, which holds the element offsets, relative
    ///      to the array, and the elements). The executor decodes and checks it again.
    function _execute(uint256 value, bytes32[] calldata commands, bytes[] calldata state) private {
        address target = executor;
        bytes4 selector = RouterExecutor.execute.selector;
        assembly ("memory-safe") {
            // Build the calldata in free memory; nothing needs it after the call.
            let data := mload(0x40)
            // 32 bytes per command word.
            let commandsSize := shl(5, commands.length)
            // The state's length word sits just before its offset table.
            let stateStart := sub(state.offset, 32)
            // The ABI puts the state last, so its encoding runs to the end of the calldata.
            let stateSize := sub(calldatasize(), stateStart)
            // The selector fills the first 4 bytes (the rest is overwritten next).
            mstore(data, selector)
            // Head: offsets of the two arrays, counted from after the selector.
            mstore(add(data, 4), 0x40)
            mstore(add(data, 36), add(0x60, commandsSize))
            // commands: length, then the words.
            mstore(add(data, 68), commands.length)
            calldatacopy(add(data, 100), commands.offset, commandsSize)
            // state: length, element offsets and elements, as encoded in this call.
            calldatacopy(add(add(data, 100), commandsSize), stateStart, stateSize)
            if iszero(call(gas(), target, value, data, add(add(100, commandsSize), stateSize), 0, 0)) {
                // Bubble the executor's revert data (ExecutionFailed and the like) unchanged.
                returndatacopy(data, 0, returndatasize())
                revert(data, returndatasize())
            }
        }
    }

    /// @dev Reverts unless the executor holds at most `balanceBefore` of `token`: the program
    ///      left none of the caller's funds behind for the next program to take.
    function _requireNoGrowth(address token, uint256 balanceBefore) private view {
        uint256 balanceAfter = assetBalanceOf(token, executor);
        if (balanceAfter > balanceBefore) {
            revert ExecutorKeptFunds(token, balanceBefore, balanceAfter);
        }
    }
}
