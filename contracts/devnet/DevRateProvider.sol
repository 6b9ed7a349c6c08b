// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DevRateProvider
/// @notice A Balancer `IRateProvider` for the local devnet: the value of one token in another
///         (a staked-ETH token in ETH), 18 decimals, set by the deployer to simulate yield.
contract DevRateProvider {
    error NotOwner(address caller);

    event RateUpdated(uint256 rate);

    address public immutable owner;
    uint256 private _rate;

    constructor(uint256 initialRate) {
        owner = msg.sender;
        _rate = initialRate;
        emit RateUpdated(initialRate);
    }

    /// @notice The current rate, 18 decimals (`IRateProvider.getRate`).
    function getRate() external view returns (uint256) {
        return _rate;
    }

    /// @notice Sets the rate; only the deployer may.
    function setRate(uint256 rate) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _rate = rate;
        emit RateUpdated(rate);
    }
}
