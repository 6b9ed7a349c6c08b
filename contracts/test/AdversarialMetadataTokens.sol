// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title LongNameToken
/// @notice Test-only: a token whose `name()` is a `string` of `nameLength` NUL bytes. Past the
///         metadata readers' size cap it is unreadable; at a megabyte it costs more gas to return
///         than a read's budget.
contract LongNameToken {
    string public constant symbol = "LONG";
    uint8 public constant decimals = 18;
    uint256 public immutable nameLength;

    constructor(uint256 nameLength_) {
        nameLength = nameLength_;
    }

    function name() external view returns (string memory) {
        return string(new bytes(nameLength));
    }
}

/// @title GasBombMetadataToken
/// @notice Test-only: every call to it (`name()`, `symbol()`, `decimals()`, anything) spends all
///         the gas it is given: the most a metadata read can cost.
contract GasBombMetadataToken {
    fallback() external {
        uint256 x = block.number;
        while (x != 0) {
            x = uint256(keccak256(abi.encode(x))) | 1;
        }
    }
}
