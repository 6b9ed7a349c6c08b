// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title BalanceReader
/// @notice Never deployed: the API sends its creation code in an `eth_call` (no `to`), and what
///         the constructor returns is the answer. It reads one account's balance of many tokens,
///         each `balanceOf` with the same gas budget and a 32-byte answer, so that a token whose
///         `balanceOf` reverts, loops or answers nonsense is reported as failed on its own
///         instead of failing the whole request (and with it every other token's balance).
/// @dev Returns `abi.encode(uint256 native, uint256[] amounts, uint256[] failures)`: the
///      holder's native balance, then per token its balance (0 when failed) and why it failed
///      (NONE, REVERTED, OUT_OF_GAS, NO_ANSWER, NOT_TRIED).
contract BalanceReader {
    uint256 internal constant NONE = 0;
    /// @dev The call reverted with gas to spare.
    uint256 internal constant REVERTED = 1;
    /// @dev The call used its whole budget (an infinite loop, a gas bomb).
    uint256 internal constant OUT_OF_GAS = 2;
    /// @dev The call succeeded with fewer than 32 bytes (no code there, or not a balance).
    uint256 internal constant NO_ANSWER = 3;
    /// @dev The reader itself had too little gas left to give the call its whole budget.
    uint256 internal constant NOT_TRIED = 4;
    /// @dev Gas kept back after each call for the loop and the answer's encoding.
    uint256 internal constant RESERVE = 20_000;

    constructor(address holder, address[] memory tokens, uint256 gasPerToken) {
        uint256[] memory amounts = new uint256[](tokens.length);
        uint256[] memory failures = new uint256[](tokens.length);
        for (uint256 i; i < tokens.length; ++i) {
            (amounts[i], failures[i]) = _balanceOf(tokens[i], holder, gasPerToken);
        }
        bytes memory answer = abi.encode(holder.balance, amounts, failures);
        assembly ("memory-safe") {
            return(add(answer, 0x20), mload(answer))
        }
    }

    function _balanceOf(address token, address holder, uint256 budget)
        private
        view
        returns (uint256 amount, uint256 failure)
    {
        // A call is given at most 63/64 of what is left: below this the budget would be cut short,
        // and a token reported failed only because earlier ones used the gas.
        if (gasleft() < budget + budget / 63 + RESERVE) return (0, NOT_TRIED);
        bool ok;
        uint256 size;
        uint256 used;
        assembly ("memory-safe") {
            let input := mload(0x40)
            // balanceOf(address)
            mstore(input, shl(224, 0x70a08231))
            mstore(add(input, 0x04), holder)
            let before := gas()
            // Only the first word is copied: a megabyte answer costs the token's budget, not ours.
            ok := staticcall(budget, token, input, 0x24, 0x00, 0x20)
            used := sub(before, gas())
            size := returndatasize()
            amount := mload(0x00)
        }
        if (!ok) return (0, used >= budget ? OUT_OF_GAS : REVERTED);
        if (size < 32) return (0, NO_ANSWER);
        return (amount, NONE);
    }
}
