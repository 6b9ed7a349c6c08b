// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title BareToken
/// @notice Test-only ERC20 core without metadata: each token of this file adds the `name`,
///         `symbol` and `decimals` (or their absence) and the transfer behaviour of a kind of
///         token that real chains hold. The deployer mints.
abstract contract BareToken {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    address public immutable minter = msg.sender;
    uint256 public totalSupply;
    mapping(address => uint256) internal _balances;
    mapping(address => mapping(address => uint256)) public allowance;

    function balanceOf(address account) public view virtual returns (uint256) {
        return _balances[account];
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "not minter");
        totalSupply += amount;
        _balances[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function _approve(address owner, address spender, uint256 amount) internal {
        allowance[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }

    function _spend(address from, uint256 amount) internal {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "allowance");
            allowance[from][msg.sender] = allowed - amount;
        }
    }

    /// @dev Moves `amount` (as the holder sees it) from `from` to `to`.
    function _move(address from, address to, uint256 amount) internal virtual {
        require(_balances[from] >= amount, "balance");
        _balances[from] -= amount;
        _balances[to] += amount;
        emit Transfer(from, to, amount);
    }
}

/// @notice A standard ERC20 (returns true) on top of BareToken.
abstract contract StandardBareToken is BareToken {
    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spend(from, amount);
        _move(from, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }
}

/// @notice USDT-style: `transfer`, `transferFrom` and `approve` return nothing, and `approve`
///         from a non-zero allowance to another non-zero allowance reverts.
contract UsdtStyleToken is BareToken {
    string public constant name = "Tether USD";
    string public constant symbol = "USDT";
    uint8 public constant decimals = 6;

    function transfer(address to, uint256 amount) external {
        _move(msg.sender, to, amount);
    }

    function transferFrom(address from, address to, uint256 amount) external {
        _spend(from, amount);
        _move(from, to, amount);
    }

    function approve(address spender, uint256 amount) external {
        require(amount == 0 || allowance[msg.sender][spender] == 0, "approve from non-zero");
        _approve(msg.sender, spender, amount);
    }
}

/// @notice MKR-style: `name` and `symbol` are `bytes32`.
contract Bytes32MetadataToken is StandardBareToken {
    bytes32 public constant name = "Maker";
    bytes32 public constant symbol = "MKR";
    uint8 public constant decimals = 18;
}

/// @notice A `string` name and symbol holding NUL bytes and bytes that are not UTF-8.
contract OddTextToken is StandardBareToken {
    uint8 public constant decimals = 18;

    function name() external pure returns (string memory) {
        bytes memory raw = hex"4e756c00546f6b656e00ff20fe";
        return string(raw);
    }

    function symbol() external pure returns (string memory) {
        bytes memory raw = hex"4e554c00c3";
        return string(raw);
    }
}

/// @notice A token whose `decimals()` reverts.
contract RevertingDecimalsToken is StandardBareToken {
    string public constant name = "No Decimals";
    string public constant symbol = "NODEC";

    function decimals() external pure returns (uint8) {
        revert("no decimals");
    }
}

/// @notice A token with 0 decimals.
contract ZeroDecimalsToken is StandardBareToken {
    string public constant name = "Whole Unit";
    string public constant symbol = "WHOLE";
    uint8 public constant decimals = 0;
}

/// @notice A token whose `symbol()` costs more gas than any block allows.
contract GasBombSymbolToken is StandardBareToken {
    string public constant name = "Gas Bomb";
    uint8 public constant decimals = 18;

    function symbol() external view returns (string memory) {
        uint256 x = block.number;
        while (x != 0) {
            x = uint256(keccak256(abi.encode(x))) | 1;
        }
        return "BOMB";
    }
}

/// @notice Fee-on-transfer: 1% of every transfer is burnt.
contract FeeOnTransferToken is StandardBareToken {
    string public constant name = "Fee Token";
    string public constant symbol = "FEE";
    uint8 public constant decimals = 18;

    function _move(address from, address to, uint256 amount) internal override {
        uint256 fee = amount / 100;
        require(_balances[from] >= amount, "balance");
        _balances[from] -= amount;
        _balances[to] += amount - fee;
        totalSupply -= fee;
        emit Transfer(from, to, amount - fee);
        emit Transfer(from, address(0), fee);
    }
}

/// @notice Rebasing: balances are shares times an index that the minter raises without an
///         event (as a rebase does), so every holder's balance grows at once.
contract RebasingToken is StandardBareToken {
    string public constant name = "Rebasing Token";
    string public constant symbol = "REBASE";
    uint8 public constant decimals = 18;
    uint256 public index = 1e18;

    function balanceOf(address account) public view override returns (uint256) {
        return (_balances[account] * index) / 1e18;
    }

    /// @notice Multiplies every balance by `factorWad` / 1e18; emits nothing.
    function rebase(uint256 factorWad) external {
        require(msg.sender == minter, "not minter");
        index = (index * factorWad) / 1e18;
    }

    function _move(address from, address to, uint256 amount) internal override {
        uint256 shares = (amount * 1e18) / index;
        require(_balances[from] >= shares, "balance");
        _balances[from] -= shares;
        _balances[to] += shares;
        emit Transfer(from, to, amount);
    }
}
