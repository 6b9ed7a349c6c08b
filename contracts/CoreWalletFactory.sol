// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {CoreWallet} from "./CoreWallet.sol";

/// @title CoreWalletFactory
/// @notice Deploys each owner's CoreWallet at a CREATE2 address derived from the owner (salt =
///         the owner's address, clone argument = the owner), and runs a first program in it.
contract CoreWalletFactory {
    /// @notice The CoreWallet implementation every wallet clone delegates to.
    address public immutable implementation;

    /// @notice `owner`'s wallet was deployed at `wallet`.
    event WalletDeployed(address indexed owner, address wallet);

    constructor() {
        implementation = address(new CoreWallet());
    }

    /// @notice The address of `owner`'s wallet, deployed or not.
    /// @param owner The wallet owner.
    /// @return The CREATE2 address of the wallet.
    function walletOf(address owner) public view returns (address) {
        return Clones.predictDeterministicAddressWithImmutableArgs(
            implementation, abi.encodePacked(owner), _salt(owner)
        );
    }

    /// @notice Deploys `owner`'s wallet unless it exists. Anyone may pay for it: the wallet only
    ///         ever runs programs for `owner`.
    /// @param owner The wallet owner.
    /// @return wallet The wallet address.
    function deployWallet(address owner) public returns (address wallet) {
        wallet = walletOf(owner);
        if (wallet.code.length == 0) {
            Clones.cloneDeterministicWithImmutableArgs(
                implementation, abi.encodePacked(owner), _salt(owner)
            );
            emit WalletDeployed(owner, wallet);
        }
    }

    /// @notice Deploys the caller's wallet if needed, then runs a program in it with its input:
    ///         `amountIn` of an ERC20 the caller approved to the wallet (pulled by the wallet), or
    ///         `amountIn` of native currency sent with this call (tokenIn = NATIVE_TOKEN).
    /// @param tokenIn The input token, NATIVE_TOKEN, or any token with amountIn 0.
    /// @param amountIn tokenInAmountToApprove (ERC20) or tokenInAmountToTransfer (native).
    /// @param commands The program's command words.
    /// @param state The program's initial state slots.
    /// @return wallet The caller's wallet.
    /// @return finalState The program's final state slots.
    function deployAndExecute(
        address tokenIn,
        uint256 amountIn,
        bytes32[] calldata commands,
        bytes[] calldata state
    ) external payable returns (address wallet, bytes[] memory finalState) {
        wallet = deployWallet(msg.sender);
        finalState =
            CoreWallet(payable(wallet)).executeShortcut{value: msg.value}(tokenIn, amountIn, commands, state);
    }

    function _salt(address owner) private pure returns (bytes32) {
        return bytes32(uint256(uint160(owner)));
    }
}
