// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title EnvironmentProbe
/// @notice Test-only: records what a contract can read of the transaction and block it runs
///         in, so that a simulated run can be compared with the same call mined for real.
contract EnvironmentProbe {
    /// @notice What one call saw.
    struct Seen {
        uint256 gasPrice;
        uint256 baseFee;
        address origin;
        address sender;
        uint256 number;
        uint256 timestamp;
        address coinbase;
        uint256 prevrandao;
        uint256 gasLimit;
        uint256 chainId;
        uint256 blobBaseFee;
        uint256 originBalance;
    }

    /// @notice Emitted by `record` with everything it saw.
    event Recorded(Seen seen);

    /// @notice Everything the caller's transaction and block show, logged and returned.
    function record() external returns (Seen memory seen) {
        seen = Seen({
            gasPrice: tx.gasprice,
            baseFee: block.basefee,
            origin: tx.origin,
            sender: msg.sender,
            number: block.number,
            timestamp: block.timestamp,
            coinbase: block.coinbase,
            prevrandao: block.prevrandao,
            gasLimit: block.gaslimit,
            chainId: block.chainid,
            blobBaseFee: block.blobbasefee,
            originBalance: tx.origin.balance
        });
        emit Recorded(seen);
    }
}
