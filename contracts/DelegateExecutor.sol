// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC1155Receiver} from "@openzeppelin/contracts/token/ERC1155/IERC1155Receiver.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {CommandVM} from "./CommandVM.sol";

/// @title DelegateExecutor
/// @notice The command VM for the `delegate` strategy: a smart wallet DELEGATECALLs {execute} (or
///         an EIP-7702 account points its code here and calls itself), so the program's calls are
///         made by that account. It has no storage and refuses to run in its own context.
/// @dev An EIP-7702 account delegating straight to this contract would otherwise let anyone run
///      programs as that account, so in that case only the account itself may call. Such an
///      account has no other code, so this contract also gives it what an account is expected to
///      answer: the ERC-721 and ERC-1155 receiver hooks (so `safeTransferFrom` to it works), ERC-165
///      and ERC-1271 for signatures by the account's own key.
contract DelegateExecutor is CommandVM, IERC721Receiver, IERC1155Receiver, IERC1271 {
    /// @dev This contract's own address, to tell a direct call from a delegated one.
    address private immutable self;

    /// @dev ERC-1271's answer for a signature that is not valid for this account.
    bytes4 private constant INVALID_SIGNATURE = 0xffffffff;

    /// @notice The executor was called directly rather than through DELEGATECALL or EIP-7702.
    error DirectCallNotAllowed();
    /// @notice An EIP-7702 account delegating here was called by `caller`, not by itself.
    error UnauthorizedCaller(address caller);

    constructor() {
        self = address(this);
    }

    /// @dev Reverts in this contract's own context, where tokens or native currency would be stuck
    ///      and no key stands behind the address.
    modifier notInOwnContext() {
        if (address(this) == self) revert DirectCallNotAllowed();
        _;
    }

    /// @notice Runs a program as the calling account (under DELEGATECALL or EIP-7702).
    /// @param commands The program's command words.
    /// @param state The program's initial state slots.
    /// @return The final state slots.
    function execute(bytes32[] calldata commands, bytes[] memory state)
        external
        payable
        notInOwnContext
        returns (bytes[] memory)
    {
        if (msg.sender != address(this) && _delegatesHereByEip7702()) {
            revert UnauthorizedCaller(msg.sender);
        }
        return _execute(commands, state);
    }

    /// @notice Lets the delegating account receive native currency (e.g. from unwrapping WETH);
    ///         refused in this contract's own context, where it would be stuck.
    receive() external payable notInOwnContext {}

    /// @notice Accepts any ERC-721 token sent to the delegating account with `safeTransferFrom`;
    ///         refused in this contract's own context, where it would be stuck.
    /// @return The selector of this function, as ERC-721 requires to accept the token.
    function onERC721Received(address, address, uint256, bytes calldata)
        external
        view
        notInOwnContext
        returns (bytes4)
    {
        return IERC721Receiver.onERC721Received.selector;
    }

    /// @notice Accepts any ERC-1155 token sent to the delegating account with `safeTransferFrom`;
    ///         refused in this contract's own context, where it would be stuck.
    /// @return The selector of this function, as ERC-1155 requires to accept the tokens.
    function onERC1155Received(address, address, uint256, uint256, bytes calldata)
        external
        view
        notInOwnContext
        returns (bytes4)
    {
        return IERC1155Receiver.onERC1155Received.selector;
    }

    /// @notice Accepts any ERC-1155 tokens sent to the delegating account with
    ///         `safeBatchTransferFrom`; refused in this contract's own context.
    /// @return The selector of this function, as ERC-1155 requires to accept the tokens.
    function onERC1155BatchReceived(
        address,
        address,
        uint256[] calldata,
        uint256[] calldata,
        bytes calldata
    ) external view notInOwnContext returns (bytes4) {
        return IERC1155Receiver.onERC1155BatchReceived.selector;
    }

    /// @notice ERC-165: true for IERC165, IERC721Receiver, IERC1155Receiver and IERC1271; refused
    ///         in this contract's own context, which receives nothing and validates nothing.
    /// @param interfaceId The ERC-165 interface id asked about.
    /// @return Whether the delegating account implements that interface.
    function supportsInterface(bytes4 interfaceId)
        external
        view
        notInOwnContext
        returns (bool)
    {
        return interfaceId == type(IERC165).interfaceId
            || interfaceId == type(IERC721Receiver).interfaceId
            || interfaceId == type(IERC1155Receiver).interfaceId
            || interfaceId == type(IERC1271).interfaceId;
    }

    /// @notice ERC-1271: valid when the running account is an EIP-7702 account delegating here and
    ///         `signature` is its own key's 65-byte ECDSA signature of `hash` (`r ‖ s ‖ v`, low `s`,
    ///         `v` 27 or 28), i.e. exactly what would be accepted from the account before it
    ///         delegated. Never reverts for a bad signature; refused in this contract's own context.
    /// @dev A smart wallet that DELEGATECALLs {execute} checks signatures itself; should a call
    ///      reach this function in such a wallet's context, the answer is `0xffffffff`, as there is
    ///      no key behind the wallet's address.
    /// @param hash The hash that was signed.
    /// @param signature The signature to check.
    /// @return `0x1626ba7e` when valid, otherwise `0xffffffff`.
    function isValidSignature(bytes32 hash, bytes calldata signature)
        external
        view
        notInOwnContext
        returns (bytes4)
    {
        if (!_delegatesHereByEip7702()) return INVALID_SIGNATURE;
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hash, signature);
        if (err != ECDSA.RecoverError.NoError || signer != address(this)) {
            return INVALID_SIGNATURE;
        }
        return IERC1271.isValidSignature.selector;
    }

    /// @dev True when the running account's code is the EIP-7702 designator 0xef0100 ‖ self.
    function _delegatesHereByEip7702() private view returns (bool) {
        if (address(this).code.length != 23) return false;
        bytes32 code;
        assembly ("memory-safe") {
            // Load the 23-byte designator into the high bytes of a zeroed scratch word.
            mstore(0, 0)
            extcodecopy(address(), 0, 0, 23)
            code := mload(0)
        }
        return code == bytes32(abi.encodePacked(hex"ef0100", self));
    }
}
