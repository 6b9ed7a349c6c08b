// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {MsgValueMismatch, NATIVE_TOKEN} from "./Assets.sol";
import {CommandVM} from "./CommandVM.sol";

/// @title CoreWallet
/// @notice A minimal per-user wallet (`corewallet` strategy) that runs programs for its owner.
///         Each wallet is a clone of this implementation deployed by CoreWalletFactory at a
///         CREATE2 address derived from the owner; the owner is an immutable argument of the
///         clone's code, so the wallet has no storage.
contract CoreWallet is CommandVM {
    using SafeERC20 for IERC20;

    /// @notice The factory that deploys wallets and may run a program right after deploying one.
    address public immutable factory;
    /// @dev The implementation's own address, to refuse calls that are not through a clone.
    address private immutable self;

    /// @notice `caller` is neither the wallet's owner nor the factory.
    error NotOwner(address caller, address owner);
    /// @notice The implementation was called directly instead of through a wallet clone.
    error DirectCallNotAllowed();

    constructor() {
        factory = msg.sender;
        self = address(this);
    }

    /// @notice The wallet's owner.
    /// @return The address whose programs this wallet runs.
    function owner() public view returns (address) {
        if (address(this) == self) revert DirectCallNotAllowed();
        return address(bytes20(Clones.fetchCloneArgs(address(this))));
    }

    /// @notice Runs a program as this wallet, after taking its input: `amountIn` of native
    ///         currency sent with the call (tokenIn = NATIVE_TOKEN), or `amountIn` of an ERC20
    ///         pulled from the owner, who approved this wallet (0 pulls nothing).
    /// @dev Only the owner, or the factory acting for the owner in deploy-and-execute, may call.
    /// @param tokenIn The input token, NATIVE_TOKEN, or any token with amountIn 0.
    /// @param amountIn The input amount; for native input it must equal msg.value.
    /// @param commands The program's command words.
    /// @param state The program's initial state slots.
    /// @return The final state slots.
    function executeShortcut(
        address tokenIn,
        uint256 amountIn,
        bytes32[] calldata commands,
        bytes[] memory state
    ) external payable returns (bytes[] memory) {
        address walletOwner = owner();
        if (msg.sender != walletOwner && msg.sender != factory) {
            revert NotOwner(msg.sender, walletOwner);
        }
        if (tokenIn == NATIVE_TOKEN) {
            if (msg.value != amountIn) revert MsgValueMismatch(amountIn, msg.value);
        } else {
            if (msg.value != 0) revert MsgValueMismatch(0, msg.value);
            if (amountIn != 0) IERC20(tokenIn).safeTransferFrom(walletOwner, address(this), amountIn);
        }
        return _execute(commands, state);
    }

    /// @notice Accepts native currency (the wallet holds its owner's funds).
    receive() external payable {}
}
