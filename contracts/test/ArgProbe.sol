// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title ArgProbe
/// @notice Test-only call target with static, dynamic, tuple, payable and failing functions.
contract ArgProbe {
    error ProbeFailed(uint256 code, address caller);

    event Paid(address from, uint256 value, uint256 tag);

    /// @notice Sum of eight arguments (needs an extended command).
    function sum8(
        uint256 a,
        uint256 b,
        uint256 c,
        uint256 d,
        uint256 e,
        uint256 f,
        uint256 g,
        uint256 h
    ) external pure returns (uint256) {
        return a + b + c + d + e + f + g + h;
    }

    /// @notice Weighted sum of seven arguments, so that argument order matters.
    function weighted7(
        uint256 a,
        uint256 b,
        uint256 c,
        uint256 d,
        uint256 e,
        uint256 f,
        uint256 g
    ) external pure returns (uint256) {
        return a + 10 * b + 100 * c + 1_000 * d + 10_000 * e + 100_000 * f + 1_000_000 * g;
    }

    /// @notice Adds two numbers.
    function add(uint256 a, uint256 b) external pure returns (uint256) {
        return a + b;
    }

    /// @notice Concatenates two byte strings (dynamic in, dynamic out).
    function concat(bytes calldata a, bytes calldata b) external pure returns (bytes memory) {
        return bytes.concat(a, b);
    }

    /// @notice Sum of an array.
    function sumArray(uint256[] calldata values) external pure returns (uint256 total) {
        for (uint256 i; i < values.length; ++i) total += values[i];
    }

    /// @notice [start, start+1, …] of length n (dynamic array out).
    function range(uint256 start, uint256 n) external pure returns (uint256[] memory values) {
        values = new uint256[](n);
        for (uint256 i; i < n; ++i) values[i] = start + i;
    }

    /// @notice Greets (string in, string out).
    function greet(string calldata name) external pure returns (string memory) {
        return string.concat("hello ", name);
    }

    /// @notice A two-word tuple return.
    function pair(uint256 a) external pure returns (uint256, uint256) {
        return (a, a * 2);
    }

    /// @notice Hash of mixed static and dynamic arguments, to check their exact encoding.
    function mixed(uint256 a, bytes calldata b, uint256 c, uint256[] calldata d)
        external
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(a, b, c, d));
    }

    /// @notice Keeps the value sent and returns it.
    function pay(uint256 tag) external payable returns (uint256) {
        emit Paid(msg.sender, msg.value, tag);
        return msg.value;
    }

    /// @notice Reverts with a reason string.
    function failWithReason(string calldata reason) external pure {
        revert(reason);
    }

    /// @notice Reverts with a custom error.
    function failWithCode(uint256 code) external view {
        revert ProbeFailed(code, msg.sender);
    }

    /// @notice Returns nothing.
    function noop() external {}
}
