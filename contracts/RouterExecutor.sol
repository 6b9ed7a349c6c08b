// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {assetBalanceOf, transferAsset} from "./Assets.sol";
import {CommandVM} from "./CommandVM.sol";
import {ProgramValues} from "./ProgramValues.sol";
import {UniswapV4Settlement} from "./UniswapV4Settlement.sol";

interface IUniswapV2PairSwap {
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}

/// @title RouterExecutor
/// @notice Runs the programs of ShortcutRouter. Only that router may start a program; between
///         transactions it holds no tokens, no native currency and no allowances (programs sweep
///         what they leave, and the router checks it; a program that ends with an ERC20 allowance
///         it granted still standing reverts here, and one that asks for any other kind of
///         allowance is refused at that command).
/// @dev Uniswap V3 pools, and the pools of its forks, are called directly by programs, so this
///      contract answers their swap callbacks (`uniswapV3SwapCallback`, and PancakeSwap's
///      `pancakeV3SwapCallback`), paying only a pool at the CREATE2 address derived from the
///      configured Uniswap V3 factory, or from a fork's pool deployer and pool init code hash
///      fixed at construction.
///      Uniswap V4 swaps go through {uniswapV4Swap}, settled in the configured pool manager's
///      unlock callback (UniswapV4Settlement), answered only while a program runs. It also
///      carries the ProgramValues helpers (view and pure), so programs reach them on an address
///      the transaction has already touched.
contract RouterExecutor is CommandVM, ProgramValues, UniswapV4Settlement {
    using SafeERC20 for IERC20;

    /// @dev keccak256 of the Uniswap V3 pool creation code; pool addresses derive from it.
    bytes32 public constant UNISWAP_V3_POOL_INIT_CODE_HASH =
        0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54;

    /// @notice The only caller allowed to run programs.
    address public immutable router;
    /// @notice The Uniswap V3 factory whose pools may call {uniswapV3SwapCallback}.
    address public immutable uniswapV3Factory;

    /// @notice A Uniswap V3 fork's pool deployer (the contract whose CREATE2 makes its pools:
    ///         the factory, or PancakeSwap's separate deployer) and its pools' init code hash.
    struct V3PoolDeployer {
        address deployer;
        bytes32 initCodeHash;
    }

    /// @notice The pool init code hash of each fork's pool deployer this executor pays pools
    ///         of, zero for any other address. Written by the constructor only.
    mapping(address deployer => bytes32 initCodeHash) public v3ForkInitCodeHash;

    /// @dev Set for the duration of {execute}; transient, so nothing survives the transaction.
    bool private transient executing;

    /// @dev Transient slot of the number of ERC20 `approve` calls the running program made; entry
    ///      i follows at slot + 1 + 2i (the token with the command index in its high 96 bits) and
    ///      slot + 2 + 2i (the spender). A hashed slot, apart from the compiler's transient layout.
    uint256 private constant APPROVALS_SLOT =
        uint256(keccak256("ShortcutRouter.RouterExecutor.approvals")) - 1;

    /// @dev ERC20 `approve(address,uint256)`: allowed (programs approve the contracts they call)
    ///      but recorded, and checked to be used up or reset when the program ends.
    bytes4 private constant APPROVE = 0x095ea7b3;
    /// @dev Other selectors that grant a third party rights over this executor's tokens. They are
    ///      refused outright: nothing a program needs, and no cheap check at the end would show
    ///      what they left (an operator, an ERC-721/1155 approval for all, a Permit2 allowance).
    bytes4 private constant INCREASE_ALLOWANCE = 0x39509351; // increaseAllowance(address,uint256)
    bytes4 private constant INCREASE_APPROVAL = 0xd73dd623; // increaseApproval(address,uint256)
    bytes4 private constant APPROVE_AND_CALL = 0xcae9ca51; // approveAndCall(address,uint256,bytes)
    bytes4 private constant SET_APPROVAL_FOR_ALL = 0xa22cb465; // ERC-721/1155, (address,bool)
    bytes4 private constant AUTHORIZE_OPERATOR = 0x959b8c3f; // ERC-777 authorizeOperator(address)
    bytes4 private constant PERMIT2_APPROVE = 0x87517c45; // approve(address,address,uint160,uint48)
    bytes4 private constant PERMIT2_PERMIT_SINGLE = 0x2b67b570; // permit(owner, PermitSingle, sig)
    bytes4 private constant PERMIT2_PERMIT_BATCH = 0x2a2d80d1; // permit(owner, PermitBatch, sig)
    bytes4 private constant ERC6909_APPROVE = 0x426a8493; // approve(address,uint256,uint256)
    bytes4 private constant ERC6909_SET_OPERATOR = 0x558a7297; // setOperator(address,bool)

    /// @notice `caller` is not the router.
    error NotRouter(address caller);
    /// @notice {sweep}, {uniswapV2Swap} or {uniswapV4Swap} was called by `caller`, not by a
    ///         program of this executor.
    error NotSelf(address caller);
    /// @notice A swap callback or native payment arrived while no program was running.
    error NotExecuting();
    /// @notice `caller` is not the V3 pool `expectedPool` that the callback data names.
    error UnexpectedCallbackCaller(address caller, address expectedPool);
    /// @notice The callback data names tokens that are not sorted as a pool's token0 < token1.
    error UnsortedCallbackTokens(address token0, address token1);
    /// @notice The callback data names `deployer`, which is not a fork's pool deployer this
    ///         executor was built to trust.
    error UntrustedPoolDeployer(address deployer);
    /// @notice The callback data is neither `(token0, token1, fee)` nor
    ///         `(token0, token1, fee, deployer)`.
    error InvalidCallbackData(uint256 length);
    /// @notice A fork's pool deployer given at construction is the zero address, has a zero init
    ///         code hash, or is given twice.
    error InvalidPoolDeployer(address deployer, bytes32 initCodeHash);
    /// @notice Command `commandIndex` calls `selector` on `target`, a function that would grant a
    ///         third party an allowance or operator rights over this executor's tokens.
    error AllowanceGrantRefused(uint256 commandIndex, address target, bytes4 selector);
    /// @notice The program ends with `allowance` of `token` still approved to `spender` by this
    ///         executor, granted by command `commandIndex`: approve exact amounts that the spender
    ///         uses up, or approve 0 before the end.
    error AllowanceLeft(uint256 commandIndex, address token, address spender, uint256 allowance);
    /// @notice `token`, approved to `spender` by command `commandIndex`, does not answer the ERC20
    ///         `allowance(owner, spender)`, so the program cannot show that nothing is left.
    error AllowanceUnreadable(uint256 commandIndex, address token, address spender);

    /// @param uniswapV3Factory_ Uniswap V3 factory (pools are trusted by CREATE2 address only).
    /// @param uniswapV4PoolManager_ Uniswap V4 pool manager, or address(0) on a chain without V4.
    /// @param v3ForkDeployers_ The pool deployers of the Uniswap V3 forks whose pools this
    ///        executor pays (by CREATE2 address only, as Uniswap's); empty for none.
    constructor(
        address uniswapV3Factory_,
        address uniswapV4PoolManager_,
        V3PoolDeployer[] memory v3ForkDeployers_
    ) UniswapV4Settlement(uniswapV4PoolManager_) {
        router = msg.sender;
        uniswapV3Factory = uniswapV3Factory_;
        for (uint256 i = 0; i < v3ForkDeployers_.length; ++i) {
            V3PoolDeployer memory d = v3ForkDeployers_[i];
            if (
                d.deployer == address(0) || d.initCodeHash == bytes32(0)
                    || v3ForkInitCodeHash[d.deployer] != bytes32(0)
            ) revert InvalidPoolDeployer(d.deployer, d.initCodeHash);
            v3ForkInitCodeHash[d.deployer] = d.initCodeHash;
        }
    }

    /// @notice Runs a program with the tokens the router has just sent here.
    /// @param commands The program's command words.
    /// @param state The program's initial state slots.
    /// @dev Reverts {AllowanceLeft} when an allowance the program granted is still standing at its
    ///      end. Refusing rather than resetting it: an exact approval used up by its spender costs
    ///      nothing more than one read, the executor makes no call the program did not ask for
    ///      (some tokens refuse or misbehave on `approve(spender, 0)`), and a program that leaves
    ///      an allowance is a planning mistake the simulation then names before anyone signs.
    function execute(bytes32[] calldata commands, bytes[] memory state) external payable {
        if (msg.sender != router) revert NotRouter(msg.sender);
        executing = true;
        _execute(commands, state);
        _requireNoAllowances();
        executing = false;
    }

    /// @notice Sends this executor's whole balance of `token` (NATIVE_TOKEN for native) to `to`.
    /// @dev Only a program of this executor can call it (a CALL command targeting this contract).
    /// @param token The token to sweep.
    /// @param to The recipient, normally the route's receiver.
    /// @return amount The amount sent (0 when there was nothing to sweep).
    function sweep(address token, address to) external returns (uint256 amount) {
        if (msg.sender != address(this)) revert NotSelf(msg.sender);
        amount = assetBalanceOf(token, address(this));
        if (amount != 0) transferAsset(token, to, amount);
    }

    /// @notice Swaps exactly `amountIn` of `tokenIn` held here on a Uniswap V2 (or fork) pair,
    ///         paying `recipient`: sends the input to the pair and asks for all it then owes.
    /// @dev Only a program of this executor can call it. One command instead of transfer, quote
    ///      and swap; the output follows from what the pair actually received (fee-on-transfer
    ///      safe), its reserves and its fee. A pair of other tokens, or a fee below the pair's
    ///      own, fails the pair's K check.
    /// @param pair The pair of tokenIn and tokenOut.
    /// @param tokenIn The token sent.
    /// @param tokenOut The token bought.
    /// @param amountIn The amount sold.
    /// @param recipient Who receives tokenOut (this executor, to chain further).
    /// @param feePpm The pair's swap fee in millionths of the input (3000 for Uniswap V2).
    /// @return amountOut The amount of tokenOut paid to `recipient`.
    function uniswapV2Swap(
        address pair,
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        address recipient,
        uint24 feePpm
    ) external returns (uint256 amountOut) {
        if (msg.sender != address(this)) revert NotSelf(msg.sender);
        IERC20(tokenIn).safeTransfer(pair, amountIn);
        amountOut = _uniswapV2AmountOut(pair, tokenIn, tokenOut, feePpm);
        (uint256 amount0Out, uint256 amount1Out) =
            tokenIn < tokenOut ? (uint256(0), amountOut) : (amountOut, uint256(0));
        IUniswapV2PairSwap(pair).swap(amount0Out, amount1Out, recipient, "");
    }

    /// @notice Swaps exactly `amountIn` held here on the Uniswap V4 pool of the given key,
    ///         paying `recipient` all the swap owes.
    /// @dev Only a program of this executor can call it. The input is paid from this executor's
    ///      balance (native currency included); reverts unless the swap took exactly `amountIn`
    ///      ({UniswapV4PartialFill}) and owes a positive output ({UniswapV4NoOutput}).
    /// @param currency0 The pool's currency0 (address(0) for native currency).
    /// @param currency1 The pool's currency1.
    /// @param fee The pool's LP fee (hundredths of a bip).
    /// @param tickSpacing The pool's tick spacing.
    /// @param hooks The pool's hooks contract (address(0) for none).
    /// @param zeroForOne Whether currency0 is sold for currency1.
    /// @param amountIn The amount sold.
    /// @param recipient Who receives the output (this executor, to chain further).
    /// @return amountOut The amount paid to `recipient`.
    function uniswapV4Swap(
        address currency0,
        address currency1,
        uint24 fee,
        int24 tickSpacing,
        address hooks,
        bool zeroForOne,
        uint256 amountIn,
        address recipient
    ) external returns (uint256 amountOut) {
        if (msg.sender != address(this)) revert NotSelf(msg.sender);
        return _swapOnUniswapV4(
            _poolKey(currency0, currency1, fee, tickSpacing, hooks),
            zeroForOne,
            amountIn,
            address(this),
            recipient
        );
    }

    /// @notice Pays a Uniswap V3 pool, or a fork's pool that runs Uniswap's contract, what a swap
    ///         started by a program owes it.
    /// @param amount0Delta Amount of token0 owed to the pool when positive.
    /// @param amount1Delta Amount of token1 owed to the pool when positive.
    /// @param data `abi.encode(token0, token1, fee)` of a Uniswap V3 pool, or
    ///        `abi.encode(token0, token1, fee, deployer)` of a fork's, as put in the swap call.
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data)
        external
    {
        _payV3Pool(amount0Delta, amount1Delta, data);
    }

    /// @notice Pays a PancakeSwap V3 pool (or a pool of another fork running its contract) what
    ///         a swap started by a program owes it.
    /// @param amount0Delta Amount of token0 owed to the pool when positive.
    /// @param amount1Delta Amount of token1 owed to the pool when positive.
    /// @param data `abi.encode(token0, token1, fee, deployer)`, as put in the swap call.
    function pancakeV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data)
        external
    {
        _payV3Pool(amount0Delta, amount1Delta, data);
    }

    /// @dev Pays the caller only when it is the pool the data names: the CREATE2 address of the
    ///      Uniswap V3 factory (96-byte data) or of a trusted fork deployer (128-byte data) with
    ///      the salt of the sorted tokens and fee. Whatever the data claims, only a contract
    ///      created by that deployer from that init code can sit at that address.
    function _payV3Pool(int256 amount0Delta, int256 amount1Delta, bytes calldata data) private {
        address deployer;
        bytes32 initCodeHash;
        if (data.length == 96) {
            deployer = uniswapV3Factory;
            initCodeHash = UNISWAP_V3_POOL_INIT_CODE_HASH;
        } else if (data.length == 128) {
            deployer = abi.decode(data[96:], (address));
            initCodeHash = v3ForkInitCodeHash[deployer];
            if (initCodeHash == bytes32(0)) revert UntrustedPoolDeployer(deployer);
        } else {
            revert InvalidCallbackData(data.length);
        }
        (address token0, address token1, uint24 fee) =
            abi.decode(data[:96], (address, address, uint24));
        if (token0 >= token1) revert UnsortedCallbackTokens(token0, token1);
        address pool = address(
            uint160(
                uint256(
                    keccak256(
                        abi.encodePacked(
                            hex"ff", deployer, keccak256(abi.encode(token0, token1, fee)), initCodeHash
                        )
                    )
                )
            )
        );
        if (msg.sender != pool) revert UnexpectedCallbackCaller(msg.sender, pool);
        if (!executing) revert NotExecuting();
        if (amount0Delta > 0) IERC20(token0).safeTransfer(msg.sender, uint256(amount0Delta));
        if (amount1Delta > 0) IERC20(token1).safeTransfer(msg.sender, uint256(amount1Delta));
    }

    /// @dev Refuses the allowance-granting selectors other than ERC20 `approve`, and records each
    ///      `approve` (token and spender) for {_requireNoAllowances}.
    function _beforeCall(uint256 commandIndex, address target, bytes4 selector, bytes memory data)
        internal
        override
    {
        if (
            selector == INCREASE_ALLOWANCE || selector == INCREASE_APPROVAL
                || selector == APPROVE_AND_CALL || selector == SET_APPROVAL_FOR_ALL
                || selector == AUTHORIZE_OPERATOR || selector == PERMIT2_APPROVE
                || selector == PERMIT2_PERMIT_SINGLE || selector == PERMIT2_PERMIT_BATCH
                || selector == ERC6909_APPROVE || selector == ERC6909_SET_OPERATOR
        ) revert AllowanceGrantRefused(commandIndex, target, selector);
        if (selector != APPROVE) return;
        // The spender is the first argument; a shorter calldata fails in the token anyway.
        address spender;
        if (data.length >= 36) {
            assembly ("memory-safe") {
                // data + 32 (length word) + 4 (selector) is the first argument's word; the token
                // reads the low 20 bytes of it, as does this cast.
                spender := and(mload(add(data, 36)), 0xffffffffffffffffffffffffffffffffffffffff)
            }
        }
        uint256 slot = APPROVALS_SLOT;
        assembly ("memory-safe") {
            // Append (commandIndex ‖ token, spender) after the count, then bump the count. The
            // target is masked: an address in assembly may carry dirty high bits (here, the rest
            // of the command word it was cut from).
            let count := tload(slot)
            let entry := add(add(slot, 1), shl(1, count))
            tstore(entry, or(shl(160, commandIndex), and(target, 0xffffffffffffffffffffffffffffffffffffffff)))
            tstore(add(entry, 1), spender)
            tstore(slot, add(count, 1))
        }
    }

    /// @dev Reverts unless every allowance recorded by {_beforeCall} is zero now, then forgets
    ///      them (transient storage lasts the whole transaction, not one program). Only
    ///      {execute} calls it, after the program: no command runs in between.
    function _requireNoAllowances() private {
        uint256 slot = APPROVALS_SLOT;
        uint256 count;
        assembly ("memory-safe") {
            count := tload(slot)
        }
        // Latest first, so that a standing allowance is blamed on the last `approve` that set it.
        for (uint256 i = count; i != 0;) {
            --i;
            uint256 first;
            address spender;
            assembly ("memory-safe") {
                let entry := add(add(slot, 1), shl(1, i))
                first := tload(entry)
                spender := tload(add(entry, 1))
            }
            address token = address(uint160(first));
            uint256 commandIndex = first >> 160;
            (bool ok, bytes memory answer) =
                token.staticcall(abi.encodeCall(IERC20.allowance, (address(this), spender)));
            if (!ok || answer.length < 32) revert AllowanceUnreadable(commandIndex, token, spender);
            uint256 allowance = abi.decode(answer, (uint256));
            if (allowance != 0) revert AllowanceLeft(commandIndex, token, spender, allowance);
        }
        assembly ("memory-safe") {
            tstore(slot, 0)
        }
    }

    /// @dev The pool manager's callback is answered only while a program runs.
    function _checkUniswapV4Callback() internal view override {
        if (!executing) revert NotExecuting();
    }

    /// @notice Accepts native currency only while a program runs (e.g. from unwrapping WETH, or
    ///         a Uniswap V4 swap's native output).
    receive() external payable {
        if (!executing) revert NotExecuting();
    }
}
