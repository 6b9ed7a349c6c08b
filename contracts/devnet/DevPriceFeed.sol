// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DevPriceFeed
/// @notice A Chainlink-style USD price feed for the local devnet: 8 decimals, one answer that its
///         owner sets. Aave's oracle reads `latestAnswer`; `latestRoundData` serves readers of
///         Chainlink's newer interface. Any answer is taken, zero and negative ones included, so
///         that a devnet can show how its readers treat a broken feed.
contract DevPriceFeed {
    /// @notice Emitted on every new answer, as Chainlink aggregators do.
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    error NotOwner(address caller);

    /// @notice Decimals of every answer (Chainlink's USD feeds have 8).
    uint8 public constant decimals = 8;

    /// @notice The only account that may set the answer: the deployer.
    address public immutable owner;

    /// @notice What the feed prices, such as "WETH / USD".
    string public description;

    /// @notice The current answer, in units of 10^-8 USD.
    int256 public latestAnswer;

    /// @notice When the current answer was set.
    uint256 public latestTimestamp;

    /// @notice The current round: 1 for the constructor's answer, one more per update.
    uint256 public latestRound;

    constructor(string memory description_, int256 answer) {
        owner = msg.sender;
        description = description_;
        _setAnswer(answer);
    }

    /// @notice Sets a new answer, starting a new round; only the owner may.
    function setAnswer(int256 answer) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _setAnswer(answer);
    }

    /// @notice The current round as Chainlink's `AggregatorV3Interface` returns it.
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        // Rounds count from 1 and never reach 2^80.
        roundId = uint80(latestRound);
        return (roundId, latestAnswer, latestTimestamp, latestTimestamp, roundId);
    }

    function _setAnswer(int256 answer) private {
        latestAnswer = answer;
        latestTimestamp = block.timestamp;
        latestRound += 1;
        emit AnswerUpdated(answer, latestRound, block.timestamp);
    }
}
