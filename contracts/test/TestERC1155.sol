// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// @title TestERC1155
/// @notice Test-only ERC-1155 (OpenZeppelin's): anyone may mint, to test `safeTransferFrom` and
///         `safeBatchTransferFrom` to delegated accounts.
contract TestERC1155 is ERC1155 {
    constructor() ERC1155("") {}

    /// @notice Mints `amount` of token `id` to `to`, which must accept it if it is a contract
    ///         (test token).
    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }
}
