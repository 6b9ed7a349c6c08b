// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @title TestERC721
/// @notice Test-only ERC-721 (OpenZeppelin's): anyone may mint, to test `safeTransferFrom` to
///         delegated accounts.
contract TestERC721 is ERC721 {
    constructor() ERC721("Test NFT", "TNFT") {}

    /// @notice Mints token `tokenId` to `to` without the receiver check (test token).
    function mint(address to, uint256 tokenId) external {
        _mint(to, tokenId);
    }
}
