// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title GasBurningBalanceToken
/// @notice Test-only: an ERC20 whose `balanceOf` spends all the gas it is given.
contract GasBurningBalanceToken {
    string public constant name = "Gas Burner";
    string public constant symbol = "BURN";
    uint8 public constant decimals = 18;

    function balanceOf(address) external view returns (uint256) {
        uint256 x = block.number;
        while (x != 0) {
            x = uint256(keccak256(abi.encode(x))) | 1;
        }
        return x;
    }
}

/// @title WideBalanceToken
/// @notice Test-only: an ERC20 whose `balanceOf` reads `width` storage words before the
///         holder's balance, which it keeps at a namespaced location (no `mapping` slot number
///         below 64), so that each holder's balance word is a key of its own.
contract WideBalanceToken {
    string public constant name = "Wide";
    string public constant symbol = "WIDE";
    uint8 public constant decimals = 18;
    uint256 public immutable width;
    bytes32 private constant BALANCES = keccak256("wide.balances");

    constructor(uint256 width_) {
        width = width_;
    }

    function _balanceKey(address account) private pure returns (bytes32) {
        return keccak256(abi.encode(account, BALANCES));
    }

    function mint(address to, uint256 amount) external {
        bytes32 key = _balanceKey(to);
        assembly {
            sstore(key, add(sload(key), amount))
        }
    }

    function balanceOf(address account) external view returns (uint256 amount) {
        uint256 noise;
        for (uint256 i; i < width; ++i) {
            assembly {
                noise := add(noise, sload(add(0x1000, i)))
            }
        }
        // The words read change nothing of the answer: no one of them is the balance.
        require(noise != type(uint256).max, "noise");
        bytes32 key = _balanceKey(account);
        assembly {
            amount := sload(key)
        }
    }
}
